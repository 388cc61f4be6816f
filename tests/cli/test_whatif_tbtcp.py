"""``qosforge whatif tbtcp`` end to end through the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from qosforge.cli import cli


def invoke(*argv: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["whatif", "tbtcp", *argv])
    return result.exit_code, result.stdout, result.stderr




def test_section_5_1_queue_as_json() -> None:
    # TBTCP §5.1: 40 Gbps, RTT 160 us, beta 0.1: queue about 10 packets for 100 flows (Eq. 8).
    code, out, _ = invoke("--speed", "40G", "--rtt", "160us", "--flows", "100", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["queue_eq8_bytes"] == pytest.approx(10 * 1500.0)
    assert payload["rtts_per_mss_increase"] == pytest.approx(10.0)
    assert payload["bdp_bytes"] == pytest.approx(800_000.0)
    # the default l is compile's (design.lso_burst, 64 kB; TBTCP §6.2's testbed used 138 kB): it
    # shifts the queue by l; the §4.4 balance still holds.
    assert payload["lso_burst_bytes"] == 64_000.0
    assert payload["per_flow_window_packets"] * payload["marking_probability"] == pytest.approx(0.1)


def test_lso_burst_in_packets_and_r() -> None:
    code, out, _ = invoke(
        "--speed", "10G", "--rtt", "150us", "--lso-burst", "92pkt", "--r", "4", "--format", "json"
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["lso_burst_bytes"] == 138_000.0
    assert payload["programmed_marking_probability"] == pytest.approx(
        payload["marking_probability"] / 4
    )


def test_sweep_over_flows() -> None:
    code, out, _ = invoke(
        "--speed", "10G", "--rtt", "150us", "--sweep", "flows=10:100:10", "--format", "json"
    )
    assert code == 0
    payload = json.loads(out)
    queues = payload["queue_bytes"]
    assert len(queues) == 10 and queues == sorted(queues)


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--speed", "10G", "--rtt", "150us", "--flows", "0"), "--flows"),
        (("--speed", "10G", "--rtt", "150us", "--beta", "0"), "--beta"),
        (("--speed", "10G", "--rtt", "150us", "--r", "0.5"), "--r"),
        (("--speed", "10G", "--rtt", "150"), "--rtt"),
        (
            (
                "--rtt",
                "150us",
            ),
            "--speed",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_flag(
    run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...], flag: str
) -> None:
    code, out, err = run_cli("whatif", "tbtcp", *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    assert f"{flag}:" in err and "Traceback" not in err
