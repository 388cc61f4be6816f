"""Loading SAI programs into the software switch: the SAI backend's JSON in, typed config out."""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path

import pytest

from qosforge.backends.sai import SaiOperation, SaiProgram, SaiValidationError, program_to_json
from qosforge.errors import QosforgeError
from qosforge.softswitch.config import SoftswitchConfigError, load_switch_json, load_switch_program
from qosforge.softswitch.engine.build import classify
from qosforge.softswitch.helper.compiled import CompiledSwitch, compile_for_softswitch

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@functools.cache
def tlt_softswitch() -> CompiledSwitch:
    return compile_for_softswitch(EXAMPLES / "tlt-softswitch.yaml", None)


def _with(program: SaiProgram, *operations: SaiOperation) -> SaiProgram:
    return replace(program, operations=program.operations + operations)


def test_compiled_tlt_program_loads_with_its_maps_and_curves() -> None:
    switch = tlt_softswitch()
    config = load_switch_json(program_to_json(switch.program))
    assert len(config.ports) == 32 and config.asic.name == "softswitch" and config.asic.cell_bytes == 208
    bulk = next(c for c in switch.ir.classes if c.name == "bulk")
    unimportant = classify(config, 1, bulk.dscp[0], 0)
    important = classify(config, 1, bulk.important_dscp[0], 0)
    assert unimportant.queue == important.queue == bulk.queue  # one FIFO (TLT §4.1)
    assert (unimportant.color, important.color) == (2, 0)  # red, green
    wred = next(w for w in config.wreds if w.object_id == config.ports[0].queues[bulk.queue].wred)
    assert wred.drop[2].enabled and wred.drop[2].min_bytes == wred.drop[2].max_bytes == bulk.tlt_threshold_bytes.as_int  # type: ignore[union-attr]
    assert config.ect_thresholds_effective and config.color_drop_applies_to_ect
    assert wred.mark == (True, False, True)


def test_a_queue_scheduler_comes_from_its_scheduler_group() -> None:
    config = tlt_softswitch().config
    scheduler_ids = {q.scheduler for q in config.ports[0].queues if q.scheduler}
    assert scheduler_ids and scheduler_ids <= {s.object_id for s in config.schedulers}


def test_sai_metadata_violations_are_rejected_by_the_backend_validator() -> None:
    program = tlt_softswitch().program
    bad = _with(program, SaiOperation("set", "SAI_OBJECT_TYPE_QUEUE", "queue:Ethernet0:1", (("SAI_QUEUE_ATTR_WRED_PROFILE_ID", "wred:missing"),)))
    with pytest.raises(SaiValidationError) as error:
        load_switch_program(bad)
    assert "queue:Ethernet0:1" in error.value.one_line()


def test_attributes_the_switch_cannot_model_are_rejected_by_name() -> None:
    program = tlt_softswitch().program
    create = SaiOperation("create", "SAI_OBJECT_TYPE_SCHEDULER", "scheduler:pps", (
        ("SAI_SCHEDULER_ATTR_SCHEDULING_TYPE", "SAI_SCHEDULING_TYPE_DWRR"), ("SAI_SCHEDULER_ATTR_METER_TYPE", "SAI_METER_TYPE_PACKETS"),
    ))
    with pytest.raises(SoftswitchConfigError) as error:
        load_switch_program(_with(program, create))
    assert "scheduler:pps SAI_SCHEDULER_ATTR_METER_TYPE" in error.value.one_line()


def test_unknown_red_quantisation_runs_as_the_named_linear_approximation() -> None:
    from qosforge.softswitch.asic import LINEAR_RED_STEPS
    from qosforge.softswitch.helper.compiled import compile_for_softswitch

    linear = compile_for_softswitch(EXAMPLES / "roce-pod.yaml", None)
    assert linear.config.asic.red is not None and linear.config.asic.red.steps == LINEAR_RED_STEPS
    assert len(linear.config.asic.approximations) == 1 and linear.config.asic.approximations[0].startswith("red-linear: ")
    switch = compile_for_softswitch(EXAMPLES / "roce-pod.yaml", None, assume={"red.steps": "8", "red.step_offset": "0.5"})
    assert switch.config.asic.red is not None and switch.config.asic.red.steps == 8
    assert switch.config.asic.approximations == ()
    with pytest.raises(QosforgeError, match="known"):
        compile_for_softswitch(EXAMPLES / "tlt-softswitch.yaml", None, assume={"red.steps": "4"})
    with pytest.raises(QosforgeError, match="cannot assume"):
        compile_for_softswitch(EXAMPLES / "tlt-softswitch.yaml", None, assume={"buffer_bytes": "1MB"})


def test_malformed_json_is_a_one_line_error() -> None:
    with pytest.raises(QosforgeError):
        load_switch_json(json.dumps({"format": "qosforge.sai/1"}))


ROCE_ASSUME = {"red.steps": "1024", "red.step_offset": "0"}


def test_a_trimming_program_loads_its_trim_settings_and_the_trimmed_queue_profiles() -> None:
    from qosforge.softswitch.config import TrimmingConfig

    switch = compile_for_softswitch(EXAMPLES / "trim-pod.yaml", "leaf1", assume=ROCE_ASSUME)
    config = switch.config
    rdma = next(c for c in switch.ir.classes if c.name == "rdma")
    # trim-pod: 256 B, DSCP 11, the planned trim queue 7 (SAI PACKET_TRIM_SIZE/_DSCP_VALUE/_QUEUE_INDEX).
    assert config.trimming == TrimmingConfig(256, 11, 7)
    port = config.ports[0]
    trimmed = {q.index for q in port.queues if q.buffer_profile and config.profile(q.buffer_profile).trims}
    assert trimmed == {rdma.queue}
    # Trimmed headers (DSCP 11) are classified to the trim queue at the next hop too.
    assert classify(config, 0, 11, 1).queue == 7


def test_a_dynamic_trim_queue_is_refused_by_name() -> None:
    program = compile_for_softswitch(EXAMPLES / "trim-pod.yaml", "leaf1", assume=ROCE_ASSUME).program
    dynamic = SaiOperation("set", "SAI_OBJECT_TYPE_SWITCH", "switch", (
        ("SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE", "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_DYNAMIC"),))
    with pytest.raises(SoftswitchConfigError) as error:
        load_switch_program(_with(program, dynamic), assume=ROCE_ASSUME)
    assert "SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE" in error.value.one_line()
