"""``qosforge whatif fastlane`` end to end through the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from qosforge.cli import cli


def invoke(*argv: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["whatif", "fastlane", *argv])
    return result.exit_code, result.stdout, result.stderr




def test_caps_and_worst_case_as_json() -> None:
    code, out, _ = invoke("--speed", "10G", "--port-buffer", "128kB", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["notification_rate_cap_bps"] == pytest.approx(200e6)
    assert payload["notification_buffer_cap_bytes"] == pytest.approx(6400.0)
    # default p = 100 %: the §3.2 worst case, under 4.5 %, capped to 2 %.
    assert payload["overhead_fraction"] == pytest.approx(64 / 1464)
    assert payload["capped_overhead_fraction"] == pytest.approx(0.02)
    # "A 2% cap implies that over 25% of packets are being dropped" (§3.2).
    assert 0.25 < payload["drop_probability_at_cap"] < 0.3
    assert payload["cap_reachable"] is True


def test_unreachable_cap_is_valid_json() -> None:
    code, out, _ = invoke(
        "--speed", "10G", "--port-buffer", "128kB", "--bandwidth-cap", "8%", "--format", "json"
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["cap_reachable"] is False and payload["drop_probability_at_cap"] == 1.0


def test_sweep_over_drop_probability() -> None:
    code, out, _ = invoke(
        "--speed",
        "10G",
        "--port-buffer",
        "128kB",
        "--sweep",
        "drop-probability=0%:100%:11",
        "--format",
        "json",
    )
    assert code == 0
    payload = json.loads(out)
    expected = [64 * p * (2 - p) / (1464 + 64 * (1 - p) * p) for p in payload["drop_probability"]]
    assert payload["overhead_fraction"] == pytest.approx(expected)


def test_table() -> None:
    code, out, _ = invoke("--speed", "10G", "--port-buffer", "128kB", "--drop-probability", "10%")
    assert code == 0
    assert "200 Mbps" in out and "FastLane" in out


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (
            ("--speed", "10G", "--port-buffer", "128kB", "--drop-probability", "150%"),
            "--drop-probability",
        ),
        (("--speed", "10G", "--port-buffer", "128kB", "--bandwidth-cap", "0%"), "--bandwidth-cap"),
        (("--speed", "10G", "--port-buffer", "128K"), "--port-buffer"),
        (
            (
                "--speed",
                "10G",
            ),
            "--port-buffer",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_flag(
    run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...], flag: str
) -> None:
    code, out, err = run_cli("whatif", "fastlane", *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    assert f"{flag}:" in err and "Traceback" not in err
