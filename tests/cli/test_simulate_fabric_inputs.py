"""Bad fabric-scenario input found by a new-user trial: one line, exit code 2, nothing drawn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "validation" / "fabrics" / "lossless-watchdog.yaml"

Run = Callable[..., tuple[int, str, str]]


def _refused(run_cli: Run, *argv: str) -> str:
    code, out, err = run_cli("simulate", *argv)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_a_cdf_of_zero_byte_flows_is_refused_at_its_line(run_cli: Run, tmp_path: Path) -> None:
    cdf = tmp_path / "zero.cdf"
    cdf.write_text("0 0\n0 1\n")
    err = _refused(run_cli, str(SMALL), "--scenario", "all-to-all", "--flow-size-dist", str(cdf), "--duration", "1ms")
    assert f"{cdf}:2" in err


def test_all_to_all_beyond_the_flow_bound_is_refused_up_front(run_cli: Run, tmp_path: Path) -> None:
    cdf = tmp_path / "small.cdf"
    cdf.write_text("100 0\n100 1\n")
    err = _refused(run_cli, str(SMALL), "--scenario", "all-to-all", "--flow-size-dist", str(cdf), "--load", "100%", "--duration", "20ms")
    assert all(flag in err for flag in ("--load", "--duration", "--flow-size-dist"))


@pytest.mark.parametrize("scenario", ["fabric-incast", "all-to-all", "pause-storm"])
def test_a_single_switch_intent_suggests_incast(run_cli: Run, scenario: str) -> None:
    err = _refused(run_cli, str(ROOT / "examples" / "tlt-softswitch.yaml"), "--scenario", scenario)
    assert "one switch" in err and "--scenario incast" in err and "--switch" not in err
