"""Turn a :class:`SwitchConfig` and the scenario's flows into the kernel's state arrays.

Classification happens here, per flow, exactly as the switch would do it per packet (all
packets of a flow carry the same DSCP, or one of two with TLT): DSCP -> TC and DSCP -> color
on the ingress port, TC -> PG on the ingress port, TC -> queue on the egress port
(SAI inc/saiqosmap.h). The host tags its frames with priority = TC (SONiC's convention
that TC n travels on PFC priority n, sonic-buildimage files/build_templates/buffers_config.j2 and qos_config.j2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from qosforge.errors import QosforgeError
from qosforge.models.pfc_headroom import (
    BIT_TIMES_PER_PAUSE_QUANTUM,
    PAUSE_QUANTA_BY_RATE_BPS,
    PFC_FRAME_BYTES,
)
from qosforge.softswitch.config import PRIORITIES, SoftswitchConfigError, SwitchConfig
from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.traffic.spec import HEADER_BYTES, FlowSpec, RunSpec

_KINDS = {"poisson": L.K_POISSON, "cbr": L.K_CBR, "newreno": L.K_NEWRENO, "tcp-ecn": L.K_TCP_ECN, "dctcp": L.K_DCTCP, "tbtcp": L.K_TBTCP, "dcqcn": L.K_DCQCN}
#: Largest packet pool (int32 columns: 56 B each, 56 MB at this size).
MAX_PACKETS = 1 << 20


@dataclass(frozen=True)
class Classification:
    tc: int
    color: int
    pg: int
    queue: int


def classify(config: SwitchConfig, src_port: int, dscp: int, dst_port: int) -> Classification:
    """The switch's classification of a packet with ``dscp`` from ``src_port`` to ``dst_port``."""
    if not 0 <= dscp < 64:
        raise QosforgeError(f"DSCP {dscp} is outside 0..63", place="--dscp", hint="DSCP is a 6-bit field")
    ingress, egress = config.ports[src_port], config.ports[dst_port]
    tc = ingress.dscp_to_tc[dscp]
    return Classification(tc=tc, color=ingress.dscp_to_color[dscp], pg=ingress.tc_to_pg[tc], queue=egress.tc_to_queue[tc])


def _pause_response_s(rate_bps: float) -> float:
    """Peer reaction time to PAUSE, IEEE 802.3 Annex 31B.3.7 quanta (models/pfc_headroom.py);
    0 for a rate the table does not list."""
    for table_rate, quanta in PAUSE_QUANTA_BY_RATE_BPS.items():
        if math.isclose(rate_bps, table_rate, rel_tol=1e-9):
            return quanta * BIT_TIMES_PER_PAUSE_QUANTUM / rate_bps
    return 0.0


def _cells(size_bytes: float, cell: float) -> int:
    return math.ceil(size_bytes / cell - 1e-9)


def build_world(config: SwitchConfig, flows: tuple[FlowSpec, ...], run: RunSpec) -> tuple[np.ndarray, ...]:
    n_ports = len(config.ports)
    if n_ports == 0:
        raise SoftswitchConfigError("the switch has no ports", place=config.name, hint="discover ports with SAI_SWITCH_ATTR_PORT_LIST")
    cell = config.asic.cell_bytes
    mtu = max([f.packet_bytes for f in flows] + [int(PFC_FRAME_BYTES)])
    n_queues = max(PRIORITIES, max(len(p.queues) for p in config.ports))
    n_pgs = max(PRIORITIES, max(len(p.pgs) for p in config.ports))
    n_tx = 2 * n_ports
    pool_index = {pool.object_id: i for i, pool in enumerate(config.pools)}
    wred_index = {wred.object_id: i for i, wred in enumerate(config.wreds)}
    schedulers = {s.object_id: s for s in config.schedulers}
    delays = run.link_delays_s if run.link_delays_s is not None else tuple(p.cable_delay_s for p in config.ports)
    if len(delays) != n_ports:
        raise QosforgeError(f"{len(delays)} link delays for {n_ports} ports", place="link_delays_s", hint="give one delay per switch port")

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
    reserved = np.zeros(len(config.pools))
    for p, port in enumerate(config.ports):
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
                w_index = wred_index[queue.wred]
                qi[p, q, L.QI_WRED] = w_index
                weight = config.wreds[w_index].weight
                qf[p, q, L.QF_WEIGHT] = 1.0 if weight == 0 else 2.0**-weight
            if queue.buffer_profile is not None:
                profile = config.profile(queue.buffer_profile)
                pool = pool_index[profile.pool or ""]
                qi[p, q, L.QI_POOL] = pool
                qi[p, q, L.QI_RES] = _cells(profile.reserved_bytes, cell)
                reserved[pool] += qi[p, q, L.QI_RES] * cell
                qi[p, q, L.QI_DYN] = 1 if profile.dynamic_th is not None else 0
                qf[p, q, L.QF_ALPHA] = profile.alpha or 0.0
                qi[p, q, L.QI_STATIC] = _cells(profile.static_th_bytes or 0, cell)

    gi = np.zeros((n_ports, n_pgs, L.GI_COLS), dtype=np.int64)
    gf = np.zeros((n_ports, n_pgs, L.GF_COLS))
    gi[:, :, L.GI_POOL] = -1
    pfc_queue = np.full((n_ports, PRIORITIES), -1, dtype=np.int64)
    for p, port in enumerate(config.ports):
        for priority in range(PRIORITIES):
            if (port.pfc_enabled >> priority) & 1:
                pfc_queue[p, priority] = port.pfc_priority_to_queue[priority]
        for pg in port.pgs:
            if pg.buffer_profile is None:
                continue
            profile = config.profile(pg.buffer_profile)
            pool = pool_index[profile.pool or ""]
            g = pg.index
            gi[p, g, L.GI_POOL] = pool
            gi[p, g, L.GI_RES] = _cells(profile.reserved_bytes, cell)
            reserved[pool] += gi[p, g, L.GI_RES] * cell
            gi[p, g, L.GI_DYN] = 1 if profile.dynamic_th is not None else 0
            gf[p, g, L.GF_ALPHA] = profile.alpha or 0.0
            gi[p, g, L.GI_STATIC] = _cells(profile.static_th_bytes or 0, cell)
            mask = sum(1 << prio for prio in range(PRIORITIES) if (port.pfc_enabled >> prio) & 1 and port.pfc_priority_to_pg[prio] == g)
            # Lossless = XOFF_TH > 0 and PFC enabled for a priority of the PG (§2.3, §4).
            if profile.xoff_bytes > 0 and mask:
                gi[p, g, L.GI_XOFF] = _cells(profile.xoff_bytes, cell)
                gi[p, g, L.GI_XON] = _cells(profile.xon_bytes, cell)
                gi[p, g, L.GI_XON_OFFSET] = _cells(profile.xon_offset_bytes, cell)
                gi[p, g, L.GI_MASK] = mask

    po = np.zeros((max(len(config.pools), 1), L.PO_COLS), dtype=np.int64)
    for i, pool_config in enumerate(config.pools):
        shared = pool_config.size_bytes - pool_config.xoff_size_bytes - reserved[i]
        if shared < 0:
            raise SoftswitchConfigError(
                f"reserved buffers ({reserved[i]:.0f} B) and headroom pool exceed the pool size {pool_config.size_bytes} B",
                place=f"{pool_config.object_id} SAI_BUFFER_POOL_ATTR_SIZE",
                hint="the pool's shared size is SIZE minus every reserved buffer (§2.2 SHARED_SIZE)",
            )
        po[i, L.PO_SHARED] = int(shared // cell)
        po[i, L.PO_HDR_SIZE] = _cells(pool_config.xoff_size_bytes, cell)

    steps = config.asic.steps
    n_wred = max(len(config.wreds), 1)
    wri = np.zeros((n_wred, 3, L.WRI_COLS), dtype=np.int64)
    wrf = np.zeros((n_wred, 3, 2, 2))
    wrp = np.zeros((n_wred, 3, 2, steps))
    ect_effective = config.ect_thresholds_effective
    for i, wred in enumerate(config.wreds):
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

    params = run.transport
    n_flows = max(len(flows), 1)
    fli = np.zeros((n_flows, L.FL_COLS), dtype=np.int64)
    flf = np.zeros((n_flows, L.FL_F_COLS))
    window_flows = 0
    open_nics: set[int] = set()
    for f, flow in enumerate(flows):
        for name, index in (("source", flow.src_port), ("destination", flow.dst_port)):
            if not 0 <= index < n_ports:
                raise QosforgeError(f"flow {f}: {name} port {index} does not exist (switch has {n_ports})", place="--flows", hint=f"use ports 0..{n_ports - 1}")
        if flow.src_port == flow.dst_port:
            raise QosforgeError(f"flow {f}: source and destination are the same port {flow.src_port}", place="--flows", hint="a flow crosses the switch")
        normal = classify(config, flow.src_port, flow.dscp, flow.dst_port)
        important = classify(config, flow.src_port, flow.important_dscp, flow.dst_port) if flow.important_dscp is not None else normal
        for cls, dscp in ((normal, flow.dscp), (important, flow.important_dscp)):
            if cls.queue >= len(config.ports[flow.dst_port].queues):
                raise QosforgeError(f"DSCP {dscp} maps to queue {cls.queue}, which port {config.ports[flow.dst_port].name} does not have", place="--dscp", hint="check the TC->queue map")
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
        fli[f, L.FL_PRIO] = normal.tc
        fli[f, L.FL_TLT] = 2 if flow.all_important else int(flow.tlt)
        fli[f, L.FL_ECT] = int(flow.ect)
        fli[f, L.FL_SIZE] = flow.size_packets
        fli[f, L.FL_PKT_BYTES] = flow.packet_bytes
        fli[f, L.FL_HDR] = HEADER_BYTES[flow.kind]
        fli[f, L.FL_NACKED] = -1
        fli[f, L.FL_RTX_SEQ] = -1
        line = config.ports[flow.src_port].speed_bps / 8.0
        flf[f, L.FF_START] = flow.start_s
        flf[f, L.FF_SSTHRESH] = 1e12
        flf[f, L.FF_ALPHA] = 1.0  # Linux tcp_dctcp.c dctcp_alpha_on_init: start at alpha = 1
        flf[f, L.FF_RTO] = max(params.rto_min_s, 3 * flow.ack_delay_s)
        flf[f, L.FF_FINISH] = -1.0
        flf[f, L.FF_BETA] = flow.beta
        flf[f, L.FF_R] = flow.window_reduction_r
        flf[f, L.FF_LINE] = line
        flf[f, L.FF_ACK_DELAY] = flow.ack_delay_s
        flf[f, L.FF_LAST_CNP] = -1.0
        fli[f, L.FL_CNP_Q] = -1
        if flow.kind == "dcqcn" and flow.cnp_dscp is not None:
            # CNPs cross the switch the other way, classified by the switch's own maps.
            cnp = classify(config, flow.dst_port, flow.cnp_dscp, flow.src_port)
            fli[f, L.FL_CNP_Q] = cnp.queue
            fli[f, L.FL_CNP_PG] = cnp.pg
            fli[f, L.FL_CNP_PRIO] = cnp.tc
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
        else:
            window_flows += 1
    if not run.duration_s > 0:
        raise QosforgeError("the duration must be positive", place="--duration", hint="e.g. 0.3s")
    if not 0 <= run.warmup_s < run.duration_s:
        raise QosforgeError("the warm-up must be shorter than the duration", place="--warmup", hint="e.g. --duration 0.3s --warmup 0.1s")

    total_cells = int(config.asic.buffer_bytes // cell)
    window = run.receive_window_packets
    n_packets = total_cells + len(open_nics) * PRIORITIES * run.host_queue_packets + window_flows * min(window, 512) + 4096
    n_packets = int(min(n_packets, MAX_PACKETS))
    pki = np.zeros((n_packets, L.PK_COLS), dtype=np.int32)
    pkf = np.zeros((n_packets, L.PKF_COLS))
    free = np.arange(n_packets, dtype=np.int64)[::-1].copy()
    st = np.zeros(L.ST_COLS, dtype=np.int64)
    st[L.ST_FREE_TOP] = n_packets
    st[L.ST_RING_STRIDE] = 1
    stf = np.zeros(L.STF_COLS)
    stf[L.STF_NEXT_SAMPLE] = run.warmup_s
    capacity = n_packets + 8 * n_flows + 8 * n_tx + len(run.pauses) + 4096
    ht = np.zeros((capacity, 2))
    hi = np.zeros((capacity, 3), dtype=np.int64)

    prmf = np.zeros(L.PRM_COLS)
    prmf[L.PRM_END] = run.duration_s
    prmf[L.PRM_WARMUP] = run.warmup_s
    prmf[L.PRM_SAMPLE] = run.sample_interval_s
    prmf[L.PRM_CELL] = cell
    prmf[L.PRM_TOTAL_CELLS] = total_cells
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
    prmf[L.PRM_PFC_FRAME] = PFC_FRAME_BYTES
    prmf[L.PRM_TLT_N] = params.tlt_every_n
    prmi = np.zeros(L.PRI_COLS, dtype=np.int64)
    prmi[L.PRI_NP] = n_ports
    prmi[L.PRI_SEED] = run.seed
    prmi[L.PRI_WINDOW] = window
    prmi[L.PRI_HOSTQ] = run.host_queue_packets

    for monitored_port, monitored_queue in run.monitors:
        if not 0 <= monitored_port < n_ports or not 0 <= monitored_queue < len(config.ports[monitored_port].queues):
            raise QosforgeError(f"cannot monitor port {monitored_port} queue {monitored_queue}", place="monitors", hint="a switch port and one of its queues")
    mon = np.array(run.monitors, dtype=np.int64).reshape(-1, 2)
    n_mon = mon.shape[0]
    world: list[Any] = [np.zeros(0)] * L.W_LEN
    world[L.W_PKI] = pki
    world[L.W_PKF] = pkf
    world[L.W_FREE] = free
    world[L.W_ST] = st
    world[L.W_STF] = stf
    world[L.W_HT] = ht
    world[L.W_HI] = hi
    world[L.W_TXF] = txf
    world[L.W_TXI] = txi
    world[L.W_QI] = qi
    world[L.W_QF] = qf
    world[L.W_GI] = gi
    world[L.W_GF] = gf
    world[L.W_PO] = po
    world[L.W_WRI] = wri
    world[L.W_WRF] = wrf
    world[L.W_WRP] = wrp
    world[L.W_FLI] = fli
    world[L.W_FLF] = flf
    world[L.W_RCV] = np.zeros((n_flows if window_flows else 1, window), dtype=np.int8)
    world[L.W_PRMF] = prmf
    world[L.W_PRMI] = prmi
    world[L.W_CNT] = np.zeros(L.C_COLS, dtype=np.int64)
    world[L.W_DROP] = np.zeros((n_ports, n_queues, L.DR_COLS), dtype=np.int64)
    world[L.W_MARK] = np.zeros((n_ports, n_queues, 3), dtype=np.int64)
    world[L.W_DROPC] = np.zeros((n_ports, n_queues, 3), dtype=np.int64)
    world[L.W_ENQ] = np.zeros((n_ports, n_queues), dtype=np.int64)
    world[L.W_DEQB] = np.zeros((n_ports, n_queues), dtype=np.int64)
    world[L.W_MON] = mon
    world[L.W_MONS] = np.zeros((n_mon, L.MS_COLS))
    world[L.W_HIST] = np.zeros((n_mon, run.histogram_packets), dtype=np.int64)
    world[L.W_RING] = np.zeros((n_mon, run.trace_points))
    world[L.W_RINGT] = np.zeros(run.trace_points)
    world[L.W_BAND] = np.zeros((n_mon, 3, 2, run.band_count, 3), dtype=np.int64)
    world[L.W_PAUSE] = np.zeros((1, 4))
    world[L.W_PGMAX] = np.zeros((n_ports, n_pgs, 2), dtype=np.int64)
    world[L.W_QMAX] = np.zeros((n_ports, n_queues), dtype=np.int64)
    world[L.W_PFCPRIO] = pfc_queue
    world[L.W_EVENT] = np.zeros(3, dtype=np.int64)
    return tuple(world)


def schedule_initial_events(world: tuple[np.ndarray, ...], flows: tuple[FlowSpec, ...], run: RunSpec) -> None:
    from qosforge.softswitch.engine.core import kernel

    heap_push = kernel().heap_push
    ht, hi, st, txf = world[L.W_HT], world[L.W_HI], world[L.W_ST], world[L.W_TXF]
    n_ports = int(world[L.W_PRMI][L.PRI_NP])
    for f, flow in enumerate(flows):
        world[L.W_FLI][f, L.FL_GEN_PENDING] = 1
        heap_push(ht, hi, st, L.ST_HSIZE, flow.start_s, L.EV_GEN, f, 0, 0.0)
    for pause in run.pauses:
        if not 0 <= pause.port < n_ports:
            raise QosforgeError(f"pause on port {pause.port}, which does not exist", place="pauses", hint=f"ports 0..{n_ports - 1}")
        # The peer's frame crosses the cable and acts after the switch's reaction time.
        arrive = pause.time_s + txf[pause.port, L.TXF_PROP] + txf[pause.port, L.TXF_RESPONSE]
        heap_push(ht, hi, st, L.ST_HSIZE, arrive, L.EV_PFC, pause.port, (pause.priorities & 255) | (int(pause.on) << 8), 0.0)


__all__ = ["Classification", "build_world", "classify", "schedule_initial_events"]
