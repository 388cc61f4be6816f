"""``tune``'s objectives: the --objective grammar, the default set, violations and the score."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.api.tuning.objectives import (
    PENALTY,
    ObjectiveSet,
    default_objectives,
    objective_set,
    parse_objective,
    score,
    violations,
)
from qosforge.compiler.objectives import ClassObjective, Objectives
from qosforge.errors import QosforgeError

CLASSES = (("rdma", True), ("tcp", False))


def test_an_objective_reads_every_metric_with_its_direction() -> None:
    objective = parse_objective(
        "class=rdma, fct_p99_us<=500, max_kb=64, lossless_drops<=0, pfc_pause_percent=5, "
        "queue_delay_p99_us<=20, goodput_percent>=30"
    )
    assert objective.class_name == "rdma" and objective.message_max_kb == 64
    assert objective.targets() == {
        "fct_p99_us": 500,
        "goodput_percent": 30,
        "lossless_drops": 0,
        "pfc_pause_percent": 5,
        "queue_delay_p99_us": 20,
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "class=rdma,goodput_percent<=30",
            "--objective: goodput_percent is a floor (hint: write goodput_percent>=30)",
        ),
        (
            "class=rdma,fct_p99_us>=500",
            "--objective: fct_p99_us is a ceiling (hint: write fct_p99_us<=500)",
        ),
        ("class=rdma,latency<=5", "--objective: 'latency' is not a metric"),
        ("fct_p99_us<=500", "--objective: 'fct_p99_us<=500' names no class"),
        ("class=rdma,fct_p99_us<=fast", "--objective: fct_p99_us='fast' is not a number"),
        ("class=rdma,fct_p99_us", "--objective: 'fct_p99_us' is not KEY=VALUE"),
        (
            "class=rdma,goodput_percent>=150",
            "--objective: goodput_percent: Input should be less than or equal to 100",
        ),
    ],
)
def test_bad_objectives_name_the_flag_and_the_fix(text: str, message: str) -> None:
    with pytest.raises(QosforgeError) as caught:
        parse_objective(text)
    error = caught.value
    assert f"{error.place}: {error.message} (hint: {error.hint})".startswith(message)


def test_flags_override_the_intent_and_the_default_set_holds_lossless_classes() -> None:
    declared = Objectives.model_validate(
        {"minimize": "tcp.fct_p99_us", "classes": [{"class": "tcp", "goodput_percent": 20}]}
    )
    from_intent = objective_set((), None, declared, CLASSES)
    assert from_intent.source == "the intent's objectives" and from_intent.minimize == (
        "tcp",
        "fct_p99_us",
    )
    from_flags = objective_set(
        ("class=rdma,fct_p99_us<=100",), "rdma.queue_delay_p99_us", declared, CLASSES
    )
    assert from_flags.source == "--objective" and from_flags.minimize == (
        "rdma",
        "queue_delay_p99_us",
    )
    default = objective_set((), None, None, CLASSES)
    assert default.source == "the default set" and default.minimize == ("rdma", "fct_p99_us")
    assert [o.targets() for o in default.classes] == [
        {"lossless_drops": 0, "pfc_pause_percent": 10},
        {},
    ]
    assert default_objectives(CLASSES) == default.classes


def test_an_objective_for_a_class_the_intent_lacks_is_refused() -> None:
    with pytest.raises(QosforgeError, match="no class 'bulk'"):
        objective_set(("class=bulk,fct_p99_us<=5",), None, None, CLASSES)
    with pytest.raises(QosforgeError, match=r"is not CLASS\.METRIC"):
        objective_set((), "rdma.speed", None, CLASSES)


def _set(**targets: float) -> ObjectiveSet:
    return ObjectiveSet(
        (ClassObjective.model_validate({"class": "rdma", **targets}),),
        ("rdma", "fct_p99_us"),
        "test",
    )


def test_violations_are_relative_misses_and_a_lost_lossless_packet_costs_the_penalty() -> None:
    objectives = _set(fct_p99_us=100, goodput_percent=50, lossless_drops=0)
    metrics = {"rdma": {"fct_p99_us": 150.0, "goodput_percent": 40.0, "lossless_drops": 2.0}}
    assert violations(objectives, metrics) == pytest.approx(
        {"rdma.fct_p99_us": 0.5, "rdma.goodput_percent": 0.2, "rdma.lossless_drops": 2}
    )
    assert score(objectives, metrics, primary_at_start=300.0) == pytest.approx(0.5 + PENALTY * 2.7)
    unmeasured = {"rdma": {"fct_p99_us": None, "goodput_percent": 60.0, "lossless_drops": 0.0}}
    assert violations(objectives, unmeasured)["rdma.fct_p99_us"] == 1.0
    assert score(objectives, unmeasured, primary_at_start=300.0) == pytest.approx(2.0 + PENALTY)


@given(st.floats(1, 1e4), st.floats(1, 1e4), st.floats(1, 1e4))
def test_with_targets_met_the_score_is_the_primary_relative_to_the_start(
    fct: float, slower: float, start: float
) -> None:
    objectives = _set(fct_p99_us=1e5)
    first = score(objectives, {"rdma": {"fct_p99_us": fct}}, start)
    assert first == pytest.approx(fct / start)
    assert score(objectives, {"rdma": {"fct_p99_us": fct + slower}}, start) > first
