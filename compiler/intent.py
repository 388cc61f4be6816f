"""The intent document (docs/architecture.md §2) as pydantic models.

Quantities are written with explicit units (``40G``, ``12MB``, ``80us``, ``5m``, ``2%``) and parsed
by :mod:`qosforge.units` during validation, so the models below hold SI numbers with the unit in
the field name. Unknown fields are errors everywhere (``extra="forbid"``). ``qosforge schema``
exports the JSON Schema of :class:`Intent` for editors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationInfo,
    WithJsonSchema,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from qosforge.backends.registry import approximation_names, target_names
from qosforge.compiler.objectives import Objectives
from qosforge.compiler.port_names import expand_port_names
from qosforge.defaults import (
    DEFAULT_ALPHA,
    DEFAULT_CONGESTED_PORTS,
    DEFAULT_FASTLANE_BANDWIDTH_CAP,
    DEFAULT_FASTLANE_BUFFER_CAP,
    DEFAULT_LOSSLESS_MTU,
    DEFAULT_LSO_BURST,
    DEFAULT_MTU,
    DEFAULT_PORT_MTU,
    DEFAULT_SMALL_PACKET_PERCENT,
    LINUX_INITIAL_WINDOW_SEGMENTS,
    SIMULATED_RECEIVE_WINDOW_PACKETS,
)
from qosforge.fields import (
    CableM,
    Fraction,
    LinkLatencyS,
    Percent,
    PhyDelayS,
    RateBps,
    RttS,
    SizeBytes,
    TimeS,
    unit_parser,
)
from qosforge.models.pfc_headroom import MIN_FRAME_BYTES
from qosforge.transports import (
    accepted_transports,
    blocks_setting_marking,
    parameter_blocks,
    seal,
    transport,
    transport_hint,
    transport_names,
    transports_with_block,
)
from qosforge.transports.d2tcp import D2tcpSpec
from qosforge.transports.dcqcn import DcqcnSpec
from qosforge.transports.ear import EarSpec
from qosforge.transports.tbtcp import TbtcpSpec
from qosforge.units import parse_rto_min_s

#: A DSCP code point: 6 bits (RFC 2474 §3).
Dscp = Annotated[int, Field(ge=0, le=63)]

def _transport_name(value: Any) -> str:
    """A registered transport (transports/); refused as a literal, so the loader's hint lists them."""
    names = transport_names()
    if not isinstance(value, str) or value not in names:
        expected = ", ".join(repr(name) for name in names[:-1]) + f" or {names[-1]!r}"
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
    return value


#: The intent's ``transport:``: one of the registered transports (qosforge.transports), the schema
#: lists them; refused ones (HPCC) are named so the compiler refuses them with their reason.
TransportName = Annotated[str, PlainValidator(_transport_name, json_schema_input_type=str),
                          WithJsonSchema({"enum": list(transport_names()), "type": "string"})]


def _registered(kind: str, names: Any) -> Any:
    """A string checked against a registry list (qosforge.backends.registry); the schema lists it."""

    def validate(value: str) -> str:
        if value not in names():
            raise ValueError(f"unknown {kind} {value!r}; use one of: {', '.join(names())}")
        return value

    return AfterValidator(validate)


TargetName = Annotated[str, _registered("target", target_names), Field(json_schema_extra={"enum": list(target_names())})]
ApproximationName = Annotated[str, _registered("approximation", approximation_names), Field(json_schema_extra={"enum": list(approximation_names())})]


class _Strict(BaseModel):
    # strict: a YAML true or a quoted '10' is refused where an integer is due; pydantic's lax
    # mode reads them as 1 and 10, so `spines: true` would compile a one-spine fabric. Quantities
    # with units are unaffected: their parsers run before the type check.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)


class LinkSpec(_Strict):
    """A link class in the leaf-spine generator."""

    speed: RateBps = Field(description="Port speed, e.g. 40G.")
    cable: CableM = Field(default="3m", validate_default=True, description="Cable length, e.g. 5m (at most 10 km).")
    phy_delay: PhyDelayS = Field(default="0ns", validate_default=True,
                                 description="One-way delay of the link's PHY stages (gearbox, retimer, FEC), e.g. 300ns: part of the wire, "
                                             "so PFC headroom counts it both ways.")


LINK_LATENCY_TEXT = ("One-way latency of every link per hop, including the receiving switch's forwarding, e.g. 1us (at most 1 ms); "
                     "at least the wire (cable at 5 ns/m, IEEE 802.3 Table 29-3, plus phy_delay). RTTs (ECN K, BDP) use it, PFC headroom "
                     "the wire alone. Default: the wire plus the profile's forwarding latency where it states one.")


HOST_NIC_TEXT = ("Host NIC profile of the hosts on these links (a file stem of vendor_profiles/nics/), e.g. nvidia-connectx-6dx: the host target "
                 "renders its settings; default linux-kernel (the kernel's TCP settings only).")


class LeafSpine(_Strict):
    spines: int = Field(ge=1, le=512)
    leaves: int = Field(ge=1, le=8192)
    hosts_per_leaf: int = Field(ge=1, le=512)
    host_link: LinkSpec
    fabric_link: LinkSpec
    link_latency: LinkLatencyS | None = Field(default=None, description=LINK_LATENCY_TEXT)
    leaf_profile: str = Field(description="Vendor profile of the leaves (qosforge profiles list).")
    spine_profile: str | None = Field(default=None, description="Vendor profile of the spines (default: leaf_profile).")
    port_prefix: str = Field(default="Ethernet", pattern=r"^[A-Za-z][A-Za-z_-]*$")
    port_stride: int = Field(default=4, ge=1, le=8, description="Step between port numbers (4 = one name per 4 lanes, as SONiC names ports).")
    host_nic: str | None = Field(default=None, description=HOST_NIC_TEXT)


class Clos(_Strict):
    """A three-tier Clos: ``pods`` of leaves and spines (every leaf to every spine of its pod) and
    a super-spine tier in ``spines_per_pod`` planes: spine s of every pod connects to each of the
    ``super_spines / spines_per_pod`` super-spines of plane s, as in Facebook's data center fabric
    (A. Andreyev, "Introducing data center fabric", 2014) and Google's Jupiter (SIGCOMM 2015 §3)."""

    pods: int = Field(ge=1, le=512)
    leaves_per_pod: int = Field(ge=1, le=512)
    spines_per_pod: int = Field(ge=1, le=128)
    super_spines: int = Field(ge=1, le=4096, description="Super-spines in total; a multiple of spines_per_pod (one plane per spine position).")
    hosts_per_leaf: int = Field(ge=1, le=512)
    host_link: LinkSpec
    fabric_link: LinkSpec = Field(description="Leaf-to-spine links.")
    super_link: LinkSpec | None = Field(default=None, description="Spine-to-super-spine links (default: fabric_link).")
    link_latency: LinkLatencyS | None = Field(default=None, description=LINK_LATENCY_TEXT)
    leaf_profile: str = Field(description="Vendor profile of the leaves (qosforge profiles list).")
    spine_profile: str | None = Field(default=None, description="Vendor profile of the spines (default: leaf_profile).")
    super_spine_profile: str | None = Field(default=None, description="Vendor profile of the super-spines (default: spine_profile).")
    port_prefix: str = Field(default="Ethernet", pattern=r"^[A-Za-z][A-Za-z_-]*$")
    port_stride: int = Field(default=4, ge=1, le=8, description="Step between port numbers (4 = one name per 4 lanes, as SONiC names ports).")
    host_nic: str | None = Field(default=None, description=HOST_NIC_TEXT)

    @model_validator(mode="after")
    def _planes(self) -> Clos:
        if self.super_spines % self.spines_per_pod:
            raise ValueError(
                f"super_spines ({self.super_spines}) must be a multiple of spines_per_pod ({self.spines_per_pod}): "
                "spine s of every pod connects to the super-spines of plane s"
            )
        return self


class PortSpec(_Strict):
    name: str = Field(description="Port name or range, e.g. Ethernet0 or Ethernet[0-124/4].")
    speed: RateBps
    cable: CableM = Field(default="3m", validate_default=True)
    peer: str | None = Field(default=None, description="'host', or 'switch:port' of the far end.")
    phy_delay: PhyDelayS = Field(default="0ns", validate_default=True,
                                 description="One-way delay of the port's PHY stages (gearbox, retimer, FEC), e.g. 300ns: part of the wire.")
    host_nic: str | None = Field(default=None, description=HOST_NIC_TEXT + " Only on ports whose peer is 'host'.")

    @field_validator("name")
    @classmethod
    def _valid_range(cls, value: str) -> str:
        expand_port_names(value)
        return value

    @model_validator(mode="after")
    def _nic_on_host_ports(self) -> PortSpec:
        if self.host_nic is not None and self.peer != "host":
            raise ValueError("host_nic names the NIC of a host: give it on ports whose peer is 'host'")
        return self


class SwitchSpec(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    profile: str
    ports: list[PortSpec] = Field(min_length=1)


class LinkLatency(_Strict):
    a: str = Field(description="switch:port")
    b: str = Field(description="switch:port")
    latency: LinkLatencyS | None = Field(default=None, description="One-way latency including the receiving switch's forwarding; at least the wire "
                                                                 "(cable at the propagation speed plus phy_delay), its default.")


#: An AS number BGP can carry (RFC 6793 four-octet ASNs; 0 and 4294967295 are reserved, RFC 7607
#: and RFC 7300).
Asn = Annotated[int, Field(ge=1, le=4_294_967_294)]


class AsnPlan(_Strict):
    """Where the operator gives ASNs: per tier of a generated fabric, or per switch by name."""

    super_spine: Asn | None = Field(
        default=None,
        description="The ASN all super-spines of a clos share (RFC 7938 §5.2.1 Tier 1).")
    spine: Asn | None = Field(
        default=None, description="The spines' shared ASN (leaf_spine), or pod 1's spines' "
                                  "(clos: pod p gets spine + p - 1).")
    leaf: Asn | None = Field(
        default=None, description="The first leaf's ASN; leaf i gets leaf + i - 1 "
                                  "(each leaf its own, RFC 7938 §5.2.1).")
    switches: dict[str, Asn] = Field(
        default_factory=dict, description="ASN by switch name: every switch of an explicit "
                                          "topology, or overrides of the tier plan.")


class RoutingSpec(_Strict):
    """How the fabric routes: the routes the deadlock check, failure sweeps and simulator use."""

    model: Literal["ebgp-rfc7938", "shortest-path"] | None = Field(
        default=None,
        description="ebgp-rfc7938: eBGP with AS-path loop detection and multipath (the default of "
                    "leaf_spine and clos); shortest-path: every fewest-hop path (an IGP with ECMP; "
                    "the default of explicit topologies).")
    asn: AsnPlan = Field(
        default_factory=AsnPlan,
        description="ASNs (ebgp-rfc7938); generators default to RFC 7938 §5.2.1's plan in the "
                    "private range.")
    allowas_in: int = Field(
        default=0, ge=0, le=10,
        description="Accept routes whose AS path holds the switch's own ASN up to this many "
                    "times (ebgp-rfc7938).")
    multipath_relax: bool = Field(
        default=True,
        description="ECMP over equally long AS paths through different neighbour ASNs (FRR 'bgp "
                    "bestpath as-path multipath-relax', set by SONiC); false: only identical AS "
                    "paths (ebgp-rfc7938).")

    @model_validator(mode="after")
    def _bgp_knobs(self) -> RoutingSpec:
        if self.model == "shortest-path" and (self.allowas_in or self.asn != AsnPlan()):
            raise ValueError("asn and allowas_in are eBGP settings: give them with model: "
                             "ebgp-rfc7938, or drop them")
        return self


class Topology(_Strict):
    leaf_spine: LeafSpine | None = None
    clos: Clos | None = None
    switches: list[SwitchSpec] | None = None
    links: list[LinkLatency] = Field(default_factory=list)
    host_latency: LinkLatencyS | None = Field(default=None, description="One-way latency of host links in an explicit topology, including forwarding; "
                                                                        "at least each host port's wire, its default.")
    routing: RoutingSpec = Field(
        default_factory=RoutingSpec,
        description="The routing protocol's model of the routes (docs/deadlock.md).")

    @model_validator(mode="after")
    def _one_form(self) -> Topology:
        forms = [self.leaf_spine is not None, self.clos is not None, self.switches is not None]
        if sum(forms) != 1:
            raise ValueError("give exactly one of 'leaf_spine' or 'clos' (generators) or 'switches' (explicit)")
        if self.switches is None and self.links:
            raise ValueError("'links' belongs to an explicit topology; the generators make their own")
        return self


class TltSpec(_Strict):
    important_dscp: list[Dscp] = Field(min_length=1, description="DSCPs the hosts use for important packets (colored green).")
    threshold: SizeBytes | None = Field(default=None, description="Color-aware threshold K for unimportant packets (default: from the transport, TLT §4.2).")


class EcnSpec(_Strict):
    """An operator-stated ECN marking curve for one port speed, e.g. copied from a vendor's
    recommended profile: mark ECT packets with probability rising linearly from 0 at ``min`` to
    ``pmax`` at ``max`` and every packet above ``max`` (RED as SAI inc/saiwred.h and SONiC's
    WRED_PROFILE program it: no "gentle" region). It replaces the transport model's marking at
    that speed; the report shows the model's recommendation beside it."""

    speed: RateBps = Field(description="The port speed this marking is for; a speed of the topology, e.g. 10G.")
    min: SizeBytes = Field(description="Marking starts above this queue length, e.g. 30kB.")
    max: SizeBytes = Field(description="Every packet is marked above this queue length (at least min), e.g. 90kB.")
    pmax: Percent = Field(description="Marking probability at max, in percent with its sign: above 0% and at most 100% (e.g. 2%).")

    @field_validator("pmax")
    @classmethod
    def _probability(cls, value: float) -> float:
        if not 0.0 < value <= 100.0:
            raise ValueError(f"pmax {value:g}% is not a probability in (0%, 100%]; write e.g. 2% (RED's max_p 1/50) or 100% for a step at min = max")
        return value

    @field_validator("max")
    @classmethod
    def _ordered(cls, value: float, info: ValidationInfo) -> float:
        low = info.data.get("min")  # validated before max (field order)
        if low is not None and low > value:
            raise ValueError(f"max {value:g} B is below min {low:g} B: marking rises from min to max; swap them, "
                             "or give min = max for a step (DCTCP's K)")
        return value


class FastLaneSpec(_Strict):
    dscp: Dscp = Field(description="DSCP of the drop notifications.")
    bandwidth_cap: Fraction = Field(default=DEFAULT_FASTLANE_BANDWIDTH_CAP, validate_default=True, description="Share of port bandwidth (FastLane: 2%).")
    buffer_cap: Fraction = Field(default=DEFAULT_FASTLANE_BUFFER_CAP, validate_default=True, description="Share of buffer (FastLane: 5%).")


class TrimSpec(_Strict):
    """Packet trimming for a lossy class (SONiC ``SWITCH_TRIMMING|GLOBAL`` and the class's queue
    profile ``packet_discard_action: trim``; SAI ``SAI_SWITCH_ATTR_PACKET_TRIM_*`` and
    ``SAI_BUFFER_PROFILE_PACKET_ADMISSION_FAIL_ACTION_DROP_AND_TRIM``): a packet the queue cannot
    admit is cut to ``size`` bytes and sent on the trim queue, FastLane's loss notification carried
    by the forward path (NDP, SIGCOMM 2017 §3.1). The trim queue is planned like FastLane's
    notification queue: strict priority, capped to the FastLane budget (2 % of the port's rate,
    5 % of its buffer, FastLane §3.2/§5). One switch has one trimming setting: every trimmed
    class gives the same size, DSCP and queue mode."""

    size: SizeBytes = Field(description="Bytes a trimmed packet keeps (SONiC SWITCH_TRIMMING size, SAI PACKET_TRIM_SIZE), e.g. 256B; "
                                        "the vendor profile's packet_trim_size gives the range the ASIC accepts.")
    dscp: Dscp | Literal["from-tc"] = Field(description="DSCP written into trimmed packets (SONiC dscp_value), or 'from-tc' to take it "
                                                        "from the port's TC_TO_DSCP map applied to 'tc'.")
    tc: int | None = Field(default=None, ge=0, le=7, description="TC of trimmed packets for dscp 'from-tc' (SONiC tc_value); only with from-tc.")
    queue: Literal["static", "dynamic"] = Field(default="static", description="static: trimmed packets go to the planned trim queue "
                                                "(SONiC queue_index <n>); dynamic: the queue is resolved from the trimmed packet's DSCP "
                                                "through DSCP_TO_TC and TC_TO_QUEUE (queue_index 'dynamic'), which the compiler points at the trim queue.")

    @model_validator(mode="after")
    def _tc_with_from_tc(self) -> Self:
        # dscp 'from-tc' without 'tc' is not refused here: the class plan refuses from-tc itself
        # (compiler/plan.py), and asking for 'tc' first would send the operator to a fix that is
        # then refused.
        if self.dscp != "from-tc" and self.tc is not None:
            raise ValueError("'tc' is only used with dscp 'from-tc'; drop it, or write dscp: from-tc")
        return self


class LoadBalancingSpec(_Strict):
    """How the fabric's switches spread the class's packets over the equal-cost next hops
    (docs/load-balancing.md). Only ``ecmp`` is SONiC configuration; flowlet switching, spraying
    and adaptive routing are the ASIC vendor's settings (NVIDIA Spectrum adaptive routing,
    Broadcom Dynamic Load Balancing) that SONiC's config_db does not express: the simulator runs
    them, the renderers emit nothing for them."""

    mode: Literal["ecmp", "flowlet", "spray", "adaptive"] = Field(
        default="ecmp",
        description="ecmp: a 5-tuple hash (a flow keeps its path); flowlet: a random next hop per "
                    "flowlet (LetFlow, NSDI 2017); spray: a random next hop per packet; adaptive: "
                    "the next hop whose egress queue holds the fewest bytes, per packet or, with "
                    "flowlet_gap, per flowlet.")
    flowlet_gap: TimeS | None = Field(
        default=None,
        description="Inactivity gap that starts a new flowlet, e.g. 50us (flowlet: required; "
                    "adaptive: optional, per packet without it).")

    @model_validator(mode="after")
    def _gap_fits_mode(self) -> Self:
        # A gap that parses to zero seconds (0us, or one below a float's range) means no
        # flowlets at all, whatever it was written as.
        if self.mode == "flowlet" and not self.flowlet_gap:
            raise ValueError("mode flowlet needs flowlet_gap above zero, e.g. 50us (longer than the "
                             "paths' delay difference, LetFlow NSDI 2017 §3)")
        if self.mode in ("ecmp", "spray") and self.flowlet_gap is not None:
            raise ValueError(f"mode {self.mode} has no flowlets; drop flowlet_gap, or use mode "
                             "flowlet or adaptive")
        return self


RtoMinS = Annotated[
    float,
    unit_parser(parse_rto_min_s, "4ms"),
    Field(json_schema_extra={"type": "string", "examples": ["4ms", "200ms"]}),
]


#: The largest initial window an intent states. ip route's initcwnd takes any 32-bit count and
#: Linux clamps it only to snd_cwnd_clamp (net/ipv4/tcp_input.c tcp_init_cwnd), but a sender
#: never has more in flight than its peer's receive window (RFC 9293 §3.8.6): the simulated
#: hosts' is SIMULATED_RECEIVE_WINDOW_PACKETS, so a larger initial window would not run as stated.
MAX_INITIAL_WINDOW_SEGMENTS = SIMULATED_RECEIVE_WINDOW_PACKETS - 1


def _initial_window(value: int) -> int:
    if value > MAX_INITIAL_WINDOW_SEGMENTS:
        raise ValueError(
            f"{value:,} segments is above {MAX_INITIAL_WINDOW_SEGMENTS:,}: a sender never has more "
            "in flight than its peer's receive window (RFC 9293 §3.8.6), and the simulated hosts' "
            f"is {SIMULATED_RECEIVE_WINDOW_PACKETS:,} packets, so a larger initial window would "
            f"not run as stated; write at most {MAX_INITIAL_WINDOW_SEGMENTS:,} (Linux's default: "
            f"{LINUX_INITIAL_WINDOW_SEGMENTS}, RFC 6928)")
    return value


class HostTcpSpec(_Strict):
    """What a class's Linux TCP hosts run per connection: the minimum retransmission timeout and
    the initial congestion window (ip-route(8) ``rto_min`` and ``initcwnd``). Unset: Linux's
    defaults, TCP_RTO_MIN = 200 ms and TCP_INIT_CWND = 10 (include/net/tcp.h; RFC 6928)."""

    rto_min: RtoMinS | None = Field(
        default=None,
        description="Minimum RTO of the class's connections, whole milliseconds, e.g. 5ms "
                    "(Linux: 200ms; datacenters lower it to a few ms, TLT §2.2; the compiled "
                    "hosts set it per route, ip route rto_min, or net.ipv4.tcp_rto_min_us).")
    # The bounds sit on the int inside the Optional, so the JSON Schema gets minimum/maximum (a
    # ge= on the outer Field lands as a non-JSON-Schema "ge" key in the anyOf). The maximum is
    # schema-only: _initial_window refuses above it with the reason.
    initial_window_segments: Annotated[
        int, Field(ge=1, json_schema_extra={"maximum": MAX_INITIAL_WINDOW_SEGMENTS}),
        AfterValidator(_initial_window),
    ] | None = Field(
        default=None,
        description="Initial congestion window in segments (ip route initcwnd; Linux: 10, "
                    f"RFC 6928), at most {MAX_INITIAL_WINDOW_SEGMENTS} (a larger one exceeds the "
                    "simulated hosts' receive window).")


class _ClassSpecBase(_Strict):
    """A traffic class. Each transport's parameter block (``tbtcp:``, ``dcqcn:``, ...) is a field
    of :data:`ClassSpec`, which adds them from the transport registry (transports/)."""

    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,23}$")
    transport: TransportName
    dscp: list[Dscp] = Field(min_length=1)
    lossless: bool = False
    weight: int = Field(default=1, ge=1, le=100, description="DWRR weight of the class's queue.")
    rtt: RttS | None = Field(default=None, description="Override the RTT derived from the topology (1 us to 10 ms).")
    tlt: TltSpec | None = None
    load_balancing: LoadBalancingSpec = Field(
        default_factory=LoadBalancingSpec,
        description="How switches spread the class over equal-cost next hops (simulator; "
                    "vendor configuration beyond ecmp, docs/load-balancing.md).")
    hosts: HostTcpSpec | None = Field(
        default=None,
        description="The class's Linux TCP hosts (rto_min, initial_window_segments), over the "
                    "intent's top-level hosts; not for a RoCE class (its NIC retransmits).")
    if TYPE_CHECKING:  # declared after the parameter blocks (ClassSpec below), in the intent's order
        fastlane: FastLaneSpec | None
        trim: TrimSpec | None
        ecn: list[EcnSpec] | None

    def parameters(self) -> BaseModel | None:
        """This class's transport parameter block, if the intent gives one (e.g. its ``dcqcn:``)."""
        block = transport(self.transport).block
        value: BaseModel | None = getattr(self, block, None) if block is not None else None
        return value

    @field_validator("dscp")
    @classmethod
    def _dscp_unique(cls, value: list[int]) -> list[int]:
        if len(set(value)) != len(value):
            raise ValueError("a DSCP is listed twice")
        return value

    @model_validator(mode="after")
    def _parameters_match_transport(self) -> Self:
        for block in parameter_blocks():
            # IRN runs DCQCN's congestion control (IRN §4), so it takes the same marking overrides.
            if getattr(self, block) is not None and self.transport not in transports_with_block(block):
                raise ValueError(f"'{block}' parameters given but transport is '{self.transport}'")
        if self.ecn is not None:
            speeds = [entry.speed for entry in self.ecn]
            if len(set(speeds)) != len(speeds):
                raise ValueError("'ecn' lists a speed twice; give one marking per port speed")
            for block in blocks_setting_marking():
                if getattr(self, block) is not None:
                    raise ValueError(f"'ecn' and '{block}' both set the marking; state it once (ecn is per speed, {block} for every speed)")
        if self.trim is not None and self.lossless:
            raise ValueError("'trim' on a lossless class: PFC pauses the sender instead of dropping, so no packet fails admission "
                             "and none is trimmed; make the class lossy (lossy RoCE with trimming) or remove 'trim'")
        if self.trim is not None and self.fastlane is not None:
            raise ValueError("'trim' and 'fastlane' both ask for FastLane's loss notification; trimming is its deployable form, keep one")
        if self.hosts is not None and transport(self.transport).host.nic_dcqcn:
            raise ValueError(f"'hosts' on a {self.transport} class: its senders' congestion "
                             "control and retransmission run in the RoCE NIC, not in Linux TCP, "
                             "so no route rto_min or initcwnd applies; remove 'hosts' from this "
                             "class")
        if self.tlt is not None:
            for code in self.tlt.important_dscp:
                if code in self.dscp:
                    raise ValueError(f"important DSCP {code} is also in 'dscp'; TLT needs distinct code points")
        return self


def _class_spec() -> type[_ClassSpecBase]:
    """ClassSpec with one optional field per registered parameter block, then fastlane and ecn."""
    seal("qosforge.compiler.intent")
    fields: dict[str, Any] = {block: (model | None, None) for block, model in parameter_blocks().items()}
    fields["fastlane"] = (FastLaneSpec | None, None)
    fields["trim"] = (TrimSpec | None, None)
    fields["ecn"] = (list[EcnSpec] | None, Field(
        default=None, min_length=1, description="Explicit ECN marking per port speed (min, max, pmax), e.g. a vendor's recommended profile, "
                                                "used instead of the transport model's; the report shows both and warns where they differ by more than 2x."))
    model: type[_ClassSpecBase] = create_model("ClassSpec", __base__=_ClassSpecBase, __module__=__name__, **fields)
    return model


if TYPE_CHECKING:
    ClassSpec = _ClassSpecBase
else:
    ClassSpec = _class_spec()


class Design(_Strict):
    congested_ports: int = Field(default=DEFAULT_CONGESTED_PORTS, ge=1, description="Design point M: ports congested at once (TLT §4.2).")
    alpha: float = Field(default=DEFAULT_ALPHA, gt=0, description="Dynamic-threshold alpha (a power of two, 2^dynamic_th).")
    concurrent_flows: int | None = Field(default=None, ge=1, description="Flows that must survive without important loss (TLT).")
    mtu: SizeBytes = Field(default=DEFAULT_MTU, validate_default=True, description="Packet size used for packet-based thresholds.")
    lso_burst: SizeBytes = Field(default=DEFAULT_LSO_BURST, validate_default=True, description="Host NIC LSO/TSO burst (DCTCP K floor, TBTCP l).")
    pfc_watchdog: bool = True
    pfc_watchdog_detection: TimeS = Field(default="200ms", validate_default=True, description="PFC watchdog detection time (SONiC default 200 ms).")
    pfc_watchdog_restoration: TimeS = Field(default="200ms", validate_default=True)
    headroom_model: Literal["physical", "sonic"] = Field(default="physical", description="PFC headroom model: physical (cable, frames in flight, IEEE 802.3 pause quanta) or sonic (SONiC buffer_pg plugins, bit for bit).")
    small_packet_percent: float = Field(default=DEFAULT_SMALL_PACKET_PERCENT, ge=0, le=100)
    port_mtu: SizeBytes = Field(default=DEFAULT_PORT_MTU, validate_default=True)
    lossless_mtu: SizeBytes = Field(default=DEFAULT_LOSSLESS_MTU, validate_default=True, description="Largest lossless frame (SONiC LOSSLESS_TRAFFIC_PATTERN mtu), at most port_mtu.")
    cnp_dscp: Dscp = Field(default=48, description="DSCP of RoCE congestion notification packets, planned on their own strict-priority queue whenever a dcqcn or irn class exists (SONiC, NVIDIA and Dell RoCE defaults: 48).")

    @field_validator("mtu", "port_mtu", "lossless_mtu")
    @classmethod
    def _a_frame(cls, value: float, info: ValidationInfo) -> float:
        # A lossless MTU of 10 B would count every small packet as 10 B and triple xoff.
        if value < MIN_FRAME_BYTES:
            raise ValueError(f"{value:g} B is below {MIN_FRAME_BYTES:g} B, the smallest Ethernet frame (IEEE 802.3 clause 4.4.2 "
                             "minFrameSize); write the frame size in bytes, e.g. 1024B or 9100B")
        port_mtu = info.data.get("port_mtu")  # validated before lossless_mtu (field order)
        if info.field_name == "lossless_mtu" and port_mtu is not None and value > port_mtu:
            raise ValueError(f"{value:g} B is above port_mtu {port_mtu:g} B: no frame on the port is larger than the port MTU; "
                             "lower lossless_mtu (SONiC's default 1024B) or raise port_mtu")
        return value


class Metadata(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    description: str | None = None


class Intent(_Strict):
    api_version: Literal["qosforge/v1"] = Field(alias="apiVersion")
    kind: Literal["Fabric"]
    metadata: Metadata
    topology: Topology
    classes: list[ClassSpec] = Field(min_length=1)
    design: Design = Field(default_factory=Design)
    targets: list[TargetName] = Field(default_factory=lambda: ["sonic"], min_length=1)
    approximations: list[ApproximationName] = Field(
        default_factory=list,
        description="Named approximations the operator accepts where a target cannot express the intent.",
    )
    objectives: Objectives | None = Field(
        default=None,
        description="What qosforge tune holds a configuration to (docs/tune.md); the compiler ignores them.",
    )
    hosts: HostTcpSpec | None = Field(
        default=None,
        description="Every TCP class's Linux hosts (rto_min, initial_window_segments) unless the "
                    "class states its own; unset: Linux's 200ms and 10 (docs/hosts.md).",
    )

    @field_validator("hosts")
    @classmethod
    def _hosts_need_a_tcp_class(
        cls, value: HostTcpSpec | None, info: ValidationInfo
    ) -> HostTcpSpec | None:
        # ``classes`` is validated before ``hosts`` (field order); absent when it was refused.
        classes: list[ClassSpec] | None = info.data.get("classes")
        if value is None or not classes:
            return value
        if all(transport(spec.transport).host.nic_dcqcn for spec in classes):
            names = ", ".join(f"{spec.name} ({spec.transport})" for spec in classes)
            tcp = ", ".join(name for name in accepted_transports()
                            if not transport(name).host.nic_dcqcn)
            raise ValueError(f"no class runs Linux TCP hosts ({names}): a RoCE class's congestion "
                             "control and retransmission run in its NIC, so no route rto_min or "
                             "initcwnd applies; remove 'hosts', or add a class of transport "
                             f"{tcp} for it to apply to")
        return value

    @model_validator(mode="after")
    def _objective_classes(self) -> Self:
        if self.objectives is None:
            return self
        names = [spec.name for spec in self.classes]
        wanted = [objective.class_name for objective in self.objectives.classes]
        if self.objectives.minimize is not None:
            wanted.append(self.objectives.minimize.split(".", 1)[0])
        for name in wanted:
            if name not in names:
                raise ValueError(f"objectives: no class {name!r} in the intent; "
                                 f"classes: {', '.join(names)}")
        return self



#: pydantic emits JSON Schema draft 2020-12; editors pick the dialect from ``$schema``.
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


__all__ = [
    "AsnPlan",
    "ClassSpec",
    "D2tcpSpec",
    "DcqcnSpec",
    "Design",
    "EarSpec",
    "EcnSpec",
    "FastLaneSpec",
    "HostTcpSpec",
    "Intent",
    "LinkSpec",
    "RoutingSpec",
    "TbtcpSpec",
    "TltSpec",
    "TransportName",
    "TrimSpec",
    "accepted_transports",
    "expand_port_names",
    "intent_json_schema",
    "transport_hint",
]


def intent_json_schema() -> dict[str, Any]:
    return {"$schema": JSON_SCHEMA_DIALECT, **Intent.model_json_schema(by_alias=True)}
