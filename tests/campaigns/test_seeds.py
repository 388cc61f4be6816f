"""What a sweep says about seeds (campaigns/seeds.py)."""

from __future__ import annotations

from typing import Any

from qosforge.campaigns.point import PointSpec
from qosforge.campaigns.seeds import seed_lines
from qosforge.campaigns.store import Row


def _point(seed: int | None) -> PointSpec:
    params: dict[str, Any] = {"flows": 2} if seed is None else {"flows": 2, "seed": seed}
    return PointSpec(command=("simulate",), params=params, argv=())


def _row(spec: PointSpec, seed_effective: bool | None) -> Row:
    result = None if seed_effective is None else {"seed_effective": seed_effective}
    return Row(point=spec.point_id, command=spec.command, params=spec.params, result=result, error=None if result else "failed", timing={})


def test_generated_seeds_are_listed_for_reproduction() -> None:
    points = [_point(seed) for seed in (1, 2, 3)]
    lines = seed_lines(points, [_row(p, True) for p in points], seed_typed=False, seeds_count=3)
    assert lines == ["sweep: seeds 1..3 (--seeds 3); re-run a point by hand with --seed and the seed in its row's params.seed"]


def test_seeds_on_deterministic_points_are_noted_as_identical_copies() -> None:
    # Before: --seeds 3 on deterministic points ran three identical copies without a word.
    points = [_point(seed) for seed in (1, 2, 3)]
    lines = seed_lines(points, [_row(p, False) for p in points], seed_typed=False, seeds_count=3)
    assert lines[1] == ("sweep: note: 3 of 3 point(s) are deterministic (no RED/ECN ramp, Poisson source or ECMP choice; "
                        "result.seed_effective is false): --seeds 3 ran identical copies of them")


def test_the_default_seed_is_named_as_the_commands() -> None:
    points = [_point(1)]
    assert seed_lines(points, [_row(points[0], True)], seed_typed=False, seeds_count=None) == [
        "sweep: seed 1 (the command's default --seed); re-run a point by hand with --seed and the seed in its row's params.seed"]


def test_a_typed_seed_gets_the_note_only_for_points_it_does_not_affect() -> None:
    points = [_point(5), _point(6), _point(7)]
    rows = [_row(points[0], False), _row(points[1], True), _row(points[2], None)]  # the last one failed: no result
    (line,) = seed_lines(points, rows, seed_typed=True, seeds_count=None)
    assert line.startswith("sweep: note: --seed has no effect on 1 of 3 point(s)")
    assert seed_lines(points, [_row(p, True) for p in points], seed_typed=True, seeds_count=None) == []


def test_a_command_without_a_seed_says_nothing() -> None:
    points = [_point(None)]
    assert seed_lines(points, [], seed_typed=False, seeds_count=None) == []
