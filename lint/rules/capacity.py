"""Capacity rules (need ``--profile``, or an intent that names the switch's profile): the config
against the ASIC's buffer, and PFC headroom against what the port's speed and cable need.

SONiC checks none of this in the traditional buffer model (sonic-utilities config/main.py and the SONiC YANG models
12). Every required value comes from the models (:mod:`qosforge.models`), never a formula here:

* headroom: :func:`~qosforge.models.sonic_headroom.sonic_headroom` (SONiC's own Lua, bit-exact)
  where the vendor profile has a SONiC ASIC_TABLE entry, else the physical model
  :func:`~qosforge.models.pfc_headroom.pfc_headroom`; an intent's ``design.headroom_model``
  overrides the choice. Traffic inputs come from the intent's design, else the file's
  LOSSLESS_TRAFFIC_PATTERN, else the intent schema's defaults (SONiC's template values: lossless
  MTU 1024, 50 % small packets, port MTU 9100; compiler/intent.py ``Design``); the port MTU from
  PORT.mtu first, as that is a fact of the switch.
* queue limits: :func:`~qosforge.models.dynamic_threshold.dynamic_threshold_share`
  (alpha·B/(1+M·alpha), B the pool per MMU, M = 1 or the intent's design M).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qosforge.backends.sonic.checks.buffers import ingress_pool_bytes
from qosforge.errors import QosforgeError
from qosforge.lint.context import LintContext
from qosforge.lint.findings import Finding, Severity
from qosforge.lint.rules.base import declare, rule
from qosforge.lint.rules.helpers import ports_text, rate_text, raw_entries, size_text

if TYPE_CHECKING:  # the models and the intent schema load when a --profile rule first runs
    from qosforge.backends.sonic.parse import ParsedConfigDb, PortConfig
    from qosforge.compiler.intent import Design
    from qosforge.ir import BufferProfileIR

E = Severity.ERROR


def default_design() -> Design:
    """The intent schema's design defaults, which are SONiC's template values (sonic-yang-models sonic-lossless-traffic-pattern.yang, sonic-swss cfgmgr/buffermgrdyn.cpp)."""
    from qosforge.compiler.intent import Design

    return Design()


def skipped(ctx: LintContext, what: str, reason: str, table: str = "", key: str = "") -> Finding:
    """An info finding: a model check could not run for this part of the file (located at
    ``table|key`` when given)."""
    return MODEL_INPUT_MISSING.report(ctx, table, key, None, f"cannot check {what}: {reason}")


# ---------------------------------------------------------------------------------------------
# Buffer capacity


def _pg_reservations(parsed: ParsedConfigDb) -> float:
    """Σ over PGs of the profile's reserved size: the private part of every PG (sonic-swss cfgmgr/buffer_pool_mellanox.lua)."""
    total = 0.0
    for port in parsed.ports:
        for group in port.priority_groups:
            profile = parsed.profile(group.buffer_profile)
            if profile is not None:
                total += profile.reserved_bytes.value
    return total


@rule(
    "buffer-capacity", E, "capacity", "pools plus PG headroom fit the ASIC buffer",
    rationale="Shared pools and the headroom every lossless PG reserves are carved from one buffer: Σ ingress "
         "pool (size + xoff) + Σ PG profile size must fit the ASIC's buffer (the SONiC sources (sonic-buildimage, sonic-swss) item "
         "12; SONiC's Mellanox pool plugin computes pool = mmu - reservations - SHP, sonic-swss cfgmgr/buffermgrdyn.cpp with sonic-buildimage platform/mellanox/asic_table.j2). SONiC does not "
         "check it in the traditional model; overcommitted SKUs failed on warm reboot (sonic-buildimage "
         "#28657, SONiC GitHub issues on buffers, WRED and PFC). Pools alone are the pool-overcommit rule.",
    fix="shrink the shared pool by the reserved headroom (qosforge compile sizes pool = buffer - Σ headroom)",
    needs="profile",
)
def _buffer_capacity(ctx: LintContext) -> Iterator[Finding]:
    buffer_bytes = ctx.asic_buffer_bytes
    if buffer_bytes is None:
        assert ctx.profile is not None
        yield skipped(ctx, "buffer capacity", f"buffer_bytes is unknown in vendor profile {ctx.profile.name}",
                      "BUFFER_POOL")
        return
    parsed = ctx.parsed
    pools = float(ingress_pool_bytes(raw_entries(ctx.checked_tables, "BUFFER_POOL")))
    if pools > buffer_bytes:
        return  # pool-overcommit already says so
    reserved = _pg_reservations(parsed)
    if pools + reserved > buffer_bytes:
        yield _buffer_capacity.report(ctx, "BUFFER_POOL", "", None,
            f"ingress pools (size + xoff) {size_text(pools)} + PG reservations (profile size x PGs) "
            f"{size_text(reserved)} = {size_text(pools + reserved)} > the ASIC's {size_text(buffer_bytes)}: "
            "the buffer is overcommitted once lossless PGs fill their headroom",
            values={"pools_bytes": pools, "reserved_bytes": reserved, "buffer_bytes": buffer_bytes})


# ---------------------------------------------------------------------------------------------
# PFC headroom


@dataclass(frozen=True)
class HeadroomInputs:
    model: str
    rate_bps: float
    cable_m: float
    port_mtu_bytes: float
    lossless_mtu_bytes: float
    small_packet_percent: float
    lanes: int
    shared_headroom_pool: bool
    phy_delay_s: float = 0.0
    """The intent's PHY delay for the port (gearbox, retimer, FEC); config_db carries none."""


def headroom_inputs(ctx: LintContext, port: PortConfig) -> HeadroomInputs | str:
    """The model inputs for ``port``, or why they are missing."""
    assert ctx.profile is not None
    if port.speed_bps is None:
        return "port speed unknown (no PORT.speed, and the lossless profile name carries none)"
    if port.cable_m is None:
        return "cable length unknown (no CABLE_LENGTH entry)"
    if port.cable_m == 0:
        return "cable length 0m (buffermgrd leaves such PGs to the operator, sonic-swss cfgmgr/buffermgr.cpp)"
    parsed = ctx.parsed
    design = ctx.intent.design if ctx.intent is not None else None
    pattern = parsed.traffic_pattern
    if design is not None:
        model = design.headroom_model
        lossless_mtu_bytes, spp = design.lossless_mtu, design.small_packet_percent
    else:
        model = "sonic" if ctx.profile.pfc_headroom.sonic is not None else "physical"
        lossless_mtu_bytes = pattern.lossless_mtu_bytes or default_design().lossless_mtu
        spp = pattern.small_packet_percent if pattern.small_packet_percent is not None else \
            default_design().small_packet_percent
    port_mtu = port.mtu_bytes or (design.port_mtu if design is not None else default_design().port_mtu)
    phy_delay = ctx.intent.port_phy_delays_s.get(port.name, 0.0) if ctx.intent is not None else 0.0
    return HeadroomInputs(model, port.speed_bps, port.cable_m, port_mtu, lossless_mtu_bytes, spp,
                          port.lanes or 4, parsed.shared_headroom_pool, phy_delay)


def required_xoff(ctx: LintContext, inputs: HeadroomInputs) -> tuple[float, str]:
    """(required xoff in bytes, model description); raises QosforgeError for bad model inputs."""
    profile = ctx.profile
    assert profile is not None

    def compute() -> tuple[float, str]:
        from qosforge.models.pfc_headroom import pfc_headroom
        from qosforge.models.sonic_headroom import SonicAsicTable, sonic_headroom

        if inputs.model == "sonic":
            table = profile.pfc_headroom.sonic
            if table is None:
                raise QosforgeError(f"vendor profile {profile.name} has no SONiC ASIC_TABLE entry",
                                    hint="use headroom_model: physical in the intent")
            asic = SonicAsicTable(name=table.name, script=table.script, cell_size_bytes=float(table.cell_size_bytes),
                                  pipeline_latency_kb=table.pipeline_latency_kb,
                                  mac_phy_delay_kb=table.mac_phy_delay_kb,
                                  peer_response_time_kb=table.peer_response_time_kb)
            result = sonic_headroom(asic, inputs.rate_bps, inputs.cable_m, port_mtu_bytes=inputs.port_mtu_bytes,
                                    lossless_mtu_bytes=inputs.lossless_mtu_bytes,
                                    small_packet_percent=inputs.small_packet_percent, lanes=inputs.lanes,
                                    shared_headroom_pool=inputs.shared_headroom_pool, gearbox_delay_s=inputs.phy_delay_s)
            section = "sonic-swss cfgmgr/buffer_headroom_mellanox.lua" if table.script == "mellanox" else "sonic-swss cfgmgr/buffer_headroom_barefoot.lua"
            return float(result.xoff_bytes), f"SONiC {table.script} headroom plugin for {table.name} ({section})"
        physical = pfc_headroom(inputs.rate_bps, inputs.cable_m,
                                cell_bytes=profile.cell_bytes.known("cell_bytes"),
                                port_mtu_bytes=inputs.port_mtu_bytes,
                                lossless_mtu_bytes=inputs.lossless_mtu_bytes,
                                small_packet_fraction=inputs.small_packet_percent / 100.0,
                                phy_delay_s=inputs.phy_delay_s)
        return float(physical.xoff_bytes), "physical PFC headroom model (IEEE 802.3 Annex 31B, docs/architecture.md §3)"

    return ctx.cache.get(("xoff", profile.name, inputs), compute)


@rule(
    "pfc-headroom", E, "capacity", "xoff covers the port's speed and cable",
    rationale="After a PG crosses XOFF, the frames already on the cable and in the peer's pipeline keep arriving: "
         "xoff must hold them (qosforge's physical headroom model, docs/architecture.md §3; IEEE 802.3 Annex 31B). Too little headroom drops "
         "lossless traffic (sonic-net/SONiC #480, SONiC GitHub issues on buffers, WRED and PFC; slow peers, sonic-buildimage PR #11901, SONiC GitHub issues on buffers, WRED and PFC). "
         "Required xoff: SONiC's own plugin (sonic-swss cfgmgr/buffer_headroom_mellanox.lua) where the ASIC has one, else the physical model.",
    fix="raise xoff (and size) to the required value; each finding's hint gives the qosforge whatif "
         "pfc-headroom command (same model, --asic and inputs) that reproduces it",
    needs="profile",
)
def _pfc_headroom(ctx: LintContext) -> Iterator[Finding]:
    parsed = ctx.parsed
    short: dict[str, list[tuple[str, float, HeadroomInputs, str]]] = defaultdict(list)
    missing: dict[tuple[str, str], list[str]] = defaultdict(list)
    for port in parsed.ports:
        names = sorted({g.buffer_profile for g in port.priority_groups if g.lossless and g.buffer_profile != "NULL"})
        profiles = [p for n in names if (p := parsed.profile(n)) is not None and p.xoff_bytes is not None]
        if not profiles:
            continue
        inputs = headroom_inputs(ctx, port)
        if isinstance(inputs, str):
            missing[(inputs, profiles[0].name)].append(port.name)
            continue
        try:
            needed, model = required_xoff(ctx, inputs)
        except QosforgeError as error:
            missing[(error.message, profiles[0].name)].append(port.name)
            continue
        for profile in profiles:
            assert profile.xoff_bytes is not None
            if profile.xoff_bytes.value < needed:
                short[profile.name].append((port.name, needed, inputs, model))
    for (reason, profile_name), ports in sorted(missing.items()):
        yield skipped(ctx, f"PFC headroom of {ports_text(ports)}", reason, "BUFFER_PROFILE", profile_name)
    for name, cases in sorted(short.items()):
        short_profile = parsed.profile(name)
        assert short_profile is not None and short_profile.xoff_bytes is not None
        configured = short_profile.xoff_bytes.value
        # One finding per requirement: ports of one profile on different cables (40 m and 300 m)
        # need different headroom, so each group names only the ports its number is for.
        by_inputs: dict[HeadroomInputs, list[tuple[str, float, HeadroomInputs, str]]] = defaultdict(list)
        for case in cases:
            by_inputs[case[2]].append(case)
        for group in sorted(by_inputs.values(), key=lambda group: -group[0][1]):
            port_name, needed, inputs, model = group[0]
            yield _pfc_headroom.report(ctx, "BUFFER_PROFILE", name, "xoff",
                f"xoff {size_text(configured)} < {size_text(needed)} needed at "
                f"{rate_text(inputs.rate_bps)} over {inputs.cable_m:g} m ({model}; lossless MTU "
                f"{inputs.lossless_mtu_bytes:g} B, {inputs.small_packet_percent:g} % small packets, port MTU "
                f"{inputs.port_mtu_bytes:g} B) on {ports_text(c[0] for c in group)}: frames in flight after XOFF "
                "overflow the headroom and lossless traffic drops",
                hint=f"raise xoff (and size) to at least {needed:.0f} B; the number comes from "
                     f"{whatif_command(ctx, inputs)}",
                values={"configured_bytes": configured, "required_bytes": needed,
                        "rate_bps": inputs.rate_bps, "cable_m": inputs.cable_m, "port": port_name})


def whatif_command(ctx: LintContext, inputs: HeadroomInputs) -> str:
    """The ``qosforge whatif pfc-headroom`` command that reproduces the rule's number: the same
    model (SONiC's plugin or the physical one), ASIC and inputs."""
    assert ctx.profile is not None
    command = (f"qosforge whatif pfc-headroom --mode {inputs.model} --asic {ctx.profile.name} "
               f"--speed {rate_text(inputs.rate_bps)} --cable {inputs.cable_m:g}m "
               f"--port-mtu {inputs.port_mtu_bytes:g} --lossless-mtu {inputs.lossless_mtu_bytes:g} "
               f"--small-packet-percent {inputs.small_packet_percent:g}")
    if inputs.model == "sonic":
        command += f" --lanes {inputs.lanes}" + (" --shp" if inputs.shared_headroom_pool else "")
    if inputs.phy_delay_s:
        command += f" --phy-delay {inputs.phy_delay_s * 1e9:g}ns"
    return command


# ---------------------------------------------------------------------------------------------
# Queue limits vs WRED thresholds


def queue_limit(ctx: LintContext, profile: BufferProfileIR, congested_ports: int) -> tuple[float, str] | None:
    """The most a queue with egress ``profile`` can hold (bytes) and how, or None if unknown: the
    computation ``qosforge compile`` refuses thresholds with (compiler/queue_limits.py)."""
    from qosforge.compiler.dynamic_th import dynamic_th_range
    from qosforge.compiler.queue_limits import queue_limit as shared_queue_limit

    assert ctx.profile is not None
    pool = ctx.parsed.pool(profile.pool)
    pool_bytes = pool.size_bytes.value if pool is not None and pool.size_bytes is not None else None
    vendor = ctx.profile
    limit = ctx.cache.get(
        ("queue-limit", profile, pool_bytes, congested_ports),
        lambda: shared_queue_limit(profile, pool_bytes, mmu_count=int(vendor.mmu_count.value or 1),
                                   congested_ports=congested_ports, accepted=dynamic_th_range(vendor)))
    return None if limit is None else (limit.limit_bytes, limit.how(size_text))


@rule(
    "ecn-above-queue-limit", E, "capacity", "WRED thresholds below what the queue can hold",
    rationale="A queue in a dynamic-threshold pool holds at most alpha·B/(1+M·alpha) (Choudhury & Hahne; "
         "TLT §4.2), a static_th queue its static_th. WRED/ECN that starts above that never acts: the queue "
         "tail-drops first, and ECN transports see losses instead of marks (DCTCP §3.4, DCQCN). A max threshold "
         "above it (DCQCN's K_max) cuts the RED ramp short: marking never reaches P_max, the ramp DCQCN's rate "
         "control is tuned to (DCQCN §5), and the queue tail-drops at the limit. Both the min and the max "
         "threshold of every active color are checked, with compile's computation (compiler/queue_limits.py).",
    fix="lower the WRED thresholds (min and max) below the queue limit, or give the queue more buffer (dynamic_th)",
    needs="profile",
)
def _ecn_above_limit(ctx: LintContext) -> Iterator[Finding]:
    """Every active curve's min and max threshold against the queue limit (compiler/queue_limits.py
    unreachable_thresholds, the check compile refuses with); per WRED profile, the lowest threshold
    above the smallest limit of the queues that bind it."""
    from qosforge.compiler.queue_limits import UnreachableThreshold, unreachable_thresholds

    parsed = ctx.parsed
    congested = ctx.intent.design.congested_ports if ctx.intent is not None else 1
    worst: dict[str, tuple[float, str, UnreachableThreshold, list[str]]] = {}
    for port in parsed.ports:
        for queue in port.queues:
            wred = parsed.wred(queue.wred_profile)
            profile = parsed.profile(queue.buffer_profile)
            if wred is None or profile is None or not any(c.drop or c.mark for c in wred.curves):
                continue
            limit = queue_limit(ctx, profile, congested)
            if limit is None:
                continue
            unreachable = unreachable_thresholds(wred, limit[0])
            if not unreachable:
                continue
            previous = worst.get(wred.name)
            queues = [*(previous[3] if previous else []), f"{port.name}|{queue.index}"]
            if previous is None or limit[0] < previous[0]:
                worst[wred.name] = (limit[0], limit[1], unreachable[0], queues)
            else:
                worst[wred.name] = (*previous[:3], queues)
    for name, (most, how, first, queues) in sorted(worst.items()):
        bound = "starts" if first.bound == "min" else "reaches its full probability"
        yield _ecn_above_limit.report(ctx, "WRED_PROFILE", name, first.field_name,
            f"{first.curve.color} WRED {bound} at {size_text(first.threshold_bytes)} ({first.field_name}) but "
            f"queue(s) {ports_text(queues)} hold at most {size_text(most)} ({how}): {first.effect(most, size_text)}",
            values={"threshold_bytes": first.threshold_bytes, "queue_limit_bytes": most})


# ---------------------------------------------------------------------------------------------
# Limits from the vendor profile


@rule(
    "dynamic-th-range", E, "capacity", "dynamic_th within the ASIC's range",
    rationale="dynamic_th n means alpha = 2^n (SAI SHARED_DYNAMIC_TH, sonic-yang-models sonic-buffer-profile.yang); SONiC's YANG allows -8..7 but ASICs "
         "accept less (vendor profile dynamic_th_min/max, e.g. -7..3 on Broadcom per OCP SAI), and some "
         "read an end of the range as another alpha (dynamic_th_special: Mellanox -8 = alpha 0, no "
         "shared buffer). qosforge compile refuses the same alphas.",
    fix="use a dynamic_th inside the ASIC's range that it reads as alpha = 2^n",
    needs="profile",
)
def _dynamic_th_range(ctx: LintContext) -> Iterator[Finding]:
    from qosforge.compiler.dynamic_th import dynamic_th_range, range_is_known

    assert ctx.profile is not None
    if not range_is_known(ctx.profile):
        return
    accepted = dynamic_th_range(ctx.profile)
    low, high = accepted.low, accepted.high
    unlimited: list[BufferProfileIR] = []
    for profile in ctx.parsed.buffer_profiles:
        if profile.dynamic_th is None:
            continue
        exponent = profile.dynamic_th.value
        verdict = accepted.verdict(exponent)
        if verdict == "unlimited":
            unlimited.append(profile)
        elif verdict == "outside":
            yield _dynamic_th_range.report(ctx, "BUFFER_PROFILE", profile.name, "dynamic_th",
                f"dynamic_th {exponent:g} is outside {low}..{high}, the range "
                f"{ctx.profile.name} accepts ({accepted.source})",
                values={"configured": exponent, "min": low, "max": high})
        elif verdict != "ok":
            yield _dynamic_th_range.report(ctx, "BUFFER_PROFILE", profile.name, "dynamic_th",
                f"dynamic_th {exponent:g} on {ctx.profile.name} means {accepted.meaning(int(exponent))}, "
                f"not alpha = 2^{exponent:g} ({accepted.special_source})",
                values={"configured": exponent, "min": low, "max": high})
    if unlimited:
        # SONiC's own Mellanox templates give lossy profiles dynamic_th 7 on purpose: one note per
        # file that says what it means, not an error.
        exponent = int(unlimited[0].dynamic_th.value)  # type: ignore[union-attr]
        yield DYNAMIC_TH_UNLIMITED.report(ctx, "BUFFER_PROFILE", unlimited[0].name, "dynamic_th",
            f"dynamic_th {exponent} on {ctx.profile.name} means {accepted.meaning(exponent)}, not alpha = "
            f"2^{exponent} ({accepted.special_source}): {ports_text(p.name for p in unlimited)}",
            values={"configured": exponent, "profiles": len(unlimited)})


DYNAMIC_TH_UNLIMITED = declare(
    "dynamic-th-unlimited", Severity.INFO, "capacity", "dynamic_th that means no limit",
    rationale="Mellanox's SAI reads dynamic_th 7 as alpha = infinity, not 128 (mlnx_sai/src/mlnx_sai_buffer.c "
         "sai_buffer_alpha_bounds_t; vendor profile dynamic_th_special): the queue or PG has no dynamic "
         "limit and one port may fill the pool. SONiC's own Mellanox templates use it for lossless and "
         "egress profiles, where PFC or the pool bounds the queue, so it is a note, not an error "
         "(the -8 end, alpha 0, is dynamic-th-range's error). Checked with the dynamic-th-range rule.",
    fix="keep it where the queue is bounded otherwise (PFC); use 6 or less for a real alpha",
    needs="profile",
)


@rule(
    "lossless-priority-limit", E, "capacity", "no more lossless classes than the ASIC has",
    rationale="Each PFC priority needs its own lossless PG with headroom (sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-pg.yang, the SONiC sources); "
         "the vendor profile's max_lossless_classes bounds how many an ASIC supports.",
    fix="enable PFC on fewer priorities",
    needs="profile",
)
def _lossless_limit(ctx: LintContext) -> Iterator[Finding]:
    assert ctx.profile is not None
    limit = ctx.profile.max_lossless_classes.value
    if limit is None:
        return
    over = [p for p in ctx.parsed.ports if len(p.pfc_priorities) > limit]
    if over:
        yield _lossless_limit.report(ctx, "PORT_QOS_MAP", over[0].name, "pfc_enable",
            f"{len(over[0].pfc_priorities)} PFC priorities on {ports_text(p.name for p in over)}, but "
            f"{ctx.profile.name} supports {limit} lossless classes ({ctx.profile.max_lossless_classes.source})",
            values={"configured": len(over[0].pfc_priorities), "limit": limit})


@rule(
    "queue-index-limit", E, "capacity", "queue indices exist on the ASIC",
    rationale="A queue index >= the port's queue count fails in orchagent ('Invalid queue index specified', "
         "sonic-yang-models sonic-queue.yang); the vendor profile's queues_per_port gives the count.",
    fix="use queue indices below the ASIC's queues per port",
    needs="profile",
)
def _queue_limit(ctx: LintContext) -> Iterator[Finding]:
    assert ctx.profile is not None
    limit = ctx.profile.queues_per_port.value
    if limit is None:
        return
    for port in ctx.parsed.ports:
        over = [q.index for q in port.queues if q.index >= limit]
        if over:
            first = port.queue(over[0])
            table = "QUEUE" if first is not None and first.scheduler is not None else "BUFFER_QUEUE"
            yield _queue_limit.report(ctx, table, f"{port.name}|{over[0]}", None,
                f"queue(s) {over} of {port.name} do not exist: {ctx.profile.name} has {limit} queues per port "
                f"({ctx.profile.queues_per_port.source}); orchagent fails 'Invalid queue index'",
                values={"queue": over[0], "limit": limit})


MODEL_INPUT_MISSING = declare(
    "model-input-missing", Severity.INFO, "capacity", "model checks that could not run",
    rationale="A capacity or transport check needs an input the file, the vendor profile or the intent does not "
         "give (a port's speed or cable, a value the profile lists as unknown, which vendor profiles never "
         "guess: vendor_profiles/schema.py, docs/architecture.md §1); the finding says which, so a clean report is "
         "never mistaken for a checked one.",
    fix="add the missing input (PORT.speed, CABLE_LENGTH, or the vendor profile value with its source)",
    needs="profile",
)


__all__ = ["MODEL_INPUT_MISSING", "default_design", "headroom_inputs", "queue_limit", "required_xoff", "skipped"]
