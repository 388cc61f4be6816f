"""What a sweep says about seeds, once for the whole campaign.

The operator who typed ``--seed`` hears that it had no effect (the points it names are
deterministic: no RED/ECN ramp, Poisson source or ECMP choice, as each row's
``result.seed_effective`` says); ``--seeds N`` on such points draws a note that it ran N identical
copies. Seeds the sweep chose itself (``--seeds N``, or the command's default) are listed, so a
point can be re-run by hand with the same seed.
"""

from __future__ import annotations

from collections.abc import Sequence

from qosforge.campaigns.point import PointSpec
from qosforge.campaigns.store import Row


def _seed_text(seeds: Sequence[object]) -> str:
    numbers = [s for s in seeds if isinstance(s, int)]
    if len(numbers) == len(seeds) and len(seeds) > 2 and numbers == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"{numbers[0]}..{numbers[-1]}"
    return ", ".join(str(s) for s in seeds)


def seed_lines(points: Sequence[PointSpec], rows: Sequence[Row], *, seed_typed: bool, seeds_count: int | None) -> list[str]:
    """The sweep's lines about seeds: ``seed_typed`` when the operator gave ``--seed``,
    ``seeds_count`` the N of ``--seeds N``; nothing for a command without a seed."""
    seeds = list(dict.fromkeys(spec.params["seed"] for spec in points if "seed" in spec.params))
    if not seeds:
        return []
    if seed_typed:
        ineffective = sum(1 for row in rows if row.result is not None and row.result.get("seed_effective") is False)
        if not ineffective:
            return []
        return [f"sweep: note: --seed has no effect on {ineffective} of {len(rows)} point(s): they have no RED/ECN ramp, Poisson source or "
                "ECMP choice, so every seed gives the same result (result.seed_effective is false in their rows)"]
    chosen = f"--seeds {seeds_count}" if seeds_count is not None else "the command's default --seed"
    lines = [f"sweep: seed{'s' if len(seeds) > 1 else ''} {_seed_text(seeds)} ({chosen}); re-run a point by hand with --seed and the seed in its row's params.seed"]
    ineffective = sum(1 for row in rows if row.result is not None and row.result.get("seed_effective") is False)
    if seeds_count is not None and seeds_count > 1 and ineffective:
        # --seeds N multiplies every point by N; on deterministic points the copies are identical.
        lines.append(f"sweep: note: {ineffective} of {len(rows)} point(s) are deterministic (no RED/ECN ramp, Poisson source or ECMP choice; "
                     f"result.seed_effective is false): --seeds {seeds_count} ran identical copies of them")
    return lines


__all__ = ["seed_lines"]
