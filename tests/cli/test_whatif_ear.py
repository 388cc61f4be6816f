"""`qosforge whatif ear` end to end: EAR §4.2 parameters at 10 Gbps."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from qosforge.cli import cli

PAPER = ("--speed", "10G", "--base-rtt", "116us")




def test_paper_parameters_json() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "whatif",
            "ear",
            *PAPER,
            "--ecn-threshold",
            "65pkt",
            "--delay-threshold",
            "144us",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["ecn_threshold_packets"] == 65
    assert payload["delay_threshold_packets"] == pytest.approx(120)
    assert payload["rtt_threshold_s"] == pytest.approx(260e-6)


def test_k_derived_from_dctcp_with_burst(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "ear", *PAPER, "--burst", "65pkt", "--delay-threshold", "144us", "--format", "json"
    )
    assert code == 0
    assert json.loads(out)["ecn_threshold_packets"] == 65


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--ecn-threshold", "65pkt", "--delay-threshold", "60us"), "--delay-threshold"),
        (("--ecn-threshold", "65pkt"), "--delay-threshold"),
        (("--ecn-threshold", "65pkt", "--burst", "10pkt", "--delay-threshold", "144us"), "--burst"),
        (("--ecn-threshold", "65K", "--delay-threshold", "144us"), "--ecn-threshold"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...], flag: str
) -> None:
    code, out, err = run_cli("whatif", "ear", *PAPER, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and flag in err
