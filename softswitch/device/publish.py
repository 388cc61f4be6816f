"""The leaves a simulated switch publishes: its counters on the paths devices publish them.

Two families, as ``qosforge watch`` reads them (docs/telemetry.md lists every path with its
source):

- OpenConfig (origin ``openconfig``): ``/qos/interfaces/interface[interface-id]/output/queues/
  queue[name]/state`` (openconfig-qos-interfaces: ``transmit-pkts``, ``transmit-octets``,
  ``dropped-pkts``, ``ecn-marked-pkts``, ``max-queue-len``, and ``avg-queue-len`` for the queues
  the run samples) for every queue the served ``/qos`` names, and the interface counters
  ``/interfaces/interface[name]/state/counters`` (openconfig-interfaces: ``out-pkts``,
  ``out-octets``, ``out-discards``);
- SONiC telemetry (sonic-gnmi, target ``COUNTERS_DB``): the SAI statistics orchagent's flex
  counters write to COUNTERS_DB, on sonic-gnmi's virtual paths ``COUNTERS/<port>`` (port
  statistics: per-priority PFC frames and pause durations) and ``COUNTERS/<port>:<index>``
  (queue and priority-group statistics), plus the PFC watchdog's per-queue status.

A counter the engine does not model (e.g. dropped octets) is not published rather than made up.
"""

from __future__ import annotations

from collections.abc import Mapping

from qosforge.softswitch.device.counters import SwitchCounters
from qosforge.softswitch.device.paths import Leaf, elem

COUNTERS_DB = "COUNTERS_DB"


def openconfig_leaves(counters: SwitchCounters, queue_names: Mapping[int, str]) -> list[Leaf]:
    leaves: list[Leaf] = []
    for p, port in enumerate(counters.port_names):
        for q in range(counters.queue_counts[p]):
            name = queue_names.get(q)
            if name is None:
                continue
            base = (elem("qos"), elem("interfaces"), elem("interface", **{"interface-id": port}), elem("output"), elem("queues"),
                    elem("queue", name=name), elem("state"))
            values: list[tuple[str, int | float | str]] = [
                ("name", name),
                ("transmit-pkts", int(counters.transmit_packets[p, q])),
                ("transmit-octets", int(counters.transmit_bytes[p, q])),
                ("dropped-pkts", int(counters.dropped_packets[p, q])),
                ("ecn-marked-pkts", int(counters.ecn_marked_packets[p, q])),
                ("max-queue-len", int(counters.queue_watermark_bytes[p, q])),
            ]
            if (p, q) in counters.queue_average_bytes:
                values.append(("avg-queue-len", round(float(counters.queue_average_bytes[(p, q)]))))
            leaves.extend(Leaf("openconfig", (*base, elem(leaf)), value) for leaf, value in values)
        interface = (elem("interfaces"), elem("interface", name=port), elem("state"), elem("counters"))
        n = counters.queue_counts[p]
        for leaf, value in (("out-pkts", int(counters.transmit_packets[p, :n].sum())), ("out-octets", int(counters.transmit_bytes[p, :n].sum())),
                            ("out-discards", int(counters.dropped_packets[p, :n].sum()))):
            leaves.append(Leaf("openconfig", (*interface, elem(leaf)), value))
    return leaves


def sonic_leaves(counters: SwitchCounters) -> list[Leaf]:
    leaves: list[Leaf] = []

    def put(key: str, field: str, value: int | str) -> None:
        leaves.append(Leaf("", (elem("COUNTERS"), elem(key), elem(field)), value, target=COUNTERS_DB))

    for p, port in enumerate(counters.port_names):
        for priority in range(8):
            put(port, f"SAI_PORT_STAT_PFC_{priority}_RX_PKTS", int(counters.pfc_rx_frames[p, priority]))
            put(port, f"SAI_PORT_STAT_PFC_{priority}_TX_PKTS", int(counters.pfc_tx_frames[p, priority]))
            put(port, f"SAI_PORT_STAT_PFC_{priority}_RX_PAUSE_DURATION_US", round(float(counters.pfc_rx_pause_s[p, priority]) * 1e6))
            put(port, f"SAI_PORT_STAT_PFC_{priority}_TX_PAUSE_DURATION_US", round(float(counters.pfc_tx_pause_s[p, priority]) * 1e6))
        for q in range(counters.queue_counts[p]):
            key = f"{port}:{q}"
            put(key, "SAI_QUEUE_STAT_PACKETS", int(counters.transmit_packets[p, q]))
            put(key, "SAI_QUEUE_STAT_BYTES", int(counters.transmit_bytes[p, q]))
            put(key, "SAI_QUEUE_STAT_DROPPED_PACKETS", int(counters.dropped_packets[p, q]))
            put(key, "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", int(counters.ecn_marked_packets[p, q]))
            put(key, "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", int(counters.queue_watermark_bytes[p, q]))
        for g in range(counters.pg_counts[p]):
            key = f"{port}:{g}"
            put(key, "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES", int(counters.pg_shared_watermark_bytes[p, g]))
            put(key, "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES", int(counters.pg_headroom_watermark_bytes[p, g]))
            put(key, "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", int(counters.pg_dropped_packets[p, g]))
        for priority in range(8):
            if counters.pfc_watchdog_enabled[p, priority]:
                key = f"{port}:{priority}"
                put(key, "PFC_WD_STATUS", "stormed" if counters.pfc_watchdog_recovering[p, priority] else "operational")
                put(key, "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", int(counters.pfc_deadlocks[p, priority]))
    return leaves


def published_leaves(counters: SwitchCounters, queue_names: Mapping[int, str]) -> list[Leaf]:
    return openconfig_leaves(counters, queue_names) + sonic_leaves(counters)


__all__ = ["COUNTERS_DB", "openconfig_leaves", "published_leaves", "sonic_leaves"]
