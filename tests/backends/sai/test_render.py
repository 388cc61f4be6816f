"""The SAI rendering of the IR: objects, bindings, order, TLT, and every example.

Golden files: tests/backends/sai/golden/tor1.sai.json and tor1.sairedis.rec. After an intended
change, regenerate with
    QOSFORGE_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/backends/sai
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.backends.sai import (
    QosMapEntry,
    SaiProgram,
    check_program,
    program_objects,
    program_to_json,
    program_to_recording,
    render_sai_program,
)
from qosforge.backends.sai.inventory import inventory_for_profile
from qosforge.backends.sai.render import ecn_mark_mode, ecn_marked_colors
from qosforge.errors import QosforgeError
from qosforge.ir import SwitchIR

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"
GOLDEN_START = dt.datetime(2026, 1, 1)
CompileSai = Callable[..., tuple[SwitchIR, ...]]


def _creates(program: SaiProgram, object_type: str) -> dict[str, dict[str, object]]:
    return {op.object_id: dict(op.attributes) for op in program.operations if op.op == "create" and op.object_type == object_type}


def _sets(program: SaiProgram, object_id: str) -> dict[str, object]:
    return {name: value for op in program.operations if op.op == "set" and op.object_id == object_id for name, value in op.attributes}


def test_golden(program: SaiProgram) -> None:
    outputs = {"tor1.sai.json": program_to_json(program), "tor1.sairedis.rec": program_to_recording(program, start=GOLDEN_START)}
    if os.environ.get("QOSFORGE_REGENERATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        for name, text in outputs.items():
            (GOLDEN / name).write_text(text)
    for name, text in outputs.items():
        assert text == (GOLDEN / name).read_text(), f"{name} changed; regenerate if intended (module docstring)"


@pytest.mark.parametrize("example", sorted(p for p in (ROOT / "examples").glob("*.yaml") if not p.name.endswith(".traffic.yaml")), ids=lambda p: p.stem)
def test_every_example_renders_and_passes_every_metadata_check(example: Path, compile_sai: CompileSai) -> None:
    switches = compile_sai(example.read_text(), targets=("sai",))
    assert switches
    for switch in switches:
        program = render_sai_program(switch)
        assert check_program(program) == []
        objects = program_objects(program)
        # Every queue and PG the IR configures got its profile, on every port.
        for port in switch.ports:
            for queue in port.queues:
                assert objects[f"queue:{port.name}:{queue.index}"].attributes["SAI_QUEUE_ATTR_BUFFER_PROFILE_ID"] == f"buffer_profile:{queue.buffer_profile}"
            for group in port.priority_groups:
                assert objects[f"ipg:{port.name}:{group.index}"].attributes["SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE"] == f"buffer_profile:{group.buffer_profile}"


def test_dependency_order(program: SaiProgram) -> None:
    kinds = [op.op for op in program.operations]
    first_create, first_set = kinds.index("create"), kinds.index("set")
    assert set(kinds[:first_create]) == {"get"} and "get" not in kinds[first_create:]
    assert "create" not in kinds[first_set:]
    order = [op.object_type for op in program.operations if op.op == "create"]
    assert order.index("SAI_OBJECT_TYPE_BUFFER_PROFILE") > max(i for i, t in enumerate(order) if t == "SAI_OBJECT_TYPE_BUFFER_POOL")


def test_tlt_is_exact_color_drop_plus_ect_marking(program: SaiProgram, switch_ir: SwitchIR) -> None:
    bulk = next(c for c in switch_ir.classes if c.name == "bulk")
    assert bulk.tlt_threshold_bytes is not None
    k_tlt = round(bulk.tlt_threshold_bytes.value)
    k_ecn = round(bulk.marking[0].value)
    wred = _creates(program, "SAI_OBJECT_TYPE_WRED")["wred:bulk_40G"]
    assert wred["SAI_WRED_ATTR_RED_ENABLE"] is True
    assert wred["SAI_WRED_ATTR_RED_MIN_THRESHOLD"] == wred["SAI_WRED_ATTR_RED_MAX_THRESHOLD"] == k_tlt
    assert wred["SAI_WRED_ATTR_RED_DROP_PROBABILITY"] == 100 and wred["SAI_WRED_ATTR_WEIGHT"] == 0
    assert wred["SAI_WRED_ATTR_ECN_MARK_MODE"] == "SAI_ECN_MARK_MODE_GREEN_RED"
    assert wred["SAI_WRED_ATTR_ECN_RED_MIN_THRESHOLD"] == wred["SAI_WRED_ATTR_ECN_RED_MAX_THRESHOLD"] == k_ecn
    # Green marks but stays disabled: with ECT thresholds on, enabling it would drop important packets.
    assert wred["SAI_WRED_ATTR_GREEN_MIN_THRESHOLD"] == k_ecn and "SAI_WRED_ATTR_GREEN_ENABLE" not in wred
    assert _sets(program, "switch") == {"SAI_SWITCH_ATTR_ECN_ECT_THRESHOLD_ENABLE": True}
    colors = _creates(program, "SAI_OBJECT_TYPE_QOS_MAP")["qos_map:dscp_to_color"]["SAI_QOS_MAP_ATTR_MAP_TO_VALUE_LIST"]
    assert isinstance(colors, tuple)
    by_dscp = {dict(e.key)["dscp"]: dict(e.value)["color"] for e in colors if isinstance(e, QosMapEntry)}
    assert by_dscp[10] == "SAI_PACKET_COLOR_RED" and by_dscp[11] == "SAI_PACKET_COLOR_GREEN"
    assert _sets(program, "port:Ethernet0")["SAI_PORT_ATTR_QOS_DSCP_TO_COLOR_MAP"] == "qos_map:dscp_to_color"
    assert any("per-color WRED" in note for note in program.notes)


def test_tlt_on_an_asic_without_ect_thresholds_needs_the_named_approximation(compile_sai: CompileSai, sai_intent: str) -> None:
    text = sai_intent.replace("profile: softswitch", "profile: broadcom-trident2")
    with pytest.raises(QosforgeError, match="ecn_ect_thresholds is false") as caught:
        compile_sai(text)
    assert "tlt-unmarked-red" in caught.value.message and "classes[0].tlt" in str(caught.value.place)
    switch = compile_sai(text + "approximations: [tlt-unmarked-red]\n")[0]
    assert [g.approximation for g in switch.gaps] == ["tlt-unmarked-red"]
    program = render_sai_program(switch)
    wred = _creates(program, "SAI_OBJECT_TYPE_WRED")["wred:bulk_40G"]
    assert wred["SAI_WRED_ATTR_RED_ENABLE"] is True and wred["SAI_WRED_ATTR_ECN_MARK_MODE"] == "SAI_ECN_MARK_MODE_GREEN"
    assert not any(name.startswith("SAI_WRED_ATTR_ECN_RED") for name in wred)
    assert "switch" not in {op.object_id for op in program.operations if op.op == "set"}
    assert any("tlt-unmarked-red" in note for note in program.notes)


def test_tlt_over_tcp_needs_no_ect_thresholds_anywhere(compile_sai: CompileSai, sai_intent: str) -> None:
    text = sai_intent.replace("profile: softswitch", "profile: broadcom-trident2").replace("transport: dctcp", "transport: tcp")
    program = render_sai_program(compile_sai(text)[0])
    wred = _creates(program, "SAI_OBJECT_TYPE_WRED")["wred:bulk_40G"]
    assert wred["SAI_WRED_ATTR_ECN_MARK_MODE"] == "SAI_ECN_MARK_MODE_NONE" and wred["SAI_WRED_ATTR_RED_ENABLE"] is True


def test_lossless_chain(program: SaiProgram, switch_ir: SwitchIR) -> None:
    rdma = next(c for c in switch_ir.classes if c.name == "rdma")
    port = _sets(program, "port:Ethernet4")
    assert port["SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"] == 1 << rdma.traffic_class
    for attribute in ("TC_TO_PRIORITY_GROUP", "PFC_PRIORITY_TO_PRIORITY_GROUP", "PFC_PRIORITY_TO_QUEUE", "DSCP_TO_TC", "TC_TO_QUEUE"):
        assert f"SAI_PORT_ATTR_QOS_{attribute}_MAP" in port
    profiles = _creates(program, "SAI_OBJECT_TYPE_BUFFER_PROFILE")
    ir_port = next(p for p in switch_ir.ports if p.name == "Ethernet4")
    group = next(g for g in ir_port.priority_groups if g.lossless)
    pg_profile = profiles[f"buffer_profile:{group.buffer_profile}"]
    ir_profile = switch_ir.profile(group.buffer_profile)
    assert ir_profile.xoff_bytes is not None
    assert pg_profile["SAI_BUFFER_PROFILE_ATTR_XOFF_TH"] == round(ir_profile.xoff_bytes.value)
    assert _sets(program, f"ipg:Ethernet4:{group.index}")["SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE"] == f"buffer_profile:{group.buffer_profile}"
    queue = _sets(program, f"queue:Ethernet4:{rdma.queue}")
    assert queue["SAI_QUEUE_ATTR_ENABLE_PFC_DLDR"] is True
    dld = port["SAI_PORT_ATTR_PFC_TC_DLD_INTERVAL"]
    assert isinstance(dld, tuple) and [(e.key, e.value) for e in dld] == [(rdma.traffic_class, switch_ir.pfc_watchdog.detection_ms if switch_ir.pfc_watchdog else -1)]


def test_schedulers_go_on_the_parent_scheduler_group(program: SaiProgram, switch_ir: SwitchIR) -> None:
    inventory = program.inventory
    for queue in switch_ir.ports[0].queues:
        parent = inventory.parent_group(queue.index)
        assert _sets(program, f"scheduler_group:Ethernet0:{parent}")["SAI_SCHEDULER_GROUP_ATTR_SCHEDULER_PROFILE_ID"] == f"scheduler:{queue.scheduler}"
    assert not any(name == "SAI_QUEUE_ATTR_SCHEDULER_PROFILE_ID" for op in program.operations for name, _ in op.attributes)


def test_thresholds_from_four_gigabytes_use_the_64_bit_attributes(switch_ir: SwitchIR) -> None:
    wred = next(w for w in switch_ir.wred_profiles if w.name == "bulk_40G")
    red = wred.curve("red")
    assert red is not None
    huge = dataclasses.replace(red.min_bytes, value=float(2**32 + 5))
    curves = tuple(dataclasses.replace(c, min_bytes=huge, max_bytes=huge) if c.color == "red" else c for c in wred.curves)
    switch = dataclasses.replace(switch_ir, wred_profiles=tuple(dataclasses.replace(w, curves=curves) if w is wred else w for w in switch_ir.wred_profiles))
    attributes = _creates(render_sai_program(switch), "SAI_OBJECT_TYPE_WRED")["wred:bulk_40G"]
    assert attributes["SAI_WRED_ATTR_RED_MIN_THRESHOLD_64"] == 2**32 + 5
    assert "SAI_WRED_ATTR_RED_MIN_THRESHOLD" not in attributes


def test_inexpressible_ir_is_refused_naming_object_attribute_and_value(switch_ir: SwitchIR) -> None:
    wred = switch_ir.wred_profiles[0]
    bad = dataclasses.replace(wred.curves[0], probability_percent=dataclasses.replace(wred.curves[0].probability_percent, value=150.0))
    switch = dataclasses.replace(switch_ir, wred_profiles=(dataclasses.replace(wred, curves=(bad, *wred.curves[1:])), *switch_ir.wred_profiles[1:]))
    with pytest.raises(QosforgeError) as caught:
        render_sai_program(switch)
    text = caught.value.one_line()
    assert f"wred:{wred.name}" in text and "SAI_WRED_ATTR_GREEN_DROP_PROBABILITY=150" in text and "0..100" in text


@given(st.sets(st.sampled_from(["GREEN", "YELLOW", "RED"])))
def test_ecn_mark_mode_marks_exactly_the_given_colors(colors: set[str]) -> None:
    mode = ecn_mark_mode(colors).removeprefix("SAI_ECN_MARK_MODE_")
    marked = {"NONE": set(), "ALL": {"GREEN", "YELLOW", "RED"}}.get(mode, set(mode.split("_")))
    assert marked == colors
    assert ecn_marked_colors(ecn_mark_mode(colors)) == colors


@pytest.mark.parametrize("profile", ["broadcom-trident2", "broadcom-tomahawk", "mellanox-spectrum", "mellanox-spectrum-2", "vs", "softswitch"])
def test_inventories_put_every_unicast_queue_under_exactly_one_group(profile: str) -> None:
    inventory, note = inventory_for_profile(profile)
    for queue in range(inventory.unicast_queues):
        assert sum(queue in g.child_queues for g in inventory.scheduler_groups) == 1
    assert (note is None) == (profile in ("broadcom-trident2", "mellanox-spectrum", "softswitch"))
