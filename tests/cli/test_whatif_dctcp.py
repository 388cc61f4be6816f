"""`qosforge whatif dctcp` end to end."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from qosforge.cli import cli


def test_sixty_five_packets_at_10g_with_burst_allowance() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "whatif",
            "dctcp",
            "--speed",
            "10G",
            "--rtt",
            "100us",
            "--burst",
            "65pkt",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["threshold_packets"] == 65
    assert payload["threshold_bytes"] == 97500
    assert payload["stability_bound_packets"] == pytest.approx(11.905, abs=1e-3)


def test_bound_alone_and_lso_in_kib(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "dctcp", "--speed", "40G", "--rtt", "160us", "--format", "json")
    assert code == 0 and json.loads(out)["threshold_packets"] == 77  # > 76.19 (TBTCP §6: 76)
    code, out, _ = run_cli("whatif", "dctcp", "--speed", "10G", "--rtt", "10us", "--burst", "64KiB", "--format", "json"
    )
    assert code == 0 and json.loads(out)["threshold_packets"] == 44


def test_rtt_sweep_is_monotone(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "dctcp", "--speed", "100G", "--sweep", "rtt=5us:500us:100", "--format", "json"
    )
    assert code == 0
    packets = json.loads(out)["threshold_packets"]
    assert len(packets) == 100 and packets == sorted(packets)


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--rtt", "100us"), "--speed"),
        (("--speed", "10G"), "--rtt"),
        (("--speed", "10GB", "--rtt", "100us"), "--speed"),
        (("--speed", "10G", "--rtt", "0us"), "--rtt"),
        (("--speed", "10G", "--rtt", "100us", "--packet", "0B"), "--packet"),
        (("--speed", "10G", "--rtt", "100us", "--burst", "64K"), "--burst"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...], flag: str
) -> None:
    code, out, err = run_cli("whatif", "dctcp", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and flag in err


def test_default_burst_is_the_compilers_lso_floor(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    # roce-pod's class RTT at 100G: compile gives 64,500 B (43 packets, the 64 kB LSO floor).
    code, out, _ = run_cli("whatif", "dctcp", "--speed", "100G", "--rtt", "8.50688us", "--format", "json")
    assert code == 0 and json.loads(out)["threshold_bytes"] == 64500
    code, out, _ = run_cli("whatif", "dctcp", "--speed", "100G", "--rtt", "8.50688us", "--burst", "1B", "--format", "json")
    assert code == 0 and json.loads(out)["threshold_bytes"] == 16500
