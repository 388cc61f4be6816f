"""The SONiC counter catalogue decodes what sonic-gnmi serves.

The fixtures reproduce the shapes of sonic-gnmi's own test data (``testdata/COUNTERS:Ethernet68:
Queues_expected.txt``, ``COUNTERS:Ethernet_wildcard_PFC_7_RX.txt``, ``PERIODIC_WATERMARKS:
Ethernet16:PriorityGroups_expected.txt``, ``COUNTERS_PG_NAME_MAP.txt``): object names as keys,
every count a decimal string, PFC watchdog fields beside the queue statistics.
"""

from __future__ import annotations

import json

from qosforge.backends.counters import Counter, CounterKey, Sample
from qosforge.backends.sonic import telemetry

QUEUES_ETHERNET68 = {
    "Ethernet68:1": {
        "SAI_QUEUE_STAT_BYTES": "0",
        "SAI_QUEUE_STAT_DROPPED_BYTES": "0",
        "SAI_QUEUE_STAT_DROPPED_PACKETS": "0",
        "SAI_QUEUE_STAT_PACKETS": "0",
        "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "64",
    },
    "Ethernet68:1:periodic": {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "192"},
    "Ethernet68:3": {
        "PFC_WD_ACTION": "drop",
        "PFC_WD_STATUS": "operational",
        "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "0",
        "SAI_QUEUE_STAT_PACKETS": "17",
        "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "5",
    },
}


def _values(samples: list[Sample]) -> dict[tuple[Counter, CounterKey], list[int | str]]:
    out: dict[tuple[Counter, CounterKey], list[int | str]] = {}
    for s in samples:
        out.setdefault((s.counter, s.key), []).append(s.value)
    return out


def test_queues_virtual_path_gives_queue_counters_and_both_watermarks() -> None:
    values = _values(list(telemetry.decode(["COUNTERS", "Ethernet68", "Queues"], json.dumps(QUEUES_ETHERNET68).encode(), 7)))
    assert values[(Counter.QUEUE_WATERMARK_BYTES, CounterKey("Ethernet68", 1))] == [64, 192]
    assert values[(Counter.QUEUE_TRANSMIT_PACKETS, CounterKey("Ethernet68", 3))] == [17]
    assert values[(Counter.QUEUE_ECN_MARKED_PACKETS, CounterKey("Ethernet68", 3))] == [5]
    # the watchdog's fields are read from the Pfcwd path only, once
    assert (Counter.PFCWD_STATUS, CounterKey("Ethernet68", 3)) not in values


def test_port_wildcard_gives_pfc_per_priority() -> None:
    value = {"Ethernet1": {"SAI_PORT_STAT_PFC_7_RX_PKTS": "1"}, "Ethernet68": {"SAI_PORT_STAT_PFC_7_RX_PKTS": "2",
                                                                               "SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US": "900"}}
    values = _values(list(telemetry.decode(["COUNTERS", "Ethernet*"], value, 7)))
    assert values == {
        (Counter.PFC_RX_PACKETS, CounterKey("Ethernet1", 7)): [1],
        (Counter.PFC_RX_PACKETS, CounterKey("Ethernet68", 7)): [2],
        (Counter.PFC_RX_PAUSE_US, CounterKey("Ethernet68", 3)): [900],
    }


def test_single_port_path_returns_fields_alone() -> None:
    values = _values(list(telemetry.decode(["COUNTERS", "Ethernet4"], {"SAI_PORT_STAT_PFC_3_TX_PKTS": "11"}, 7)))
    assert values == {(Counter.PFC_TX_PACKETS, CounterKey("Ethernet4", 3)): [11]}


def test_pfcwd_and_pg_watermarks() -> None:
    pfcwd = {"Ethernet68:3": {"PFC_WD_STATUS": "stormed", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "2"}}
    values = _values(list(telemetry.decode(["COUNTERS", "Ethernet*", "Pfcwd"], pfcwd, 7)))
    assert values[(Counter.PFCWD_STATUS, CounterKey("Ethernet68", 3))] == ["stormed"]
    assert values[(Counter.PFCWD_DEADLOCK_DETECTED, CounterKey("Ethernet68", 3))] == [2]
    pgs = {"Ethernet16:5": {"SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES": "0",
                            "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES": "4096"}}
    values = _values(list(telemetry.decode(["PERIODIC_WATERMARKS", "Ethernet*", "PriorityGroups"], pgs, 7)))
    assert values == {(Counter.PG_SHARED_WATERMARK_BYTES, CounterKey("Ethernet16", 5)): [0],
                      (Counter.PG_HEADROOM_WATERMARK_BYTES, CounterKey("Ethernet16", 5)): [4096]}


def test_pg_drops_by_object_id() -> None:
    names = {"oid:0x1a000000000030": "Ethernet0:3"}
    samples = list(telemetry.decode(["COUNTERS", "oid:0x1a000000000030"], {"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS": "9"}, 7, names))
    assert [(s.counter, s.key, s.value) for s in samples] == [(Counter.PG_DROPPED_PACKETS, CounterKey("Ethernet0", 3), 9)]
    assert list(telemetry.decode(["COUNTERS", "oid:0xdead"], {"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS": "9"}, 7, names)) == []


def test_unknown_fields_and_non_counts_are_skipped() -> None:
    value = {"Ethernet0:1": {"SAI_QUEUE_STAT_PACKETS": "N/A", "SOMETHING_ELSE": "3"}}
    assert list(telemetry.decode(["COUNTERS", "Ethernet*", "Queues"], value, 7)) == []


def test_encode_round_trips_through_decode() -> None:
    samples = [
        Sample(Counter.PFC_RX_PACKETS, CounterKey("Ethernet8", 3), 12, 1, ""),
        Sample(Counter.PORT_OUT_DISCARDS, CounterKey("Ethernet8"), 4, 1, ""),
    ]
    value = telemetry.encode(telemetry.PORTS, samples)
    assert value == {"Ethernet8": {"SAI_PORT_STAT_PFC_3_RX_PKTS": "12", "SAI_PORT_STAT_IF_OUT_DISCARDS": "4"}}
    back = {(s.counter, s.key, s.value) for s in telemetry.decode(list(telemetry.PORTS), value, 1)}
    assert back == {(s.counter, s.key, s.value) for s in samples}


def test_flex_counter_groups_are_sonic_group_names() -> None:
    # sonic-swss orchagent/flexcounterorch.cpp flexCounterGroupMap keys
    assert set(telemetry.FLEX_COUNTER_GROUPS) == {"PFCWD", "PG_DROP", "PG_WATERMARK", "PORT", "QUEUE", "QUEUE_WATERMARK", "WRED_ECN_QUEUE"}
