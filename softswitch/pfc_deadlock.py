"""PFC deadlock in a running fabric: which ingress buffers wait on each other, read off the live
state between the kernel's stops (simulation.simulate_fabric_observed).

A PFC deadlock is the buffer dependency cycle of compiler/deadlock filled: every buffer on it has
sent XOFF, and every packet it holds sits in an egress queue that the next buffer's XOFF pauses,
so nothing on it can ever leave (Hu et al., "Deadlocks in Datacenter Networks: Why Do They
Form, and How to Avoid Them", HotNets 2016 §2; Guo et al., "RDMA over Commodity Ethernet at
Scale", SIGCOMM 2016 §4.2). This module finds exactly that in the simulated switches, without
the graph: a node is an ingress priority group (switch port, PG) in XOFF, its packets are found
by walking the paused egress queues, and an edge runs from a buffer to the buffer whose XOFF
pauses a queue holding its packets. The *stuck* buffers are the largest set in which every
buffer holds only packets in queues paused by buffers of the set: none of them can send a packet,
so none can drain to its XON threshold (engine/mmu.py ``release`` sends XON only on a departure),
so their pauses never end, in the model, unless the PFC watchdog drops (engine/kernel.py
``deadlock_detected``). Stuck buffers on a cycle are the deadlock; the others wait behind it.

Each observation copies a few small arrays (counters, pause states); the queues are walked only
when the paused inter-switch links that have stayed paused since the previous observation form a
loop and the pause state changed since the last walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from qosforge.compiler.deadlock.graph import TurnGraph, cycles
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import Topology
from qosforge.softswitch.engine.core import kernel

#: Priority groups per port the engine models (a node is port * PGS + pg).
PGS = 8


@dataclass(frozen=True)
class StuckCycle:
    """Ingress buffers (engine port, PG) that wait on each other in a cycle, in dependency order:
    buffer i's packets wait in ``egress[i]``, which buffer i+1 pauses (the last, the first)."""

    buffers: tuple[tuple[int, int], ...]
    egress: tuple[int, ...]
    """Per buffer, the egress port (of the buffer's switch) its packets wait behind."""
    since_s: float
    """When the last of the cycle's egress queues was paused: from then on no packet crossed any
    link of the cycle."""


@dataclass(frozen=True)
class StuckState:
    """The deadlocked buffers at one instant."""

    time_s: float
    cycles: tuple[StuckCycle, ...]
    waiting: tuple[tuple[int, int], ...]
    """Stuck buffers on no cycle: they wait, directly or not, for a deadlocked one."""
    held_cells: int
    """Cells the stuck buffers hold (nothing frees them but the watchdog)."""


@dataclass(frozen=True)
class Observation:
    """The fabric at one stop of the kernel."""

    time_s: float
    delivered_bytes: int
    """Bytes delivered to receivers so far (engine ``C_DELIVERED_BYTES``, after the warm-up)."""
    watchdog_deadlocks: int
    watchdog_drops: int
    stuck: StuckState | None
    """The deadlock found at this stop, or None (none, or the pauses did not allow one)."""


@dataclass
class DeadlockObserver:
    """Called by :func:`qosforge.softswitch.simulation.simulate_fabric_observed` at every stop."""

    topology: Topology
    _walked: tuple[tuple[int, int, float], ...] | None = None
    _last: StuckState | None = None
    _previous_time_s: float = 0.0
    observations: list[Observation] = field(default_factory=list)

    def __call__(self, world: tuple[np.ndarray, ...], time_s: float) -> Observation:
        counters = world[L.W_CNT]
        stuck = self._stuck(world, time_s)
        self._previous_time_s = time_s
        observation = Observation(time_s, int(counters[L.C_DELIVERED_BYTES]), int(counters[L.C_DEADLOCKS]),
                                  int(counters[L.C_WATCHDOG_DROPS]), stuck)
        self.observations.append(observation)
        return observation

    def _stuck(self, world: tuple[np.ndarray, ...], time_s: float) -> StuckState | None:
        n_ports = self.topology.n_ports
        peers = np.asarray(self.topology.peers)
        state = world[L.W_PFCS][:n_ports]
        # Paused by the peer and not in the watchdog's recovery (which ignores the pause and drops).
        received = (state[:, :, L.PS_RECEIVED] == 1) & (state[:, :, L.PS_RECOVERING] == 0)
        since = world[L.W_PFCT][:n_ports, :, L.PT_RECEIVED_SINCE]
        # Inter-switch egress priorities paused since before the previous stop, and still paused.
        held = received & (since >= 0.0) & (since <= self._previous_time_s) & (peers[:, None] >= 0)
        if not held.any() or not _links_loop(self.topology, held.any(axis=1)):
            self._walked, self._last = None, None
            return None
        signature = tuple((int(p), int(r), float(since[p, r])) for p, r in zip(*np.nonzero(held), strict=True))
        if signature == self._walked:
            return None if self._last is None else StuckState(time_s, self._last.cycles, self._last.waiting, self._last.held_cells)
        self._walked = signature
        self._last = stuck_buffers(world, self.topology, time_s)
        return self._last


def _links_loop(topology: Topology, paused: np.ndarray) -> bool:
    """Whether the paused inter-switch links, joined head to tail through their switches, loop
    (a necessary condition for a deadlock; cheap enough for every stop)."""
    owner = np.asarray(topology.switch_of())
    peers = np.asarray(topology.peers)
    links = np.flatnonzero(paused)
    n = len(topology.ports_per_switch)
    graph = csr_matrix((np.ones(links.size), (owner[links], owner[peers[links]])), shape=(n, n))
    _, labels = connected_components(graph, directed=True, connection="strong")
    return bool(np.bincount(labels).max() > 1)

def queued_packets(world: tuple[np.ndarray, ...], keys: list[tuple[int, int]]) -> list[np.ndarray]:
    """The packets in each switch egress queue (port, queue) of ``keys``, walked from its head by
    the compiled core (engine/ports.py ``queue_members``): walked in Python, a deadlocked fabric's
    ~125,000 queued packets per look cost more CPU than the run itself."""
    if not keys:
        return []
    qi = world[L.W_QI]
    wanted = np.asarray(keys, dtype=np.int64)
    ports, queues = np.ascontiguousarray(wanted[:, 0]), np.ascontiguousarray(wanted[:, 1])
    expected = qi[ports, queues, L.QI_PKTS]
    members = np.empty(int(expected.sum()), dtype=np.int64)
    counts = np.zeros(len(keys), dtype=np.int64)
    kernel().queue_members(qi, world[L.W_PKI], ports, queues, members, counts)
    if not np.array_equal(counts, expected):
        raise RuntimeError(f"the engine's queue lists disagree with their counts ({counts.tolist()} walked, {expected.tolist()} counted)")
    return np.split(members, np.cumsum(counts)[:-1])


def stuck_buffers(world: tuple[np.ndarray, ...], topology: Topology, time_s: float) -> StuckState | None:
    """The stuck buffers (module doc) of the live ``world``, or None when there are none on a cycle."""
    n_ports = topology.n_ports
    peers = topology.peers
    qi, gi, pki = world[L.W_QI], world[L.W_GI], world[L.W_PKI]
    pfcs, pfct, prio_queue = world[L.W_PFCS], world[L.W_PFCT], world[L.W_PFCPRIO]
    xoff = gi[:n_ports, :, L.GI_STATE] == 1
    # Every paused switch queue: the buffers whose XOFF pauses it, and what each buffer holds in it.
    pausers: dict[tuple[int, int], set[int]] = {}
    paused_since: dict[tuple[int, int], float] = {}
    holds: dict[int, dict[tuple[int, int], int]] = {}
    for port in range(n_ports):
        peer = peers[port]
        for priority in range(PGS):
            queue = int(prio_queue[port, priority])
            if queue < 0 or pfcs[port, priority, L.PS_RECEIVED] != 1 or qi[port, queue, L.QI_PAUSED] != 1:
                continue
            key = (port, queue)
            paused_since[key] = max(paused_since.get(key, -1.0), float(pfct[port, priority, L.PT_RECEIVED_SINCE]))
            if peer >= 0:
                mask = gi[peer, :, L.GI_MASK]
                pausers.setdefault(key, set()).update(int(peer) * PGS + int(pg) for pg in np.flatnonzero(xoff[peer] & ((mask >> priority) & 1 == 1)))
            else:
                pausers.setdefault(key, set())  # paused by a host: a host is no buffer of the fabric
    for key, members in zip(pausers, queued_packets(world, list(pausers)), strict=True):
        if members.size == 0:
            continue
        counted = (pki[members, L.P_ACC] & 1) == 1
        nodes = pki[members, L.P_IN][counted] * PGS + pki[members, L.P_PG][counted]
        for node, cells in zip(*_summed(nodes, pki[members, L.P_CELLS][counted]), strict=True):
            holds.setdefault(int(node), {})[key] = int(cells)
    # Candidates: buffers in XOFF whose every cell sits in paused queues.
    stuck = set()
    for node, queues in holds.items():
        port, pg = divmod(node, PGS)
        if xoff[port, pg] and sum(queues.values()) == int(gi[port, pg, L.GI_OCC] + gi[port, pg, L.GI_HDR]):
            stuck.add(node)
    # The largest subset closed under "every queue it waits in is paused by a stuck buffer".
    changed = True
    while changed:
        changed = False
        for node in list(stuck):
            if any(not (pausers[key] & stuck) for key in holds[node]):
                stuck.discard(node)
                changed = True
    if not stuck:
        return None
    first: list[int] = []
    second: list[int] = []
    via: dict[tuple[int, int], tuple[int, int]] = {}
    for node in stuck:
        for key in holds[node]:
            for target in pausers[key] & stuck:
                first.append(node)
                second.append(target)
                via[(node, target)] = key
    graph = TurnGraph(n_ports * PGS, np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64))
    found = cycles(graph, limit=len(stuck))
    if not found:
        return None
    on_cycle = {node for cycle in found for node in cycle}
    stuck_cycles = []
    for cycle in found:
        waits = tuple(via[(a, b)] for a, b in zip(cycle, (*cycle[1:], cycle[0]), strict=True))
        stuck_cycles.append(StuckCycle(tuple(divmod(int(node), PGS) for node in cycle), tuple(port for port, _ in waits),
                                       max(paused_since[key] for key in waits)))
    held_cells = sum(int(gi[n // PGS, n % PGS, L.GI_OCC] + gi[n // PGS, n % PGS, L.GI_HDR]) for n in stuck)
    return StuckState(time_s, tuple(stuck_cycles), tuple(divmod(n, PGS) for n in sorted(stuck - on_cycle)), held_cells)


def _summed(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    unique, inverse = np.unique(keys, return_inverse=True)
    return unique, np.bincount(inverse, weights=values).astype(np.int64)


__all__ = ["DeadlockObserver", "Observation", "StuckCycle", "StuckState", "queued_packets", "stuck_buffers"]
