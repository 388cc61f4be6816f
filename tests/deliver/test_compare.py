"""Drift comparison: configuration leaves only, prefixes and RFC 7951 number forms normalised."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from qosforge.deliver.compare import Difference, compare, config_leaves

DOCUMENT: dict[str, Any] = {"openconfig-qos:qos": {
    "queues": {"queue": [{"name": "web", "config": {"name": "web", "queue-id": 1}}]},
    "classifiers": {"classifier": [{"name": "c4", "config": {"name": "c4", "type": "IPV4"}, "terms": {"term": [
        {"id": "web", "config": {"id": "web"}, "conditions": {"ipv4": {"config": {"dscp-set": [10, 12]}}}}]}}]},
    "queue-management-profiles": {"queue-management-profile": [{"name": "web_100G", "config": {"name": "web_100G"},
        "wred": {"uniform": {"config": {"min-threshold": "64500", "max-threshold": "64500", "enable-ecn": True}}}}]},
    "buffer-allocation-profiles": {"buffer-allocation-profile": [{"name": "b", "queues": {"queue": [
        {"name": "web", "config": {"name": "web", "shared-buffer-limit-type": "DYNAMIC_BASED_ON_SCALING_FACTOR"}}]}}]},
}}


def test_identical_documents_have_no_differences() -> None:
    assert compare(DOCUMENT, copy.deepcopy(DOCUMENT)) == ()


def test_prefixes_number_forms_state_and_leaf_list_order_are_normalised() -> None:
    device = copy.deepcopy(DOCUMENT)
    qos = device["openconfig-qos:qos"]
    device["openconfig-qos:qos"] = {f"openconfig-qos:{k}": v for k, v in qos.items()}
    wred = qos["queue-management-profiles"]["queue-management-profile"][0]["wred"]["uniform"]
    wred["config"]["min-threshold"] = 64500  # a device may write uint64 as a number
    wred["state"] = {"min-threshold": "1"}  # state is not configuration
    term = qos["classifiers"]["classifier"][0]["terms"]["term"][0]
    term["conditions"]["ipv4"]["config"]["dscp-set"] = [12, 10]
    queue = qos["buffer-allocation-profiles"]["buffer-allocation-profile"][0]["queues"]["queue"][0]
    queue["config"]["shared-buffer-limit-type"] = "openconfig-qos-types:DYNAMIC_BASED_ON_SCALING_FACTOR"
    assert compare(DOCUMENT, device) == ()


def test_changed_missing_and_extra_leaves() -> None:
    device = copy.deepcopy(DOCUMENT)
    qos = device["openconfig-qos:qos"]
    qos["queue-management-profiles"]["queue-management-profile"][0]["wred"]["uniform"]["config"]["enable-ecn"] = False
    qos["queues"]["queue"].append({"name": "rogue", "config": {"name": "rogue", "queue-id": 7}})
    del qos["classifiers"]
    differences = {d.path: d for d in compare(DOCUMENT, device)}
    assert differences["/qos/queue-management-profiles/queue-management-profile[name=web_100G]/wred/uniform/config/enable-ecn"] == Difference(
        "/qos/queue-management-profiles/queue-management-profile[name=web_100G]/wred/uniform/config/enable-ecn", "true", "false")
    assert differences["/qos/queues/queue[name=rogue]/config/queue-id"].intended is None
    assert differences["/qos/classifiers/classifier[name=c4]/terms/term[id=web]/conditions/ipv4/config/dscp-set"].actual is None


names = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)
scalars = st.one_of(st.booleans(), st.integers(-(2**63), 2**64 - 1), names)


@given(st.dictionaries(names, scalars, min_size=1, max_size=6), st.sampled_from([str, lambda v: v]))
def test_leaves_survive_rfc7951_integer_strings(config: dict[str, Any], form: Any) -> None:
    written = {k: (form(v) if isinstance(v, int) and not isinstance(v, bool) else v) for k, v in config.items()}
    assert config_leaves({"x": {"config": config}}) == config_leaves({"openconfig-qos:x": {"config": written}})
