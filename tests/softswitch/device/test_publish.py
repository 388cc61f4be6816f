"""The published leaves of a snapshot (softswitch/device/publish.py): the Publisher, which builds
paths and JSON texts once per switch layout and only reads values per snapshot, gives exactly
what building every leaf from its samples gives, at every point of a run and after the layout
changes; and a snapshot's values are the engine's counters."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from qosforge.softswitch.device.counters import switch_counters
from qosforge.softswitch.device.paths import Request
from qosforge.softswitch.device.publish import FAMILIES, SONIC, Publisher, published_leaves
from qosforge.softswitch.device.serve import openconfig_document, queue_names
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.helper.headroom_incast import headroom_incast
from qosforge.softswitch.simulation import SegmentedRun

INTENT = Path(__file__).resolve().parents[3] / "examples" / "roce-pod.yaml"


@pytest.mark.parametrize("family", FAMILIES)
def test_publisher_gives_what_every_leaf_built_from_its_samples_gives(family: str) -> None:
    built = headroom_incast(INTENT, "leaf1", "rdma", "Ethernet0", senders=8, duration_s=6e-4)
    config = built.compiled.config
    names = queue_names(openconfig_document(built.compiled.ir))
    publisher = Publisher(family, names)
    run = SegmentedRun((config,), single_switch(len(config.ports)), built.flows, built.run)
    first = None
    for stop_s in (0.0, 2e-4, 6e-4):  # XOFF from ~0.34 ms (8 senders, alpha 1, 33 MB)
        run.advance(stop_s)
        counters = switch_counters(run.world, config, 0, run.now_s)
        index = publisher.index(counters)
        assert index.leaves == published_leaves(counters, names, family)
        first = first or index
        # the path index is the layout's: every snapshot's index shares it
        assert index._by_prefix is first._by_prefix
    # the run filled PGs to XOFF: values really change between snapshots
    if family == SONIC:
        wanted = Request("", "COUNTERS_DB", (("PERIODIC_WATERMARKS", ()), ("Ethernet4", ()), ("PriorityGroups", ())))
        [position] = index.positions(wanted)
        fields = json.loads(str(index.leaves[position].value))["Ethernet4:3"]
        cell = config.asic.cell_bytes
        assert int(fields["SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES"]) == int(run.result().pg_max_cells[1, 3, 1] * cell) > 0
    # a new layout (the watchdog no longer configured: no PFC_WD fields) is rebuilt, not patched
    counters = switch_counters(run.world, config, 0, run.now_s)
    without = replace(counters, pfc_watchdog_enabled=counters.pfc_watchdog_enabled * 0)
    assert publisher.index(without).leaves == published_leaves(without, names, family)


def test_each_served_document_is_its_own_copy_of_the_cached_render() -> None:
    """A served switch's /qos comes from render_fabric's process-wide cache; a gNMI Set replaces
    the device's copy, which must never reach the cache or another served switch."""
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent

    intent, source_map = load_intent(INTENT)
    leaf = compile_intent(intent, source_map, switches=("leaf1",)).switches[0]
    first = openconfig_document(leaf)
    pristine = json.dumps(first)
    first["openconfig-qos:qos"]["queues"]["queue"][0]["config"]["name"] = "changed"
    assert json.dumps(openconfig_document(leaf)) == pristine
