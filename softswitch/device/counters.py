"""A snapshot of one switch's counters, read from a running (or finished) simulation.

What a switch's counters are in the engine (engine/layout.py): every counter counts from the end
of the run's warm-up (the engine's measured window: as if the counters were cleared then, like
``sonic-clear counters``), and a run's switches share port-indexed arrays, so a switch is the
slice of ports it owns. Units are the engine's: packets, bytes, and buffer occupancy in the
switch's cells (converted to bytes with its cell size, as an ASIC's watermark counters count
cells and SAI reports bytes: SAI inc/saiqueue.h SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qosforge.softswitch.config import PRIORITIES, SwitchConfig
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.metrics import pause_seconds


@dataclass(frozen=True)
class SwitchCounters:
    """Counters of one switch at simulated time ``time_s``; arrays are indexed [port, queue],
    [port, pg] or [port, priority] with ports in the switch's configuration order."""

    switch: str
    time_s: float
    warmup_s: float
    port_names: tuple[str, ...]
    queue_counts: tuple[int, ...]
    """Queues each port has (the configured ones; the engine's arrays may be wider)."""
    pg_counts: tuple[int, ...]
    transmit_packets: np.ndarray
    transmit_bytes: np.ndarray
    dropped_packets: np.ndarray
    """Packets the egress queue dropped: its buffer limit, WRED, the chip's full buffer or the PFC
    watchdog's recovery (SAI_QUEUE_STAT_DROPPED_PACKETS); a packet refused at ingress admission
    never reached the queue and counts on its priority group (``pg_dropped_packets``)."""
    wred_dropped_packets: np.ndarray
    """Of those, the ones WRED dropped (SAI_QUEUE_STAT_WRED_DROPPED_PACKETS)."""
    ecn_marked_packets: np.ndarray
    """Packets the queue's WRED profile marked CE (SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS)."""
    queue_watermark_bytes: np.ndarray
    """Peak occupancy of the queue in the measured window (reserved and shared)."""
    queue_shared_watermark_bytes: np.ndarray
    """The shared-buffer part of that peak: the peak less the queue's reserved cells."""
    queue_bytes: np.ndarray
    """Occupancy now."""
    queue_average_bytes: dict[tuple[int, int], float]
    """Mean sampled depth of the run's monitored queues only (the engine samples no others)."""
    pg_shared_watermark_bytes: np.ndarray
    """Peak shared-buffer use of the ingress PG (its peak occupancy less its reserved cells)."""
    pg_headroom_watermark_bytes: np.ndarray
    pg_dropped_packets: np.ndarray
    pfc_tx_frames: np.ndarray
    """PFC frames sent on the port with the priority in their class-enable vector (XOFF and XON)."""
    pfc_rx_frames: np.ndarray
    pfc_tx_pause_s: np.ndarray
    """Seconds the port asked its peer to pause the priority."""
    pfc_rx_pause_s: np.ndarray
    """Seconds the port's egress was paused by its peer on the priority."""
    pfc_deadlocks: np.ndarray
    """Times the PFC watchdog declared the priority deadlocked (storm detected)."""
    pfc_watchdog_recovering: np.ndarray
    """1 while the watchdog's recovery is running on the priority (the storm is being handled)."""
    pfc_watchdog_enabled: np.ndarray
    pfc_queue: np.ndarray
    """[port, priority]: the queue PFC priority pauses (PFC_PRIORITY_TO_QUEUE), -1 if none."""

    def counter_count(self) -> int:
        """How many numbers the snapshot carries (the bench's unit of counters per second)."""
        arrays = (self.transmit_packets, self.transmit_bytes, self.dropped_packets, self.ecn_marked_packets, self.queue_watermark_bytes,
                  self.pg_shared_watermark_bytes, self.pg_headroom_watermark_bytes, self.pg_dropped_packets, self.pfc_tx_frames,
                  self.pfc_rx_frames, self.pfc_tx_pause_s, self.pfc_rx_pause_s, self.pfc_deadlocks)
        return int(sum(a.size for a in arrays))


#: Drop reasons (engine/layout.py DR_*) charged to the egress queue itself.
_QUEUE_REASONS = [L.DR_EGRESS, L.DR_WRED, L.DR_BUFFER, L.DR_WATCHDOG]


def switch_counters(world: tuple[np.ndarray, ...], config: SwitchConfig, first_port: int, time_s: float) -> SwitchCounters:
    """The counters of ``config``'s switch, whose ports are ``first_port ..`` of ``world``, as
    they stand when every event due by ``time_s`` has been processed. Copies: the snapshot stays
    valid while the run goes on."""
    n = len(config.ports)
    ports = slice(first_port, first_port + n)
    prmf = world[L.W_PRMF]
    warmup = float(prmf[L.PRM_WARMUP])
    cell = float(config.asic.cell_bytes)
    stats = world[L.W_PORTSTAT]
    n_queues = world[L.W_QMAX].shape[1]
    n_pgs = world[L.W_PGMAX].shape[1]
    pause = pause_seconds(world[L.W_PFCT][ports], max(time_s, warmup), warmup)
    averages: dict[tuple[int, int], float] = {}
    mons = world[L.W_MONS]
    for m, (port, queue) in enumerate(world[L.W_MON]):
        if first_port <= port < first_port + n and mons[m, L.MS_SAMPLES] > 0:
            averages[(int(port) - first_port, int(queue))] = float(mons[m, L.MS_SUM_BYTES] / mons[m, L.MS_SAMPLES])
    pfcs = world[L.W_PFCS][ports]
    return SwitchCounters(
        switch=config.name,
        time_s=time_s,
        warmup_s=warmup,
        port_names=tuple(p.name for p in config.ports),
        queue_counts=tuple(len(p.queues) for p in config.ports),
        pg_counts=tuple(len(p.pgs) for p in config.ports),
        transmit_packets=stats[ports, :n_queues, L.PSC_TX_PKTS].copy(),
        transmit_bytes=world[L.W_DEQB][ports].copy(),
        dropped_packets=world[L.W_DROP][ports][:, :, _QUEUE_REASONS].sum(axis=2),
        wred_dropped_packets=world[L.W_DROP][ports, :, L.DR_WRED].copy(),
        ecn_marked_packets=world[L.W_MARK][ports].sum(axis=2),
        queue_watermark_bytes=world[L.W_QMAX][ports] * cell,
        queue_shared_watermark_bytes=np.maximum(world[L.W_QMAX][ports] - world[L.W_QI][ports, :n_queues, L.QI_RES], 0) * cell,
        queue_bytes=world[L.W_QI][ports, :n_queues, L.QI_BYTES].astype(np.float64),
        queue_average_bytes=averages,
        pg_shared_watermark_bytes=np.maximum(world[L.W_PGMAX][ports, :, 0] - world[L.W_GI][ports, :n_pgs, L.GI_RES], 0) * cell,
        pg_headroom_watermark_bytes=world[L.W_PGMAX][ports, :, 1] * cell,
        pg_dropped_packets=stats[ports, :n_pgs, L.PSC_PG_DROPS].copy(),
        pfc_tx_frames=stats[ports, :PRIORITIES, L.PSC_PFC_TX].copy(),
        pfc_rx_frames=stats[ports, :PRIORITIES, L.PSC_PFC_RX].copy(),
        pfc_tx_pause_s=pause[:, :, 0],
        pfc_rx_pause_s=pause[:, :, 1],
        pfc_deadlocks=stats[ports, :PRIORITIES, L.PSC_DEADLOCKS].copy(),
        pfc_watchdog_recovering=pfcs[:, :, L.PS_RECOVERING].copy(),
        pfc_watchdog_enabled=(world[L.W_PFCT][ports, :, L.PT_DLD_S] > 0.0).astype(np.int64),
        pfc_queue=world[L.W_PFCPRIO][ports].copy(),
    )


__all__ = ["SwitchCounters", "switch_counters"]
