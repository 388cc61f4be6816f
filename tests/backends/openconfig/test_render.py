"""OpenConfig rendering: every value comes from the IR, the document loads through the model's
bindings, what the model cannot carry is refused or approximated and reported."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from qosforge.backends.openconfig import load_openconfig, model_revision, render_openconfig
from qosforge.backends.openconfig.capabilities import (
    PFC_OUT_OF_BAND,
    POOLS_OUT_OF_BAND,
    openconfig_view,
)
from qosforge.backends.openconfig.model import ModelViolation
from qosforge.backends.openconfig.render import render_fabric
from qosforge.backends.registry import CapabilityRefusal
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.errors import QosforgeError
from qosforge.ir import FabricIR, SwitchIR

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _compile(name: str, approximations: tuple[str, ...] = ()) -> FabricIR:
    intent, source_map = load_intent(EXAMPLES / f"{name}.yaml")
    return compile_intent(intent, source_map, targets=("openconfig",), accepted_approximations=approximations)


@pytest.fixture(scope="module")
def roce() -> FabricIR:
    return _compile("roce-pod")


@pytest.fixture(scope="module")
def roce_rendered(roce: FabricIR) -> str:
    """The first roce-pod switch rendered once for the module (pyangbind takes seconds per switch;
    the IR is frozen, so every test sees the same document), as JSON text: each test decodes its
    own copy to read or mutate. Rendered through render_fabric, whose process-wide cache the CLI
    tests that compile roce-pod's leaves then reuse."""
    [(_switch, document)] = render_fabric(roce.for_target("openconfig")[:1])
    return json.dumps(document)


def _list(node: dict[str, Any], name: str) -> dict[str, dict[str, Any]]:
    key = {"queue": "name", "forwarding-group": "name", "classifier": "name", "term": "id", "scheduler-policy": "name",
           "scheduler": "sequence", "input": "id", "queue-management-profile": "name", "buffer-allocation-profile": "name",
           "interface": "interface-id"}[name]
    return {str(entry[key]): entry for entry in node[name]}


def test_model_revision_is_the_bindings_record() -> None:
    assert model_revision() == "openconfig-qos@2026-01-16"


def test_values_come_from_the_ir(roce: FabricIR, roce_rendered: str) -> None:
    switch = roce.for_target("openconfig")[0]
    qos = json.loads(roce_rendered)["openconfig-qos:qos"]
    port = switch.ports[0]
    queues = _list(qos["queues"], "queue")
    assert {name: q["config"]["queue-id"] for name, q in queues.items()} == {q.class_name: q.index for q in port.queues}
    groups = _list(qos["forwarding-groups"], "forwarding-group")
    assert all(g["config"]["output-queue"] == name for name, g in groups.items())
    # every DSCP classified exactly once, to the class the plan's maps send it to
    for family in ("ipv4", "ipv6"):
        classifier = _list(qos["classifiers"], "classifier")[f"qosforge-dscp-{family}"]
        terms = _list(classifier["terms"], "term")
        seen = sorted(d for t in terms.values() for d in t["conditions"][family]["config"]["dscp-set"])
        assert seen == list(range(64))
        rdma = next(c for c in switch.classes if c.name == "rdma")
        assert set(terms["rdma"]["conditions"][family]["config"]["dscp-set"]) == set(rdma.dscp)
    profiles = _list(qos["queue-management-profiles"], "queue-management-profile")
    for wred in switch.wred_profiles:
        (curve,) = wred.curves
        config = profiles[wred.name]["wred"]["uniform"]["config"]
        assert int(config["min-threshold"]) == round(curve.min_bytes.value)
        assert int(config["max-threshold"]) == round(curve.max_bytes.value)
        assert config["max-drop-probability-percent"] == round(curve.probability_percent.value)
        assert (config["enable-ecn"], config["drop"]) == (curve.mark, curve.drop)
    policy = _list(qos["scheduler-policies"], "scheduler-policy")["qosforge"]
    inputs = {i["id"]: i["config"] for s in policy["schedulers"]["scheduler"] for i in s["inputs"]["input"]}
    weights = {s.name: s.weight for s in switch.schedulers}
    # WRR inputs carry the intent's weights; strict-priority ones (the CNP class) carry none
    assert {name: int(c["weight"]) for name, c in inputs.items() if "weight" in c} == {
        q.class_name: weights[q.scheduler] for q in port.queues if weights[q.scheduler] is not None}
    assert {name for name, c in inputs.items() if "weight" not in c} == {q.class_name for q in port.queues if weights[q.scheduler] is None} == {"cnp"}
    buffers = _list(_list(qos["buffer-allocation-profiles"], "buffer-allocation-profile")["qosforge"]["queues"], "queue")
    lossy = switch.profile(next(q.buffer_profile for q in port.queues if not q.lossless))
    assert buffers["default"]["config"]["dynamic-limit-scaling-factor"] == round(lossy.dynamic_th.value)  # type: ignore[union-attr]
    lossless = switch.profile(next(q.buffer_profile for q in port.queues if q.lossless))
    # Spectrum-2: the lossless queue's limit is dynamic_th 7 (alpha infinity), SONiC's Mellanox layout
    assert lossless.static_th_bytes is None and "static-shared-buffer-limit" not in buffers["rdma"]["config"]
    assert buffers["rdma"]["config"]["dynamic-limit-scaling-factor"] == round(lossless.dynamic_th.value) == 7  # type: ignore[union-attr]
    interfaces = _list(qos["interfaces"], "interface")
    assert set(interfaces) == {p.name for p in switch.ports}
    bound = {q["name"]: q["config"].get("queue-management-profile") for q in interfaces[port.name]["output"]["queues"]["queue"]}
    assert bound == {q.class_name: q.wred_profile for q in port.queues}


def test_strict_priority_queues_get_their_own_schedulers(roce: FabricIR) -> None:
    switch = roce.for_target("openconfig")[0]
    strict = dataclasses.replace(switch, schedulers=tuple(
        dataclasses.replace(s, kind="STRICT", weight=None) if s.name.endswith("rdma") else s for s in switch.schedulers))
    policy = render_openconfig(strict)["openconfig-qos:qos"]["scheduler-policies"]["scheduler-policy"][0]
    schedulers = policy["schedulers"]["scheduler"]
    assert schedulers[0]["config"]["priority"] == "STRICT"
    # RFC 7951 §6.10: the uint32 key leafref is a number, as its config leaf (pyangbind writes "0")
    assert [s["sequence"] for s in schedulers] == [s["config"]["sequence"] for s in schedulers] == [0, 1, 2]
    # one strict scheduler per strict queue, the higher TC first (CNP on TC 6, then rdma on TC 3)
    assert [[i["id"] for i in s["inputs"]["input"]] for s in schedulers[:2]] == [["cnp"], ["rdma"]]
    assert "rdma" not in [i["id"] for i in schedulers[2]["inputs"]["input"]]


# pyangbind decodes ~0.25 s per interface (~3 CPU s): the slow tier (pyproject.toml);
# tests/cli/test_push_cli.py has a model-breaking payload refused in the default tier.
@pytest.mark.slow
def test_document_loads_back_and_model_rejects_bad_values(roce_rendered: str) -> None:
    document = json.loads(roce_rendered)
    # the decoder builds ~0.25 s per interface entry: two ports of each binding kind suffice here
    interfaces = document["openconfig-qos:qos"]["interfaces"]
    interfaces["interface"] = interfaces["interface"][:2] + interfaces["interface"][-2:]
    load_openconfig(json.loads(json.dumps(document)))
    broken = json.loads(json.dumps(document))
    del broken["openconfig-qos:qos"]["interfaces"]  # decoded above; the decoder reaches the queues sooner
    broken["openconfig-qos:qos"]["queues"]["queue"][0]["config"]["queue-id"] = 300  # uint8
    with pytest.raises(ModelViolation, match="uint8"):
        load_openconfig(broken)
    with pytest.raises(ModelViolation, match="top-level"):
        load_openconfig({"qos": {}})


def test_out_of_range_ir_value_is_an_error_naming_the_leaf(roce: FabricIR) -> None:
    switch = roce.for_target("openconfig")[0]
    wred = switch.wred_profiles[0]
    curve = dataclasses.replace(wred.curves[0], probability_percent=dataclasses.replace(wred.curves[0].probability_percent, value=150.0))
    bad = dataclasses.replace(switch, wred_profiles=(dataclasses.replace(wred, curves=(curve,)), *switch.wred_profiles[1:]))
    with pytest.raises(QosforgeError, match="max-drop-probability-percent = 150"):
        render_openconfig(bad)


def test_pfc_and_pools_are_refused_without_approximation() -> None:
    intent, source_map = load_intent(EXAMPLES / "roce-pod.yaml")
    intent = intent.model_copy(update={"approximations": []})
    with pytest.raises(IntentError, match=r"classes\[0\]\.lossless: class 'rdma' needs PFC.*Alternatives: \(1\)"):
        compile_intent(intent, source_map, targets=("openconfig",))
    fabric = compile_intent(intent, source_map, targets=("openconfig",), accepted_approximations=(PFC_OUT_OF_BAND, POOLS_OUT_OF_BAND))
    gaps = {(g.class_name, g.approximation): g for g in fabric.for_target("openconfig")[0].gaps}
    pfc = gaps[("rdma", PFC_OUT_OF_BAND)].detail
    switch = fabric.switches[0]
    headroom = switch.profile(next(g.buffer_profile for g in switch.ports[0].priority_groups if g.lossless))
    assert f"xoff {headroom.xoff_bytes.value:,.0f} B" in pfc and "PFC on priorities 3" in pfc  # type: ignore[union-attr]
    assert f"{switch.pools[0].size_bytes.value:,.0f} B" in gaps[("rdma", POOLS_OUT_OF_BAND)].detail


def test_renderer_refuses_what_the_view_did_not_cover(roce: FabricIR) -> None:
    full: SwitchIR = roce.switches[0]  # the plan before the openconfig view
    with pytest.raises(QosforgeError, match="capability gap of the openconfig target"):
        render_openconfig(full)
    with pytest.raises(CapabilityRefusal):
        openconfig_view(full, frozenset({POOLS_OUT_OF_BAND}))


def test_tlt_renders_without_color() -> None:
    fabric = _compile("tlt-testbed")
    switch = fabric.for_target("openconfig")[0]
    assert any(g.approximation == "tlt-without-color" and g.target == "openconfig" for g in switch.gaps)
    [(_switch, document)] = render_fabric([switch])  # read only: the document is render_fabric's cached one
    qos = document["openconfig-qos:qos"]
    for profile in qos["queue-management-profiles"]["queue-management-profile"]:
        assert profile["wred"]["uniform"]["config"]["enable-ecn"] is True


def test_identical_switches_render_once() -> None:
    fabric = _compile("openconfig-fabric")
    documents = [document for _switch, document in render_fabric(fabric.for_target("openconfig"))]
    assert len(documents) == 12
    assert len({id(d) for d in documents}) == 2  # one leaf kind, one spine kind


def test_validation_decodes_each_distinct_interface_once(roce: FabricIR, roce_rendered: str) -> None:
    from qosforge.backends.openconfig import validate_openconfig

    switch = roce.for_target("openconfig")[0]
    document = json.loads(roce_rendered)
    kinds = {tuple(sorted((q.index, q.wred_profile or "") for q in p.queues)) for p in switch.ports}
    assert validate_openconfig(document) == len(kinds)
    interfaces = document["openconfig-qos:qos"]["interfaces"]["interface"]
    interfaces[-1]["output"]["queues"]["queue"][0]["config"]["queue-management-profile"] = 7  # a number, not a name
    interfaces[-1]["input"]["classifiers"]["classifier"][0]["config"]["type"] = "IPV5"
    with pytest.raises(ModelViolation):
        validate_openconfig(document)
    duplicate = json.loads(roce_rendered)
    entries = duplicate["openconfig-qos:qos"]["interfaces"]["interface"]
    entries.append(dict(entries[0]))
    with pytest.raises(ModelViolation, match="duplicate key"):
        validate_openconfig(duplicate)


def test_report_names_the_model_revision(roce: FabricIR) -> None:
    from qosforge.backends.report import report_to_json

    report = report_to_json(roce)
    assert report["target_models"] == {"openconfig": "openconfig-qos@2026-01-16 (oc-config-validate 2.10.0.post1 pyangbind bindings)"}
    gaps = [g for s in report["switches"] for g in s["gaps"] if g["target"] == "openconfig"]
    assert {g["approximation"] for g in gaps} == {"pfc-out-of-band", "pools-out-of-band"}
