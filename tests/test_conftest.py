"""The test tiers of tests/conftest.py: a property test runs a quarter of its examples in the
default tier (at least ten) and all of them when every tier runs (``-m ''``, .ci/run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import quick_examples

CONFTEST = Path(__file__).with_name("conftest.py")


def test_quick_examples_are_a_quarter_never_under_ten_nor_over_the_full_count() -> None:
    assert [quick_examples(n) for n in (300, 200, 60, 40, 25, 12, 5)] == [75, 50, 15, 10, 10, 10, 5]


@given(st.integers(min_value=1, max_value=10_000))
@settings(max_examples=50)
def test_quick_examples_never_exceed_the_full_count(full: int) -> None:
    assert 1 <= quick_examples(full) <= full


PROPERTY_TESTS = '''
from hypothesis import given, settings, strategies as st
import pytest

CALLS = {"plain": 0, "parametrized": 0}

@given(st.integers())
@settings(max_examples=200, database=None)
def test_plain(value):
    CALLS["plain"] += 1

@pytest.mark.parametrize("side", ["a", "b"])
@given(st.integers())
@settings(max_examples=40, database=None)
def test_parametrized(side, value):
    CALLS["parametrized"] += 1

def test_zz_counts():
    print("CALLS", CALLS["plain"], CALLS["parametrized"])
'''


@pytest.mark.parametrize(("marks", "plain", "parametrized"), [
    ([], 50, 2 * 10),
    (["-m", ""], 200, 2 * 40),
])
def test_the_default_tier_runs_fewer_examples_and_every_tier_all(
    pytester: pytest.Pytester, marks: list[str], plain: int, parametrized: int
) -> None:
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(test_props=PROPERTY_TESTS)
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-s",
                                          "-m", "not referee and not slow", *marks)
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines([f"*CALLS {plain} {parametrized}*"])


def test_a_run_without_bytecode_or_its_cache_says_what_it_costs() -> None:
    from tests.conftest import bytecode_note

    assert bytecode_note(False, False) == bytecode_note(True, True) == []
    [line] = bytecode_note(True, False)
    assert line.startswith("PYTHONDONTWRITEBYTECODE is set: ") and "unset it" in line


@pytest.mark.parametrize(("current", "args", "chosen"), [
    ("load", ["-n", "2"], "loadfile"),  # -n alone: xdist's per-test default becomes per file
    ("load", ["-n", "2", "--dist", "load"], "load"),  # named on the command line: kept
    ("load", ["-n", "2", "--dist=load"], "load"),
    ("load", ["-n", "2", "-d"], "load"),
    ("loadscope", ["-n", "2", "--dist", "loadscope"], "loadscope"),
    ("no", [], "no"),  # one process
])
def test_each_file_runs_whole_in_one_worker_unless_the_command_names_a_distribution(
    current: str, args: list[str], chosen: str
) -> None:
    from tests.conftest import distribution

    assert distribution(current, args) == chosen
