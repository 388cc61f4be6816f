"""One point through the application layer: results, errors, shipped intents, timing; no click on the way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qosforge.campaigns.execute import run_point
from qosforge.campaigns.point import PointSpec, ShippedFile
from qosforge.cli import main
from qosforge.cli.sweep import resolve_command

INTENT = Path(__file__).resolve().parents[2] / "examples" / "tlt-softswitch.yaml"


def test_a_whatif_point_calls_the_application_layer_and_gives_what_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--speed", "10G", "--rtt", "100us", "--burst", "65pkt")
    fields = {"rate_bps": "10G", "rtt_s": "100us", "burst_bytes": "65pkt", "explain": False}
    outcome = run_point(PointSpec(("whatif", "dctcp"), {}, argv, fields=fields))
    with pytest.raises(SystemExit):
        main(["whatif", "dctcp", *argv, "--format", "json"])
    assert outcome.error is None and outcome.result == json.loads(capsys.readouterr().out)
    assert outcome.result["threshold_packets"] == 65  # DCTCP §3.5: the burst floor wins at 10G/100us
    assert outcome.timing["seconds"] > 0 and 0 <= outcome.timing["cpu_seconds"] and "worker" in outcome.timing


def test_a_point_runs_without_click_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """A point never runs a click command: with click's entry point broken, points still run."""
    import click

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("a campaign point ran a click command")

    monkeypatch.setattr(click.Command, "main", refuse)
    outcome = run_point(PointSpec(("whatif", "buffer"), {}, (), fields={"buffer_bytes": "12MB", "congested_ports": "3"}))
    # Dynamic threshold (Choudhury & Hahne): alpha·B/(1+M·alpha) with alpha = 1, M = 3: B/4.
    assert outcome.error is None and outcome.result is not None and outcome.result["per_port_share_bytes"] == 3_000_000


def test_a_failing_point_records_the_one_line_error() -> None:
    outcome = run_point(PointSpec(("whatif", "dctcp"), {}, (), fields={"rate_bps": "10GB", "rtt_s": "100us"}))
    assert outcome.result is None and outcome.error is not None and outcome.error.startswith("--speed:")
    outcome = run_point(PointSpec(("whatif", "dctcp"), {}, (), fields={"rtt_s": "100us"}))
    assert outcome.error == "--speed: is required (hint: e.g. --speed 10G; see --help)"
    outcome = run_point(PointSpec(("whatif", "nosuch"), {}, (), fields={}))
    assert outcome.error is not None and "'nosuch' is not a what-if calculator" in outcome.error


def test_the_intent_travels_as_contents_and_rows_name_the_users_path(tmp_path: Path) -> None:
    name = "designs/tlt.yaml"  # need not exist on the worker
    spec = PointSpec(("compile",), {}, (name,), files=(ShippedFile(0, name, INTENT.read_text()),), fields={"targets": ("sai",)})
    outcome = run_point(spec)
    assert outcome.error is None and outcome.result is not None
    assert outcome.result["source_file"] == name and "qosforge-point-" not in json.dumps(outcome.result)
    assert outcome.result["targets"] == ["sai"]


def test_a_compile_point_refuses_what_the_command_refuses() -> None:
    intent = (ShippedFile(0, "tlt.yaml", INTENT.read_text()),)
    outcome = run_point(PointSpec(("compile",), {}, (), files=intent, fields={"verbose": True, "quiet": True}))
    assert outcome.error == "give either --verbose or --quiet, not both"
    outcome = run_point(PointSpec(("compile",), {}, (), files=intent, fields={"targets": ("sai",), "base_path": "/nonexistent"}))
    assert outcome.error == "--base needs the sonic target (a GCU patch moves a SONiC config_db)"


def test_wall_clock_keys_move_to_timing() -> None:
    fields = {"scenario": "dumbbell", "transport": "dctcp", "ecn_threshold": "20pkt", "flows": 2, "duration": "2ms", "warmup": "0s"}
    outcome = run_point(PointSpec(("simulate",), {}, (), fields=fields, typed=frozenset(fields)))
    assert outcome.error is None and outcome.result is not None
    assert "wall_seconds" not in outcome.result and outcome.timing["wall_seconds"] > 0
    assert outcome.result["packets_forwarded"] > 0


def test_a_simulate_point_calls_the_application_layer_and_gives_what_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """No click on the point's path: the request is made from the point's fields, and its report
    is the JSON ``qosforge simulate`` prints, key for key (timings aside)."""
    argv = ["--scenario", "incast", "--flows", "4", "--duration", "2ms", "--warmup", "0s"]
    fields = {"scenario": "incast", "intent": "designs/tlt.yaml", "flows": 4, "duration": "2ms", "warmup": "0s"}
    outcome = run_point(PointSpec(("simulate",), {}, (), files=(ShippedFile(0, "designs/tlt.yaml", INTENT.read_text()),), fields=fields,
                                  typed=frozenset(fields)))
    with pytest.raises(SystemExit):
        main(["simulate", str(INTENT), *argv, "--format", "json"])
    printed = json.loads(capsys.readouterr().out)
    assert outcome.error is None and outcome.result is not None
    timings = ("wall_seconds", "loop_cpu_seconds", "packet_events_per_second")
    assert outcome.result == {key: value for key, value in printed.items() if key not in timings} | {"intent": "designs/tlt.yaml"}
    assert list(outcome.result) == [key for key in printed if key not in timings]


def test_a_simulate_point_refuses_a_chosen_flag_its_scenario_does_not_read() -> None:
    fields = {"scenario": "dumbbell", "transport": "dctcp", "ecn_threshold": "20pkt", "load_text": "50%"}
    outcome = run_point(PointSpec(("simulate",), {}, (), fields=fields, typed=frozenset(fields)))
    assert outcome.error == "--load: applies to all-to-all, not dumbbell (hint: drop --load)"


def test_resolve_command_refuses_unknown_paths() -> None:
    assert resolve_command(("whatif", "dctcp")).name == "dctcp"
    with pytest.raises(LookupError):
        resolve_command(("nope",))


def test_points_of_every_command_load_no_cli_module() -> None:
    """A worker runs whatif, compile and simulate points without importing qosforge.cli (nor click's commands)."""
    import subprocess
    import sys

    program = ("import sys\nfrom pathlib import Path\nfrom qosforge.campaigns.execute import run_point\n"
               "from qosforge.campaigns.point import PointSpec, ShippedFile\n"
               f"intent = (ShippedFile(0, 'tlt.yaml', Path({str(INTENT)!r}).read_text()),)\n"
               "specs = [PointSpec(('whatif', 'dctcp'), {}, (), fields={'rate_bps': '10G', 'rtt_s': '100us'}),\n"
               "         PointSpec(('compile',), {}, (), files=intent, fields={'targets': ('sai',)}),\n"
               "         PointSpec(('simulate',), {}, (), fields={'scenario': 'dumbbell', 'transport': 'newreno', 'flows': 1, 'duration': '1ms'},\n"
               "                   typed=frozenset({'scenario', 'transport', 'flows', 'duration'}))]\n"
               "print([run_point(spec).error for spec in specs])\n"
               "print(sorted(m for m in sys.modules if m.startswith('qosforge.cli')))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[None, None, None]", "[]"]
