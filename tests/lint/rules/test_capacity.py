"""Capacity rules (--profile): pools and headroom vs the ASIC, xoff vs the models, queue limits.

Required values are computed here with the same models the rules call, or taken from SONiC's
own headroom table (sonic-swss cfgmgr/buffer_headroom_mellanox.lua), never from the rule's output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding
from qosforge.lint.load import load_config
from qosforge.lint.rules import RULE_INFO, run_rules
from qosforge.models.dynamic_threshold import dynamic_threshold_share
from qosforge.models.pfc_headroom import pfc_headroom
from qosforge.vendor_profiles import load_vendor_profile
from qosforge.vendor_profiles.schema import Sourced

Config = dict[str, Any]
Lint = Callable[..., list[Finding]]


def _only(findings: list[Finding], rule: str) -> Finding:
    [finding] = [f for f in findings if f.rule == rule]
    return finding


@pytest.mark.parametrize(("cable", "sonic_xoff"), [(5, 48128), (40, 53248), (300, 94208)])
def test_xoff_against_sonics_own_plugin(cable: int, sonic_xoff: int, load_named: Callable[[str], Config],
                                        lint_config: Lint) -> None:
    """Spectrum-2 at 100G: SONiC's Lua gives these xoff values (sonic-swss cfgmgr/buffer_headroom_mellanox.lua); one byte less is too little."""
    name = f"pg_lossless_100000_{cable}m_profile"
    config = load_named("mellanox_whole.json")
    config["BUFFER_PROFILE"][name]["xoff"] = str(sonic_xoff - 1)
    finding = _only(lint_config(config, profile="mellanox-spectrum-2"), "pfc-headroom")
    assert (finding.table, finding.key, finding.field) == ("BUFFER_PROFILE", name, "xoff")
    assert finding.values["required_bytes"] == sonic_xoff and finding.values["configured_bytes"] == sonic_xoff - 1
    assert f"over {cable} m" in finding.message and "MELLANOX-SPECTRUM-2" in finding.message
    config["BUFFER_PROFILE"][name]["xoff"] = str(sonic_xoff)
    # SONiC's stock Spectrum-2 lossy profiles use dynamic_th 7 (unlimited): a note, nothing else.
    assert {f.rule for f in lint_config(config, profile="mellanox-spectrum-2")} == {"dynamic-th-unlimited"}


def test_xoff_against_the_physical_model_without_a_sonic_table(load_named: Callable[[str], Config],
                                                                lint_config: Lint) -> None:
    """Tomahawk has no SONiC ASIC_TABLE, so the physical model applies (208-byte cells)."""
    needed = pfc_headroom(40e9, 300, cell_bytes=208, port_mtu_bytes=9100, lossless_mtu_bytes=1024,
                          small_packet_fraction=0.5).xoff_bytes
    config = load_named("broadcom_traditional.json")
    config["BUFFER_PROFILE"]["pg_lossless_40000_300m_profile"]["xoff"] = str(int(needed) - 208)
    finding = _only(lint_config(config, profile="broadcom-tomahawk"), "pfc-headroom")
    assert finding.values["required_bytes"] == needed and "physical PFC headroom model" in finding.message
    assert "Ethernet8" in finding.message and "Ethernet0" not in finding.message


def test_a_slow_peer_needs_more_than_sonics_lookup_table(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    """sonic-buildimage PR #11901: a lookup-table xoff that ignores the peer's response time (here: the 5 m value on a
    300 m cable) is caught, whatever the profile name says."""
    config = load_named("mellanox_whole.json")
    config["BUFFER_PROFILE"]["pg_lossless_100000_300m_profile"]["xoff"] = "48128"
    assert _only(lint_config(config, profile="mellanox-spectrum-2"), "pfc-headroom").values["required_bytes"] == 94208


def test_pool_and_headroom_overcommit(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    """sonic-buildimage #28657: pool alone over the ASIC -> pool-overcommit; pool that fits
    only without the PG headroom -> buffer-capacity."""
    config = load_named("mellanox_whole.json")
    config["BUFFER_POOL"]["ingress_lossless_pool"]["size"] = "34000000"
    finding = _only(lint_config(config, profile="mellanox-spectrum-2"), "buffer-capacity")
    reserved = 2 * (4 * 67584 + 2 * 72704 + 2 * 113664)  # Σ profile size x PGs (3-4 on 8 ports)
    # The SN3700's pools per SONiC's ACS-MSN3700 buffers_defaults templates: 34,340,832 B.
    assert finding.values == {"pools_bytes": 34e6, "reserved_bytes": reserved, "buffer_bytes": 34_340_832}
    config["BUFFER_POOL"]["ingress_lossless_pool"]["size"] = "35000000"
    rules = {f.rule for f in lint_config(config, profile="mellanox-spectrum-2")}
    assert "pool-overcommit" in rules and "buffer-capacity" not in rules
    assert lint_config(config) == []  # without --profile nothing is known about the ASIC


def test_wred_above_what_the_queue_can_hold(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named("broadcom_traditional.json")
    pool = int(config["BUFFER_POOL"]["egress_lossy_pool"]["size"])
    # egress_lossy_profile: dynamic_th 1 (alpha 2); Tomahawk shares each of its 4 MMUs.
    limit = dynamic_threshold_share(pool / 4, 2.0, 1).per_port_share_bytes
    config["WRED_PROFILE"]["iperf_red"]["green_min_threshold"] = str(int(limit) + 1)
    config["WRED_PROFILE"]["iperf_red"]["green_max_threshold"] = str(int(limit) + 1000)
    finding = _only(lint_config(config, profile="broadcom-tomahawk"), "ecn-above-queue-limit")
    assert finding.values["queue_limit_bytes"] == pytest.approx(limit)
    assert (finding.key, finding.field) == ("iperf_red", "green_min_threshold") and "/ 4 MMUs" in finding.message


def test_dcqcn_kmax_above_what_the_queue_can_hold(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    """K_min below the limit, K_max above it: the ramp never reaches P_max (DCQCN §5), the queue tail-drops."""
    config = load_named("broadcom_traditional.json")
    pool = int(config["BUFFER_POOL"]["egress_lossy_pool"]["size"])
    limit = dynamic_threshold_share(pool / 4, 2.0, 1).per_port_share_bytes
    wred = config["WRED_PROFILE"]["iperf_red"]
    wred.update({"green_min_threshold": str(int(limit / 2)), "green_max_threshold": str(int(limit) + 1000),
                 "green_drop_probability": "10"})
    finding = _only(lint_config(config, profile="broadcom-tomahawk"), "ecn-above-queue-limit")
    assert (finding.key, finding.field) == ("iperf_red", "green_max_threshold")
    assert finding.values == {"threshold_bytes": int(limit) + 1000, "queue_limit_bytes": pytest.approx(limit)}
    # P at the limit: 10 % · (limit − limit/2)/(limit + 1000 − limit/2), just under 5 %.
    reached = 10 * (limit - int(limit / 2)) / (int(limit) + 1000 - int(limit / 2))
    assert f"ramp ends at the queue limit with {reached:.3g} % of its 10 %" in finding.message
    wred["green_max_threshold"] = str(int(limit))
    assert not [f for f in lint_config(config, profile="broadcom-tomahawk") if f.rule == "ecn-above-queue-limit"]


def test_a_dynamic_th_no_asic_accepts_is_reported_not_a_crash(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    # Found by tests/lint/test_robustness.py: alpha = 2^1024 overflowed a float in the queue-limit
    # rules (an internal-error finding). The value is reported; the queue limit is unknown.
    config = load_named("broadcom_traditional.json")
    config["BUFFER_PROFILE"]["egress_lossy_profile"]["dynamic_th"] = "1024"
    findings = lint_config(config, profile="broadcom-tomahawk", intent=True)
    assert "internal-error" not in {f.rule for f in findings}
    assert _only(findings, "dynamic-th-range").values["configured"] == 1024


def test_asic_limits_from_the_vendor_profile(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named("broadcom_traditional.json")
    config["BUFFER_PROFILE"]["ingress_lossy_profile"]["dynamic_th"] = "5"  # YANG allows it, Tomahawk -7..3
    config["BUFFER_QUEUE"]["Ethernet0|9"] = {"profile": "egress_lossy_profile"}
    findings = lint_config(config, profile="broadcom-tomahawk")
    assert _only(findings, "dynamic-th-range").values == {"configured": 5.0, "min": -7, "max": 3}
    assert _only(findings, "queue-index-limit").values == {"queue": 9, "limit": 8}


@pytest.mark.parametrize(("dynamic_th", "rule", "meaning"), [
    ("-8", "dynamic-th-range", "alpha = 0: the queue gets no shared buffer"),
    ("7", "dynamic-th-unlimited", "alpha = infinity"),
])
def test_mellanox_range_ends_are_flagged_with_their_meaning(dynamic_th: str, rule: str, meaning: str,
                                                            load_named: Callable[[str], Config], lint_config: Lint) -> None:
    """Mellanox's SAI reads -8 as alpha 0 and 7 as infinity (mlnx_sai_buffer.c), not 2^n."""
    config = load_named("mellanox_whole.json")
    for name in ("egress_lossy_profile", "ingress_lossy_profile"):
        config["BUFFER_PROFILE"][name]["dynamic_th"] = "0"
    config["BUFFER_PROFILE"]["q_lossy_profile"]["dynamic_th"] = dynamic_th
    finding = _only(lint_config(config, profile="mellanox-spectrum-2"), rule)
    assert (finding.key, finding.field) == ("q_lossy_profile", "dynamic_th")
    assert meaning in finding.message and "mellanox-spectrum-2" in finding.message
    config["BUFFER_PROFILE"]["q_lossy_profile"]["dynamic_th"] = "6"  # 2^6 = 64: a real alpha
    assert lint_config(config, profile="mellanox-spectrum-2") == []


def test_queue_limit_of_an_unlimited_queue_is_the_pool_over_m(load_named: Callable[[str], Config],
                                                               lint_config: Lint) -> None:
    """alpha = infinity (dynamic_th 7 on Mellanox): alpha·B/(1+M·alpha) tends to B/M, not 2^7·B/(1+2^7·M)."""
    config = load_named("mellanox_whole.json")
    pool = float(config["BUFFER_POOL"]["egress_lossy_pool"]["size"])
    config["BUFFER_PROFILE"]["q_lossy_profile"]["dynamic_th"] = "7"  # Ethernet0|0-2 use it
    config["QUEUE"]["Ethernet0|1"]["wred_profile"] = "deep"

    def limit_findings(start_bytes: float) -> list[Finding]:
        config["WRED_PROFILE"] = {"deep": {
            "ecn": "ecn_green", "wred_green_enable": "true", "green_min_threshold": str(int(start_bytes)),
            "green_max_threshold": str(int(start_bytes)), "green_drop_probability": "5"}}  # step marking
        return [f for f in lint_config(config, profile="mellanox-spectrum-2") if f.rule == "ecn-above-queue-limit"]

    assert limit_findings(0.995 * pool) == []  # above 128·B/129, below B: reachable
    [finding] = limit_findings(pool + 1)  # M = 1 without --intent
    assert finding.values["queue_limit_bytes"] == pytest.approx(pool)
    assert "alpha = infinity" in finding.message


def test_lossless_priority_limit_with_a_profile_that_knows_it(load_named: Callable[[str], Config]) -> None:
    profile = load_vendor_profile("broadcom-tomahawk")
    limited = profile.model_copy(update={"max_lossless_classes": Sourced[int](value=1, source="tlt")})
    loaded = load_config(load_named_bytes(load_named("broadcom_traditional.json")), "c.json",
                         frozenset({"PORT_QOS_MAP", "BUFFER_PG", "BUFFER_PROFILE", "PORT"}))
    findings = run_rules(LintContext(loaded, profile=limited, intent=None, rules=RULE_INFO))
    assert _only(findings, "lossless-priority-limit").values == {"configured": 2, "limit": 1}


def load_named_bytes(config: Config) -> bytes:
    import json

    return json.dumps(config).encode()


def test_missing_inputs_are_reported_not_silently_skipped(load_named: Callable[[str], Config],
                                                          lint_config: Lint) -> None:
    config = load_named("broadcom_traditional.json")
    del config["PORT"]
    config["BUFFER_PROFILE"]["custom_lossless"] = config["BUFFER_PROFILE"].pop("pg_lossless_40000_300m_profile")
    config["BUFFER_PG"]["Ethernet8|3-4"]["profile"] = "custom_lossless"
    config["CABLE_LENGTH"]["AZURE"]["Ethernet8"] = "0m"  # so buffermgrd leaves the custom PG alone
    findings = lint_config(config, profile="broadcom-tomahawk")
    [note] = [f for f in findings if f.rule == "model-input-missing"]
    # without PORT the other ports' speeds come from buffermgrd's profile names; this one has none
    assert "Ethernet8: port speed unknown" in note.message and note.severity.value == "info"
    assert (note.table, note.key) == ("BUFFER_PROFILE", "custom_lossless") and note.line is not None
    config["PORT"] = {"Ethernet8": {"speed": "40000"}}
    [note] = [f for f in lint_config(config, profile="broadcom-tomahawk") if f.rule == "model-input-missing"]
    assert "cable length 0m" in note.message


def test_dynamic_model_null_pgs_are_left_to_sonic(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    findings = lint_config(load_named("mellanox_dynamic.json"), profile="mellanox-spectrum-2")
    assert {f.rule for f in findings} == {"dynamic-th-unlimited"}  # SONiC's stock lossy profiles use 7


@pytest.mark.parametrize(("config_name", "profile"), [("mellanox_whole.json", "mellanox-spectrum-2"),
                                                      ("broadcom_traditional.json", "broadcom-tomahawk")])
def test_headroom_groups_ports_by_requirement_and_its_hint_reproduces_the_number(
        config_name: str, profile: str, load_named: Callable[[str], Config], lint_config: Lint) -> None:
    """A new user's trial: one profile on 40 m and 300 m ports is two requirements, each
    finding names only its ports, and the hint's whatif command (same model, --asic, inputs) prints
    the rule's number."""
    import json
    import re
    import shlex

    from click.testing import CliRunner

    from qosforge.cli import cli

    config = load_named(config_name)
    lossless = {key: entry for key, entry in config["BUFFER_PG"].items()
                if config["BUFFER_PROFILE"][entry["profile"]].get("xoff")}
    first = next(iter(lossless.values()))["profile"]
    for entry in lossless.values():
        entry["profile"] = first
    config["BUFFER_PROFILE"][first]["xoff"] = "1024"
    findings = [f for f in lint_config(config, profile=profile) if f.rule == "pfc-headroom"]
    cables = config["CABLE_LENGTH"]["AZURE"]
    ports = [key.split("|")[0] for key in lossless]
    assert len(findings) == len({cables[p] for p in ports if cables.get(p, "0m") != "0m"}) >= 2
    for finding in findings:
        named = [p for p in ports if re.search(rf"{p}(?![0-9])", finding.message)]
        assert named and {cables[p] for p in named} == {f"{finding.values['cable_m']:g}m"}
        assert finding.hint is not None
        command = shlex.split(finding.hint.split("comes from ", 1)[1])
        assert command[:3] == ["qosforge", "whatif", "pfc-headroom"] and "--asic" in command
        result = CliRunner().invoke(cli, [*command[1:], "--format", "json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["xoff_bytes"] == pytest.approx(finding.values["required_bytes"])
