"""``qosforge.api.check``: the deadlock check as a typed request -> outcome with one of three
verdicts (deadlock-free, deadlock, not proven) and its exit code (no click: test_no_cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.api.check import EXIT_NOT_PROVEN, DeadlockRequest, check_deadlock, verdict_of
from qosforge.errors import QosforgeError

ROOT = Path(__file__).resolve().parents[2]
POD = str(ROOT / "examples" / "roce-pod.yaml")


@pytest.mark.parametrize(
    ("fail_links", "max_failures", "routing", "verdict", "code"),
    [
        (0, None, None, "deadlock_free", 0),
        (1, None, None, "deadlock_free", 0),
        # roce-pod's eBGP (RFC 7938): the 12 pairs that bounce under shortest paths cut leaves off
        (2, None, None, "deadlock_free", 0),
        # 12 of roce-pod's 28 pairs of failed links bounce into a cycle under shortest paths
        (2, None, "shortest-path", "deadlock", 1),
        # the first pair checked closes no cycle: nothing is proven of the other 27
        (2, 1, "shortest-path", "not_proven", 3),
    ],
)
def test_the_verdict_and_exit_code_follow_what_was_checked(
    fail_links: int, max_failures: int | None, routing: str | None, verdict: str, code: int
) -> None:
    outcome = check_deadlock(DeadlockRequest(POD, fail_links, max_failures, routing_model=routing))
    assert (outcome.verdict, outcome.exit_code) == (verdict, code)
    report = outcome.report()
    assert report["verdict"] == verdict and report["exit_code"] == code
    assert report["routing"]["model"] == (routing or "ebgp-rfc7938")
    if fail_links == 0:
        assert outcome.result is None and report["failures"]["skipped"].startswith("--fail-links 0")
    else:
        assert report["failures"]["skipped"] is None


def test_no_cycle_in_an_unfinished_sweep_is_never_a_proof() -> None:
    assert verdict_of((), 1, None) == "not_proven"
    assert verdict_of((), 0, None) == "deadlock_free"
    assert EXIT_NOT_PROVEN not in (0, 1, 2, 70)


def test_bad_input_is_a_qosforge_error() -> None:
    with pytest.raises(QosforgeError, match="no such file"):
        check_deadlock(DeadlockRequest("missing.yaml"))
