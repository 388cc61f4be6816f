"""Turn a :class:`SwitchConfig` and the scenario's flows into the kernel's state arrays.

Classification happens here, per flow, exactly as the switch would do it per packet (all
packets of a flow carry the same DSCP, or one of two with TLT): DSCP -> TC and DSCP -> color
on the ingress port, TC -> PG on the ingress port, TC -> queue on the egress port
(SAI inc/saiqosmap.h). The host tags its frames with priority = TC (SONiC's convention
that TC n travels on PFC priority n, sonic-buildimage files/build_templates/buffers_config.j2 and qos_config.j2).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from qosforge.errors import QosforgeError
from qosforge.models.pfc_headroom import (
    BIT_TIMES_PER_PAUSE_QUANTUM,
    PAUSE_QUANTA_BY_RATE_BPS,
    PFC_FRAME_BYTES,
)
from qosforge.softswitch.config import PRIORITIES, PortConfig, SoftswitchConfigError, SwitchConfig
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.state import allocate, place
from qosforge.softswitch.traffic.spec import HEADER_BYTES, FlowSpec, RunSpec

_KINDS = {"poisson": L.K_POISSON, "cbr": L.K_CBR, "newreno": L.K_NEWRENO, "cubic": L.K_CUBIC, "tcp-ecn": L.K_TCP_ECN, "dctcp": L.K_DCTCP, "tbtcp": L.K_TBTCP, "dcqcn": L.K_DCQCN}
#: Largest packet pool (int32 columns: 56 B each, 56 MB at this size).
MAX_PACKETS = 1 << 20


@dataclass(frozen=True)
class Classification:
    tc: int
    color: int
    pg: int
    queue: int


def classify_ports(ingress: PortConfig, egress: PortConfig, dscp: int) -> Classification:
    """The classification of a packet with ``dscp`` entering on ``ingress`` and leaving on ``egress``."""
    if not 0 <= dscp < 64:
        raise QosforgeError(f"DSCP {dscp} is outside 0..63", place="--dscp", hint="DSCP is a 6-bit field")
    tc = ingress.dscp_to_tc[dscp]
    return Classification(tc=tc, color=ingress.dscp_to_color[dscp], pg=ingress.tc_to_pg[tc], queue=egress.tc_to_queue[tc])


def classify(config: SwitchConfig, src_port: int, dscp: int, dst_port: int) -> Classification:
    """The switch's classification of a packet with ``dscp`` from ``src_port`` to ``dst_port``."""
    return classify_ports(config.ports[src_port], config.ports[dst_port], dscp)


#: ``Topology.peers`` value of a port whose link ends at a host (its NIC is transmit port P + port).
HOST = -1
#: ``Topology.peers`` value of a port with nothing attached.
UNCONNECTED = -2


class SwitchRoutes:
    """One switch's routes, looked up by destination host port as ``routes[s][d]`` (a view of
    :class:`Topology`'s per-destination-switch table: nothing per host port is stored)."""

    __slots__ = ("_s", "_t")

    def __init__(self, topology: Topology, switch: int) -> None:
        self._t, self._s = topology, switch

    def __getitem__(self, dst_port: int) -> tuple[int, ...]:
        return self._t.group(self._s, dst_port)

    def __len__(self) -> int:
        return len(self._t.peers)

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return (self[d] for d in range(len(self)))


class HostRoutes:
    """``routes[s][d]`` over every switch s (see :class:`SwitchRoutes`)."""

    __slots__ = ("_t",)

    def __init__(self, topology: Topology) -> None:
        self._t = topology

    def __getitem__(self, switch: int) -> SwitchRoutes:
        if not 0 <= switch < len(self):
            raise IndexError(switch)
        return SwitchRoutes(self._t, switch)

    def __len__(self) -> int:
        return len(self._t.ports_per_switch)

    def __iter__(self) -> Iterator[SwitchRoutes]:
        return (self[s] for s in range(len(self)))


@dataclass(frozen=True)
class Topology:
    """The switches of a run and how they are linked (the model's view; softswitch/helper builds it).

    Ports are numbered across switches: switch s owns ports ``offset(s) .. offset(s) +
    ports_per_switch[s] - 1`` in the order of its configuration. A port is both a transmitter
    (egress) and a receiver (ingress) of its full-duplex link.

    Routes are held as a switch's forwarding table holds them: one entry per destination
    *switch* with hosts (the prefix of its hosts, RFC 7938 §5.2.4, looked up by longest-prefix
    match) plus each host's last hop at its own switch, so the table grows with switches x
    leaves and with ports, not with switches x ports (at 4,096 hosts: 2 MB, not 100 MB)."""

    ports_per_switch: tuple[int, ...]
    peers: tuple[int, ...]
    """Per port: :data:`HOST`, :data:`UNCONNECTED`, or the port at the link's other end."""
    leaves: tuple[int, ...]
    """The switches with at least one host, in switch order (the destinations of ``leaf_routes``)."""
    leaf_routes: tuple[tuple[tuple[int, ...], ...], ...]
    """``leaf_routes[s][i]``: the egress ports (an ECMP group) switch s forwards to for a host
    behind switch ``leaves[i]`` (unused where s is that switch)."""
    last_hop: tuple[tuple[int, ...], ...]
    """Per port d: the group its own switch forwards to for the host on d (``()`` for a port without one)."""

    @property
    def n_ports(self) -> int:
        return sum(self.ports_per_switch)

    @property
    def routes(self) -> HostRoutes:
        """``routes[s][d]``: the egress ports (an ECMP group) switch s forwards to for the host on port d."""
        return HostRoutes(self)

    def group(self, switch: int, dst_port: int) -> tuple[int, ...]:
        """The ECMP group ``switch`` forwards to for the host on ``dst_port`` (``()``: none)."""
        if self.peers[dst_port] != HOST:
            return ()
        owner = self._owner[dst_port]
        if owner == switch:
            return self.last_hop[dst_port]
        return self.leaf_routes[switch][self._leaf_index[owner]]

    def switch_of(self) -> tuple[int, ...]:
        """The switch of every port (computed once: path and host look-ups call it per flow)."""
        return self._owner

    @cached_property
    def _owner(self) -> tuple[int, ...]:
        return tuple(s for s, count in enumerate(self.ports_per_switch) for _ in range(count))

    @cached_property
    def _leaf_index(self) -> dict[int, int]:
        return {leaf: i for i, leaf in enumerate(self.leaves)}

    @classmethod
    def from_host_routes(cls, ports_per_switch: tuple[int, ...], peers: tuple[int, ...], routes: Sequence[Sequence[tuple[int, ...]]]) -> Topology:
        """The topology of a full per-host table ``routes[s][d]``, which must route every host
        behind one switch alike from every other switch (as forwarding by prefix does)."""
        owner = [s for s, count in enumerate(ports_per_switch) for _ in range(count)]
        hosts = [d for d, peer in enumerate(peers) if peer == HOST]
        leaves = tuple(sorted({owner[d] for d in hosts}))
        index = {leaf: i for i, leaf in enumerate(leaves)}
        table: list[list[tuple[int, ...] | None]] = [[None] * len(leaves) for _ in ports_per_switch]
        for s, row in enumerate(routes):
            for d in hosts:
                if owner[d] == s:
                    continue
                held = table[s][index[owner[d]]]
                if held is None:
                    table[s][index[owner[d]]] = row[d]
                elif held != row[d]:
                    raise ValueError(f"switch {s} routes hosts of switch {owner[d]} differently; routes go per destination switch")
        last = tuple(tuple(routes[owner[d]][d]) if peer == HOST else () for d, peer in enumerate(peers))
        return cls(ports_per_switch, peers, leaves, tuple(tuple(g or () for g in row) for row in table), last)


def single_switch(n_ports: int) -> Topology:
    """One switch with a host on every port (the star every single-switch scenario runs on)."""
    return Topology((n_ports,), (HOST,) * n_ports, (0,), (((),),), tuple((d,) for d in range(n_ports)))


def _pause_response_s(rate_bps: float) -> float:
    """Peer reaction time to PAUSE, IEEE 802.3 Annex 31B.3.7 quanta (models/pfc_headroom.py);
    0 for a rate the table does not list."""
    for table_rate, quanta in PAUSE_QUANTA_BY_RATE_BPS.items():
        if math.isclose(rate_bps, table_rate, rel_tol=1e-9):
            return quanta * BIT_TIMES_PER_PAUSE_QUANTUM / rate_bps
    return 0.0


def lane_capacity(transmit_ports: int) -> int:
    """Entries of each event lane (engine/heap.py): a power of two, at least
    ``layout.LANE_CAPACITY`` and two per transmit port. A fabric keeps about one transmission end
    and one arrival in flight per busy port; with a fixed 4,096 a 4,096-host Clos (24,576
    transmit ports) overflowed its lanes and sent most events through the heap. The lanes hold
    events in the heap's own order, so their size moves no result (bench/engine_fingerprint.py)."""
    return max(L.LANE_CAPACITY, 1 << max(2 * transmit_ports - 1, 1).bit_length())


def _cells(size_bytes: float, cell: float) -> int:
    return math.ceil(size_bytes / cell - 1e-9)


def build_world(config: SwitchConfig, flows: tuple[FlowSpec, ...], run: RunSpec) -> tuple[np.ndarray, ...]:
    """The state of a single-switch run: one switch with a host on every port."""
    return build_fabric_world((config,), single_switch(len(config.ports)), flows, run)


def _check_fabric(configs: tuple[SwitchConfig, ...], topology: Topology) -> None:
    if not configs:
        raise QosforgeError("a run needs at least one switch", place="--switch", hint="name a switch of the intent")
    for config in configs:
        if not config.ports:
            raise SoftswitchConfigError("the switch has no ports", place=config.name, hint="discover ports with SAI_SWITCH_ATTR_PORT_LIST")
    if topology.ports_per_switch != tuple(len(c.ports) for c in configs) or len(topology.peers) != topology.n_ports:
        raise QosforgeError("the topology does not match the switches' ports", place="topology", hint="build it from the same configurations")
    steps = {config.asic.steps for config in configs}
    if len(steps) > 1:
        names = ", ".join(f"{c.name} ({c.asic.steps})" for c in configs)
        raise QosforgeError(f"the switches quantise RED in different numbers of steps: {names}", place="--switch",
                            hint="simulate switches of one vendor profile together, or select them with --switch")


def _tx_ports(configs: tuple[SwitchConfig, ...], ports: list[PortConfig], owner: tuple[int, ...], mtu: int, n_queues: int,
              delays: tuple[float, ...], pool_index: dict[tuple[int, str], int], wred_index: dict[tuple[int, str], int],
              wred_weights: list[int], reserved: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Transmit ports (switch ports 0..P-1, host NICs P..2P-1) and their queues."""
    n_ports = len(ports)
    n_tx = 2 * n_ports
    txf = np.zeros((n_tx, L.TXF_COLS))
    txi = np.zeros((n_tx, L.TXI_COLS), dtype=np.int64)
    qi = np.zeros((n_tx, n_queues, L.QI_COLS), dtype=np.int64)
    qf = np.zeros((n_tx, n_queues, L.QF_COLS))
    qi[:, :, L.QI_HEAD] = -1
    qi[:, :, L.QI_TAIL] = -1
    qi[:, :, L.QI_KIND] = 1
    qi[:, :, L.QI_WRED] = -1
    qi[:, :, L.QI_POOL] = -1
    qi[:, :, L.QI_QUANTUM] = mtu
    qf[:, :, L.QF_WEIGHT] = 1.0
    for p, port in enumerate(ports):
        config = configs[owner[p]]
        cell = config.asic.cell_bytes
        schedulers = {s.object_id: s for s in config.schedulers}
        qf[p, :, L.QF_CELL] = cell
        rate = port.speed_bps / 8.0
        if port.port_max_rate_bytes_per_s > 0:
            rate = min(rate, float(port.port_max_rate_bytes_per_s))
        for t in (p, n_ports + p):
            txf[t, L.TXF_RATE] = rate if t == p else port.speed_bps / 8.0
            txf[t, L.TXF_PROP] = delays[p]
            txf[t, L.TXF_RESPONSE] = _pause_response_s(port.speed_bps)
            txi[t, L.TXI_NQ] = len(port.queues) if t == p else PRIORITIES
        for queue in port.queues:
            q = queue.index
            if queue.scheduler is not None:
                scheduler = schedulers[queue.scheduler]
                # SCHEDULING_WEIGHT scales a quantum of one maximum packet so every visit can send
                # at least one packet (DWRR, Shreedhar & Varghese 1996); STRICT ranks by index.
                qi[p, q, L.QI_KIND] = 0 if scheduler.kind == "STRICT" else 1
                qi[p, q, L.QI_QUANTUM] = scheduler.weight * mtu
                if scheduler.max_rate_bytes_per_s > 0:
                    qf[p, q, L.QF_SHAPE_RATE] = scheduler.max_rate_bytes_per_s
                    qf[p, q, L.QF_BURST] = max(scheduler.max_burst_bytes, mtu)
                    qf[p, q, L.QF_TOKENS] = qf[p, q, L.QF_BURST]
            if queue.wred is not None:
                w_index = wred_index[owner[p], queue.wred]
                qi[p, q, L.QI_WRED] = w_index
                weight = wred_weights[w_index]
                qf[p, q, L.QF_WEIGHT] = 1.0 if weight == 0 else 2.0**-weight
            if queue.buffer_profile is not None:
                profile = config.profile(queue.buffer_profile)
                pool = pool_index[owner[p], profile.pool or ""]
                qi[p, q, L.QI_POOL] = pool
                qi[p, q, L.QI_RES] = _cells(profile.reserved_bytes, cell)
                reserved[pool] += qi[p, q, L.QI_RES] * cell
                qi[p, q, L.QI_DYN] = 1 if profile.dynamic_th is not None else 0
                qf[p, q, L.QF_ALPHA] = profile.alpha or 0.0
                qi[p, q, L.QI_STATIC] = _cells(profile.static_th_bytes or 0, cell)
                qi[p, q, L.QI_TRIM] = int(profile.trims)
    for t in range(n_tx):
        strict = qi[t, :txi[t, L.TXI_NQ], L.QI_KIND] == 0
        txi[t, L.TXI_STRICT] = int(sum(1 << q for q in np.flatnonzero(strict)))
    return txf, txi, qi, qf


def _priority_groups(configs: tuple[SwitchConfig, ...], ports: list[PortConfig], owner: tuple[int, ...], n_pgs: int,
                     pool_index: dict[tuple[int, str], int], reserved: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_ports = len(ports)
    gi = np.zeros((n_ports, n_pgs, L.GI_COLS), dtype=np.int64)
    gf = np.zeros((n_ports, n_pgs, L.GF_COLS))
    gi[:, :, L.GI_POOL] = -1
    pfc_queue = np.full((n_ports, PRIORITIES), -1, dtype=np.int64)
    for p, port in enumerate(ports):
        config = configs[owner[p]]
        cell = config.asic.cell_bytes
        for priority in range(PRIORITIES):
            if (port.pfc_enabled >> priority) & 1:
                pfc_queue[p, priority] = port.pfc_priority_to_queue[priority]
        for pg in port.pgs:
            if pg.buffer_profile is None:
                continue
            profile = config.profile(pg.buffer_profile)
            pool = pool_index[owner[p], profile.pool or ""]
            g = pg.index
            gi[p, g, L.GI_POOL] = pool
            gi[p, g, L.GI_RES] = _cells(profile.reserved_bytes, cell)
            reserved[pool] += gi[p, g, L.GI_RES] * cell
            gi[p, g, L.GI_DYN] = 1 if profile.dynamic_th is not None else 0
            gf[p, g, L.GF_ALPHA] = profile.alpha or 0.0
            gi[p, g, L.GI_STATIC] = _cells(profile.static_th_bytes or 0, cell)
            mask = port.pfc_mask_of_pg(g)
            # Lossless = XOFF_TH > 0 and PFC enabled for a priority of the PG (SAI inc/saibuffer.h XOFF_TH, inc/saiport.h).
            if profile.xoff_bytes > 0 and mask:
                gi[p, g, L.GI_XOFF] = _cells(profile.xoff_bytes, cell)
                gi[p, g, L.GI_XON] = _cells(profile.xon_bytes, cell)
                gi[p, g, L.GI_XON_OFFSET] = _cells(profile.xon_offset_bytes, cell)
                gi[p, g, L.GI_MASK] = mask
    return gi, gf, pfc_queue


def _pools(configs: tuple[SwitchConfig, ...], reserved: np.ndarray) -> np.ndarray:
    pools = [(config, pool) for config in configs for pool in config.pools]
    po = np.zeros((max(len(pools), 1), L.PO_COLS), dtype=np.int64)
    for i, (config, pool_config) in enumerate(pools):
        cell = config.asic.cell_bytes
        shared = pool_config.size_bytes - pool_config.xoff_size_bytes - reserved[i]
        if shared < 0:
            raise SoftswitchConfigError(
                f"reserved buffers ({reserved[i]:.0f} B) and headroom pool exceed the pool size {pool_config.size_bytes} B",
                place=f"{pool_config.object_id} SAI_BUFFER_POOL_ATTR_SIZE",
                hint="the pool's shared size is SIZE minus every reserved buffer (SAI inc/saibuffer.h SHARED_SIZE)",
            )
        po[i, L.PO_SHARED] = int(shared // cell)
        po[i, L.PO_HDR_SIZE] = _cells(pool_config.xoff_size_bytes, cell)
    return po


def _wred(configs: tuple[SwitchConfig, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    wreds = [(config, wred) for config in configs for wred in config.wreds]
    steps = configs[0].asic.steps
    n_wred = max(len(wreds), 1)
    wri = np.zeros((n_wred, 3, L.WRI_COLS), dtype=np.int64)
    wrf = np.zeros((n_wred, 3, 2, 2))
    wrp = np.zeros((n_wred, 3, 2, steps))
    for i, (config, wred) in enumerate(wreds):
        ect_effective = config.ect_thresholds_effective
        for c in range(3):
            drop, ect = wred.drop[c], wred.ect_mark[c]
            wri[i, c, L.WRI_ENABLED] = int(drop.enabled)
            wri[i, c, L.WRI_MARK] = int(wred.mark[c])
            wri[i, c, L.WRI_ECT_DROP] = int(ect_effective and config.color_drop_applies_to_ect and drop.enabled)
            mark_curve = ect if ect_effective else drop
            for kind, curve in ((0, drop), (1, mark_curve)):
                wrf[i, c, kind, 0] = curve.min_bytes
                wrf[i, c, kind, 1] = curve.max_bytes
                wrp[i, c, kind, :] = config.asic.step_probabilities(curve.probability)
    return wri, wrf, wrp


def ecmp_salts(n_switches: int, seed: int) -> np.ndarray:
    """Each switch's ECMP hash salt: seeded, and different per switch so successive tiers choose
    independently (NumPy's generator, not the kernel's, so results elsewhere do not move)."""
    return np.random.default_rng(seed).integers(0, 2**31, n_switches)


def ecmp_member(group: tuple[int, ...], flow_hash: int, salt: int) -> int:
    """The egress port a flow's hash picks from an ECMP group (the kernel's route_and_classify)."""
    return group[(flow_hash ^ salt) % len(group)] if len(group) > 1 else group[0]


#: A port's classification maps: DSCP -> TC, DSCP -> color, TC -> PG, TC -> queue.
_ClassMaps = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _links(topology: Topology, owner: tuple[int, ...], ports: list[PortConfig], seed: int, run: RunSpec) -> dict[int, np.ndarray]:
    """The link table, routes, per-switch state, classification maps and PFC watchdog settings."""
    n_ports = len(ports)
    link = np.full((2 * n_ports, L.LK_COLS), -1, dtype=np.int64)
    for p, peer in enumerate(topology.peers):
        link[p, L.LK_SWITCH] = owner[p]
        if peer == HOST:
            link[p, L.LK_FEEDER] = n_ports + p  # the host's NIC feeds this port; PFC goes to it
            link[n_ports + p, L.LK_PEER] = p
        elif peer >= 0:
            link[p, L.LK_PEER] = peer
            link[p, L.LK_FEEDER] = peer
    n_switches = len(topology.ports_per_switch)
    route = np.zeros((n_switches, max(len(topology.leaves), 1), 2), dtype=np.int64)
    # Each distinct ECMP group once (every host behind a switch shares its group): the member
    # list grows with the groups, not with switches x hosts.
    members: list[int] = []
    where: dict[tuple[int, ...], int] = {}

    def stored(group: tuple[int, ...]) -> int:
        start = where.get(group)
        if start is None:
            start = where[group] = len(members)
            members.extend(group)
        return start

    for s, table in enumerate(topology.leaf_routes):
        for i, group in enumerate(table):
            if group:
                route[s, i, 0] = stored(group)
                route[s, i, 1] = len(group)
    leaf_index = {leaf: i for i, leaf in enumerate(topology.leaves)}
    for d, group in enumerate(topology.last_hop):
        if topology.peers[d] == HOST:
            link[d, L.LK_LEAF] = leaf_index[owner[d]]
            link[d, L.LK_HOP_START] = stored(group) if group else 0
            link[d, L.LK_HOP_COUNT] = len(group)
    swi = np.zeros((n_switches, L.SW_COLS), dtype=np.int64)
    swi[:, L.SW_SALT] = ecmp_salts(n_switches, seed)
    # Each distinct set of classification maps once (a fabric's ports share a few).
    map_sets: dict[_ClassMaps, int] = {}
    for p, port in enumerate(ports):
        maps = (port.dscp_to_tc, port.dscp_to_color, port.tc_to_pg, port.tc_to_queue)
        link[p, L.LK_CLS] = map_sets.setdefault(maps, len(map_sets))
    cls = np.zeros((max(len(map_sets), 1), L.CL_COLS, 64), dtype=np.int64)
    for (dscp_tc, dscp_color, tc_pg, tc_queue), index in map_sets.items():
        cls[index, L.CL_DSCP_TC, :] = dscp_tc
        cls[index, L.CL_DSCP_COLOR, :] = dscp_color
        cls[index, L.CL_TC_PG, :PRIORITIES] = tc_pg
        cls[index, L.CL_TC_QUEUE, :PRIORITIES] = tc_queue
    pfct = np.zeros((2 * n_ports, PRIORITIES, L.PT_COLS))
    pfct[:, :, L.PT_SENT_SINCE] = -1.0
    pfct[:, :, L.PT_RECEIVED_SINCE] = -1.0
    for p, port in enumerate(ports):
        if not run.pfc_watchdog:
            continue
        for priority in range(PRIORITIES):
            queue = port.pfc_priority_to_queue[priority]
            watched = (port.pfc_enabled >> priority) & 1 and queue < len(port.queues) and port.queues[queue].pfc_deadlock_watch
            if watched and port.pfc_deadlock_detection_s[priority] > 0:
                pfct[p, priority, L.PT_DLD_S] = port.pfc_deadlock_detection_s[priority]
                pfct[p, priority, L.PT_DLR_S] = port.pfc_deadlock_recovery_s[priority]
    return {
        L.W_LINK: link, L.W_ROUTE: route, L.W_ECMP: np.array(members or [0], dtype=np.int64), L.W_SWI: swi, L.W_CLS: cls,
        L.W_PFCS: np.zeros((2 * n_ports, PRIORITIES, L.PS_COLS), dtype=np.int64), L.W_PFCT: pfct,
    }


def bdp_packets(line_bytes_per_s: float, ack_delay_s: float, packet_bytes: int, ring_packets: int) -> int:
    """IRN's BDP-FC cap (Mittal et al., SIGCOMM 2018, §3.2: "the number of outstanding packets
    is capped at the network's bandwidth-delay product"): the flow's line rate times its base
    round trip (the forward path is taken as long as the uncongested reverse one), in packets,
    rounded up; at least one, and below the ring the per-packet state lives in."""
    packets = math.ceil(line_bytes_per_s * 2.0 * ack_delay_s / packet_bytes)
    return int(min(max(packets, 1), ring_packets - 1))


def _check_flow_ports(f: int, flow: FlowSpec, topology: Topology) -> None:
    n_ports = topology.n_ports
    for name, index in (("source", flow.src_port), ("destination", flow.dst_port)):
        if not 0 <= index < n_ports:
            raise QosforgeError(f"flow {f}: {name} port {index} does not exist (switch has {n_ports})", place="--flows", hint=f"use ports 0..{n_ports - 1}")
        if topology.peers[index] != HOST:
            raise QosforgeError(f"flow {f}: {name} port {index} has no host", place="--flows", hint="flows run between hosts on edge ports")
    if flow.src_port == flow.dst_port:
        raise QosforgeError(f"flow {f}: source and destination are the same port {flow.src_port}", place="--flows", hint="a flow crosses the switch")
    owner = topology.switch_of()
    if not topology.group(owner[flow.src_port], flow.dst_port):
        raise QosforgeError(f"flow {f}: no path from port {flow.src_port} to port {flow.dst_port}", place="--switch", hint="select connected switches")


def _flows(ports: list[PortConfig], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec) -> tuple[np.ndarray, np.ndarray, int, set[int]]:
    params = run.transport
    n_flows = max(len(flows), 1)
    fli = np.zeros((n_flows, L.FL_COLS), dtype=np.int64)
    flf = np.zeros((n_flows, L.FL_F_COLS))
    window_flows = 0
    open_nics: set[int] = set()
    owner = topology.switch_of()
    # Seeded per-flow ECMP hashes (drawn after the switches' salts from an independent stream).
    hashes = np.random.default_rng([run.seed, 1]).integers(0, 2**31, n_flows)
    salts = ecmp_salts(len(topology.ports_per_switch), run.seed)
    for f, flow in enumerate(flows):
        _check_flow_ports(f, flow, topology)
        # The host classifies its packets for their first switch (per flow, as that switch would:
        # its ingress maps and the egress port the flow's hash picks there); later switches
        # classify them again on arrival (kernel.route_and_classify).
        src = ports[flow.src_port]
        first_egress = ecmp_member(topology.group(owner[flow.src_port], flow.dst_port), int(hashes[f]), int(salts[owner[flow.src_port]]))
        dst = ports[first_egress]
        normal = classify_ports(src, dst, flow.dscp)
        important = classify_ports(src, dst, flow.important_dscp) if flow.important_dscp is not None else normal
        for cls, dscp in ((normal, flow.dscp), (important, flow.important_dscp)):
            if cls.queue >= len(dst.queues):
                raise QosforgeError(f"DSCP {dscp} maps to queue {cls.queue}, which port {dst.name} does not have", place="--dscp", hint="check the TC->queue map")
        if not flow.packet_bytes > HEADER_BYTES[flow.kind]:
            raise QosforgeError(f"a {flow.kind} packet must be larger than its {HEADER_BYTES[flow.kind]} header bytes", place="--packet", hint="e.g. 1500B")
        fli[f, L.FL_KIND] = _KINDS[flow.kind]
        fli[f, L.FL_SRC] = flow.src_port
        fli[f, L.FL_DST] = flow.dst_port
        fli[f, L.FL_PG] = normal.pg
        fli[f, L.FL_Q] = normal.queue
        fli[f, L.FL_COLOR] = normal.color
        fli[f, L.FL_PG_IMP] = important.pg
        fli[f, L.FL_Q_IMP] = important.queue
        fli[f, L.FL_COLOR_IMP] = important.color
        # The NIC queue is the host's priority for the DSCP: the switch's TC unless the host's own
        # map says otherwise (simulate --hosts), so a PAUSE of another priority does not stop it.
        fli[f, L.FL_PRIO] = normal.tc if flow.host_priority is None else flow.host_priority
        fli[f, L.FL_TLT] = 2 if flow.all_important else int(flow.tlt)
        fli[f, L.FL_ECT] = int(flow.ect)
        fli[f, L.FL_VLAN] = int(flow.vlan_tagged)
        rp_off = 0 if flow.dcqcn_reaction_point else 1
        fli[f, L.FL_DCQCN_OFF] = rp_off | (0 if flow.dcqcn_notification_point else 2)
        fli[f, L.FL_SIZE] = flow.size_packets
        fli[f, L.FL_PKT_BYTES] = flow.packet_bytes
        fli[f, L.FL_LAST_BYTES] = flow.packet_bytes if flow.last_packet_bytes is None else flow.last_packet_bytes
        fli[f, L.FL_HDR] = HEADER_BYTES[flow.kind]
        fli[f, L.FL_NACKED] = -1
        fli[f, L.FL_RTX_SEQ] = -1
        fli[f, L.FL_DSCP] = flow.dscp
        fli[f, L.FL_DSCP_IMP] = flow.important_dscp if flow.important_dscp is not None else flow.dscp
        fli[f, L.FL_DSCP_CNP] = flow.cnp_dscp if flow.cnp_dscp is not None else flow.dscp
        fli[f, L.FL_HASH] = hashes[f]
        line = src.speed_bps / 8.0
        flf[f, L.FF_START] = flow.start_s
        flf[f, L.FF_SSTHRESH] = 1e12
        flf[f, L.FF_ALPHA] = 1.0  # Linux tcp_dctcp.c dctcp_alpha_on_init: start at alpha = 1
        # The flow's hosts' minimum RTO and initial window (simulate --hosts), else the run's.
        rto_min_s = params.rto_min_s if flow.rto_min_s is None else flow.rto_min_s
        flf[f, L.FF_RTO_MIN] = rto_min_s
        flf[f, L.FF_IW] = params.initial_window if flow.initial_window is None else flow.initial_window
        fli[f, L.FL_HS_FOUND] = 0 if params.hystart else L.HYSTART_OFF
        flf[f, L.FF_RTO_INITIAL] = max(rto_min_s, 3 * flow.ack_delay_s)
        flf[f, L.FF_RTO] = flf[f, L.FF_RTO_INITIAL]
        flf[f, L.FF_FINISH] = -1.0
        flf[f, L.FF_BETA] = flow.beta
        flf[f, L.FF_R] = flow.window_reduction_r
        flf[f, L.FF_LINE] = line
        flf[f, L.FF_ACK_DELAY] = flow.ack_delay_s
        flf[f, L.FF_LAST_CNP] = -1.0
        flf[f, L.FF_CUBIC_EPOCH] = -1.0
        fli[f, L.FL_CNP_Q] = -1
        fli[f, L.FL_LB], flf[f, L.FF_FLOWLET_GAP] = _load_balancing(f, flow)
        if flow.kind == "dcqcn" and flow.cnp_dscp is not None:
            # CNPs cross the fabric the other way, classified by each switch's own maps.
            cnp_egress = ecmp_member(topology.group(owner[flow.dst_port], flow.src_port), int(hashes[f]), int(salts[owner[flow.dst_port]]))
            cnp = classify_ports(ports[flow.dst_port], ports[cnp_egress], flow.cnp_dscp)
            fli[f, L.FL_CNP_Q] = cnp.queue
            fli[f, L.FL_CNP_PG] = cnp.pg
            fli[f, L.FL_CNP_PRIO] = cnp.tc if flow.cnp_host_priority is None else flow.cnp_host_priority
            fli[f, L.FL_CNP_COLOR] = cnp.color
        if flow.kind in ("poisson", "cbr"):
            if not flow.rate_pps > 0:
                raise QosforgeError(f"flow {f}: an open-loop flow needs a positive rate", place="--load", hint="e.g. 50%")
            flf[f, L.FF_RATE] = flow.rate_pps
            open_nics.add(flow.src_port)
        elif flow.kind == "dcqcn":
            flf[f, L.FF_RATE] = line  # DCQCN starts at line rate (Zhu et al. §3.1)
            flf[f, L.FF_TARGET] = line
            flf[f, L.FF_DALPHA] = 1.0
            flf[f, L.FF_REWIND_AT] = -1.0  # no trimmed packet NACKed yet (engine/dcqcn.py)
            retransmission = run.hosts.nic.retransmission
            if retransmission == "selective-repeat" or (retransmission is None and flow.selective_repeat):
                fli[f, L.FL_SR] = 1
                fli[f, L.FL_SR_CAP] = bdp_packets(line, flow.ack_delay_s, flow.packet_bytes, run.receive_window_packets)
        else:
            window_flows += 1
            # TLT's Important Echo and TBTCP's per-mark reduction (TBTCP §6.2) need an ACK per
            # segment; the other window receivers delay ACKs as Linux does (engine/window.py).
            per_segment = flow.tlt or flow.all_important or flow.kind == "tbtcp"
            fli[f, L.FL_DELACK] = 1 if per_segment else max(params.delayed_ack_segments, 1)
            fli[f, L.FL_QUICKACK] = params.quickack_segments
            # TLT repairs its own losses with important packets (TLT §5.1) on NewReno.
            fli[f, L.FL_SACK] = int(params.sack and not (flow.tlt or flow.all_important))
    return fli, flf, window_flows, open_nics


#: Entries of a switch's flowlet table: CONGA's leaf holds 64K (SIGCOMM 2014); fewer when
#: the run has few flows (four entries per flow keep collisions rare) or many switches (the
#: tables of a run stay within 64 MB).
FLOWLET_ENTRIES_MAX = 1 << 16
FLOWLET_TABLES_BYTES_MAX = 64 << 20
_LB_MODES = {"ecmp": L.LB_HASH, "flowlet": L.LB_RANDOM, "spray": L.LB_RANDOM,
             "adaptive": L.LB_LEAST_QUEUE}
_GAP_PLACE = "load_balancing.flowlet_gap"


def _load_balancing(f: int, flow: FlowSpec) -> tuple[int, float]:
    """The flow's FL_LB mode and FF_FLOWLET_GAP (kernel._balanced_member)."""
    gap = flow.flowlet_gap_s
    if not gap >= 0.0 or not math.isfinite(gap):
        raise QosforgeError(f"flow {f}: flowlet gap {gap} s is not a duration", place=_GAP_PLACE,
                            hint="give a positive gap, e.g. 50us")
    if flow.load_balancing == "flowlet" and gap <= 0.0:
        raise QosforgeError(f"flow {f}: flowlet switching needs an inactivity gap",
                            place=_GAP_PLACE,
                            hint="e.g. flowlet_gap: 50us, a few times the fabric's RTT")
    if flow.load_balancing in ("ecmp", "spray") and gap > 0.0:
        raise QosforgeError(f"flow {f}: {flow.load_balancing} has no flowlets", place=_GAP_PLACE,
                            hint="drop flowlet_gap, or use mode flowlet or adaptive")
    return _LB_MODES[flow.load_balancing], gap


def flowlet_tables(flows: tuple[FlowSpec, ...], n_switches: int) -> tuple[np.ndarray, np.ndarray]:
    """W_FLOWLET_T, W_FLOWLET_M: every switch's flowlet table (empty when no flow has flowlets).
    An entry starts idle since ever, so a flow's first packet starts its first flowlet."""
    flowlet_flows = sum(1 for flow in flows
                        if flow.load_balancing != "ecmp" and flow.flowlet_gap_s > 0.0)
    if not flowlet_flows:
        return np.zeros((0, 0)), np.zeros((0, 0), dtype=np.int64)
    entries = min(FLOWLET_ENTRIES_MAX, max(64, 1 << (4 * flowlet_flows - 1).bit_length()))
    while entries > 64 and entries * n_switches * 16 > FLOWLET_TABLES_BYTES_MAX:
        entries //= 2
    return np.full((n_switches, entries), -np.inf), np.zeros((n_switches, entries), dtype=np.int64)


def _parameters(configs: tuple[SwitchConfig, ...], n_ports: int, run: RunSpec) -> tuple[np.ndarray, np.ndarray]:
    params = run.transport
    prmf = np.zeros(L.PRM_COLS)
    prmf[L.PRM_END] = run.duration_s
    prmf[L.PRM_STOP] = run.duration_s
    prmf[L.PRM_WARMUP] = run.warmup_s
    prmf[L.PRM_SAMPLE] = run.sample_interval_s
    # Hosts size packets in the first switch's cells; each switch recounts them in its own.
    prmf[L.PRM_CELL] = configs[0].asic.cell_bytes
    prmf[L.PRM_TOTAL_CELLS] = configs[0].asic.capacity_cells
    prmf[L.PRM_DCTCP_G] = params.dctcp_g
    prmf[L.PRM_RTO_MIN] = params.rto_min_s
    prmf[L.PRM_RTO_INIT] = params.rto_min_s
    prmf[L.PRM_DCQCN_G] = params.dcqcn_g
    prmf[L.PRM_DCQCN_TIMER] = params.dcqcn_timer_s
    prmf[L.PRM_DCQCN_BYTES] = params.dcqcn_byte_counter
    prmf[L.PRM_DCQCN_F] = params.dcqcn_f
    prmf[L.PRM_DCQCN_RAI] = params.dcqcn_rai_bps / 8.0
    prmf[L.PRM_DCQCN_RHAI] = params.dcqcn_rhai_bps / 8.0
    prmf[L.PRM_CNP_INTERVAL] = params.dcqcn_cnp_interval_s
    prmf[L.PRM_DCQCN_MIN_RATE] = params.dcqcn_min_rate_bps / 8.0
    prmf[L.PRM_BAND] = run.band_bytes
    prmf[L.PRM_IW] = params.initial_window
    prmf[L.PRM_DELACK_TIMEOUT] = params.delayed_ack_timeout_s
    prmf[L.PRM_QUICKACKS] = params.quickack_segments
    prmf[L.PRM_PFC_FRAME] = PFC_FRAME_BYTES
    prmf[L.PRM_TLT_N] = params.tlt_every_n
    prmf[L.PRM_MIXED_CELLS] = 1.0 if len({config.asic.cell_bytes for config in configs}) > 1 else 0.0
    prmi = np.zeros(L.PRI_COLS, dtype=np.int64)
    prmi[L.PRI_NP] = n_ports
    prmi[L.PRI_SEED] = run.seed
    prmi[L.PRI_WINDOW] = run.receive_window_packets
    prmi[L.PRI_HOSTQ] = run.host_queue_packets
    return prmf, prmi


def build_fabric_world(configs: tuple[SwitchConfig, ...], topology: Topology, flows: tuple[FlowSpec, ...], run: RunSpec) -> tuple[np.ndarray, ...]:
    """The kernel's state for ``configs`` linked as ``topology`` (one switch: :func:`build_world`)."""
    _check_fabric(configs, topology)
    ports = [port for config in configs for port in config.ports]
    owner = topology.switch_of()
    n_ports = len(ports)
    mtu = max([f.packet_bytes for f in flows] + [int(PFC_FRAME_BYTES)])
    n_queues = max(PRIORITIES, max(len(p.queues) for p in ports))
    n_pgs = max(PRIORITIES, max(len(p.pgs) for p in ports))
    n_tx = 2 * n_ports
    pool_index = {(s, pool.object_id): i for i, (s, pool) in enumerate((s, pool) for s, c in enumerate(configs) for pool in c.pools)}
    wred_index = {(s, wred.object_id): i for i, (s, wred) in enumerate((s, wred) for s, c in enumerate(configs) for wred in c.wreds)}
    delays = run.link_delays_s if run.link_delays_s is not None else tuple(p.cable_delay_s for p in ports)
    if len(delays) != n_ports:
        raise QosforgeError(f"{len(delays)} link delays for {n_ports} ports", place="link_delays_s", hint="give one delay per switch port")
    forwarding = run.forwarding_delays_s if run.forwarding_delays_s is not None else (0.0,) * n_ports
    if len(forwarding) != n_ports or min(forwarding, default=0.0) < 0.0:
        raise QosforgeError(f"{len(forwarding)} forwarding delays for {n_ports} ports", place="forwarding_delays_s",
                            hint="give one non-negative delay per switch port")

    reserved = np.zeros(len(pool_index))
    wred_weights = [wred.weight for config in configs for wred in config.wreds]
    txf, txi, qi, qf = _tx_ports(configs, ports, owner, mtu, n_queues, delays, pool_index, wred_index, wred_weights, reserved)
    txf[:n_ports, L.TXF_FWD] = forwarding
    txf[n_ports:, L.TXF_FWD] = forwarding
    # The host NICs honour PAUSE on the priorities their PFC is enabled on (simulate --hosts).
    txi[n_ports:, L.TXI_PFC_RX] = sum(1 << priority for priority in run.hosts.nic.pfc_priorities)
    gi, gf, pfc_queue = _priority_groups(configs, ports, owner, n_pgs, pool_index, reserved)
    po = _pools(configs, reserved)
    wri, wrf, wrp = _wred(configs)
    fli, flf, window_flows, open_nics = _flows(ports, topology, flows, run)
    n_flows = fli.shape[0]
    if not run.duration_s > 0:
        raise QosforgeError("the duration must be positive", place="--duration", hint="e.g. 0.3s")
    if not 0 <= run.warmup_s < run.duration_s:
        raise QosforgeError("the warm-up must be shorter than the duration", place="--warmup", hint="e.g. --duration 0.3s --warmup 0.1s")

    total_cells = sum(config.asic.capacity_cells for config in configs)
    window = run.receive_window_packets
    n_packets = total_cells + len(open_nics) * PRIORITIES * run.host_queue_packets + window_flows * min(window, 512) + 4096
    n_packets = int(min(n_packets, MAX_PACKETS))
    # Deadlock timers: at most one detection or recovery event per (switch port, priority).
    capacity = n_packets + 8 * n_flows + 8 * n_tx + len(run.pauses) + PRIORITIES * n_ports + 4096
    for monitored_port, monitored_queue in run.monitors:
        if not 0 <= monitored_port < n_ports or not 0 <= monitored_queue < len(ports[monitored_port].queues):
            raise QosforgeError(f"cannot monitor port {monitored_port} queue {monitored_queue}", place="monitors", hint="a switch port and one of its queues")
    links = _links(topology, owner, ports, run.seed, run)
    dependencies = _dependencies(flows, n_flows)
    flowlets = flowlet_tables(flows, len(configs))
    waits = any(flow.after for flow in flows)
    # Every array comes from the one declaration of the engine's state (engine/state.py): the
    # builder fills the allocated arrays, and a helper's own array must match its declaration.
    # Window receivers' reordering ring; selective-repeat RoCE flows keep their per-packet state
    # there too (engine/selective_repeat.py).
    ring_flows = window_flows or bool(fli[:, L.FL_SR].any())
    sizes = {
        "packets": n_packets, "events": capacity, "tx": n_tx, "ports": n_ports,
        "queues": n_queues, "pgs": n_pgs, "port_stats": max(n_queues, n_pgs),
        "priorities": PRIORITIES, "pools": max(len(pool_index), 1),
        "wreds": max(len(wred_index), 1), "wred_steps": configs[0].asic.steps,
        "flows": n_flows, "listed_flows": len(flows),
        "receive_rows": n_flows if ring_flows else 1, "window": window,
        "monitors": len(run.monitors), "histogram_bins": run.histogram_packets,
        "trace_points": run.trace_points, "bands": run.band_count,
        "switches": len(topology.ports_per_switch), "leaves": max(len(topology.leaves), 1),
        "ecmp_members": len(links[L.W_ECMP]),
        "queue_histogram_ports": n_ports if run.queue_histograms else 0,
        "queue_histogram_bins": run.queue_histogram_packets, "lane_capacity": lane_capacity(n_tx),
        "queue_histogram_rows": n_ports * n_queues if run.queue_histograms else 0,
        "class_map_sets": len(links[L.W_CLS]),
        "dependency_flows": n_flows if waits else 0, "dependency_rows": n_flows + 1 if waits else 0,
        "dependents": len(dependencies[2]),
        "flowlet_switches": flowlets[0].shape[0], "flowlet_entries": flowlets[0].shape[1],
    }
    world = allocate(sizes)
    prmf, prmi = _parameters(configs, n_ports, run)
    prmi[L.PRI_QHIST_WIDTH] = queue_histogram_width(configs, flows, run.queue_histogram_packets)
    starts, start_flows = _flow_starts(flows)
    computed = {
        L.W_TXF: txf, L.W_TXI: txi, L.W_QI: qi, L.W_QF: qf, L.W_GI: gi, L.W_GF: gf,
        L.W_PFCPRIO: pfc_queue, L.W_PO: po, L.W_WRI: wri, L.W_WRF: wrf, L.W_WRP: wrp,
        L.W_FLI: fli, L.W_FLF: flf, L.W_PRMF: prmf, L.W_PRMI: prmi,
        L.W_MON: np.array(run.monitors, dtype=np.int64).reshape(-1, 2),
        L.W_START_S: starts, L.W_START_FLOW: start_flows,
        L.W_DEP_WAIT: dependencies[0], L.W_DEP_PTR: dependencies[1], L.W_DEP_NEXT: dependencies[2],
        L.W_FLOWLET_T: flowlets[0], L.W_FLOWLET_M: flowlets[1],
        **links,
    }
    for index, array in computed.items():
        place(world, index, array)
    world[L.W_FREE][:] = np.arange(n_packets, dtype=np.int64)[::-1]
    world[L.W_SLOTFREE][:] = np.arange(capacity, dtype=np.int64)
    st = world[L.W_ST]
    st[L.ST_FREE_TOP] = n_packets
    st[L.ST_RING_STRIDE] = 1
    world[L.W_STF][L.STF_NEXT_SAMPLE] = run.warmup_s
    swi = world[L.W_SWI]
    for s, config in enumerate(configs):
        swi[s, L.SW_CAPACITY] = config.asic.capacity_cells
        if config.trimming is not None:
            # Packet trimming (engine/trimming.py): a trim size of 0 leaves the switch dropping.
            swi[s, L.SW_TRIM_BYTES] = config.trimming.size_bytes
            swi[s, L.SW_TRIM_QUEUE] = config.trimming.queue_index
            swi[s, L.SW_TRIM_DSCP] = config.trimming.dscp
    # Flow f's start is event number f, as if every start were pushed first, in flow order.
    st[L.ST_SEQ] = len(flows)
    world[L.W_FLI][:len(flows), L.FL_GEN_PENDING] = 1
    # Every queue's histogram row is given out by the kernel (-1: none yet); np.zeros leaves
    # the rows no queue takes unbacked by memory (engine/state.py allocate).
    world[L.W_QHIST_ROW][:] = -1
    return tuple(world)

def queue_histogram_width(configs: tuple[SwitchConfig, ...], flows: tuple[FlowSpec, ...], bins: int) -> int:
    """Packets per bin of the every-queue depth histograms, so that ``bins`` bins reach the
    deepest queue any switch can hold (its whole buffer in the run's smallest frames): a
    percentile is then always a measured depth at this resolution, never a bound."""
    smallest = min((f.packet_bytes for f in flows), default=int(PFC_FRAME_BYTES))
    deepest = max(int(np.ceil(config.asic.buffer_bytes / max(smallest, 1))) for config in configs)
    return max(1, -(-deepest // max(bins - 1, 1)))


def _flow_starts(flows: tuple[FlowSpec, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Flow start times in (time, flow) order, and the flow of each.

    The kernel takes flow starts from these arrays rather than the event heap (so a run with
    50,000 flows does not carry 50,000 pending events through every heap operation), merging
    them with the heap by the same (time, sequence number) key: flow f's start has sequence
    number f, lower than any pushed event's, so the order is the one pushing every start at
    build time, in flow order, would give (engine/heap.py)."""
    # A flow that waits for others is started by them (engine/dependencies.py), never from here.
    starts = np.array([np.inf if flow.after else flow.start_s for flow in flows], dtype=np.float64)
    order = np.argsort(starts, kind="stable").astype(np.int64)
    return np.ascontiguousarray(starts[order]), order


def _dependencies(flows: tuple[FlowSpec, ...], n_flows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_DEP_WAIT, W_DEP_PTR, W_DEP_NEXT: how many flows each waits for, and each flow's dependents
    (compressed rows); all empty when no flow waits, so the receivers' check costs one comparison."""
    if not any(flow.after for flow in flows):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    dependents: list[list[int]] = [[] for _ in range(n_flows)]
    wait = np.zeros(n_flows, dtype=np.int64)
    for f, flow in enumerate(flows):
        for before in set(flow.after):
            if not 0 <= before < len(flows) or before == f:
                raise QosforgeError(f"flow {f} waits for flow {before}, which is not another flow of the run", place="flows",
                                    hint="a flow waits for earlier flows of the same run")
            if flows[before].size_packets < 0:
                raise QosforgeError(f"flow {f} waits for flow {before}, which is long-lived and never finishes", place="flows",
                                    hint="give the flows a collective's steps wait for a size")
            dependents[before].append(f)
            wait[f] += 1
    ptr = np.zeros(n_flows + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(d) for d in dependents])
    nxt = np.array([d for row in dependents for d in row], dtype=np.int64)
    return wait, ptr, nxt


def schedule_initial_events(world: tuple[np.ndarray, ...], flows: tuple[FlowSpec, ...], run: RunSpec) -> None:
    """Push the scripted PFC frames (flow starts are already in the world: build_fabric_world)."""
    from qosforge.softswitch.engine.core import kernel

    push = kernel().heap_push
    queue = (world[L.W_HT], world[L.W_HI], world[L.W_SLOTFREE], world[L.W_SLOTF], world[L.W_SLOTI], world[L.W_ST])
    txf = world[L.W_TXF]
    n_ports = int(world[L.W_PRMI][L.PRI_NP])
    for pause in run.pauses:
        if not 0 <= pause.port < n_ports:
            raise QosforgeError(f"pause on port {pause.port}, which does not exist", place="pauses", hint=f"ports 0..{n_ports - 1}")
        # The peer's frame crosses the cable and acts after the switch's reaction time.
        arrive = pause.time_s + txf[pause.port, L.TXF_PROP] + txf[pause.port, L.TXF_RESPONSE]
        push(*queue, arrive, L.EV_PFC, pause.port, (pause.priorities & 255) | (int(pause.on) << 8), 0.0)


__all__ = ["HOST", "UNCONNECTED", "Classification", "Topology", "build_fabric_world", "build_world",
           "classify", "classify_ports", "ecmp_member", "ecmp_salts", "flowlet_tables",
           "queue_histogram_width", "schedule_initial_events", "single_switch"]
