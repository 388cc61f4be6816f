"""End-to-end compilation: every example compiles; thresholds come from the models; limits,
infeasible designs and capability gaps are reported with the numbers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.errors import QosforgeError
from qosforge.models.dctcp import dctcp_marking_threshold
from qosforge.models.dynamic_threshold import dynamic_threshold_share
from qosforge.models.tlt import tlt_headroom

Writer = Callable[..., Path]
EXAMPLES = sorted(p for p in (Path(__file__).resolve().parents[2] / "examples").glob("*.yaml") if not p.name.endswith(".traffic.yaml"))  # intents, not traffic files

#: broadcom-trident2 buffer_bytes: SONiC's Trident II pool size (vendor_profiles/broadcom-trident2.yaml).
TD2_BUFFER_BYTES = 12_766_208


def compile_file(path: Path, **kwargs: object):  # type: ignore[no-untyped-def]
    intent, source_map = load_intent(path)
    return compile_intent(intent, source_map, **kwargs)  # type: ignore[arg-type]


def test_there_are_five_examples() -> None:
    assert {p.stem for p in EXAMPLES} >= {"tlt-simulation", "tlt-testbed", "tbtcp-testbed", "roce-pod", "mixed-fabric"}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_compiles_and_fits_the_buffer(example: Path) -> None:
    fabric = compile_file(example)
    assert fabric.switches
    for switch in fabric.switches:
        headroom = sum(p.reserved_bytes.value for p in switch.buffer_profiles for port in switch.ports for g in port.priority_groups if g.buffer_profile == p.name and g.lossless)
        for pool in switch.pools:
            assert pool.size_bytes.value + headroom <= switch.buffer_bytes.value
        for wred in switch.wred_profiles:
            for curve in wred.curves:
                assert 0 < curve.min_bytes.value <= curve.max_bytes.value < 2**31
                assert 0 <= curve.probability_percent.value <= 100


def test_dctcp_threshold_is_the_model_value(write_intent: Writer, base_intent: str) -> None:
    fabric = compile_file(write_intent(base_intent))
    switch = fabric.switches[0]
    bulk = next(c for c in switch.classes if c.name == "bulk")
    expected = dctcp_marking_threshold(40e9, bulk.rtt_s.value, 1500.0, 64_000.0).threshold_bytes
    curve = switch.wred_profiles[0].curve("green")
    assert curve is not None and curve.mark and not curve.drop
    assert curve.min_bytes.value == curve.max_bytes.value == pytest.approx(expected)
    assert curve.min_bytes.provenance.model == "dctcp_marking_threshold"


def test_identical_switches_share_one_plan(write_intent: Writer, base_intent: str) -> None:
    fabric = compile_file(write_intent(base_intent))
    leaves = [s for s in fabric.switches if s.name.startswith("leaf")]
    assert len(leaves) == 3
    assert all(leaf.wred_profiles is leaves[0].wred_profiles for leaf in leaves)
    assert all(leaf.pools is leaves[0].pools for leaf in leaves)


def test_lossless_class_gets_pfc_priority_pg_and_headroom(write_intent: Writer, base_intent: str) -> None:
    text = base_intent + "  - {name: rdma, transport: dcqcn, dscp: [26], lossless: true}\n"
    switch = compile_file(write_intent(text)).switches[0]
    rdma = next(c for c in switch.classes if c.name == "rdma")
    assert rdma.lossless and rdma.traffic_class == 3 and rdma.priority_group == 3
    assert switch.maps.pfc_priority_to_queue == ((3, 3),)
    port = switch.ports[0]
    assert port.pfc_priorities == (3,)
    lossless_pg = next(g for g in port.priority_groups if g.lossless)
    profile = switch.profile(lossless_pg.buffer_profile)
    assert profile.xoff_bytes is not None and profile.xoff_bytes.value > 0
    assert profile.xoff_bytes.provenance.model.startswith(("pfc_headroom", "sonic_headroom"))
    assert dict(switch.maps.dscp_to_tc)[26] == 3
    assert dict(switch.maps.dscp_to_tc)[63] == 0
    assert switch.pfc_watchdog is not None and switch.pfc_watchdog.detection_ms == 200


def test_tlt_capacity_matches_the_model_and_gap_is_reported(write_intent: Writer, base_intent: str) -> None:
    text = base_intent.replace("    dscp: [10]\n", "    dscp: [10]\n    tlt: {important_dscp: [11]}\n")
    path = write_intent(text)
    with pytest.raises(QosforgeError, match="SONiC config_db cannot express") as caught:
        compile_file(path)
    assert "SAI" in caught.value.message and "tlt-without-color" in caught.value.message
    fabric = compile_file(path, accepted_approximations=("tlt-without-color",))
    assert fabric.switches[0].gaps == ()  # the full plan carries no target's gaps
    switch = fabric.for_target("sonic")[0]
    assert [g.approximation for g in switch.gaps] == ["tlt-without-color"]
    assert [g.approximation for g in fabric.gaps(switch.name)] == ["tlt-without-color"]
    assert all(color == "green" for _, color in switch.maps.dscp_to_color)
    assert all(c.color == "green" for w in switch.wred_profiles for c in w.curves)


def test_tlt_full_plan_has_color_drop_whatever_the_sonic_view_loses(write_intent: Writer, base_intent: str) -> None:
    text = base_intent.replace("    dscp: [10]\n", "    dscp: [10]\n    tlt: {important_dscp: [11]}\n")
    intent, source_map = load_intent(write_intent(text))
    fabric = compile_intent(intent, source_map, accepted_approximations=("tlt-without-color",))
    assert fabric.for_target("sonic")[0].wred_profiles[0].curve("red") is None
    switch = fabric.switches[0]
    assert dict(switch.maps.dscp_to_color)[10] == "red" and dict(switch.maps.dscp_to_color)[11] == "green"
    red = switch.wred_profiles[0].curve("red")
    assert red is not None and red.drop and red.probability_percent.value == 100
    bulk = next(c for c in switch.classes if c.name == "bulk")
    assert bulk.tlt_threshold_bytes is not None
    assert bulk.tlt_threshold_bytes.value == pytest.approx(bulk.bdp_bytes.value)  # DCTCP: K = max(K_ECN, BDP)
    expected = tlt_headroom(TD2_BUFFER_BYTES, 1.0, 1, bulk.tlt_threshold_bytes.value, 1500.0).total_flows
    assert bulk.tlt_flows_without_important_loss is not None
    assert bulk.tlt_flows_without_important_loss.value == expected
    assert switch.wred_profiles[0].ect_marking[0].color == "red"


def test_tlt_without_headroom_is_infeasible_with_numbers(write_intent: Writer, base_intent: str) -> None:
    # M = 6: every port of the base intent's leaves (4 hosts, 2 spines) congested at once.
    text = base_intent.replace("    dscp: [10]\n", "    dscp: [10]\n    tlt: {important_dscp: [11], threshold: 2MB}\n")
    text += "design: {congested_ports: 6}\napproximations: [tlt-without-color]\n"
    share = dynamic_threshold_share(TD2_BUFFER_BYTES, 1.0, 6).per_port_share_bytes
    assert share < 2e6
    with pytest.raises(IntentError) as caught:
        compile_file(write_intent(text))
    message = caught.value.one_line()
    assert "classes[0].tlt" in message and "bulk" in message
    assert f"at most {(share - 1500) / 1e6:.2f} MB" in message  # the per-port share less one packet


def test_headroom_exceeding_the_buffer(write_intent: Writer, base_intent: str) -> None:
    # 9 km of cable is 45.5 us of wire: link_latency must cover it (compiler/topology.py).
    text = base_intent.replace("hosts_per_leaf: 4", "hosts_per_leaf: 30").replace("cable: 3m", "cable: 9000m").replace("link_latency: 10us", "link_latency: 50us")
    text += "  - {name: r1, transport: dcqcn, dscp: [26], lossless: true}\n  - {name: r2, transport: dcqcn, dscp: [27], lossless: true}\n"
    with pytest.raises(IntentError, match="PFC headroom needs") as caught:
        compile_file(write_intent(text))
    assert "lossless" in caught.value.one_line()


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ("  - {name: b2, transport: tcp, dscp: [10]}\n", "DSCP 10 is already used by class 'bulk'"),
        ("  - {name: r, transport: dcqcn, dscp: [26]}\n", "DCQCN (RoCEv2) needs a lossless class"),
        ("".join(f"  - {{name: c{i}, transport: tcp, dscp: [{20 + i}]}}\n" for i in range(7)), "queues needed"),
        ("  - {name: bulk, transport: tcp, dscp: [12]}\n", None),
    ],
)
def test_planning_limits(write_intent: Writer, base_intent: str, extra: str, fragment: str | None) -> None:
    path = write_intent(base_intent + extra)
    if fragment is None:
        with pytest.raises(IntentError):
            compile_file(path)
        return
    with pytest.raises(IntentError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        compile_file(path)


def test_unknown_target_and_switch(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError, match=r"targets\[0\]: unknown target 'junos'; use one of: sonic, sai"):
        compile_file(write_intent(base_intent + "targets: [junos]\n"))
    with pytest.raises(QosforgeError, match="not available") as caught:
        compile_file(write_intent(base_intent), targets=("junos",))
    assert caught.value.place == "--target"
    with pytest.raises(QosforgeError, match="no switch named"):
        compile_file(write_intent(base_intent), switches=("leaf99",))
    fabric = compile_file(write_intent(base_intent), switches=("spine2",))
    assert [s.name for s in fabric.switches] == ["spine2"]


TBTCP_CLASS = "  - name: bulk\n    transport: tbtcp\n    dscp: [10]\n    tbtcp: {{beta: {beta}, flows: 100}}\n"


def _tbtcp_class(switch, beta: float):  # type: ignore[no-untyped-def]
    bulk = next(c for c in switch.classes if c.name == "bulk")
    host = {d.quantity: d.value for d in bulk.host_settings}
    marking = {d.quantity: d.value for d in bulk.marking}
    return host, marking


@pytest.mark.parametrize("beta", [0.05, 0.1, 0.4])
def test_tbtcp_beta_reaches_host_settings_and_the_steady_queue(write_intent: Writer, base_intent: str, beta: float) -> None:
    text = base_intent.replace("  - name: bulk\n    transport: dctcp\n    dscp: [10]\n", TBTCP_CLASS.format(beta=beta))
    switch = compile_file(write_intent(text)).switches[0]
    host, marking = _tbtcp_class(switch, beta)
    assert host["beta"] == pytest.approx(beta)
    # TBTCP §4.4 Eq. 8: Q = beta * n * MSS with n = 100 flows and MSS = design.mtu = 1500 B.
    assert marking["queue_eq8_bytes"] == pytest.approx(beta * 100 * 1500.0)
    assert marking["queue_bytes"] > 0


def test_tbtcp_beta_changes_the_report(write_intent: Writer, base_intent: str) -> None:
    from qosforge.backends.report import report_to_json

    reports = []
    for beta in (0.1, 0.3):
        text = base_intent.replace("  - name: bulk\n    transport: dctcp\n    dscp: [10]\n", TBTCP_CLASS.format(beta=beta))
        reports.append(report_to_json(compile_file(write_intent(text, name=f"b{beta}.yaml"))))
    first, second = (r["switches"][0]["classes"][0] for r in reports)
    betas = [next(q["value"] for q in c["host_settings"] if q["quantity"] == "beta") for c in (first, second)]
    assert betas == [pytest.approx(0.1), pytest.approx(0.3)]
    queues = [next(q["value"] for q in c["thresholds"] if q["quantity"] == "queue_eq8_bytes") for c in (first, second)]
    assert queues[1] == pytest.approx(3 * queues[0])


def test_an_alpha_the_models_refuse_is_reported_at_design_alpha(write_intent: Writer, base_intent: str) -> None:
    path = write_intent(base_intent + "design: {alpha: 1000}\n")
    with pytest.raises(QosforgeError, match=r"design\.alpha: .*alpha 1000 is not a power of two") as caught:
        compile_file(path)
    # The fix offered is an alpha the ASIC takes (Trident2: dynamic_th -7..3), not 512 or 1024.
    assert caught.value.hint == "use 8 (dynamic_th 3)"


@pytest.mark.parametrize(("ear_block", "formula"), [("", "(120/65)"), ("    ear: {rtt_threshold: 50us}\n", "intent ear.rtt_threshold")])
def test_ear_delay_threshold_carries_its_derivation(write_intent: Writer, base_intent: str, ear_block: str, formula: str) -> None:
    text = base_intent.replace("  - name: bulk\n    transport: dctcp\n    dscp: [10]\n",
                               "  - name: bulk\n    transport: ear\n    dscp: [10]\n" + ear_block)
    switch = compile_file(write_intent(text)).switches[0]
    bulk = next(c for c in switch.classes if c.name == "bulk")
    delay = next(d for d in bulk.host_settings if d.quantity == "delay_threshold_s")
    marking = next(d for d in bulk.marking if d.quantity == "threshold_bytes")
    step = delay.provenance.derivations[0]
    assert formula in step.formula and "EAR §4.2" in step.source
    if not ear_block:
        # EAR §4.2 evaluates K = 65 and T = 120 packets; the default keeps that ratio at the
        # class's port speed (40G in the base intent).
        assert delay.value == pytest.approx(120 / 65 * marking.value * 8 / 40e9, rel=1e-9)
    else:
        assert delay.value == pytest.approx(50e-6)


def test_congested_ports_above_every_switch_is_refused(write_intent: Writer, base_intent: str) -> None:
    # TLT §4.2 counts M of a switch's own ports; the base intent's largest switch has 6.
    with pytest.raises(IntentError) as caught:
        compile_file(write_intent(base_intent + "design: {congested_ports: 7}\n"))
    message = caught.value.one_line()
    assert "design.congested_ports" in message and "no switch has more than 6 ports" in message


def test_a_switch_smaller_than_m_uses_its_own_port_count(write_intent: Writer, base_intent: str) -> None:
    # The spines have 3 ports, the leaves 6: with M = 6 the leaves plan for 6, the spines for 3.
    text = base_intent.replace("    dscp: [10]\n", "    dscp: [10]\n    tlt: {important_dscp: [11]}\n")
    fabric = compile_file(write_intent(text + "design: {congested_ports: 6}\napproximations: [tlt-without-color]\n"))
    used = {}
    for switch in fabric.switches:
        bulk = next(c for c in switch.classes if c.name == "bulk")
        assert bulk.tlt_flows_without_important_loss is not None
        used[switch.name] = next(i.value for i in bulk.tlt_flows_without_important_loss.provenance.inputs if i.name == "congested_ports")
    assert used["leaf1"] == 6 and used["spine1"] == 3


TBTCP_FIXED = "  - name: bulk\n    transport: tbtcp\n    dscp: [10]\n{rtt}    tbtcp: {{t_max: 550kB}}\n"


@pytest.mark.parametrize(("rtt", "expected_place"), [
    ("    rtt: 8ms\n", "classes[0].rtt"),  # 40G x 8 ms = 40 MB BDP: p(Q) < 0.5 % up to t_max
    ("", "topology.leaf_spine.link_latency"),  # the same RTT from the topology's link latency
])
def test_a_tbtcp_fit_that_marks_nothing_below_t_max_is_refused_at_the_rtt(write_intent: Writer, base_intent: str, rtt: str, expected_place: str) -> None:
    text = base_intent.replace("  - name: bulk\n    transport: dctcp\n    dscp: [10]\n", TBTCP_FIXED.format(rtt=rtt))
    if not rtt:
        text = text.replace("link_latency: 10us", "link_latency: 1ms")
    with pytest.raises(IntentError) as caught:
        compile_file(write_intent(text))
    line = caught.value.one_line()
    assert expected_place in line and "marks nothing between t_min and t_max" in line and "rounds to 0 on broadcom-trident2's 1 % grid" in line
    assert "t_max = 550 kB" in line and "real round-trip time" in line


def test_a_tbtcp_fit_at_a_datacenter_rtt_marks(write_intent: Writer, base_intent: str) -> None:
    text = base_intent.replace("  - name: bulk\n    transport: dctcp\n    dscp: [10]\n", TBTCP_FIXED.format(rtt="    rtt: 150us\n"))
    marking = {d.quantity: d.value for d in compile_file(write_intent(text)).switches[0].classes[0].marking}
    assert marking["pmax_percent"] > 0


def _roce_pod(profile: str) -> str:
    text = (EXAMPLES[0].parent / "roce-pod.yaml").read_text()
    if profile == "mellanox-spectrum-2":
        return text
    # Trident2 ports run 40G and it has no SONiC ASIC_TABLE: the physical headroom model.
    return text.replace("mellanox-spectrum-2", profile).replace("100G", "40G").replace("headroom_model: sonic", "headroom_model: physical")


@pytest.mark.parametrize(("profile", "mode", "threshold"), [
    # Spectrum-2 reads dynamic_th 7 as alpha infinity: SONiC's Mellanox layout (before: static, as Broadcom's)
    ("mellanox-spectrum-2", "dynamic", ("dynamic_th", 7)),
    # Trident2 has no such exponent: SONiC's Broadcom layout, static_th = the pool
    ("broadcom-trident2", "static", ("static_th_bytes", None)),
])
def test_egress_lossless_pool_follows_the_vendors_sonic_layout(write_intent: Writer, profile: str, mode: str, threshold: tuple[str, int | None]) -> None:
    switch = compile_file(write_intent(_roce_pod(profile))).switches[0]
    pool = next(p for p in switch.pools if p.name == "egress_lossless_pool")
    buffer_profile = switch.profile("egress_lossless_profile")
    assert pool.mode == mode and buffer_profile.pool == "egress_lossless_pool"
    field, value = threshold
    assert getattr(buffer_profile, field).value == (pool.size_bytes.value if value is None else value)
    assert (buffer_profile.static_th_bytes is None) == (mode == "dynamic") and (buffer_profile.dynamic_th is None) == (mode == "static")


def test_phy_delay_raises_the_headroom_both_ways(write_intent: Writer, base_intent: str) -> None:
    """A PHY delay is wire: 2 x phy_delay x rate more in flight after XOFF (models/pfc_headroom.py)."""
    lossless = "  - {name: r1, transport: dcqcn, dscp: [26], lossless: true}\n"

    def xoff(text: str) -> float:
        fabric = compile_file(write_intent(text + lossless))
        leaf = fabric.switches[0]
        return float(max(profile.xoff_bytes.value for profile in leaf.buffer_profiles if profile.xoff_bytes is not None))

    plain = xoff(base_intent)
    geared = xoff(base_intent.replace("host_link: {speed: 40G, cable: 3m}", "host_link: {speed: 40G, cable: 3m, phy_delay: 1us}")
                  .replace("fabric_link: {speed: 40G, cable: 10m}", "fabric_link: {speed: 40G, cable: 10m, phy_delay: 1us}"))
    extra = 2 * 1e-6 * 40e9 / 8  # 10 kB at 40G
    assert extra <= geared - plain <= extra * 1.25 + 2 * 208  # cell rounding and the cell occupancy factor


def test_a_phy_delay_the_chip_cannot_hold_is_an_error_with_the_numbers(write_intent: Writer, base_intent: str) -> None:
    text = base_intent.replace("hosts_per_leaf: 4", "hosts_per_leaf: 30").replace("host_link: {speed: 40G, cable: 3m}", "host_link: {speed: 40G, cable: 3m, phy_delay: 10us}").replace("link_latency: 10us", "link_latency: 20us")
    text += "  - {name: r1, transport: dcqcn, dscp: [26], lossless: true}\n  - {name: r2, transport: dcqcn, dscp: [27], lossless: true}\n"
    with pytest.raises(IntentError, match="PFC headroom needs") as caught:
        compile_file(write_intent(text))
    assert "B of buffer" in caught.value.one_line() and "32 ports x 2 lossless PGs" in caught.value.one_line()
