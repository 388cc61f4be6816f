"""The shared CLI behaviour: one-line errors with exit 2, JSON output, sweeps, plots, --help."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest


def test_json_output_is_one_object(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "buffer", "--buffer", "12MB", "--congested-ports", "16", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["per_port_share_bytes"] == pytest.approx(705_882.35, abs=0.01)
    assert payload["units"]["per_port_share_bytes"] == "B"
    assert payload["provenance"]["derivations"][0]["formula"] == "alpha*B/(1+M*alpha)"


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--buffer", "12M"), "--buffer"),
        (("--buffer", "12MB", "--alpha", "0"), "--alpha"),
        (("--buffer", "12MB", "--congested-ports", "0"), "--congested-ports"),
        (("--buffer", "12MB", "--congested-ports", "1.5"), "--congested-ports"),
        (("--buffer", "-1MB"), "--buffer"),
        (("--buffer", "12MB", "--sweep", "alpha"), "--sweep"),
        (("--buffer", "12MB", "--sweep", "nonsense=1:2:3"), "--sweep"),
        (("--buffer", "12MB", "--plot", "x.png"), "--plot"),
        ((), "--buffer"),
    ],
)
def test_bad_input_is_one_line_exit_2(run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...], flag: str) -> None:
    code, out, err = run_cli("whatif", "buffer", *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("error: ")
    assert flag in err
    assert "Traceback" not in err


def test_unknown_option_is_a_usage_error(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, _, err = run_cli("whatif", "buffer", "--bogus", "1")
    assert code == 2 and "--bogus" in err and err.count("\n") == 1


@pytest.mark.parametrize(("argv", "command"), [
    (("whatif", "dctcp", "--rtt"), "qosforge whatif dctcp"),
    (("compile", "x.yaml", "-o"), "qosforge compile"),
    (("sweep", "simulate", "--flows"), "qosforge sweep simulate"),
    (("whatif", "dctcp", "--bogus"), "qosforge whatif dctcp"),
    (("--bogus",), "qosforge"),
])
def test_a_usage_error_points_to_its_own_commands_help(run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...],
                                                       command: str) -> None:
    # An option missing its value is raised by click without a context: it once pointed to
    # 'qosforge --help', which does not list the option.
    code, _, err = run_cli(*argv)
    assert code == 2 and err.strip().endswith(f"(hint: see '{command} --help')") and err.count("\n") == 1


def test_sweep_grid_is_vectorised_and_in_json(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "buffer", "--buffer", "12MB", "--sweep", "congested-ports=1:32:32", "--sweep", "buffer=1MB:12MB:12", "--format", "json"
    )
    assert code == 0
    payload = json.loads(out)
    shares = payload["per_port_share_bytes"]
    assert len(shares) == 32 * 12
    ports, buffers = payload["congested_ports"], payload["buffer_bytes"]
    for m, b, share in zip(ports, buffers, shares, strict=True):
        assert share == pytest.approx(b / (1 + m))
    assert [axis["name"] for axis in payload["sweep"]] == ["congested-ports", "buffer"]


def test_plot_is_written(tmp_path: Path, run_cli: Callable[..., tuple[int, str, str]]) -> None:
    target = tmp_path / "share.png"
    code, _, _ = run_cli("whatif", "buffer", "--buffer", "12MB", "--sweep", "congested-ports=1:32:8", "--plot", str(target))
    assert code == 0
    assert target.read_bytes().startswith(b"\x89PNG")
    assert [p.name for p in tmp_path.iterdir()] == ["share.png"]


def test_table_and_explain_show_formula_and_source(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("whatif", "buffer", "--buffer", "12MB", "--congested-ports", "16", "--explain")
    assert code == 0
    assert "alpha*B/(1+M*alpha)" in out
    assert "Choudhury" in out
    assert "705.88 kB" in out


_HELP_OF_EVERY_WHATIF = """
import contextlib, io, json, sys
from qosforge.cli import main
outcomes = {}
for name in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["whatif", name, "--help"])
            code = 0
        except SystemExit as exited:
            code = exited.code or 0
    outcomes[name] = [code, out.getvalue(), err.getvalue()]
print(json.dumps(outcomes))
"""


def test_console_script_help_for_every_whatif_command() -> None:
    from qosforge.api.calculators import calculator_names

    # The console path itself (`python -m qosforge`), once; then every command's --help in one
    # fresh interpreter (lazily loaded subcommands, nothing imported beforehand by other tests),
    # one process start instead of one per command.
    completed = subprocess.run([sys.executable, "-m", "qosforge", "whatif", "buffer", "--help"], capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    assert "--format" in completed.stdout and "--sweep" in completed.stdout
    completed = subprocess.run([sys.executable, "-c", _HELP_OF_EVERY_WHATIF, json.dumps(list(calculator_names()))],
                               capture_output=True, text=True, check=True)
    outcomes = json.loads(completed.stdout)
    assert list(outcomes) == list(calculator_names())
    for name, (code, out, err) in outcomes.items():
        assert code == 0, (name, err)
        assert out.startswith(f"Usage: qosforge whatif {name}") and "--format" in out and "--sweep" in out, name
