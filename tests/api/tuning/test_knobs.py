"""``tune``'s knobs: what the intent leaves free, their ranges, and the overrides a point writes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from qosforge.api.tuning.knobs import (
    MAX_THRESHOLD_BDP,
    ClassMarking,
    apply_overrides,
    knob_space,
    overrides,
)
from qosforge.compiler.loader import load_intent
from qosforge.errors import QosforgeError

ROOT = Path(__file__).resolve().parents[3]
ROCE_POD = ROOT / "examples" / "roce-pod.yaml"
# roce-pod's compiled marking at 100G (qosforge compile examples/roce-pod.yaml): DCTCP K 64.5 kB,
# DCQCN 12.5 kB / 500 kB / 1 %, BDP 106,336 B.
MARKINGS = (
    ClassMarking("tcp", "dctcp", 100e9, 64500, 64500, 100, 106336),
    ClassMarking("rdma", "dcqcn", 100e9, 12500, 500000, 1, 106336),
)


def _intent() -> object:
    return YAML().load(ROCE_POD.read_text())


def test_roce_pod_leaves_both_markings_and_alpha_free_and_states_its_weights() -> None:
    space = knob_space(_intent(), MARKINGS, 1.0)  # type: ignore[arg-type]
    assert [k.name for k in space.knobs] == [
        "tcp.ecn@100G.min",
        "tcp.ecn@100G.ratio",
        "tcp.ecn@100G.pmax",
        "rdma.dcqcn.min",
        "rdma.dcqcn.ratio",
        "rdma.dcqcn.pmax",
        "design.alpha_log2",
    ]
    assert space.start() == {
        "tcp.ecn@100G.min": 64500,
        "tcp.ecn@100G.ratio": 1.0,
        "tcp.ecn@100G.pmax": 100,
        "rdma.dcqcn.min": 12500,
        "rdma.dcqcn.ratio": 40.0,
        "rdma.dcqcn.pmax": 1,
        "design.alpha_log2": 0.0,
    }
    assert "classes.rdma.weight (stated in the intent)" in space.left_out
    for knob in space.knobs:
        assert knob.low <= knob.start <= knob.high


def test_a_stated_block_stays_unless_freed() -> None:
    intent = _intent()
    intent["classes"][0]["dcqcn"] = {"kmin": "50kB"}  # type: ignore[index]
    pinned = knob_space(intent, MARKINGS, 1.0)  # type: ignore[arg-type]
    assert not any(k.name.startswith("rdma.") for k in pinned.knobs)
    assert any("classes.rdma.dcqcn (stated in the intent" in line for line in pinned.left_out)
    freed = knob_space(intent, MARKINGS, 1.0, free=("classes.rdma.dcqcn",))  # type: ignore[arg-type]
    assert any(k.name == "rdma.dcqcn.min" for k in freed.knobs)
    with pytest.raises(
        QosforgeError, match=r"--free: 'classes\.rdma\.weight' is not a block tune searches"
    ):
        knob_space(intent, MARKINGS, 1.0, free=("classes.rdma.weight",))  # type: ignore[arg-type]


def test_the_start_point_writes_back_the_compiled_values() -> None:
    space = knob_space(_intent(), MARKINGS, 1.0)  # type: ignore[arg-type]
    assert overrides(space, space.start()) == {
        "classes": {
            "tcp": {"ecn": [{"speed": "100G", "min": "64500B", "max": "64500B", "pmax": "100%"}]},
            "rdma": {"dcqcn": {"kmin": "12500B", "kmax": "500000B", "pmax": "1%"}},
        },
        "design": {"alpha": 1.0},
    }


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_every_point_is_a_valid_intent_with_ordered_thresholds(data: st.DataObject) -> None:
    space = knob_space(_intent(), MARKINGS, 1.0)  # type: ignore[arg-type]
    values = {}
    for knob in space.knobs:
        if knob.scale == "log":
            values[knob.name] = data.draw(st.floats(knob.low, knob.high))
        else:
            values[knob.name] = data.draw(st.integers(int(knob.low), int(knob.high)))
    changes = overrides(space, values)
    document = _intent()
    apply_overrides(document, changes)
    rdma = changes["classes"]["rdma"]["dcqcn"]
    low, high = int(rdma["kmin"][:-1]), int(rdma["kmax"][:-1])
    assert 1 <= low <= high <= max(low, round(106336 * MAX_THRESHOLD_BDP))
    assert changes["design"]["alpha"] == 2.0 ** values["design.alpha_log2"]
    stream = io.StringIO()
    YAML().dump(document, stream)
    path = Path("/tmp") / f"qosforge-knobs-{abs(hash(stream.getvalue()))}.yaml"
    path.write_text(stream.getvalue())
    try:
        intent, _ = load_intent(path)  # the loader's validation: every value has its unit and range
    finally:
        path.unlink()
    assert intent.classes[0].dcqcn is not None and intent.classes[0].dcqcn.kmin == low
