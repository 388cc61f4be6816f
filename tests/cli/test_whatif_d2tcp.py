"""`qosforge whatif d2tcp` end to end."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from qosforge.cli import cli

FLOW = ("--remaining", "300kB", "--window", "20kB", "--rtt", "200us")




def test_deadline_analysis_json() -> None:
    result = CliRunner().invoke(
        cli, ["whatif", "d2tcp", *FLOW, "--deadline", "2ms", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["completion_rtts"] == pytest.approx(20)
    assert payload["completion_s"] == pytest.approx(4e-3)
    assert payload["imminence_raw"] == pytest.approx(2.0)
    assert payload["imminence"] == pytest.approx(2.0)
    assert payload["meets_deadline_agnostic"] is False
    assert "penalty" not in payload


def test_penalty_with_alpha_and_packet_window(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "d2tcp", "--remaining",
        "10MB",
        "--window",
        "40pkt",
        "--rtt",
        "200us",
        "--deadline",
        "20ms",
        "--dctcp-alpha",
        "0.5",
        "--format",
        "json",
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["window_bytes"] == 60e3
    assert payload["imminence"] == 2.0 and payload["within_cap"] is False
    assert payload["penalty"] == pytest.approx(0.25)
    assert payload["window_factor"] == pytest.approx(0.875)


def test_deadline_sweep(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli(
        "whatif", "d2tcp", *FLOW, "--sweep", "deadline=1ms:20ms:20", "--format", "json"
    )
    assert code == 0
    imminence = json.loads(out)["imminence"]
    assert imminence[0] == 2.0 and imminence[-1] == 0.5


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--deadline", "0ms"), "--deadline"),
        (("--deadline", "2ms", "--dctcp-alpha", "1.5"), "--dctcp-alpha"),
        (("--deadline", "2ms", "--d-max", "0.5"), "--d-max"),
        (("--deadline", "2ms", "--d-min", "0"), "--d-min"),
        ((), "--deadline"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...], flag: str
) -> None:
    code, out, err = run_cli("whatif", "d2tcp", *FLOW, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and flag in err
