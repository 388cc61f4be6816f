"""bench/ns3_compare.py's experiment definitions and referee file: each scenario reaches ns-3 and
qosforge as the same experiment (its own run window, jumbo frames, flows joining), and recording
one scenario keeps the rows the file already holds for the others."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import ns3_compare  # noqa: E402

JUMBO = next(s for s in ns3_compare.SCENARIOS if s.packet_bytes == 9000)
JOINING = next(s for s in ns3_compare.SCENARIOS if s.joiners)


def _flag(argv: list[str], name: str) -> str:
    values = [a.split("=", 1)[1] for a in argv if a.startswith(f"--{name}=")]
    assert len(values) == 1, f"--{name} given {len(values)} times in {argv}"
    return values[0]


def test_jumbo_frames_reach_ns3_as_mtu_and_segment() -> None:
    argv = ns3_compare.ns3_argv(JUMBO, 0.3, 0.1)
    assert _flag(argv, "mtu") == "9000"
    # IPv4 20 B + TCP 20 B + timestamps 12 B: the segment qosforge's 9,000 B packet carries.
    assert _flag(argv, "segment") == "8948" and JUMBO.segment_bytes == 8948
    default = ns3_compare.ns3_argv(ns3_compare.SCENARIOS[0], 0.3, 0.1)
    assert not any(a.startswith(("--mtu=", "--segment=")) for a in default)


def test_a_scenario_run_window_overrides_the_flags() -> None:
    argv = ns3_compare.ns3_argv(JOINING, 0.3, 0.1)
    assert _flag(argv, "warmup") == str(JOINING.warmup_s) and _flag(argv, "duration") == "0.3"
    assert JOINING.window(0.5, 0.1) == (0.5, JOINING.warmup_s)
    assert ns3_compare.SCENARIOS[0].window(0.5, 0.2) == (0.5, 0.2)


def test_joiners_start_as_ns3_starts_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """dumbbell.cc --joiners N --joinSpacingUs S: the k-th of the last N flows at k * S; the
    others spread over the first round trip as qosforge's dumbbell spreads them."""
    import qosforge.softswitch.simulation as simulation
    from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell

    argv = ns3_compare.ns3_argv(JOINING, 0.3, 0.1)
    assert _flag(argv, "joiners") == str(JOINING.joiners)
    spacing_s = float(_flag(argv, "joinSpacingUs")) * 1e-6
    starts: list[float] = []

    def started(config: Any, flows: Any, run: Any) -> Any:
        starts.extend(flow.start_s for flow in flows)
        raise StopIteration  # the start times are all this test reads

    monkeypatch.setattr(simulation, "simulate", started)
    with pytest.raises(StopIteration):
        ns3_compare._in_process_report(JOINING, 0.3, 0.02)
    spec = DumbbellSpec(flows=JOINING.flows, transport="dctcp", bandwidth_bps=1e10,
                        rtt_s=JOINING.rtt_us * 1e-6, buffer_bytes=1.5e6,
                        ecn_threshold_bytes=97500.0)
    plain = [flow.start_s for flow in dumbbell(spec)[1]]
    first = JOINING.flows - JOINING.joiners
    assert first >= 2 and starts[:first] == plain[:first]
    assert starts[first:] == [k * spacing_s for k in range(1, JOINING.joiners + 1)]


def test_recording_one_scenario_keeps_the_files_other_rows(tmp_path: Path) -> None:
    path = tmp_path / "referee.json"
    names = [s.name for s in ns3_compare.SCENARIOS if s.transport == "dctcp"]
    path.write_text(json.dumps({
        "regenerate": f"python bench/ns3_compare.py --only 'dctcp' --write-referee {path}",
        "scenarios": {name: {"marks": index, "argv": []} for index, name in enumerate(names)}
        | {"a scenario no longer run": {"marks": -1}},
    }))
    ns3_compare._write_referee(path, {names[1]: {"ns-3": {"marks": 999}, "qosforge": {}}}, names[1])
    written = json.loads(path.read_text())
    assert list(written["scenarios"]) == names
    assert written["scenarios"][names[1]] == {"marks": 999}
    assert written["scenarios"][names[0]]["marks"] == 0
    assert "--only 'dctcp'" in written["regenerate"]


def test_recording_into_a_new_file_says_how_it_was_made(tmp_path: Path) -> None:
    path = tmp_path / "new.json"
    name = ns3_compare.SCENARIOS[0].name
    ns3_compare._write_referee(path, {name: {"ns-3": {"marks": 1}}}, "K=65")
    written = json.loads(path.read_text())
    assert written["scenarios"] == {name: {"marks": 1}}
    regenerate = f"python bench/ns3_compare.py --only 'K=65' --write-referee {path}"
    assert written["regenerate"] == regenerate
