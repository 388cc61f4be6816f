"""The benchmark scripts refuse bad input with one line on stderr and exit 2 (never a traceback),
and ``engine_fingerprint.py --compare``, the proof that an engine change is result-neutral, fails
on any difference. Each script runs as ``python bench/SCRIPT`` runs it (``__main__``, its folder
first on sys.path), in this process: a second interpreter per case cost ~0.7 CPU s of start-up
each and checked nothing more, since an exception that escapes the script fails the test here
as a traceback would there. One case runs in its own process (the interpreter's exit status).
Every case stops before any simulation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .bench_script import BENCH
from .bench_script import run_script as _run


def test_a_refusal_is_exit_2_from_the_interpreter() -> None:
    done = subprocess.run([sys.executable, str(BENCH / "bench_softswitch.py"), "abc"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("script", "argv", "expected"),
    [
        ("bench_softswitch.py", ["--runs", "0", "0.001"], "--runs"),
        ("bench_softswitch.py", ["-1"], "positive"),
        ("bench_softswitch.py", ["0"], "positive"),
        ("bench_softswitch.py", ["abc"], "'abc'"),
        ("bench_startup.py", ["--runs", "0"], "--runs"),
        ("bench_timeseries.py", ["--runs", "0"], "--runs"),
        ("bench_startup.py", ["--only", "nosuch"], "--only 'nosuch'"),
        ("engine_fingerprint.py", ["--only", "nosuch"], "--only 'nosuch'"),
        ("engine_ab.py", ["nosuch.so", "A.so"], "nosuch.so: no such file"),
        ("engine_ab.py", ["X", "X", "--runs", "0"], "--runs"),
        ("engine_ab.py", [str(BENCH / "engine_ab.py"), str(BENCH / "engine_ab.py")], "not the event core"),
        ("dcqcn_fluid.py", ["--flows", "0"], "--flows"),
        ("dcqcn_fluid.py", ["--capacity", "40GB"], "bits per second"),
        ("dcqcn_fluid.py", ["--capacity", "100"], "--capacity: '100' has no unit"),
        ("dcqcn_fluid.py", ["--rtt", "5"], "--rtt: '5' has no unit"),
        ("dcqcn_fluid.py", ["--min-rate", "200G"], "--min-rate: 200G is above --capacity 100G"),
        ("dcqcn_trace.py", ["examples/roce-pod.yaml", "x.yaml", "--sample", "100us"], "--sample"),
        ("dcqcn_trace.py", ["nosuch.yaml", "examples/victims.traffic.yaml"], "nosuch.yaml"),
        ("dcqcn_trace.py", ["examples/roce-pod.yaml", "examples/victims.traffic.yaml",
                            "--csv", "/nonexistent/x.csv"], "--csv: folder '/nonexistent'"),
        ("dcqcn_trace.py", ["examples/dctcp-fig17.yaml", "examples/dctcp-fig17.traffic.yaml",
                            "--port", "T1:Ethernet0", "--queue", "1"], "runs DCQCN"),
    ],
)
def test_bad_input_is_one_line_exit_2(script: str, argv: list[str], expected: str) -> None:
    code, out, err = _run(script, *argv)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith("error: ") and expected in err


def test_engine_ab_help_explains_its_arguments() -> None:
    code, out, _ = _run("engine_ab.py", "--help")
    assert code == 0
    assert all(text in out for text in ("A.so B.so", "--runs", "default 5", "--duration", "SECONDS", "default 0.02"))


def _dump(folder: Path, **scenarios: dict[str, object]) -> Path:
    folder.mkdir()
    for name, numbers in scenarios.items():
        (folder / f"{name}.json").write_text(json.dumps(numbers))
    return folder


def test_compare_exits_0_only_when_identical(tmp_path: Path) -> None:
    numbers = {"drops": 3, "switches": [{"pause_s": 0.5}]}
    code, out, _ = _run("engine_fingerprint.py", "--compare", str(_dump(tmp_path / "a", s=numbers)), str(_dump(tmp_path / "b", s=numbers)))
    assert code == 0 and "identical" in out


@pytest.mark.parametrize(
    ("new", "listed"),
    [
        ({"s": {"drops": 4, "switches": [{"pause_s": 0.5}]}}, "| s | drops | 3 | 4 | +33.33% |"),
        ({"s": {"drops": 3, "switches": [{"pause_s": 0.25}]}}, "| s | per-switch/port keys | 1 | 1 changed | |"),
        ({"s": {"drops": 3, "switches": [{"pause_s": 0.5}]}, "t": {"drops": 0}}, "| t | (whole scenario) | absent | present | |"),
        ({}, "| s | (whole scenario) | present | absent | |"),
    ],
)
def test_compare_exits_1_on_any_difference_and_lists_it(tmp_path: Path, new: dict[str, dict[str, object]], listed: str) -> None:
    old = _dump(tmp_path / "old", s={"drops": 3, "switches": [{"pause_s": 0.5}]})
    (tmp_path / "new").mkdir()
    for name, numbers in new.items():
        (tmp_path / "new" / f"{name}.json").write_text(json.dumps(numbers))
    if not new:  # the other side has a scenario only
        (tmp_path / "new" / "u.json").write_text("{}")
    code, out, _ = _run("engine_fingerprint.py", "--compare", str(old), str(tmp_path / "new"))
    assert code == 1 and listed in out


def test_compare_of_a_missing_folder_fails(tmp_path: Path) -> None:
    present = _dump(tmp_path / "a", s={"drops": 3})
    code, _, err = _run("engine_fingerprint.py", "--compare", str(tmp_path / "nosuch"), str(present))
    assert code == 1 and "nosuch" in err


def test_dcqcn_fluid_help_shows_each_option_and_its_default() -> None:
    code, out, _ = _run("dcqcn_fluid.py", "--help")
    assert code == 0
    words = " ".join(out.split())
    assert all(text in words for text in ("--flows N", "(default: 8)", "--capacity RATE",
                                          "(default: 100G)", "--duration TIME", "(default: 8ms)",
                                          "--min-rate RATE", "(default: 100M)"))


def test_dcqcn_fluid_default_floor_is_the_software_switchs() -> None:
    # The docstring says the defaults are the software switch's: its RP floor is 100 Mb/s.
    from qosforge.models.dcqcn_host import DCQCN_MIN_RATE_BPS

    code, out, _ = _run("dcqcn_fluid.py", "--help")
    assert code == 0 and f"(default: {DCQCN_MIN_RATE_BPS / 1e6:g}M)" in " ".join(out.split())
