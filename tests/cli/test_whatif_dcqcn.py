"""``qosforge whatif dcqcn`` end to end through the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from qosforge.cli import cli


def invoke(*argv: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["whatif", "dcqcn", *argv])
    return result.exit_code, result.stdout, result.stderr




def test_defaults_scaled_to_100g_as_json() -> None:
    code, out, _ = invoke("--speed", "100G", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    # 5 kB / 200 kB at 40G, x 2.5; P_max stays 1 %.
    assert payload["kmin_bytes"] == pytest.approx(12_500.0)
    assert payload["kmax_bytes"] == pytest.approx(500_000.0)
    # P_max in percent, named with its unit, as compile's report and explain show it.
    assert payload["pmax_percent"] == pytest.approx(1.0) and "pmax" not in payload
    assert payload["units"]["kmax_bytes"] == "B" and payload["units"]["pmax_percent"] == "%"
    sources = {d["quantity"]: d["source"] for d in payload["provenance"]["derivations"]}
    assert "SIGCOMM 2015" in sources["kmin_bytes"]


def test_overrides() -> None:
    code, out, _ = invoke("--speed", "100G", "--kmax", "1MB", "--pmax", "20%", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["kmax_bytes"] == 1e6 and payload["pmax_percent"] == pytest.approx(20.0)
    assert payload["kmin_bytes"] == pytest.approx(12_500.0)


def test_sweep_over_rate() -> None:
    code, out, _ = invoke("--sweep", "speed=10G:100G:10", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["kmax_bytes"] == pytest.approx([r / 40e9 * 200e3 for r in payload["rate_bps"]])


def test_table_names_the_source() -> None:
    code, out, _ = invoke("--speed", "40G")
    assert code == 0
    assert "Zhu et al." in out and "200 kB" in out
    assert " 1 % " in out and " 0.01 " not in out  # P_max in percent


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--speed", "40G", "--kmin", "300kB"), "--kmin"),
        (("--speed", "40G", "--kmin", "100kB", "--kmax", "50kB"), "--kmin"),
        (("--speed", "40G", "--kmax", "4kB"), "--kmax"),
        (("--speed", "40G", "--pmax", "0%"), "--pmax"),
        (("--speed", "40G", "--pmax", "0.2"), "--pmax"),  # a bare number: 0.2 % or 20 %? refused
        (("--speed", "40GB"), "--speed"),
        ((), "--speed"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_flag(
    run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...], flag: str
) -> None:
    code, out, err = run_cli("whatif", "dcqcn", *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    assert flag in err and "Traceback" not in err
