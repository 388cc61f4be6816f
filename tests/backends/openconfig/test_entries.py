"""Reused bound entries: refilling one bound entry encodes exactly as a freshly added entry with
the same values would, checks every value as the bindings do, and the encoded members go where
the bindings' encoder puts them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from qosforge.backends.openconfig.entries import encoded_entry, reused_entry, with_members
from qosforge.backends.openconfig.model import ROOT_KEY, encode_node, new_root, to_rfc7951


def _fill_term(term: Any, family: str, name: str, dscps: list[int]) -> None:
    term.config.id = name
    getattr(term.conditions, family).config.dscp_set = dscps
    term.actions.config.target_group = name


def _reused_term(family: str) -> Any:
    return reused_entry(f"term-{family}", lambda qos, key: qos.classifiers.classifier.add(key).terms.term.add(key))


def _fresh_term(family: str, name: str, dscps: list[int]) -> dict[str, Any]:
    root = new_root()
    classifier = root.qos.classifiers.classifier.add("c")
    _fill_term(classifier.terms.term.add(name), family, name, dscps)
    (term,) = to_rfc7951(root)[ROOT_KEY]["classifiers"]["classifier"][0]["terms"]["term"]
    return term


@pytest.mark.parametrize("family", ["ipv4", "ipv6"])
def test_refilled_term_encodes_as_a_fresh_term(family: str) -> None:
    # a longer DSCP set first: the shorter one after it must not keep any of its values
    for name, dscps in (("bulk", [0, 8, 10, 12, 14]), ("cnp", [48, 46])):
        term = _reused_term(family)
        _fill_term(term, family, name, dscps)
        assert encoded_entry(term, "id") == _fresh_term(family, name, dscps)


def test_refilled_entry_still_rejects_what_the_model_rejects() -> None:
    term = _reused_term("ipv4")
    _fill_term(term, "ipv4", "ok", [1])
    with pytest.raises(ValueError):
        term.conditions.ipv4.config.dscp_set = [64]  # dscp is 0..63
    with pytest.raises(ValueError):
        reused_entry("queue", lambda qos, key: qos.queues.queue.add(key)).config.queue_id = 256  # uint8
    # the rejected value did not stay in the entry
    assert encoded_entry(term, "id")["conditions"]["ipv4"]["config"]["dscp-set"] == [1]


def test_members_are_placed_in_the_encoders_order() -> None:
    whole = new_root()
    whole.qos.queues.queue.add("q").config.name = "q"
    whole.qos.classifiers.classifier.add("c").config.name = "c"
    expected = to_rfc7951(whole)[ROOT_KEY]
    partial = new_root()
    partial.qos.classifiers.classifier.add("c").config.name = "c"
    queue = reused_entry("queue", lambda qos, key: qos.queues.queue.add(key))
    queue.config.name = "q"
    queue.config.queue_id = 0
    encoded = dict(encoded_entry(queue, "name"))
    del encoded["config"]["queue-id"]  # the whole document's queue sets no queue-id
    placed = with_members(to_rfc7951(partial)[ROOT_KEY], partial.qos, {"queues": {"queue": [encoded]}})
    assert json.dumps(placed) == json.dumps(expected)  # same members, same order
    assert encode_node(whole.qos.queues.queue["q"]) == expected["queues"]["queue"][0]
    with pytest.raises(ValueError, match="not members"):
        with_members({}, partial.qos, {"queue": []})
