"""What a simulation runs: flows (open-loop or closed-loop), PFC pauses from peers, run settings.

Every transport constant has its source next to it. A flow enters the switch on ``src_port``
and leaves on ``dst_port``; its host sits on ``src_port`` (the peer of that switch port), its
receiver on ``dst_port``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import qosforge.models.dcqcn_host as _dcqcn_host
from qosforge.defaults import SIMULATED_RECEIVE_WINDOW_PACKETS
from qosforge.models.dcqcn_host import DCQCN_REFERENCE_RATE_BPS

#: How the switches spread a flow's packets over the members of an ECMP group
#: (docs/load-balancing.md): ecmp hashes the flow (it keeps one path); flowlet picks a random
#: member per flowlet (LetFlow, NSDI 2017); spray a random member per packet (random packet
#: spraying, Dixit et al., INFOCOM 2013); adaptive the member with the shortest egress queue, per
#: packet or per flowlet (NVIDIA Spectrum adaptive routing, Broadcom DLB).
LoadBalancing = Literal["ecmp", "flowlet", "spray", "adaptive"]
FlowKind = Literal["poisson", "cbr", "newreno", "cubic", "tcp-ecn", "dctcp", "tbtcp", "dcqcn"]
WINDOW_KINDS: tuple[FlowKind, ...] = ("newreno", "cubic", "tcp-ecn", "dctcp", "tbtcp")
#: The window kinds that react to loss only: their packets are not ECN-capable (not ECT).
LOSS_BASED_KINDS: tuple[FlowKind, ...] = ("newreno", "cubic")
OPEN_LOOP_KINDS: tuple[FlowKind, ...] = ("poisson", "cbr")
#: The closed-loop flow kinds a scenario's ``--transport`` and a traffic file's ``transport:`` name
#: (engine host models, not the intent's transports: those map to a kind through their
#: TransportSpec's flow_kind, transports/); ``tcp`` is CUBIC, Linux's default (net/ipv4/tcp_cong.c;
#: tcp_cubic.c is the default ``net.ipv4.tcp_congestion_control``).
FLOW_KIND_NAMES: dict[str, FlowKind] = {"tcp": "cubic", "cubic": "cubic", "newreno": "newreno", "tcp-ecn": "tcp-ecn", "dctcp": "dctcp", "tbtcp": "tbtcp", "dcqcn": "dcqcn"}

#: DCTCP §3.1: "we use g = 1/16 in all our experiments".
DCTCP_G = 1.0 / 16.0
#: TLT §2.1: "In Linux, the lowest possible minimum RTO is 1 jiffy, which is 4 ms by default";
#: TLT §2.2 reports operators keep "minimum RTO to several milliseconds for intra-DC traffic".
RTO_MIN_S = 4e-3
#: RFC 6928: initial window of 10 segments.
INITIAL_WINDOW = 10
#: Linux's receivers ACK when more than one full segment is unacknowledged (net/ipv4/tcp_input.c
#: __tcp_ack_snd_check; RFC 1122 §4.2.3.2 and RFC 9293 §3.8.6.3: at least every second full-sized
#: segment), so every second segment.
DELAYED_ACK_SEGMENTS = 2
#: Linux's delayed-ACK timeout: ATO starts at TCP_ATO_MIN and the timer is never shorter than
#: TCP_DELACK_MIN, both HZ/25 = 40 ms (include/net/tcp.h; tcp_send_delayed_ack). A datacenter
#: host that lowers it does so per route (``ip route ... quickack 1`` turns delayed ACKs off).
DELAYED_ACK_TIMEOUT_S = 40e-3
#: Segments ACKed at once at a flow's start and after a duplicate segment (Linux
#: TCP_MAX_QUICKACKS, include/net/tcp.h; tcp_incr_quickack, tcp_enter_quickack_mode).
QUICKACK_SEGMENTS = 16
#: DCQCN RP/NP parameters and their sources live with the host model (models/dcqcn_host.py), so
#: the simulated hosts and the rendered host settings (backends/host) use the same numbers. The
#: rate steps are stated at DCQCN_RATE_REFERENCE_BPS and scale with each sender's line rate
#: (engine/dcqcn.py _dcqcn_increase). The 5/50 Mb/s ns-3 attribute defaults (rdma-hw.cc
#: RateAI/RateHAI, ConnectX's rpg_ai_rate/rpg_hai_rate) belong to a 300 us timer at 25 Gb/s;
#: with a 55 us timer at 100 Gb/s they left 8 flows at 8 % of the link 20 ms after an incast.
DCQCN_G = _dcqcn_host.DCQCN_G
DCQCN_TIMER_S = _dcqcn_host.DCQCN_TIMER_S
DCQCN_BYTE_COUNTER = _dcqcn_host.DCQCN_BYTE_COUNTER_BYTES
DCQCN_F = _dcqcn_host.DCQCN_F
DCQCN_RATE_REFERENCE_BPS = DCQCN_REFERENCE_RATE_BPS
DCQCN_RAI_BPS = _dcqcn_host.DCQCN_RAI_BPS
DCQCN_RHAI_BPS = _dcqcn_host.DCQCN_RHAI_BPS
DCQCN_CNP_INTERVAL_S = _dcqcn_host.DCQCN_CNP_INTERVAL_S
DCQCN_MIN_RATE_BPS = _dcqcn_host.DCQCN_MIN_RATE_BPS
#: TLT §7.1: one important packet every N = 96 packets for rate-based transports (footnote 2:
#: N larger than the fan-in; "tail FCT differs less than 3% between N=96 and N=384").
TLT_EVERY_N = 96
#: TBTCP §5.1: "we set beta to 0.1"; §7: r = 4 with P_max = 0.2 (the testbed's choice).
TBTCP_BETA = 0.1
TBTCP_R = 4.0


#: Flows the engine holds: ~3 kB of state each (flow tables, a 2048-packet receive window,
#: event-heap slots; softswitch/engine/build.py), so 50,000 flows are ~150 MB.
MAX_FLOWS = 50_000
#: Largest seed: the engine seeds numba's generator with ``np.random.seed`` (softswitch/engine/kernel.py
#: ``seed_kernel``), which keeps only 32 bits, so 2**32 would silently run as seed 0.
MAX_SEED = 2**32 - 1


#: Header bytes inside each packet (the packet is the IP datagram, as on ns-3's point-to-point
#: links), so payload = packet - header: IPv4 20 B (RFC 791) + TCP 20 B (RFC 9293) + the
#: timestamps option padded to 12 B (RFC 7323 §3, on by default in Linux and ns-3) for the TCPs;
#: IPv4 + UDP 8 B (RFC 768) for open-loop sources; IPv4 + UDP + InfiniBand BTH 12 B + ICRC 4 B for
#: RoCEv2 (InfiniBand Architecture Specification, Annex A17) under DCQCN.
HEADER_BYTES: dict[FlowKind, int] = {
    "poisson": 28, "cbr": 28, "newreno": 52, "cubic": 52, "tcp-ecn": 52, "dctcp": 52, "tbtcp": 52, "dcqcn": 44,
}


@dataclass(frozen=True)
class FlowSpec:
    kind: FlowKind
    src_port: int
    dst_port: int
    dscp: int
    packet_bytes: int = 1500
    size_packets: int = -1
    """-1 = unlimited (long-lived)."""
    last_packet_bytes: int | None = None
    """Bytes of a finite flow's last packet (header + the payload left over); None: a whole
    ``packet_bytes`` packet. :func:`packets_for_payload` gives both from a flow's size."""
    start_s: float = 0.0
    rate_pps: float = 0.0
    """Open-loop sending rate in packets per second."""
    ect: bool = True
    tlt: bool = False
    important_dscp: int | None = None
    """TLT: the DSCP of important packets (mapped to GREEN by the switch's DSCP->color map)."""
    all_important: bool = False
    """Every packet carries the important mark (counted as important; not TLT's clocking)."""
    ack_delay_s: float = 0.0
    """Reverse-path delay receiver -> sender (uncongested)."""
    cnp_dscp: int | None = None
    """DCQCN: the DSCP of the receiver's CNPs; they then cross the switch through the queue it maps
    that DSCP to (a compiled plan's strict-priority CNP class). None: an uncongested side path."""
    beta: float = TBTCP_BETA
    window_reduction_r: float = TBTCP_R
    host_priority: int | None = None
    """The priority the sender's NIC puts the flow on (its DSCP-to-priority map, ``simulate
    --hosts``): the NIC queue a PFC PAUSE of that priority stops. None: the switch's TC for the
    DSCP, as a host configured from the same plan does."""
    cnp_host_priority: int | None = None
    """DCQCN: the priority the receiver's NIC sends CNPs on (None: the switch's TC for the CNP DSCP)."""
    vlan_tagged: bool = False
    """The flow's frames (and its CNPs) carry an IEEE 802.1Q tag, 4 B more on the wire
    (models/ethernet.py): a NIC that trusts PCP sends its priority in the tag (``simulate
    --hosts``); hosts classified by DSCP send untagged frames."""
    dcqcn_reaction_point: bool = True
    """DCQCN: the sender's NIC runs its reaction point on the flow's priority (mlx5
    ``ecn/roce_rp/enable/<prio>``); off, CNPs do not slow the flow."""
    dcqcn_notification_point: bool = True
    """DCQCN: the receiver's NIC runs its notification point on the flow's priority (mlx5
    ``ecn/roce_np/enable/<prio>``); off, CE-marked packets raise no CNP."""
    rto_min_s: float | None = None
    """The minimum retransmission timeout of the flow's sender (its host's ``tcp_rto_min_us``
    or route ``rto_min``, ``simulate --hosts``); None: the run's (TransportParams.rto_min_s)."""
    initial_window: int | None = None
    """Its initial window in segments (the route's ``initcwnd``); None: the run's."""
    selective_repeat: bool = False
    """DCQCN: the NIC recovers losses by IRN's selective repeat (engine/selective_repeat.py)
    instead of go-back-N, unless the hosts' NIC settings say which (``NicSettings.retransmission``)."""
    after: tuple[int, ...] = ()
    """Indices (in the run's flow list) of the flows this one waits for: it starts when the last
    of them has delivered all its data (a collective's step, softswitch/traffic/collectives.py),
    not at ``start_s``. Empty: it starts at ``start_s``."""
    load_balancing: LoadBalancing = "ecmp"
    """How the switches pick among ECMP members for the flow's data (:data:`LoadBalancing`)."""
    flowlet_gap_s: float = 0.0
    """flowlet (required) and adaptive (optional): the inactivity gap that starts a new flowlet;
    adaptive without one chooses per packet."""


def packets_for_payload(payload_bytes: int, packet_bytes: int, header_bytes: int) -> tuple[int, int]:
    """A finite flow of ``payload_bytes`` application bytes in packets of ``packet_bytes`` (each
    carrying ``header_bytes`` of headers): ceil(payload / (packet - header)) packets, the last
    carrying the remainder, so its size on the wire is header + remainder. Returns (packets,
    bytes of the last packet). A flow has at least one byte of payload."""
    payload_per_packet = packet_bytes - header_bytes
    if payload_per_packet < 1:
        raise ValueError(f"a {packet_bytes} B packet has no room for payload after {header_bytes} B of headers")
    payload = max(1, payload_bytes)
    packets = -(-payload // payload_per_packet)
    return packets, header_bytes + payload - (packets - 1) * payload_per_packet


@dataclass(frozen=True)
class PauseSpec:
    """A PFC frame the peer of switch port ``port`` sends at ``time_s`` (on = XOFF)."""

    time_s: float
    port: int
    priorities: int
    """Bit vector of priorities."""
    on: bool


@dataclass(frozen=True)
class TransportParams:
    dctcp_g: float = DCTCP_G
    rto_min_s: float = RTO_MIN_S
    initial_window: int = INITIAL_WINDOW
    delayed_ack_segments: int = DELAYED_ACK_SEGMENTS
    """Full segments per ACK of the window receivers (1: every segment, no delayed ACKs)."""
    delayed_ack_timeout_s: float = DELAYED_ACK_TIMEOUT_S
    quickack_segments: int = QUICKACK_SEGMENTS
    hystart: bool = True
    """CUBIC leaves slow start by HyStart (Linux tcp_cubic.c ``hystart=1``, ns-3 TcpCubic's
    HyStart attribute; engine/cubic.py)."""
    sack: bool = True
    """Window hosts use SACK (RFC 2018, Linux's ``net.ipv4.tcp_sack`` default 1) with RFC 6675 and
    RACK-TLP (RFC 8985) loss recovery; False: NewReno's (RFC 6582)."""
    dcqcn_g: float = DCQCN_G
    dcqcn_timer_s: float = DCQCN_TIMER_S
    dcqcn_byte_counter: float = DCQCN_BYTE_COUNTER
    dcqcn_f: int = DCQCN_F
    dcqcn_rai_bps: float = DCQCN_RAI_BPS
    """R_AI at DCQCN_RATE_REFERENCE_BPS; a sender steps by R_AI·(its line rate)/reference."""
    dcqcn_rhai_bps: float = DCQCN_RHAI_BPS
    """R_HAI at DCQCN_RATE_REFERENCE_BPS, scaled like R_AI."""
    dcqcn_cnp_interval_s: float = DCQCN_CNP_INTERVAL_S
    dcqcn_min_rate_bps: float = DCQCN_MIN_RATE_BPS
    tlt_every_n: int = TLT_EVERY_N


@dataclass(frozen=True)
class NicSettings:
    """What a host NIC does, as a host settings document configures it (``simulate --hosts``;
    backends/host/document.py ``qos``). The per-flow consequences (the priority each flow leaves
    on, its tag, its DCQCN points, its CNPs) are set on the flows (softswitch/helper/hosts.py);
    the NIC's own state is built from this."""

    trust: Literal["dscp", "pcp"] = "dscp"
    pfc_priorities: frozenset[int] = frozenset(range(8))
    """Priorities whose PAUSE the NIC honours (its PFC enable, mlnx_qos ``--pfc``); a PAUSE of
    another priority is ignored and the NIC keeps sending."""
    retransmission: Literal["go-back-n", "selective-repeat"] | None = None
    """The RoCE NIC's loss recovery: go-back-N (the RoCE NIC's default) or IRN's selective repeat
    (engine/selective_repeat.py); None: each flow's own (``FlowSpec.selective_repeat``, set for
    a class whose transport is IRN)."""


@dataclass(frozen=True)
class HostSettings:
    """The simulated hosts' settings, read from one host settings document and passed to the
    world build (RunSpec.hosts). The NIC part is here; the kernel part of the document (TCP
    congestion control, ECN, rto_min) belongs beside it."""

    nic: NicSettings = field(default_factory=NicSettings)


@dataclass(frozen=True)
class RunSpec:
    duration_s: float
    warmup_s: float = 0.0
    sample_interval_s: float = 10e-6
    """The issue: "queue sampled every 10 µs after the warm-up"."""
    seed: int = 1
    monitors: tuple[tuple[int, int], ...] = ()
    """(switch port index, queue index) pairs whose depth is sampled."""
    band_bytes: float = 1500.0
    """Width of the queue-depth bands of the WRED mark/drop statistics."""
    band_count: int = 512
    """Number of bands; deeper queues count in the last one."""
    link_delays_s: tuple[float, ...] | None = None
    """Per switch port, the one-way wire delay of its link (cable propagation + PHY), which data,
    ACK, CNP and PFC frames cross; default = the cable at the propagation speed."""
    forwarding_delays_s: tuple[float, ...] | None = None
    """Per switch port, the rest of its link's latency (the intent's ``link_latency`` minus the
    wire): a packet received on the port reaches its egress queue that much after arriving, and a
    host receiving from the port gets the packet that much after the wire; default: none."""
    transport: TransportParams = field(default_factory=TransportParams)
    pauses: tuple[PauseSpec, ...] = ()
    receive_window_packets: int = SIMULATED_RECEIVE_WINDOW_PACKETS
    """Largest congestion window (and receiver reordering window), packets."""
    host_queue_packets: int = 4096
    """Host NIC queue per priority for open-loop sources; beyond it the host drops."""
    trace_points: int = 65536
    """Fixed size of the queue trace (halves its resolution when full)."""
    histogram_packets: int = 65536
    pfc_watchdog: bool = False
    """Model the PFC deadlock watchdog the SAI program configures (fabric scenarios, the incast on
    an intent's switch and so the served device). Off for the other single-switch scenarios, whose
    PAUSE is injected by hand and whose results stay as they were."""
    queue_histograms: bool = False
    """Sample every switch queue's depth into a histogram (per-port statistics of fabric runs)."""
    queue_histogram_packets: int = 1024
    """Bins of those histograms (one per packet; deeper queues count in the last)."""
    hosts: HostSettings = field(default_factory=HostSettings)
    """The hosts' settings (default: NICs that honour PAUSE on every priority)."""
