"""The user's traffic file on a compiled fabric (one switch or many): hosts, classes, flows.

Turns each entry of a traffic file (softswitch/traffic/traffic_file.py) into transport flows
between the hosts' edge ports of a :class:`Fabric`, built exactly as the fabric scenarios build
theirs (softswitch/helper/fabric_scenarios.py ``class_flow_spec``: the class's DSCP, transport,
packet size and ACK path), and lists the switch egress queues those flows can cross (every
member of every ECMP group on the way), which the run samples. A host, switch, port or class
the intent lacks is refused at the entry's ``FILE:LINE`` with the names that exist.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from qosforge.compiler.plan import DEFAULT_CLASS_NAME
from qosforge.compiler.port_names import expand_port_names
from qosforge.errors import QosforgeError
from qosforge.ir import ClassIR, SwitchIR
from qosforge.softswitch.fabric_metrics import PortRef
from qosforge.softswitch.helper.fabric import Fabric
from qosforge.softswitch.helper.fabric_scenarios import (
    AckPathDelays,
    FabricTraffic,
    class_flow_spec,
    fabric_traffic,
)
from qosforge.softswitch.traffic.collectives import (
    collective_dependencies,
    collective_steps,
    step_dependencies,
)
from qosforge.softswitch.traffic.spec import FLOW_KIND_NAMES, MAX_FLOWS, FlowKind, FlowSpec
from qosforge.softswitch.traffic.traffic_file import (
    PlacedCollective,
    PlacedEntry,
    TrafficFile,
    stagger_offsets_s,
)

#: ``transport:`` names as ``--transport`` takes them -> the engine's flow kinds.
_TRANSPORTS: dict[str, FlowKind] = FLOW_KIND_NAMES
#: Names listed in an error before "... (N in all)".
_LISTED = 12


@dataclass(frozen=True)
class UserFlow:
    """One flow of the file: the engine's spec and what the report says about it."""

    spec: FlowSpec
    group: str
    src: PortRef
    dst: PortRef
    class_name: str
    dscp: int
    size_bytes: int | None
    collective: str | None = None
    """The collective (its group) this flow is a step of; None for other flows."""


@dataclass(frozen=True)
class UserTraffic:
    flows: tuple[UserFlow, ...]
    monitors: tuple[tuple[int, int], ...]
    """(engine port, queue) of every switch egress queue a flow can cross, in port order."""
    monitor_classes: tuple[str, ...]
    """The class whose queue each monitor is (the first flow's class that uses it)."""


def _listing(names: Iterable[str]) -> str:
    items = list(names)
    shown = ", ".join(items[:_LISTED])
    return shown + (f", ... ({len(items)} in all)" if len(items) > _LISTED else "")


def _hosts_of(fabric: Fabric, token: str | int, place: str) -> list[int]:
    """The host numbers a host-set token names (see the module doc of traffic_file)."""
    hosts = fabric.hosts
    if isinstance(token, int):
        if not 0 <= token < len(hosts):
            raise QosforgeError(f"no host {token}: the intent's hosts are 0..{len(hosts) - 1}", place=place,
                                hint=f"host 0 is {hosts[0].switch}:{hosts[0].port}, host {len(hosts) - 1} is {hosts[-1].switch}:{hosts[-1].port}")
        return [token]
    switches = [s.ir.name for s in fabric.switches]
    switch, colon, pattern = token.partition(":")
    if switch not in switches:
        raise QosforgeError(f"no switch {switch!r} in the intent", place=place, hint=f"switches: {_listing(switches)}")
    on_switch = {site.port: site.host for site in hosts if site.switch == switch}
    if not colon:
        if not on_switch:
            raise QosforgeError(f"switch {switch} has no host ports", place=place,
                                hint=f"switches with hosts: {_listing(dict.fromkeys(site.switch for site in hosts))}")
        return list(on_switch.values())
    try:
        ports = expand_port_names(pattern)
    except ValueError as error:
        raise QosforgeError(str(error), place=place, hint="a port range is written as in the intent, e.g. Ethernet[0-36/4]") from None
    found = []
    config = fabric.switches[switches.index(switch)].config
    for port in ports:
        if port in on_switch:
            found.append(on_switch[port])
            continue
        existing = next((p for p in config.ports if p.name == port), None)
        what = f"{switch}:{port} is not a host port (its peer is {existing.peer})" if existing is not None else f"no port {port!r} on switch {switch}"
        raise QosforgeError(what, place=place, hint=f"host ports of {switch}: {_listing(on_switch) or 'none'}")
    return found


def _host_set(fabric: Fabric, tokens: tuple[str | int, ...], place: str) -> list[int]:
    return [host for token in tokens for host in _hosts_of(fabric, token, place)]


def _pairs(placed: PlacedEntry, src: list[int], dst: list[int]) -> list[tuple[int, int]]:
    entry = placed.entry
    if entry.pairing == "all":
        pairs = [(s, d) for s in src for d in dst if s != d]
    elif len(src) == 1 or len(dst) == 1 or len(src) == len(dst):
        count = max(len(src), len(dst))
        pairs = [(src[i if len(src) > 1 else 0], dst[i if len(dst) > 1 else 0]) for i in range(count)]
    else:
        raise QosforgeError(f"{len(src)} senders and {len(dst)} receivers cannot be paired one to one", place=placed.place_of("dst"),
                            hint="give one sender or one receiver (N to 1, 1 to N), equal numbers (i-th to i-th), or pairing: all")
    for s, d in pairs:
        if s == d:
            raise QosforgeError(f"host {s} would send to itself", place=placed.place_of("dst"), hint="a flow crosses the switch: pick another receiver, or pairing: all")
    if not pairs:
        raise QosforgeError("the entry makes no flow (every pair is a host with itself)", place=placed.place_of("dst"), hint="name receivers other than the senders")
    return pairs


def _class_of(fabric: Fabric, placed: PlacedEntry | PlacedCollective) -> ClassIR:
    entry, switch = placed.entry, fabric.switches[0]
    if entry.class_name is not None:
        for candidate in switch.ir.classes:
            if candidate.name == entry.class_name:
                return candidate
        raise QosforgeError(f"no class {entry.class_name!r} in the intent", place=f"{placed.place_of('class')}: class",
                            hint=f"classes: {', '.join(switch.class_names)}")
    for candidate in switch.ir.classes:
        if entry.dscp in candidate.dscp or entry.dscp in candidate.important_dscp:
            return candidate
    assert entry.dscp is not None
    return _implicit_class(switch.ir, entry.dscp)


def _implicit_class(switch: SwitchIR, dscp: int) -> ClassIR:
    """The class compile puts a DSCP no intent class lists in: the one on the TC the switch's
    DSCP_TO_TC map gives it (unlisted DSCPs: TC 0, compiler/plan.py's implicit ``default`` class;
    ``design.cnp_dscp``: the ``cnp`` control class). Its hosts run plain TCP, as the plan's
    implicit classes do (PlannedClass.transport), unless the entry gives ``transport:`` or
    ``rate:``; lossy, so 1500 B frames. The fabric-wide figures (RTT, BDP) are the first class's:
    a flow uses none of the class's marking parameters, which the switch's queue holds."""
    from dataclasses import replace

    tc = dict(switch.maps.dscp_to_tc).get(dscp, 0)
    for candidate in switch.classes:
        if candidate.traffic_class == tc:
            return candidate
    control = next((c for c in switch.control_classes if c.traffic_class == tc), None)
    queue = control.queue if control is not None else dict(switch.maps.tc_to_queue).get(tc, tc)
    carrier = next((c for c in switch.classes if not c.lossless), switch.classes[0])
    return replace(
        carrier,
        name=control.name if control is not None else DEFAULT_CLASS_NAME,
        transport="tcp",
        traffic_class=tc,
        queue=queue,
        priority_group=0,
        lossless=False,
        dscp=(dscp,),
        important_dscp=(),
        marking=(),
        tlt_threshold_bytes=None,
        tlt_flows_without_important_loss=None,
        host_settings=(),
        model_marking=(),
        warnings=(),
    )


def _implicit_traffic(fabric: Fabric, entry: ClassIR, transport: FlowKind | None) -> FabricTraffic:
    from qosforge.softswitch.helper.compiled import host_transport
    from qosforge.softswitch.helper.fabric_scenarios import DEFAULT_PACKET_BYTES

    kind = transport or host_transport(entry)
    cnp_dscp = fabric.switches[0].cnp_dscp
    return FabricTraffic(entry, kind, DEFAULT_PACKET_BYTES, cnp_dscp, None, "dscp")


def _ecmp_stages(fabric: Fabric, src_port: int, dst_port: int) -> list[list[int]]:
    """Every switch egress port a packet from ``src_port``'s host to ``dst_port``'s may leave
    by, one list per stage of the path (the first switch's ports, the next switches', ...): each
    member of each ECMP group on each shortest path (the engine hashes a flow onto one)."""
    topology = fabric.topology
    owner = topology.switch_of()
    stages: list[list[int]] = []
    visited: set[int] = set()
    level = [owner[src_port]]
    while level:
        visited.update(level)
        stage: list[int] = []
        following: list[int] = []
        for switch in level:
            for port in topology.routes[switch][dst_port]:
                if port not in stage:
                    stage.append(port)
                peer = owner[topology.peers[port]] if port != dst_port else None
                if peer is not None and peer not in visited and peer not in following:
                    following.append(peer)
        stages.append(stage)
        level = following
    return stages


def user_traffic(fabric: Fabric, traffic: TrafficFile, *, seed: int) -> UserTraffic:
    """The file's flows on ``fabric``; ``seed`` (the file's ``seed`` when it gives one) draws
    ``stagger: random`` starts."""
    flows: list[UserFlow] = []
    delays = AckPathDelays(fabric)
    monitors: dict[tuple[int, int], str] = {}
    ports = fabric.ports
    draw_seed = traffic.seed if traffic.seed is not None else seed
    flow_entry: list[int] = []  # the entry each flow comes from
    for index, placed in enumerate(traffic.entries):
        entry = placed.entry
        built = _built(fabric, placed)
        src = _host_set(fabric, entry.src, f"{placed.place_of('src')}: src")
        dst = _host_set(fabric, entry.dst, f"{placed.place_of('dst')}: dst")
        pairs = _pairs(placed, src, dst)
        total = len(pairs) * entry.count
        if len(flows) + total > MAX_FLOWS:
            raise QosforgeError(f"the file makes more than {MAX_FLOWS:,} flows (this entry adds {total:,})", place=placed.place,
                                hint="the engine keeps ~3 kB per flow: fewer pairs or a smaller count")
        offsets = stagger_offsets_s(entry, total, draw_seed, index)
        rate, pattern = entry.rate_bps, entry.pattern or "cbr"
        size = entry.size_bytes
        dscp = entry.dscp if entry.dscp is not None else built.entry.dscp[0]
        n = 0
        for s, d in pairs:
            src_port, dst_port = fabric.host_ports[s], fabric.host_ports[d]
            if rate is not None and rate > ports[src_port].speed_bps:
                # Above the sender's own link the NIC drops the excess before any switch sees it:
                # the result would measure the NIC, not the configuration.
                raise QosforgeError(f"rate {rate / 1e9:g} Gb/s is above the sender {fabric.port_ref(src_port)}'s link "
                                    f"({ports[src_port].speed_bps / 1e9:g} Gb/s)", place=placed.place_of("rate"),
                                    hint=f"an open-loop rate of at most {ports[src_port].speed_bps / 1e9:g}G")
            for _ in range(entry.count):
                spec = class_flow_spec(fabric, built, src_port, dst_port, size, entry.start_s + offsets[n], delays, rate_bps=rate, pattern=pattern)
                if entry.dscp is not None:
                    spec = _with_dscp(spec, entry.dscp)
                flows.append(UserFlow(spec, entry.group, fabric.port_ref(src_port), fabric.port_ref(dst_port), built.entry.name, dscp, size))
                flow_entry.append(index)
                n += 1
            _monitor(fabric, monitors, src_port, dst_port, dscp, built.entry.name)
    if any(placed.entry.step is not None for placed in traffic.entries):
        flows = _chain_steps(flows, flow_entry, traffic)
    for placed_collective in traffic.collectives:
        flows += _collective_flows(fabric, placed_collective, delays, monitors, base=len(flows))
    ordered = sorted(monitors)
    return UserTraffic(tuple(flows), tuple(ordered), tuple(monitors[m] for m in ordered))


def _chain_steps(flows: list[UserFlow], flow_entry: list[int], traffic: TrafficFile) -> list[UserFlow]:
    """Flows of per-step entries (a collective's trace): within a group, a host's flows of a step
    wait for the flows of the group's previous step the host sent or received (collectives.py)."""
    from dataclasses import replace

    by_group: dict[str, list[int]] = {}
    for index, flow in enumerate(flows):
        step = traffic.entries[flow_entry[index]].entry.step
        if step is not None:
            by_group.setdefault(flow.group, []).append(index)
    chained = list(flows)
    for members in by_group.values():
        keyed = [(int(traffic.entries[flow_entry[i]].entry.step or 0), str(flows[i].src), str(flows[i].dst)) for i in members]
        for index, after in zip(members, step_dependencies(keyed), strict=True):
            if after:
                spec = replace(chained[index].spec, after=tuple(members[a] for a in after))
                chained[index] = replace(chained[index], spec=spec)
    return chained


def _collective_flows(fabric: Fabric, placed: PlacedCollective, delays: AckPathDelays, monitors: dict[tuple[int, int], str], *,
                      base: int) -> list[UserFlow]:
    """A collective's steps as flows (softswitch/traffic/collectives.py), each waiting for the
    previous step of its rank; ``base`` is the index of its first flow in the run."""
    from dataclasses import replace

    entry = placed.entry
    ranks = _host_set(fabric, entry.hosts, f"{placed.place_of('hosts')}: hosts")
    if len(ranks) < 2 or len(set(ranks)) != len(ranks):
        raise QosforgeError(f"a collective needs at least 2 distinct hosts, not {len(ranks)} ({len(set(ranks))} distinct)",
                            place=f"{placed.place_of('hosts')}: hosts", hint="list each rank's host once, in ring order")
    if entry.size_bytes < len(ranks):
        raise QosforgeError(f"{entry.size_bytes} B cannot be cut into {len(ranks)} chunks", place=f"{placed.place_of('size')}: size",
                            hint="a message of at least one byte per rank")
    steps = collective_steps(entry.collective, len(ranks), entry.size_bytes, entry.iterations)
    if base + len(steps) > MAX_FLOWS:
        raise QosforgeError(f"the collective makes {len(steps):,} flows, more than the {MAX_FLOWS:,} a run carries", place=placed.place,
                            hint="fewer iterations or ranks")
    built = _built(fabric, placed)
    dscp = entry.dscp if entry.dscp is not None else built.entry.dscp[0]
    out: list[UserFlow] = []
    for step, after in zip(steps, collective_dependencies(steps), strict=True):
        src_port, dst_port = fabric.host_ports[ranks[step.src]], fabric.host_ports[ranks[step.dst]]
        spec = class_flow_spec(fabric, built, src_port, dst_port, step.size_bytes, entry.start_s, delays)
        spec = replace(spec, after=tuple(base + a for a in after), dscp=dscp)
        out.append(UserFlow(spec, entry.group, fabric.port_ref(src_port), fabric.port_ref(dst_port), built.entry.name, dscp, step.size_bytes,
                            collective=entry.group))
        _monitor(fabric, monitors, src_port, dst_port, dscp, built.entry.name)
    return out



def _built(fabric: Fabric, placed: PlacedEntry | PlacedCollective) -> FabricTraffic:
    """The entry's class on the fabric, as the fabric scenarios build it, with its transport."""
    entry_class = _class_of(fabric, placed)
    transport = _TRANSPORTS[placed.entry.transport] if placed.entry.transport else None
    try:
        # A DSCP no class lists runs in the class compile maps it to (its TC's class, the
        # implicit default class or the CNP class), which the fabric's class plan may not hold.
        if entry_class in fabric.switches[0].ir.classes:
            return fabric_traffic(fabric, entry_class.name, transport, None)
        return _implicit_traffic(fabric, entry_class, transport)
    except QosforgeError as error:
        raise error.with_place(placed.place) from None


def flow_hops(fabric: Fabric, src_port: int, dst_port: int, dscp: int) -> list[list[tuple[int, int]]]:
    """The (engine port, queue) pairs a flow's DSCP may leave each stage of its path by, in path
    order: one pair where the path is single, each ECMP member's where it forks."""
    ports = fabric.ports
    return [[(port, ports[port].tc_to_queue[ports[port].dscp_to_tc[dscp]]) for port in stage]
            for stage in _ecmp_stages(fabric, src_port, dst_port)]


def _monitor(fabric: Fabric, monitors: dict[tuple[int, int], str], src_port: int, dst_port: int, dscp: int, class_name: str) -> None:
    """Sample every egress queue the flow's DSCP can take on its way (each ECMP member)."""
    for hop in flow_hops(fabric, src_port, dst_port, dscp):
        for queue in hop:
            monitors.setdefault(queue, class_name)


def _with_dscp(spec: FlowSpec, dscp: int) -> FlowSpec:
    """A flow asked for by DSCP keeps that DSCP on the wire (its class was found by it)."""
    from dataclasses import replace

    return replace(spec, dscp=dscp)


__all__ = ["UserFlow", "UserTraffic", "flow_hops", "user_traffic"]
