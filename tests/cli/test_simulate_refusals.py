"""`qosforge simulate` refuses what it cannot honour: out-of-range seeds and flags the chosen
scenario would ignore (a new-operator trial found both accepted). One line, exit 2, no output."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ROCE = [str(EXAMPLES / "roce-pod.yaml"), "--assume", "red.steps=1024", "--assume", "red.step_offset=0"]
TLT = [str(EXAMPLES / "tlt-softswitch.yaml")]
DUMBBELL = ["--scenario", "dumbbell", "--transport", "dctcp", "--ecn-threshold", "20pkt", "--duration", "2ms", "--warmup", "0s"]

Run = Callable[..., tuple[int, str, str]]


def _refused(run_cli: Run, *argv: str) -> str:
    code, out, err = run_cli(*argv)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize("seed", ["-1", "4294967296", "99999999999999999999"])
@pytest.mark.parametrize("scenario", [DUMBBELL, [*TLT, "--scenario", "incast"], [*ROCE, "--scenario", "fabric-incast"],
                                      [*ROCE, "--scenario", "pause-storm"]])
def test_a_seed_outside_32_bits_is_refused_naming_the_flag_and_range(run_cli: Run, scenario: list[str], seed: str) -> None:
    # np.random.seed in the numba kernel keeps 32 bits: 2**32 would silently run as seed 0.
    err = _refused(run_cli, "simulate", *scenario, "--seed", seed)
    assert "--seed" in err and "0 to 4294967295" in err


def test_the_largest_seed_runs(run_cli: Run) -> None:
    code, _, err = run_cli("simulate", *DUMBBELL, "--seed", "4294967295", "--format", "json")
    assert code == 0, err


def test_a_sweep_checks_every_seed(run_cli: Run, tmp_path: Path) -> None:
    err = _refused(run_cli, "sweep", "simulate", *DUMBBELL, "--seed", "1,4294967296", "--out", str(tmp_path / "s.jsonl"))
    assert "--seed" in err and "4294967296" in err
    assert not (tmp_path / "s.jsonl").exists()


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        ([*ROCE, "--scenario", "fabric-incast", "--speed", "40G"], "--speed"),
        ([*ROCE, "--scenario", "fabric-incast", "--ecn-threshold", "5pkt"], "--ecn-threshold"),
        ([*ROCE, "--scenario", "fabric-incast", "--rtt", "1ms"], "--rtt"),
        ([*ROCE, "--scenario", "fabric-incast", "--queue-limit", "10pkt"], "--queue-limit"),
        ([*ROCE, "--scenario", "fabric-incast", "--red-min", "1pkt", "--red-max", "2pkt", "--red-pmax", "50%"], "--red-min"),
        ([*ROCE, "--scenario", "fabric-incast", "--beta", "0.3"], "--beta"),
        ([*ROCE, "--scenario", "all-to-all", "--port", "leaf1:Ethernet0"], "--port"),
        ([*TLT, "--scenario", "incast", "--speed", "40G"], "--speed"),
        ([*TLT, "--scenario", "incast", "--bandwidth", "40G"], "--speed"),  # the old name is the same flag
        ([*TLT, "--scenario", "incast", "--ecn-threshold", "5pkt"], "--ecn-threshold"),
        ([*TLT, "--scenario", "incast", "--rtt", "1ms"], "--rtt"),
        ([*DUMBBELL, "--class", "rdma"], "--class"),
        ([*DUMBBELL, "--port", "Ethernet0"], "--port"),
        ([*DUMBBELL, "--switch", "leaf1"], "--switch"),
        ([*DUMBBELL, "--assume", "red.steps=8"], "--assume"),
    ],
)
def test_a_typed_flag_the_scenario_ignores_is_refused(run_cli: Run, argv: list[str], flag: str) -> None:
    err = _refused(run_cli, "simulate", *argv)
    assert err.startswith(f"error: {flag}: applies to ")


@pytest.mark.parametrize(("flag", "value", "reader"), [("--load", "50%", "all-to-all"), ("--stall", "1ms", "pause-storm")])
def test_the_hint_names_only_scenarios_that_read_the_flag(run_cli: Run, flag: str, value: str, reader: str) -> None:
    err = _refused(run_cli, "simulate", *TLT, "--scenario", "incast", flag, value)
    assert f"applies to {reader}, not incast" in err


def test_a_sweep_forwarding_defaults_is_not_refused(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep point carries every default (--speed 10G, --beta 0.1...) on its argv: not typed."""
    from qosforge.campaigns import runner

    monkeypatch.setattr(runner, "LOCAL_PROCESSES", False)
    out = tmp_path / "incast.jsonl"
    code, _, err = run_cli("sweep", "simulate", *TLT, "--scenario", "incast", "--flows", "2,3", "--duration", "1ms", "--warmup", "0s",
                           "--workers", "1", "--out", str(out))
    assert code == 0, err
    assert len(out.read_text().splitlines()) == 2


def test_assume_red_steps_zero_is_placed_at_the_flag(run_cli: Run) -> None:
    err = _refused(run_cli, "simulate", str(EXAMPLES / "roce-pod.yaml"), "--scenario", "fabric-incast", "--assume", "red.steps=0",
                   "--assume", "red.step_offset=0")
    assert err.startswith("error: --assume red.steps: ")


def test_a_negative_warmup_says_zero_is_allowed(run_cli: Run) -> None:
    err = _refused(run_cli, "simulate", "--scenario", "dumbbell", "--transport", "tcp", "--warmup", "-1s")
    assert "--warmup" in err and "must be >= 0" in err


def test_a_binary_flow_size_cdf_is_refused(run_cli: Run, tmp_path: Path) -> None:
    binary = tmp_path / "g9.cdf"
    binary.write_bytes(b"\x00\xff\xfe garbage")
    err = _refused(run_cli, "simulate", *ROCE, "--scenario", "all-to-all", "--flow-size-dist", str(binary))
    assert f"{binary}: not a UTF-8 text file" in err


@pytest.mark.parametrize(("flag", "value"), [("--beta", "0.3"), ("--r", "2")])
def test_tbtcp_host_parameters_are_refused_for_other_transports(run_cli: Run, flag: str, value: str) -> None:
    code, out, err = run_cli("simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--ecn-threshold", "65pkt", flag, value, "--duration", "5ms")
    assert code == 2 and out == ""
    assert f"error: {flag}: applies to --transport tbtcp, not dctcp" in err and "Traceback" not in err
