"""Where the test suite spends its time (target: <= 180 s fresh, <= 60 s warm).

Runs the README's test command (``python -m pytest -n auto``, the project's pytest settings) once
in a child process with a JUnit report, then prints the wall and CPU time of the run (CPU is the
figure to compare on a shared machine: wall time there mostly measures the other jobs), the time
spent outside tests (start-up, collection, imports; only meaningful for a one-process run, ``-n 0``)
and the test time per folder, per file and the slowest tests (summed over the workers). Python's
bytecode cache is on for the run even if this shell sets PYTHONDONTWRITEBYTECODE.

    nice python bench/bench_suite.py [--top 25] [pytest arguments, e.g. -n 0 or tests/cli]

With no pytest arguments it runs ``-n auto``, as the README does.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class TestTime:
    file: str
    name: str
    seconds: float
    outcome: str


def _outcome(case: ElementTree.Element) -> str:
    for kind in ("failure", "error", "skipped"):
        if case.find(kind) is not None:
            return kind
    return "passed"


def read_report(path: Path) -> list[TestTime]:
    """Every test case of a JUnit XML report (its file from the dotted class name)."""
    cases = []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "")
        cases.append(TestTime(module.replace(".", "/") + ".py", case.get("name", ""), float(case.get("time", "0")), _outcome(case)))
    return cases


def _print_totals(title: str, totals: Counter[str], counts: Counter[str], top: int) -> None:
    print(f"\n{title}")
    for key, seconds in totals.most_common(top):
        print(f"  {seconds:7.1f} s  {counts[key]:5d} tests  {key}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=25, help="how many files and tests to list")
    args, pytest_args = parser.parse_known_args()
    pytest_args = pytest_args or ["-n", "auto"]
    one_process = "-n" not in pytest_args or pytest_args[pytest_args.index("-n") + 1:][:1] == ["0"]
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "junit.xml"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        # Python's bytecode cache on, as on a user's machine, even if this shell sets
        # PYTHONDONTWRITEBYTECODE: without it each worker compiles every source and rewrites every
        # test module's asserts again (collection then takes ~10 CPU s per worker, not ~4).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        completed = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--junitxml={report}", *pytest_args],
                                   cwd=ROOT, stdout=subprocess.DEVNULL, check=False, env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cases = read_report(report)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    in_tests = sum(case.seconds for case in cases)
    outcomes = Counter(case.outcome for case in cases)
    print(f"pytest exit {completed.returncode}: {dict(outcomes)}")
    print(f"wall {wall:.1f} s, CPU {cpu:.1f} s (user+sys of pytest and the processes it waited for)")
    if one_process:
        print(f"in tests {in_tests:.1f} s, outside tests (start-up, collection) {wall - in_tests:.1f} s")
    else:
        print(f"in tests {in_tests:.1f} s summed over the workers")
    by_folder: Counter[str] = Counter()
    by_file: Counter[str] = Counter()
    folder_counts: Counter[str] = Counter()
    file_counts: Counter[str] = Counter()
    for case in cases:
        folder = str(Path(case.file).parent)
        by_folder[folder] += case.seconds
        folder_counts[folder] += 1
        by_file[case.file] += case.seconds
        file_counts[case.file] += 1
    _print_totals("per folder", by_folder, folder_counts, len(by_folder))
    _print_totals("per file", by_file, file_counts, args.top)
    print("\nslowest tests")
    for case in sorted(cases, key=lambda c: c.seconds, reverse=True)[: args.top]:
        print(f"  {case.seconds:7.2f} s  {case.file}::{case.name}")
    sys.exit(completed.returncode)


if __name__ == "__main__":
    main()
