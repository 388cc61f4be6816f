"""Explicit ECN marking per port speed (intent classes[].ecn) and mixed-speed explicit fabrics."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.topology import resolve_topology
from qosforge.ir import ClassIR, FabricIR
from qosforge.models.dctcp import dctcp_marking_threshold

Writer = Callable[..., Path]
ROOT = Path(__file__).resolve().parents[2]
FIG17 = ROOT / "examples" / "dctcp-fig17.yaml"

#: 1G hosts on a software switch, a 10G link to a Spectrum switch with 100G hosts; a long RTT
#: and a small LSO floor so DCTCP's K follows the BDP at every speed (DCTCP §3.4).
MIXED = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: mixed-speeds}
topology:
  switches:
    - name: edge
      profile: softswitch
      ports:
        - {name: "Ethernet[0-3]", speed: 1G, cable: 3m, peer: host}
        - {name: Ethernet4, speed: 10G, cable: 10m, peer: "core:Ethernet0"}
    - name: core
      profile: mellanox-spectrum
      ports:
        - {name: Ethernet0, speed: 10G, cable: 10m, peer: "edge:Ethernet4"}
        - {name: "Ethernet[4-8/4]", speed: 100G, cable: 3m, peer: host}
  host_latency: 2us
classes:
  - name: bulk
    transport: dctcp
    dscp: [10]
    rtt: 500us
  - name: store
    transport: dcqcn
    dscp: [26]
    lossless: true
design: {lso_burst: 3000B}
targets: [sonic, sai]
"""


def _compiled(path: Path) -> FabricIR:
    intent, source_map = load_intent(path)
    return compile_intent(intent, source_map)


def _classes(fabric: FabricIR, switch: str, name: str) -> dict[float, ClassIR]:
    entry = next(s for s in fabric.switches if s.name == switch)
    return {c.rate_bps: c for c in entry.classes if c.name == name}


def test_mixed_speeds_get_per_speed_thresholds_from_the_models(write_intent: Writer) -> None:
    fabric = _compiled(write_intent(MIXED))
    edge, core = _classes(fabric, "edge", "bulk"), _classes(fabric, "core", "bulk")
    assert sorted(edge) == [1e9, 10e9] and sorted(core) == [10e9, 100e9]
    for rate, cls in {**edge, **core}.items():
        expected = dctcp_marking_threshold(rate, 500e-6, 1500.0, 3000.0).threshold_bytes
        assert cls.marking[0].value == pytest.approx(float(expected))
        assert cls.bdp_bytes.value == pytest.approx(rate * 500e-6 / 8)
    # Above the LSO floor K is a fixed fraction of the BDP (rounded to whole packets), so it scales with the port speed.
    assert core[100e9].marking[0].value / core[10e9].marking[0].value == pytest.approx(10.0, rel=0.02)
    assert edge[10e9].marking[0].value / edge[1e9].marking[0].value == pytest.approx(10.0, rel=0.02)
    # DCQCN's speed-scaled K_min/K_max (DCQCN §5) and PFC headroom differ per port as well.
    store = _classes(fabric, "core", "store")
    assert store[100e9].marking[0].value == pytest.approx(10 * store[10e9].marking[0].value)
    edge_ir = next(s for s in fabric.switches if s.name == "edge")
    profiles = {port.name: next(q.wred_profile for q in port.queues if q.class_name == "bulk") for port in edge_ir.ports}
    assert profiles["Ethernet0"] == "bulk_1G" and profiles["Ethernet4"] == "bulk_10G"
    headroom = {p.name for p in edge_ir.buffer_profiles if p.name.startswith("pg_lossless")}
    assert headroom == {"pg_lossless_1000_3m_profile", "pg_lossless_10000_10m_profile"}


def test_fig17_explicit_ecn_reaches_every_backend_with_the_model_beside_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from qosforge.backends.report import report_to_json

    fabric = _compiled(FIG17)
    t1 = _classes(fabric, "T1", "bulk")
    assert [d.value for d in t1[1e9].marking] == [33280.0, 99840.0, 2.0]
    assert [d.value for d in t1[10e9].marking] == [83200.0, 249600.0, 2.0]
    assert t1[1e9].model_marking[0].quantity == "threshold_bytes" and t1[1e9].model_marking[0].value > 0
    # DCTCP's model is a step (min = max = K): the vendor ramp's pmax is not compared with its 100 %.
    assert not any("pmax" in w for w in (*t1[1e9].warnings, *t1[10e9].warnings))
    assert any("max 249.6 kB" in w for w in t1[10e9].warnings)
    report = report_to_json(fabric)
    entry = next(c for c in report["switches"][0]["classes"] if c["name"] == "bulk" and c["speed_bps"] == 1e9)
    assert entry["model_thresholds"][0]["label"] == "ecn_marking_threshold_bytes"
    assert entry["thresholds"][0]["source"].startswith("operator-stated ECN marking")
    # Every backend renders the stated curve at each speed.
    from qosforge.cli import main as cli

    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        cli(["compile", str(FIG17), "-o", str(out), "--quiet"])
    assert not exit_info.value.code
    assert "warning: class 'bulk' at 10 Gbps: ecn max 249.6 kB" in capsys.readouterr().err
    config_db = json.loads((out / "T1" / "config_db.json").read_text())
    wred = config_db["WRED_PROFILE"]
    assert wred["bulk_1G"]["green_min_threshold"] == "33280" and wred["bulk_1G"]["green_max_threshold"] == "99840"
    assert wred["bulk_10G"]["green_min_threshold"] == "83200" and wred["bulk_10G"]["green_drop_probability"] == "2"
    sai = (out / "T1" / "sai.json").read_text()
    assert "33280" in sai and "249600" in sai
    openconfig = (out / "T1" / "openconfig.json").read_text()
    assert "99840" in openconfig and "249600" in openconfig


@pytest.mark.parametrize(("entry", "field", "fragment"), [
    ("{speed: 1G, min: 60kB, max: 30kB, pmax: 2%}", "max", "below min"),
    ("{speed: 1G, min: 30kB, max: 60kB, pmax: 0%}", "pmax", "not a probability"),
    ("{speed: 1G, min: 30kB, max: 60kB, pmax: 150%}", "pmax", "outside 0..100%"),
])
def test_impossible_explicit_ecn_is_refused_at_its_field(write_intent: Writer, entry: str, field: str, fragment: str) -> None:
    text = MIXED.replace("    rtt: 500us\n", f"    rtt: 500us\n    ecn:\n      - {entry}\n")
    with pytest.raises(IntentError) as error:
        load_intent(write_intent(text))
    assert f"ecn[0].{field}" in str(error.value) or f"ecn.0.{field}" in str(error.value)
    assert fragment in str(error.value)
    assert "intent.yaml:23:" in str(error.value)


def test_explicit_ecn_for_a_speed_the_topology_lacks_names_the_speeds(write_intent: Writer) -> None:
    text = MIXED.replace("    rtt: 500us\n", "    rtt: 500us\n    ecn:\n      - {speed: 25G, min: 30kB, max: 60kB, pmax: 2%}\n")
    intent, source_map = load_intent(write_intent(text))
    with pytest.raises(IntentError) as error:
        compile_intent(intent, source_map)
    message = str(error.value)
    assert "classes[0].ecn[0].speed" in message and "25 Gbps" in message
    assert "1 Gbps, 10 Gbps, 100 Gbps" in message


def test_explicit_ecn_close_to_the_model_gives_no_warning(write_intent: Writer) -> None:
    intent, source_map = load_intent(write_intent(MIXED))
    k = float(dctcp_marking_threshold(1e9, 500e-6, 1500.0, 3000.0).threshold_bytes)
    text = MIXED.replace("    rtt: 500us\n", f"    rtt: 500us\n    ecn:\n      - {{speed: 1G, min: {k:.0f}B, max: {1.5 * k:.0f}B, pmax: 2%}}\n")
    fabric = _compiled(write_intent(text, "close.yaml"))
    cls = _classes(fabric, "edge", "bulk")[1e9]
    assert cls.warnings == ()
    assert cls.marking[1].value == pytest.approx(round(1.5 * k))
    # The other speed keeps the model's K.
    assert _classes(fabric, "edge", "bulk")[10e9].model_marking == ()
    assert resolve_topology(intent, source_map).switches[0].ports[0].speed_bps == 1e9


@pytest.mark.parametrize(("entry", "bound"), [
    ("{speed: 10G, min: 30kB, max: 900MB, pmax: 2%}", "max"),
    ("{speed: 10G, min: 800MB, max: 900MB, pmax: 2%}", "min"),
])
def test_stated_ecn_above_the_queue_limit_points_at_the_stated_value(write_intent: Writer, entry: str, bound: str) -> None:
    # Not at the topology (the RTT's field): the operator's number is the one to lower.
    line = f"      - {entry}"
    column = line.index(f" {bound}: ") + 2  # the key, 1-based
    text = MIXED.replace("    rtt: 500us\n", f"    rtt: 500us\n    ecn:\n{line}\n")
    intent, source_map = load_intent(write_intent(text))
    with pytest.raises(IntentError) as error:
        compile_intent(intent, source_map)
    message = str(error.value)
    assert f"intent.yaml:23:{column}: classes[0].ecn[0].{bound}" in message, message
    assert f"the stated ECN {bound}" in message and f"lower classes[bulk].ecn's {bound}" in message
