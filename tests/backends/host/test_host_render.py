"""The host target: rendered settings of every example with hosts (golden files), and the values
checked against the plan and the DCQCN host model.

Golden files: tests/backends/host/golden/<example>/<host kind>/<file>. After an intended change,
regenerate with
    QOSFORGE_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/backends/host
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from qosforge.backends.host.document import HostSettingsDocument
from qosforge.backends.host.settings import HostKind, host_kinds
from qosforge.backends.registry import get_target
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent
from qosforge.ir import FabricIR

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.yaml") if not p.name.endswith(".traffic.yaml"))  # traffic files are no intents


def _fabric(path: Path) -> FabricIR:
    intent, source_map = load_intent(path)
    return compile_intent(intent, source_map, targets=("host",))


def _kinds(name: str) -> dict[str, HostKind]:
    return {kind.name: kind for kind in host_kinds(_fabric(ROOT / "examples" / f"{name}.yaml").for_target("host"))}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_golden(example: Path) -> None:
    fabric = _fabric(example)
    rendered = {f"{item.switch}/{item.file_name}": item.text for item in get_target("host").render(fabric.for_target("host"))}
    assert rendered, "every example has hosts"
    folder = GOLDEN / example.stem
    if os.environ.get("QOSFORGE_REGENERATE_GOLDEN") == "1":
        for path, text in rendered.items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_text(text)
    expected = {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*") if p.is_file()}
    assert rendered == expected, f"{example.stem}: host settings changed; regenerate if intended (module docstring)"
    for path, text in rendered.items():
        if path.endswith(".json"):
            HostSettingsDocument.model_validate(json.loads(text))  # what lint --hosts and simulate --hosts read


def test_roce_pod_values_follow_the_plan_and_the_dcqcn_model() -> None:
    kind = _kinds("roce-pod")["nvidia-connectx-6dx-100G"]
    assert kind.pfc_priorities == (3,)  # the lossless class's TC (compiler/plan.py: PFC priority = TC)
    assert dict(kind.dscp_to_priority)[26] == 3 and kind.cnp_dscp == 48
    values = {v.name: v for v in kind.values}
    # DCQCN steps scaled to 100G: R_AI 40 Mb/s and R_HAI 200 Mb/s at 40 G (x 2.5).
    assert values["ecn.roce_rp.rpg_ai_rate"].value == 100 and values["ecn.roce_rp.rpg_ai_rate"].unit == "Mbit/s"
    assert values["ecn.roce_rp.rpg_hai_rate"].value == 500
    assert values["ecn.roce_rp.rpg_time_reset"].value == 55 and values["ecn.roce_np.min_time_between_cnps"].value == 50
    # DSCP 26 in the upper six bits, ECT(0) (0b10) in the ECN field (RFC 3168 §5): 106.
    assert values["rdma_cm.default_roce_tos"].value == 26 << 2 | 0b10 == 106
    # The NIC's headroom for the intent's host cable (roce-pod: 3 m), else the NIC's default.
    cable = values["mlnx_qos.cable_len"]
    assert cable.apply == 'mlnx_qos -i "$IFACE" --cable_len=3' and cable.value == 3
    assert values["mlnx_qos.pfc"].apply.endswith("--pfc 0,0,0,1,0,0,0,0")
    assert values["ecn.roce_np.cnp_dscp"].apply.startswith("echo 48 ")
    # Knobs whose encoding is not public are listed, never written into a command.
    assert values["ecn.roce_rp.dce_tcp_g"].form == "manual" and values["ecn.roce_rp.dce_tcp_g"].apply == ""
    assert values["ecn.roce_rp.rpg_byte_reset"].form == "manual" and values["ecn.roce_rp.rpg_byte_reset"].value == 10e6
    # Only DSCPs whose switch priority differs from the NIC default (DSCP >> 3) get a dscp2prio line.
    rendered = {name for name in values if name.startswith("mlnx_qos.dscp2prio.")}
    assert rendered == {f"mlnx_qos.dscp2prio.{d}" for d, p in kind.dscp_to_priority if p != d >> 3}
    # Every DSCP as the switch maps it: those no class uses go to lossy priority 0 (TC 0),
    # not to the NIC default DSCP >> 3, which puts 24..31 on lossless priority 3.
    assert len(kind.dscp_to_priority) == 64
    third = {d: p for d, p in kind.dscp_to_priority if d in range(24, 32)}
    assert third == {24: 0, 25: 0, 26: 3, 27: 0, 28: 0, 29: 0, 30: 0, 31: 0}
    assert values["mlnx_qos.dscp2prio.24"].apply == 'mlnx_qos -i "$IFACE" --dscp2prio set,24,0'


def test_the_sysctl_file_says_tcp_dctcp_must_be_loadable() -> None:
    from qosforge.backends.host.render import render_sysctl

    text = render_sysctl(_kinds("tlt-simulation")["linux-kernel-40G"])
    assert "net.ipv4.tcp_congestion_control = dctcp" in text
    assert "modprobe tcp_dctcp" in text and "/etc/modules-load.d/qosforge.conf" in text
    assert "tcp_ca_find_autoload" in text


def test_a_host_cable_longer_than_the_driver_takes_is_left_to_the_operator() -> None:
    import dataclasses

    from qosforge.backends.host.settings import derive_host_kind

    kind = _kinds("roce-pod")["nvidia-connectx-6dx-100G"]
    switch = next(
        s
        for s in _fabric(ROOT / "examples" / "roce-pod.yaml").for_target("host")
        if s.name == kind.attachments[0][0]
    )
    port = next(p for p in switch.ports if p.name == kind.attachments[0][1])
    long = derive_host_kind("long", switch, dataclasses.replace(port, cable_m=1500.0), ())
    cable = long.value("mlnx_qos.cable_len")
    assert cable is not None and (cable.form, cable.value) == ("manual", 1500)
    assert "at most 1000 m" in cable.note


def test_kernel_only_hosts_list_nic_values_for_manual_configuration() -> None:
    kinds = _kinds("mixed-fabric")
    assert set(kinds) == {"nvidia-connectx-6dx-100G", "nvidia-connectx-5-100G"}  # per host group (host_nic per port range)
    tlt = _kinds("tlt-simulation")["linux-kernel-40G"]
    names = {v.name: v for v in tlt.values}
    # DCTCP negotiates ECN itself (TCP_CONG_NEEDS_ECN): no host-wide net.ipv4.tcp_ecn.
    assert names["net.ipv4.tcp_congestion_control"].value == "dctcp" and "net.ipv4.tcp_ecn" not in names
    # No lossless or RoCE class: no NIC value at all, only kernel and route settings.
    assert {v.form for v in tlt.values} == {"sysctl", "ip-route"}
    # D2TCP and EAR have no mainline Linux module and DCTCP disagrees with them: no single default
    # is written, each class's congestion control is listed for manual selection.
    mixed = kinds["nvidia-connectx-5-100G"]
    assert mixed.tcp_congestion_control is None
    manual = {v.name: v for v in mixed.values if v.form == "manual" and v.name.startswith("class.")}
    assert set(manual) == {"class.rpc.congestion_control", "class.search.congestion_control", "class.bulk.congestion_control"}
    assert "no mainline Linux" in manual["class.rpc.congestion_control"].note and "no mainline" not in manual["class.bulk.congestion_control"].note
    # ECN is asked for per class on its routes, where the congestion control does not ask itself
    # (D2TCP, EAR); DCTCP needs no route feature, and legacy TCP (no ECN) stays on Linux's default.
    features = {v.name: v.value for v in mixed.values if v.name.endswith(".features")}
    assert features == {"class.rpc.features": "ecn", "class.search.features": "ecn"}
    assert "net.ipv4.tcp_ecn" not in {v.name for v in mixed.values}


def test_sysctl_file_lines_are_key_equals_value() -> None:
    text = get_target("host").render(_fabric(ROOT / "examples" / "roce-pod.yaml").for_target("host"))
    sysctl = next(item.text for item in text if item.file_name == "99-qosforge.conf")
    settings = [line for line in sysctl.splitlines() if line and not line.startswith("#")]
    assert settings == ["net.ipv4.tcp_congestion_control = dctcp", "net.ipv4.tcp_rto_min_us = 4000"]


def test_explain_shows_a_host_values_derivation() -> None:
    from qosforge.backends.host.explain import explain_host_value
    from qosforge.errors import QosforgeError

    kinds = tuple(_kinds("roce-pod").values())
    explanation = explain_host_value(kinds, "nvidia-connectx-6dx-100G", "ecn.roce_rp.rpg_hai_rate")
    assert explanation.model == "dcqcn_host" and explanation.quantity == "rhai_bps" and explanation.value == 500e6
    assert explanation.derivations[-1].formula == "200 Mb/s * line_rate_bps / 40 Gb/s"
    assert explanation.rendered.startswith("500 Mbit/s (sysfs: echo 500 > ")
    with pytest.raises(QosforgeError, match="has no setting") as raised:
        explain_host_value(kinds, "nvidia-connectx-6dx-100G", "ecn.roce_rp.rpg_ai_rat")
    assert "ecn.roce_rp.rpg_ai_rate" in (raised.value.hint or "")


def test_a_plain_tcp_class_beside_a_dctcp_default_is_kept_on_cubic() -> None:
    """The host-wide default written for the DCTCP class (net.ipv4.tcp_congestion_control =
    dctcp) would also make the intent's plain TCP class run DCTCP: its routes name cubic, and the
    document says so for simulate --hosts."""
    intent, source_map = load_intent(ROOT / "tests" / "validation" / "fabrics" / "tcp-hosts.yaml")
    fabric = compile_intent(intent, source_map, targets=("host",))
    items = {item.file_name: item.text for item in get_target("host").render(fabric.for_target("host"))}
    assert "net.ipv4.tcp_congestion_control = dctcp" in items["99-qosforge.conf"]
    legacy = next(line for line in items["tcp-routes.sh"].splitlines() if line.startswith("  legacy)"))
    assert legacy.endswith("rto_min 7ms initcwnd 16 congctl cubic ;;")
    document = json.loads(items["host_settings.json"])
    assert {c["name"]: c["congestion_control"] for c in document["classes"]}["legacy"] == "cubic"
