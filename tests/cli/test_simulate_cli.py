"""`qosforge simulate` through the console entry point."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DUMBBELL = ["simulate", "--scenario", "dumbbell", "--flows", "10", "--transport", "dctcp", "--speed", "10G", "--rtt", "100us",
            "--ecn-threshold", "65pkt", "--queue-limit", "1000pkt", "--duration", "0.3s", "--warmup", "0.1s", "--format", "json"]
REQUIRED = ("queue_mean_packets", "queue_p50_packets", "queue_p99_packets", "queue_max_packets", "goodput_gbps", "wire_gbps", "mark_fraction",
            "drops", "packets_forwarded", "wall_seconds")

Run = Callable[..., tuple[int, str, str]]


def test_dumbbell_json_has_the_documented_fields(run_cli: Run, tmp_path: Path) -> None:
    plot = tmp_path / "queue.png"
    code, out, err = run_cli(*DUMBBELL, "--plot", str(plot))
    assert code == 0, err
    report = json.loads(out)
    assert all(key in report for key in REQUIRED)
    # 0.2 s measured, sampled every 10 us (the definition).
    assert report["queue_samples"] == 20000
    # DCTCP §3.3: the queue peaks near K + N = 75 packets, the 10G link stays full, nothing drops.
    assert 65 <= report["queue_p99_packets"] <= 80 and report["drops"] == 0
    # Payload goodput of 1448-byte segments in 1500-byte packets (1538 B of line time) at a
    # full 10G link.
    assert report["wire_gbps"] > 9.9 and 9.38 < report["goodput_gbps"] < 9.416
    assert 0 < report["mark_fraction"] < 1
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_red_flags_and_table_output(run_cli: Run) -> None:
    code, out, _ = run_cli("simulate", "--scenario", "dumbbell", "--flows", "4", "--transport", "tcp", "--red-min", "20pkt", "--red-max", "80pkt",
                           "--red-pmax", "10%", "--queue-limit", "200pkt", "--duration", "20ms", "--warmup", "5ms")
    assert code == 0
    assert "queue_p99_packets" in out and "goodput_gbps" in out
    assert '"pmax_percent": 10.0' in out  # P_max in percent, as typed and as compile's report shows it
    code, out, err = run_cli("simulate", "--scenario", "dumbbell", "--flows", "4", "--transport", "tcp", "--red-min", "20pkt", "--red-max", "80pkt",
                             "--red-pmax", "0.1")
    assert code == 2 and out == "" and err.startswith("error: --red-pmax: '0.1' has no % sign")


def test_incast_on_a_compiled_intent(run_cli: Run) -> None:
    code, out, err = run_cli("simulate", str(EXAMPLES / "tlt-softswitch.yaml"), "--scenario", "incast", "--flows", "100", "--flow-size", "60kB",
                             "--duration", "20ms", "--warmup", "0s", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["class"] == "bulk" and report["transport"] == "dctcp" and report["switch"] == "tor1"
    assert report["flows_finished"] == 100 and report["important_drops"] == 0
    assert report["approximations"] == []


def test_simulating_an_approximated_intent_says_so(run_cli: Run) -> None:
    # tlt-simulation.yaml accepts tlt-unmarked-red (its SAI target cannot mark red packets).
    code, out, err = run_cli("simulate", str(EXAMPLES / "tlt-simulation.yaml"), "--scenario", "incast", "--flows", "2", "--flow-size", "15kB",
                             "--duration", "1ms", "--warmup", "0s", "--format", "json")
    assert code == 0, err
    assert "tlt-unmarked-red" in json.loads(out)["approximations"]
    assert "approximated (tlt-unmarked-red)" in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--flows", "0"], "--flows"),
        (["--speed", "10GB"], "--speed"),
        (["--red-min", "20pkt"], "--red-min"),
        (["--ecn-threshold", "5000pkt"], "--ecn-threshold"),
        (["--warmup", "1s"], "--warmup"),
        (["--packet", "20B"], "--packet"),
        (["--flow-size-dist", "data-mining"], "--flow-size-dist"),  # all-to-all only: refused, not ignored
    ],
)
def test_bad_dumbbell_flags_exit_2_naming_the_flag(run_cli: Run, argv: list[str], expected: str) -> None:
    base = ["simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--ecn-threshold", "20pkt", "--duration", "10ms", "--warmup", "1ms"]
    code, out, err = run_cli(*base, *argv)
    assert code == 2 and out == ""
    assert expected in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--class", "nosuch"], "--class"),
        (["--port", "Ethernet999"], "--port"),
        (["--assume", "red.steps"], "--assume"),
    ],
)
def test_bad_incast_input_exits_2(run_cli: Run, argv: list[str], expected: str) -> None:
    code, _, err = run_cli("simulate", str(EXAMPLES / "tlt-softswitch.yaml"), "--scenario", "incast", "--duration", "1ms", "--warmup", "0s", *argv)
    assert code == 2 and expected in err and "Traceback" not in err


def test_incast_needs_an_intent_and_the_dumbbell_refuses_one(run_cli: Run) -> None:
    code, _, err = run_cli("simulate", "--scenario", "incast")
    assert code == 2 and "INTENT" in err
    code, _, err = run_cli("simulate", str(EXAMPLES / "tlt-softswitch.yaml"), "--scenario", "dumbbell", "--transport", "dctcp")
    assert code == 2 and "flags only" in err


def test_a_profile_without_red_quantisation_runs_the_named_linear_approximation(run_cli: Run) -> None:
    argv = ["simulate", str(EXAMPLES / "roce-pod.yaml"), "--scenario", "incast", "--flows", "4", "--duration", "2ms", "--warmup", "0s", "--format", "json"]
    code, out, err = run_cli(*argv)
    assert code == 0, err
    assert "red-linear" in err and "--assume red.steps=N" in err
    assert json.loads(out)["approximations"] == ["red-linear"]
    code, out, err = run_cli(*argv, "--assume", "red.steps=8", "--assume", "red.step_offset=0.5")
    assert code == 0, err
    assert "red-linear" not in err and json.loads(out)["approximations"] == []
    # The class declared first (rdma, DCQCN), not the one on the lowest TC (tcp, DCTCP), and the report says so.
    report = json.loads(out)
    assert (report["class"], report["transport"]) == ("rdma", "dcqcn") and report["class_chosen_by"].startswith("default: the intent's first class")
    code, out, err = run_cli(*argv, "--assume", "red.steps=8", "--assume", "red.step_offset=0.5", "--class", "tcp")
    report = json.loads(out)
    assert (report["class"], report["transport"], report["class_chosen_by"]) == ("tcp", "dctcp", "--class")


def test_first_run_announces_the_kernel_compilation_on_a_terminal(run_cli: Callable[..., tuple[int, str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    import qosforge.cli.simulate as simulate_cli

    monkeypatch.setattr(simulate_cli, "engine_needs_compiling", lambda: True)
    argv = ("simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--ecn-threshold", "20pkt", "--duration", "5ms", "--warmup", "1ms", "--format", "json")
    monkeypatch.setenv("QOSFORGE_PROGRESS", "1")
    code, _, err = run_cli(*argv)
    assert code == 0
    assert "compiling the software switch's kernel once" in err and "minutes" in err
    monkeypatch.setenv("QOSFORGE_PROGRESS", "0")  # not a terminal: nothing
    code, _, err = run_cli(*argv)
    assert (code, err) == (0, "")


def test_old_simulate_flag_names_still_work(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    common = ("simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--ecn-threshold", "20pkt", "--duration", "5ms", "--warmup", "1ms", "--format", "json")
    new = json.loads(run_cli(*common, "--speed", "25G", "--queue-limit", "300pkt")[1])
    old = json.loads(run_cli(*common, "--bandwidth", "25G", "--buffer", "300pkt")[1])
    assert new["bandwidth_bps"] == old["bandwidth_bps"] == 25e9
    assert new["buffer_bytes"] == old["buffer_bytes"] == 300 * 1500
def test_tcp_ecn_on_the_dumbbell_and_incast(run_cli: Run) -> None:
    code, out, err = run_cli("simulate", "--scenario", "dumbbell", "--flows", "4", "--transport", "tcp-ecn", "--ecn-threshold", "40pkt",
                             "--queue-limit", "200pkt", "--duration", "30ms", "--warmup", "10ms", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["transport"] == "tcp-ecn" and report["drops"] == 0 and report["mark_fraction"] > 0
    code, out, err = run_cli("simulate", str(EXAMPLES / "tlt-softswitch.yaml"), "--scenario", "incast", "--flows", "50", "--flow-size", "60kB",
                             "--transport", "tcp-ecn", "--duration", "20ms", "--warmup", "0s", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["transport"] == "tcp-ecn"


@pytest.mark.parametrize("transport", ["dctcp", "tcp-ecn", "tbtcp", "dcqcn"])
def test_a_marking_transport_needs_a_marking_bottleneck(run_cli: Run, transport: str) -> None:
    code, out, err = run_cli("simulate", "--scenario", "dumbbell", "--transport", transport, "--duration", "5ms", "--warmup", "1ms")
    assert code == 2 and out == "" and "--ecn-threshold" in err and "marks nothing" in err


def test_tbtcp_beta_is_bounded_as_in_the_intent(run_cli: Run) -> None:
    code, _, err = run_cli("simulate", "--scenario", "dumbbell", "--transport", "tbtcp", "--ecn-threshold", "20pkt", "--beta", "0.5")
    assert code == 2 and "(0, 0.5)" in err


def _short_dumbbell(*marking: str, seed: str | None) -> list[str]:
    return ["simulate", "--scenario", "dumbbell", "--flows", "4", "--transport", "dctcp", *marking, "--duration", "5ms", "--warmup", "1ms",
            "--format", "json", *(("--seed", seed) if seed is not None else ())]


_RESULT = ("goodput_gbps", "queue_mean_packets", "mark_fraction", "packets_forwarded")


def test_a_seed_that_changes_nothing_is_said_so(run_cli: Run) -> None:
    step = ("--ecn-threshold", "65pkt")  # DCTCP's step at 100 %: no draw can go either way
    code, out, err = run_cli(*_short_dumbbell(*step, seed="7"))
    assert code == 0 and "--seed has no effect" in err
    report = json.loads(out)
    assert report["seed"] == 7 and report["seed_effective"] is False
    _, other, _ = run_cli(*_short_dumbbell(*step, seed="8"))
    assert {k: report[k] for k in _RESULT} == {k: json.loads(other)[k] for k in _RESULT}
    code, _, err = run_cli(*_short_dumbbell(*step, seed=None))
    assert code == 0 and "--seed" not in err  # not given: nothing to warn about


def test_a_seed_that_matters_is_effective(run_cli: Run) -> None:
    ramp = ("--red-min", "20pkt", "--red-max", "80pkt", "--red-pmax", "10%")
    code, out, err = run_cli(*_short_dumbbell(*ramp, seed="7"))
    assert code == 0 and "--seed" not in err
    _, other, _ = run_cli(*_short_dumbbell(*ramp, seed="8"))
    first, second = json.loads(out), json.loads(other)
    assert first["seed_effective"] is True and {k: first[k] for k in _RESULT} != {k: second[k] for k in _RESULT}


def test_the_incast_plot_legend_names_the_port_as_the_switch_config_does(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.axes import Axes

    labels: list[str] = []
    drawn = Axes.plot
    monkeypatch.setattr(Axes, "plot", lambda self, *a, **k: (labels.append(k["label"]), drawn(self, *a, **k))[1])
    code, out, err = run_cli("simulate", str(EXAMPLES / "tlt-softswitch.yaml"), "--scenario", "incast", "--flows", "4", "--port", "Ethernet8",
                             "--duration", "2ms", "--warmup", "0s", "--format", "json", "--plot", str(tmp_path / "q.png"))
    assert code == 0, err
    report = json.loads(out)
    # Before: "port 2 queue 1", the engine's index; now the name the text output gives.
    assert labels == [f"Ethernet8 queue {report['queue']}"] and report["receiver_port"] == "Ethernet8"


def test_a_short_run_scales_the_default_warmup(run_cli: Run) -> None:
    # Before: --duration 50ms failed on the 0.1 s default --warmup the user never typed.
    argv = ["simulate", "--scenario", "dumbbell", "--flows", "4", "--transport", "dctcp", "--speed", "10G", "--rtt", "100us",
            "--ecn-threshold", "65pkt", "--duration", "30ms", "--format", "json"]
    code, out, err = run_cli(*argv)
    assert code == 0, err
    report = json.loads(out)
    assert report["duration_s"] == pytest.approx(0.03) and report["warmup_s"] == pytest.approx(0.01)  # a third of the run
    code, _, err = run_cli(*argv, "--warmup", "30ms")  # a typed warm-up is still checked
    assert code == 2 and "--warmup" in err


def test_the_wire_rate_is_not_above_the_link_by_a_boundary_packet() -> None:
    from qosforge.api.scenarios._single import without_boundary_packet

    # A 1500 B packet over 0.2 s is 60 kb/s: 10.00002 Gbps on a 10G link is that packet's part
    # from before the warm-up; more than one packet's worth is left to show.
    assert without_boundary_packet(10.00002, 10e9, 1500, 0.2) == 10.0
    assert without_boundary_packet(9.99997, 10e9, 1500, 0.2) == 9.99997
    assert without_boundary_packet(10.001, 10e9, 1500, 0.2) == 10.001



def test_the_help_examples_carry_no_flags_they_do_not_need(run_cli: Run) -> None:
    code, out, _ = run_cli("simulate", "--help")
    assert code == 0
    storm = next(line for line in out.splitlines() if "--scenario pause-storm" in line)
    assert storm.strip() == "qosforge simulate examples/roce-pod.yaml --scenario pause-storm"


@pytest.mark.parametrize(("key", "value", "text"), [
    ("deadlocked_bytes", 177437952.0, "177.4 MB"),  # was 1.77438e+08
    ("packet_events_per_second", 1775650.4, "1,775,650"),  # was 1.77565e+06
    ("fct_mean_s", None, "-"),  # was None: no flow finished
    ("goodput_gbps", 9.41478016, "9.41478"),
    ("drops", 0, "0"),
])
def test_the_table_prints_each_number_as_a_person_reads_it(key: str, value: object, text: str) -> None:
    from qosforge.cli.simulate import _cell

    assert _cell(key, value) == text
