"""Packet trimming as a compile target: the trim class, its queue's FastLane budget, the
refusals."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.trimming import EGRESS_LOSSY_TRIM_PROFILE, EGRESS_TRIM_PROFILE
from qosforge.ir import FabricIR

Writer = Callable[..., Path]

SPECTRUM4 = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: trim}
topology:
  leaf_spine:
    spines: 2
    leaves: 2
    hosts_per_leaf: 4
    host_link: {speed: 400G, cable: 3m}
    fabric_link: {speed: 400G, cable: 10m}
    link_latency: 1us
    leaf_profile: mellanox-spectrum-4
classes:
  - name: rdma
    transport: irn
    dscp: [26]
    trim: {size: 256B, dscp: 11}
  - name: tcp
    transport: dctcp
    dscp: [10]
"""


def compile_text(write_intent: Writer, text: str) -> FabricIR:
    intent, source_map = load_intent(write_intent(text))
    return compile_intent(intent, source_map)


def error_line(write_intent: Writer, text: str) -> str:
    with pytest.raises(IntentError) as caught:
        compile_text(write_intent, text)
    return caught.value.one_line()


def test_trimmed_class_gets_the_trim_profile_and_the_trim_queue(write_intent: Writer) -> None:
    switch = compile_text(write_intent, SPECTRUM4).switches[0]
    trimming = switch.trimming
    assert trimming is not None
    assert (trimming.size_bytes.value, trimming.dscp, trimming.queue, trimming.tc) == (
        256.0,
        11,
        7,
        None,
    )
    queues = {q.class_name: q for q in switch.ports[0].queues}
    assert queues["rdma"].buffer_profile == EGRESS_LOSSY_TRIM_PROFILE
    assert queues["tcp"].buffer_profile == "egress_lossy_profile"
    assert queues["trim"].index == 7 and queues["trim"].buffer_profile == EGRESS_TRIM_PROFILE
    profiles = {p.name: p for p in switch.buffer_profiles}
    assert profiles[EGRESS_LOSSY_TRIM_PROFILE].discard_action == "trim"
    # Only the trimmed class's profile trims; every other profile drops.
    assert [p.name for p in switch.buffer_profiles if p.discard_action == "trim"] == [
        EGRESS_LOSSY_TRIM_PROFILE
    ]
    # The trimmed packets' DSCP maps to the trim TC, so the next hop queues them there too.
    assert dict(switch.maps.dscp_to_tc)[11] == 7
    assert [c.name for c in switch.control_classes if c.name == "trim"] == ["trim"]


def test_trim_queue_shares_the_port_at_the_trimmed_class_weight_unshaped(
    write_intent: Writer,
) -> None:
    weighted = SPECTRUM4.replace("    dscp: [26]\n", "    dscp: [26]\n    weight: 60\n")
    switch = compile_text(write_intent, weighted).switches[0]
    trim_queue = next(q for q in switch.ports[0].queues if q.class_name == "trim")
    scheduler = next(s for s in switch.schedulers if s.name == trim_queue.scheduler)
    # DWRR at the trimmed class's weight, no shaper: a shaped queue delays every NACK behind the
    # cap, strict priority lets headers starve the data (NDP §3.1; NVIDIA's lossy-multi-tc).
    rdma_queue = next(q for q in switch.ports[0].queues if q.class_name == "rdma")
    rdma = next(s for s in switch.schedulers if s.name == rdma_queue.scheduler)
    assert scheduler.kind == "DWRR" and scheduler.max_rate_bytes_per_s is None
    assert scheduler.weight == rdma.weight == 60
    # One scheduler for every port speed: a weight is not a rate.
    assert {q.scheduler for p in switch.ports for q in p.queues if q.class_name == "trim"} == {
        scheduler.name
    }
    dynamic_th = next(p for p in switch.buffer_profiles if p.name == EGRESS_TRIM_PROFILE).dynamic_th
    assert dynamic_th is not None
    alpha = 2.0**dynamic_th.value
    # One congested trim queue holds alpha/(1+alpha) of the buffer: at most 5 %, and the next
    # power of two would exceed it.
    assert alpha / (1 + alpha) <= 0.05 < (2 * alpha) / (1 + 2 * alpha)
    assert dynamic_th.value == -5 and math.isclose(alpha, 1 / 32)


def test_dynamic_queue_resolution_leaves_the_index_to_the_maps(write_intent: Writer) -> None:
    text = SPECTRUM4.replace("dscp: 11}", "dscp: 11, queue: dynamic}")
    trimming = compile_text(write_intent, text).switches[0].trimming
    assert trimming is not None and trimming.queue is None and trimming.trim_queue == 7


def test_a_profile_without_trimming_refuses_naming_the_asic(write_intent: Writer) -> None:
    text = SPECTRUM4.replace("mellanox-spectrum-4", "mellanox-spectrum-2").replace("400G", "100G")
    line = error_line(write_intent, text)
    assert "classes[0].trim" in line and "mellanox-spectrum-2" in line and "Spectrum-2" in line
    assert "packet_trimming" in line


@pytest.mark.parametrize(
    ("size", "fragment"), [("128B", "not 128 B"), ("2kB", "not 2000 B"), ("258B", "not 258 B")]
)
def test_trim_size_outside_what_the_asic_accepts_is_refused(
    write_intent: Writer, size: str, fragment: str
) -> None:
    line = error_line(write_intent, SPECTRUM4.replace("size: 256B", f"size: {size}"))
    assert (
        "classes[0].trim.size" in line
        and "256..1024 B in steps of 4 B" in line
        and fragment in line
    )


def test_trimming_a_lossless_class_is_refused(write_intent: Writer) -> None:
    text = SPECTRUM4.replace(
        "transport: irn\n    dscp: [26]", "transport: dcqcn\n    dscp: [26]\n    lossless: true"
    )
    line = error_line(write_intent, text)
    assert "trim" in line and "lossless" in line and "PFC" in line


def test_trim_dscp_of_another_class_is_refused(write_intent: Writer) -> None:
    line = error_line(write_intent, SPECTRUM4.replace("dscp: 11}", "dscp: 10}"))
    assert "classes[1].dscp[0]: DSCP 10 is already used by class 'rdma'" in line


def test_two_trimmed_classes_must_agree(write_intent: Writer) -> None:
    text = SPECTRUM4.replace(
        "    dscp: [10]\n", "    dscp: [10]\n    trim: {size: 512B, dscp: 11}\n"
    )
    line = error_line(write_intent, text)
    assert "classes[1].trim" in line and "one trimming setting" in line


def test_from_tc_is_refused_with_its_reason_with_or_without_a_tc(write_intent: Writer) -> None:
    # The refusal comes first: asking for 'tc' would send the operator to a fix that fails too.
    for trim in ("dscp: from-tc}", "dscp: from-tc, tc: 7}"):
        line = error_line(write_intent, SPECTRUM4.replace("dscp: 11}", trim))
        assert "classes[0].trim.dscp" in line and "TC_TO_DSCP_MAP" in line


def test_without_trim_nothing_changes(write_intent: Writer) -> None:
    switch = compile_text(
        write_intent, SPECTRUM4.replace("    trim: {size: 256B, dscp: 11}\n", "")
    ).switches[0]
    assert switch.trimming is None
    assert all(p.discard_action == "drop" for p in switch.buffer_profiles)
    assert "trim" not in {q.class_name for q in switch.ports[0].queues}
