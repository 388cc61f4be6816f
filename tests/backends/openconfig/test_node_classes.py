"""pyangbind's node classes reused per kind of node (backends/openconfig/node_classes.py) accept,
encode and refuse exactly what pyangbind's own per-node classes do: leaves of every kind the
openconfig-qos model has (ranges, patterns, enumerations, identities, unions, leaf-lists) set to
any value, and documents decoded whole, valid or broken, serially and from several threads."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.backends.openconfig.model import (
    ROOT_KEY,
    ModelViolation,
    bindings,
    encode_node,
    error_text,
    load_openconfig,
    new_root,
    to_rfc7951,
)
from qosforge.backends.openconfig.node_classes import pyangbinds_own_classes, reuse_node_classes

ROOT = Path(__file__).resolve().parents[3]

#: A container per kind of leaf, made in a fresh ``/qos``; each entry's leaves are set below.
def _scheduler(qos: Any) -> Any:
    return qos.scheduler_policies.scheduler_policy.add("p").schedulers.scheduler.add(0)


CONTAINERS: dict[str, Callable[[Any], Any]] = {
    "scheduler": lambda qos: _scheduler(qos).config,
    "shaper": lambda qos: _scheduler(qos).one_rate_two_color.config,
    "wred": lambda qos: qos.queue_management_profiles.queue_management_profile.add("w")
    .wred.uniform.config,
    "ipv4": lambda qos: qos.classifiers.classifier.add("c").terms.term.add("t")
    .conditions.ipv4.config,
    "buffer": lambda qos: qos.buffer_allocation_profiles.buffer_allocation_profile.add("b")
    .queues.queue.add("q").config,
    "queue": lambda qos: qos.queues.queue.add("q").config,
}
LEAVES = [(kind, leaf) for kind, make in CONTAINERS.items()
          for leaf in make(new_root().qos)._pyangbind_elements]

NAMES = ["STRICT", "ONE_RATE_TWO_COLOR", "oc-qos-types:ONE_RATE_TWO_COLOR", "SHAPE", "DROP",
         "STATIC", "DYNAMIC_BASED_ON_SCALING_FACTOR", "IP_TCP", "oc-pkt-match-types:IP_UDP",
         "10.0.0.0/8", "10.0.0.1", "2001:db8::/32", "", "x"]
VALUES = st.one_of(
    st.integers(-300, 300), st.integers(-(2**66), 2**66), st.sampled_from(NAMES),
    st.text(max_size=6), st.booleans(), st.floats(-1e3, 1e20),
    st.lists(st.integers(-3, 70), max_size=4), st.lists(st.sampled_from(NAMES), max_size=2),
)


def _set(container: Any, leaf: str, value: object) -> tuple[str, object]:
    """What the bindings make of ``value``: its encoding, or the refusal's kind and message."""
    try:
        setattr(container, leaf, value)
    except (ValueError, TypeError, AttributeError, KeyError) as error:
        return type(error).__name__, error_text(error)
    return "set", encode_node(container)


@pytest.fixture(scope="module")
def containers() -> dict[str, tuple[Any, Any]]:
    """Each kind's container twice: built by the reused classes, and by pyangbind's own."""
    module = bindings()
    reused = {kind: make(new_root().qos) for kind, make in CONTAINERS.items()}
    with pyangbinds_own_classes(module):
        own = {kind: make(new_root().qos) for kind, make in CONTAINERS.items()}
    return {kind: (reused[kind], own[kind]) for kind in CONTAINERS}


def test_the_reused_classes_are_in_use() -> None:
    from pyangbind.lib import yangtypes

    module = bindings()
    assert reuse_node_classes(module)
    first, second = new_root().qos.queues.queue.add("a"), new_root().qos.queues.queue.add("b")
    assert type(first.config.name) is type(second.config.name)  # one class, two nodes
    # ... each with its own place in the tree (the node's values, not the first node's)
    places = [node.config.name._path()[2] for node in (first, second)]
    assert places == ["queue[name='a']", "queue[name='b']"]
    with pyangbinds_own_classes(module):
        assert module.YANGDynClass is yangtypes.YANGDynClass
        own = new_root().qos.queues.queue.add("a"), new_root().qos.queues.queue.add("b")
        assert type(own[0].config.name) is not type(own[1].config.name)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(LEAVES), VALUES), min_size=1, max_size=6))
def test_any_value_is_accepted_and_encoded_or_refused_as_pyangbinds_own_classes_do(
        containers: dict[str, tuple[Any, Any]], settings_: list[tuple[tuple[str, str], object]],
) -> None:
    for (kind, leaf), value in settings_:
        reused, own = containers[kind]
        outcome = _set(reused, leaf, value)
        with pyangbinds_own_classes(bindings()):
            assert outcome == _set(own, leaf, value), (kind, leaf, value)


def test_range_pattern_enumeration_and_leaf_list_refusals_are_kept(
        containers: dict[str, tuple[Any, Any]]) -> None:
    """The checks the reused classes must still run, one refused and one accepted value each."""
    cases = [("wred", "max_drop_probability_percent", 101, 100), ("ipv4", "dscp", 64, 63),
             ("ipv4", "dscp_set", [10, 64], [10, 63]),
             ("ipv4", "source_address", "10.0.0.1", "10.0.0.0/8"),
             ("scheduler", "priority", "LOW", "STRICT"),
             ("shaper", "queuing_behavior", "QUEUE", "SHAPE"),
             ("scheduler", "sequence", -1, 4294967295),
             ("scheduler", "type", "ONE_RATE", "ONE_RATE_TWO_COLOR")]
    for kind, leaf, refused, accepted in cases:
        reused, _own = containers[kind]
        assert _set(reused, leaf, refused)[0] == "ValueError", (leaf, refused)
        assert _set(reused, leaf, accepted)[0] == "set", (leaf, accepted)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """A rendered ``/qos`` of examples/dctcp-fig17.yaml (every member kind the renderer writes)."""
    from qosforge.api.compile import compile_fabric
    from qosforge.backends.openconfig.render import render_openconfig

    example = str(ROOT / "examples" / "dctcp-fig17.yaml")
    compiled = compile_fabric(example, targets=("openconfig",))
    return render_openconfig(compiled.fabric.for_target("openconfig")[0])


def _broken(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    qos = document[ROOT_KEY]
    def first(*path: str) -> Any:
        node: Any = qos_copy
        for step in path:
            node = node[step][0] if isinstance(node[step], list) else node[step]
        return node

    edits: list[tuple[tuple[str, ...], dict[str, object]]] = [
        (("queues", "queue", "config"), {"queue-id": 300}),
        (("queue-management-profiles", "queue-management-profile", "wred", "uniform", "config"),
         {"max-drop-probability-percent": 101}),
        (("scheduler-policies", "scheduler-policy", "schedulers", "scheduler", "config"),
         {"priority": "HIGH"}),
        (("classifiers", "classifier", "terms", "term", "conditions", "ipv4", "config"),
         {"dscp-set": [1, 64]}),
        (("queues", "queue", "config"), {"colour": "red"}),
        (("buffer-allocation-profiles", "buffer-allocation-profile", "queues", "queue", "config"),
         {"use-shared-buffer": "maybe"}),
    ]
    for path, change in edits:
        qos_copy = copy.deepcopy(qos)
        first(*path).update(change)
        yield {ROOT_KEY: qos_copy}


def _decode(document: dict[str, Any]) -> object:
    try:
        return to_rfc7951(load_openconfig(json.loads(json.dumps(document))))
    except ModelViolation as error:
        return f"refused: {error}"


def _first_entries(node: Any) -> Any:
    """``node`` with every list cut to its first entry (still a valid ``/qos``: pyangbind does
    not require a leafref's instance), ~1/10 of the decoding."""
    if isinstance(node, list):
        return [_first_entries(item) for item in node[:1]]
    if isinstance(node, dict):
        return {key: _first_entries(value) for key, value in node.items()}
    return node


def _compare(documents: list[dict[str, Any]]) -> list[object]:
    reused = [_decode(each) for each in documents]
    with pyangbinds_own_classes(bindings()):
        own = [_decode(each) for each in documents]
    assert reused == own
    assert reused[0] == documents[0]
    assert all(str(outcome).startswith("refused: ") for outcome in reused[1:])
    return reused


def test_documents_decode_and_are_refused_as_with_pyangbinds_own_classes(
        document: dict[str, Any]) -> None:
    small = _first_entries(document)
    broken = list(_broken(small))
    # A range, an enumeration and an unknown member (the slow test below decodes every edit).
    documents = [small, broken[0], broken[2], broken[4]]
    reused = _compare(documents)
    # Several threads decoding at once (gNMI Sets, a tune's candidates) decide as one does.
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(_decode, documents * 2)) == reused * 2


# slow: ~15 CPU s (pyangbind's own classes decode the whole document seven times); the test
# above compares the same decoder on the same documents with their lists cut to one entry.
@pytest.mark.slow
def test_whole_documents_decode_and_are_refused_as_with_pyangbinds_own_classes(
        document: dict[str, Any]) -> None:
    _compare([document, *_broken(document)])
