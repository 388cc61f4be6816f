"""`qosforge whatif tlt` end to end: TLT §4.2 worked example, derived K, one-line errors."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from qosforge.cli import cli

EXAMPLE = ("--buffer", "12MB", "--congested-ports", "16", "--alpha", "1", "--packet", "1500B")




def test_worked_example_json_with_click_runner() -> None:
    result = CliRunner().invoke(
        cli, ["whatif", "tlt", *EXAMPLE, "--threshold", "400kB", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert round(payload["per_port_share_bytes"] / 1e3, 2) == 705.88
    assert round(payload["important_headroom_bytes"] / 1e3, 2) == 305.88
    assert payload["flows_per_port"] == 203
    assert payload["total_flows"] == 3248
    assert payload["threshold_bytes"] == 400e3
    assert payload["units"]["total_flows"] == "flows"


def test_threshold_derived_from_transport(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "tlt", *EXAMPLE,
        "--transport",
        "dctcp",
        "--speed",
        "40G",
        "--rtt",
        "80us",
        "--format",
        "json",
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["bdp_bytes"] == pytest.approx(400e3)
    assert payload["threshold_bytes"] == pytest.approx(400e3)
    assert payload["total_flows"] == 3248


def test_single_congested_port(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "tlt", "--buffer", "12MB", "--threshold", "400kB", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["important_headroom_bytes"] == pytest.approx(5.6e6)
    assert payload["total_flows"] == 3733


def test_sweep_over_ports_with_infeasible_points(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "tlt", "--buffer",
        "12MB",
        "--threshold",
        "400kB",
        "--sweep",
        "congested-ports=1:32:32",
        "--allow-infeasible",
        "--format",
        "json",
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["total_flows"][0] == 3733 and payload["total_flows"][15] == 3248
    assert payload["total_flows"][-1] == 0


def test_table_cites_section(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "tlt", *EXAMPLE, "--threshold", "400kB")
    assert code == 0 and "3248" in out and "§4.2" in out


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--threshold", "800kB"), "--threshold"),
        ((), "--threshold"),
        (("--threshold", "400kB", "--transport", "dctcp"), "--threshold"),
        (("--transport", "dctcp", "--speed", "40G"), "--rtt"),
        (("--transport", "dctcp", "--rtt", "80us"), "--speed"),
        (("--transport", "dctcp", "--speed", "100G", "--rtt", "80us"), "--transport"),
        (("--transport", "quic", "--speed", "40G", "--rtt", "80us"), "--transport"),
        (("--threshold", "400kB", "--packet", "0B"), "--packet"),
        (("--threshold", "400kB", "--alpha", "0"), "--alpha"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...], flag: str
) -> None:
    code, out, err = run_cli("whatif", "tlt", *EXAMPLE, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert flag in err
    assert "Traceback" not in err


def test_infeasible_threshold_message_has_numbers(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    _, _, err = run_cli("whatif", "tlt", *EXAMPLE, "--threshold", "800kB")
    assert "705.88 kB" in err and "hint:" in err


def test_whatif_json_shows_the_numbers_a_reader_expects(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    # 12 MB/(1+16) - 400 kB printed as 305882.35294117656 was fine; K = BDP as 399999.99999999994 was noise.
    code, out, _ = run_cli("whatif", "tlt", "--buffer", "12MB", "--congested-ports", "16", "--transport", "dctcp",
                           "--speed", "40G", "--rtt", "80us", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["threshold_bytes"] == 400000.0 and report["rtt_s"] == 8e-05
    assert "99999999" not in out and "0000000001" not in out


def test_explain_tables_show_inputs_without_representation_noise(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "tlt", "--buffer", "12MB", "--congested-ports", "16", "--transport", "dctcp",
                           "--speed", "40G", "--rtt", "80us", "--explain")
    assert code == 0 and "8e-05" in out and "7.999999999999999e-05" not in out


def test_mmus_divides_the_buffer_as_compile_does(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    # tlt-testbed (Tomahawk, 4 MMUs of a 16 MB buffer, K = 270 kB) compiles to 1153 flows.
    argv = ("whatif", "tlt", "--buffer", "16MB", "--congested-ports", "1", "--threshold", "270kB", "--format", "json")
    code, out, _ = run_cli(*argv, "--mmus", "4")
    assert code == 0 and json.loads(out)["total_flows"] == 1153
    code, out, _ = run_cli(*argv)
    assert code == 0 and json.loads(out)["total_flows"] == 5153


@pytest.mark.parametrize("command", ["tlt", "buffer"])
@pytest.mark.parametrize("mmus", ["0", "-2"])
def test_a_bad_mmu_count_is_reported_at_mmus(run_cli: Callable[..., tuple[int, str, str]], command: str, mmus: str) -> None:
    # 0 divided the buffer by zero (exit 70); -2 was blamed on --buffer.
    extra = ["--threshold", "400kB"] if command == "tlt" else []
    code, out, err = run_cli("whatif", command, "--buffer", "12MB", "--mmus", mmus, *extra)
    assert code == 2 and out == ""
    assert err.startswith("error: --mmus: must be >= 1") and err.count("\n") == 1


def test_a_byte_count_whole_within_rounding_prints_without_decimals() -> None:
    """The threshold is a BDP computed in floating point (40 Gb/s x 80 us = 400,000 B): the table
    gives the count as 400,000 B, as every other byte row does, not 400,000.00 B."""
    result = CliRunner().invoke(cli, ["whatif", "tlt", "--buffer", "12MB", "--congested-ports", "16",
                                      "--transport", "dctcp", "--speed", "40G", "--rtt", "80us"])
    assert result.exit_code == 0, result.output
    assert "(400,000 B)" in result.output
    assert "400,000.00 B" not in result.output
