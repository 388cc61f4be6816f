"""Buffer pools and profiles sized from the ASIC (docs/architecture.md §5, issue "Compilation").

Layout (SONiC's traditional Broadcom-style model, sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-pool.yang to sonic-buffer-queue.yang and the SONiC sources):

* every lossless PG reserves its PFC headroom privately (profile ``size`` = xoff + xon, as
  SONiC's Mellanox plugin sizes a PG without a shared headroom pool, sonic-swss cfgmgr/buffer_headroom_mellanox.lua);
* one shared service pool per direction holds the rest: ``ingress_lossless_pool`` (all PGs, as
  SONiC's Broadcom templates do) and ``egress_lossy_pool`` / ``egress_lossless_pool``;
* ingress and egress are two accounting views of the same cells, so each view must fit the
  physical buffer: shared pool + Σ headroom = B. SONiC itself never checks this (neither sonic-cfggen
  nor sonic-swss cfgmgr/buffermgr.cpp compares pools with the ASIC buffer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from qosforge.compiler.dynamic_th import dynamic_th_range
from qosforge.compiler.intent import Design
from qosforge.errors import InfeasibleDesignError
from qosforge.ir import BufferProfileIR, Derived, PoolIR, derived_constant, derived_from
from qosforge.models.dynamic_threshold import dynamic_th_from_alpha, dynamic_threshold_share
from qosforge.models.pfc_headroom import pfc_headroom
from qosforge.models.sonic_headroom import SonicAsicTable, sonic_headroom
from qosforge.provenance import Derivation, Provenance, input_value
from qosforge.vendor_profiles.schema import VendorProfile

INGRESS_POOL = "ingress_lossless_pool"
EGRESS_LOSSY_POOL = "egress_lossy_pool"
EGRESS_LOSSLESS_POOL = "egress_lossless_pool"
INGRESS_LOSSY_PROFILE = "ingress_lossy_profile"
EGRESS_LOSSY_PROFILE = "egress_lossy_profile"
EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
SOURCE_POOLS = "qosforge buffer layout (compiler/buffers.py; SONiC traditional model, sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-pool.yang to sonic-buffer-queue.yang, the SONiC sources)"


@dataclass(frozen=True)
class PortHeadroom:
    profile_name: str
    xoff_bytes: Derived
    xon_bytes: Derived
    size_bytes: Derived


@dataclass(frozen=True)
class BufferPlan:
    pools: tuple[PoolIR, ...]
    profiles: tuple[BufferProfileIR, ...]
    headroom_by_port_kind: dict[tuple[float, float], PortHeadroom]
    shared_bytes: Derived
    total_headroom_bytes: Derived
    per_port_share_bytes: Derived
    mmu_shared_bytes: Derived
    """The shared buffer one port competes in (per MMU): the B of the dynamic-threshold models."""
    dynamic_th: Derived


def lossless_profile_name(rate_bps: float, cable_m: float) -> str:
    """SONiC's naming for lossless PG profiles: pg_lossless_<speed>_<cable>_profile (sonic-swss cfgmgr/buffermgr.cpp, cfgmgr/buffermgrdyn.cpp)."""
    return f"pg_lossless_{round(rate_bps / 1e6)}_{cable_m:g}m_profile".replace(".", "p")


def _egress_lossless(profile: VendorProfile, shared_bytes: Derived, zero: Derived) -> tuple[PoolIR, BufferProfileIR]:
    """The egress lossless pool and its queue profile: no limit below the whole pool, since PFC
    backpressure, not egress drops, bounds lossless queues. Each vendor's SONiC layout says it its
    own way: where the ASIC reads a dynamic_th exponent as alpha infinity (Mellanox: 7, mlnx_sai
    ``sai_buffer_alpha_bounds_t``), SONiC's Mellanox buffers make the pool ``dynamic`` with
    ``egress_lossless_profile`` ``dynamic_th: 7`` (sonic-utilities scripts/mellanox_buffer_migrator.py,
    the Mellanox default pool and profile tables); elsewhere a ``static`` pool with ``static_th`` =
    the pool, as SONiC's Broadcom templates do (sonic-buildimage
    device/broadcom/<platform>/<hwsku>/buffers_defaults_t*.j2)."""
    unlimited = next((exponent for exponent, alpha in sorted(dynamic_th_range(profile).special.items()) if math.isinf(alpha)), None)
    if unlimited is None:
        return (PoolIR(EGRESS_LOSSLESS_POOL, "egress", "static", shared_bytes),
                BufferProfileIR(EGRESS_LOSSLESS_PROFILE, EGRESS_LOSSLESS_POOL, zero, static_th_bytes=shared_bytes))
    no_limit = derived_constant(
        unlimited, "1", quantity="dynamic_th",
        formula=f"{unlimited}: alpha infinity on {profile.name} (no dynamic limit below the pool; PFC bounds lossless queues)",
        source=f"vendor profile {profile.name} dynamic_th_special ({profile.dynamic_th_special.source}); SONiC's Mellanox buffer layout, "
               "sonic-utilities scripts/mellanox_buffer_migrator.py (egress_lossless_pool mode dynamic, egress_lossless_profile dynamic_th 7)",
    )
    return (PoolIR(EGRESS_LOSSLESS_POOL, "egress", "dynamic", shared_bytes),
            BufferProfileIR(EGRESS_LOSSLESS_PROFILE, EGRESS_LOSSLESS_POOL, zero, dynamic_th=no_limit))


def port_headroom(rate_bps: float, cable_m: float, design: Design, profile: VendorProfile, phy_delay_s: float = 0.0) -> PortHeadroom:
    """One lossless PG's headroom for a port of ``rate_bps`` on ``cable_m`` with ``phy_delay_s``
    of PHY stages: sized from the wire alone (compiler/topology.py), which both models count both ways."""
    name = lossless_profile_name(rate_bps, cable_m)
    if design.headroom_model == "sonic":
        table = profile.pfc_headroom.sonic
        if table is None:
            raise InfeasibleDesignError(
                f"vendor profile {profile.name} has no SONiC ASIC_TABLE headroom parameters",
                place="design.headroom_model",
                hint="use headroom_model: physical, or a profile with pfc_headroom.sonic (qosforge profiles list)",
            )
        asic = SonicAsicTable(
            name=table.name,
            script=table.script,
            cell_size_bytes=float(table.cell_size_bytes),
            pipeline_latency_kb=table.pipeline_latency_kb,
            mac_phy_delay_kb=table.mac_phy_delay_kb,
            peer_response_time_kb=table.peer_response_time_kb,
        )
        result = sonic_headroom(
            asic,
            rate_bps,
            cable_m,
            port_mtu_bytes=design.port_mtu,
            lossless_mtu_bytes=design.lossless_mtu,
            small_packet_percent=design.small_packet_percent,
            gearbox_delay_s=phy_delay_s,
        )
        return PortHeadroom(name, derived_from(result, "xoff_bytes"), derived_from(result, "xon_bytes"), derived_from(result, "size_bytes"))
    physical = pfc_headroom(
        rate_bps,
        cable_m,
        cell_bytes=profile.cell_bytes.known("cell_bytes"),
        port_mtu_bytes=design.port_mtu,
        lossless_mtu_bytes=design.lossless_mtu,
        small_packet_fraction=design.small_packet_percent / 100.0,
        phy_delay_s=phy_delay_s,
    )
    return PortHeadroom(name, derived_from(physical, "xoff_bytes"), derived_from(physical, "xon_bytes"), derived_from(physical, "size_bytes"))


def _check_dynamic_th(profile: VendorProfile, alpha: float, exponent: int) -> None:
    """Refuse an alpha the ASIC cannot program as alpha = 2^n (compiler/dynamic_th.py,
    the same reading lint's dynamic-th-range rule applies)."""
    accepted = dynamic_th_range(profile)
    verdict = accepted.verdict(exponent)
    if verdict == "ok":
        return
    if verdict == "outside":
        problem = f"outside {accepted.low}..{accepted.high}, the range {profile.name} accepts ({accepted.source})"
    else:
        problem = f"which {profile.name} reads as {accepted.meaning(exponent)} ({accepted.special_source})"
    raise InfeasibleDesignError(
        f"alpha {alpha:g} needs dynamic_th {exponent}, {problem}",
        place="alpha",
        hint=f"set design.alpha to one of the alphas {profile.name} represents: {accepted.representable_text()}",
    )


def plan_buffers(
    *,
    profile: VendorProfile,
    design: Design,
    port_kinds: tuple[tuple[float, float], ...],
    lossless_pg_count: int,
    has_lossless: bool,
    phy_delay_by_kind: dict[tuple[float, float], float] | None = None,
) -> BufferPlan:
    """Pools and profiles for one switch; ``port_kinds`` lists (speed, cable) of every port and
    ``phy_delay_by_kind`` the longest PHY delay among the ports of each kind (SONiC names one
    lossless profile per speed and cable, so every port of a kind gets the longest wire's headroom)."""
    phy_delay = phy_delay_by_kind or {}
    buffer_bytes = float(profile.buffer_bytes.known("buffer_bytes"))
    accepted = dynamic_th_range(profile).representable
    dynamic_th_value = dynamic_th_from_alpha(design.alpha, suggest=accepted)
    _check_dynamic_th(profile, design.alpha, dynamic_th_value)
    dynamic_th = derived_constant(dynamic_th_value, "1", quantity="dynamic_th", formula=f"log2(alpha) = log2({design.alpha:g})", source="SAI SHARED_DYNAMIC_TH: alpha = 2^n (sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-profile.yang)")
    headroom: dict[tuple[float, float], PortHeadroom] = {}
    total = 0.0
    if has_lossless:
        for kind in port_kinds:
            if kind not in headroom:
                headroom[kind] = port_headroom(kind[0], kind[1], design, profile, phy_delay.get(kind, 0.0))
            total += headroom[kind].size_bytes.value * lossless_pg_count
    total_headroom = Derived(
        value=total,
        unit="B",
        quantity="total_headroom_bytes",
        provenance=Provenance(
            model="buffer_layout",
            inputs=(input_value("ports", float(len(port_kinds)), "ports"), input_value("lossless_pgs_per_port", float(lossless_pg_count), "PGs")),
            derivations=(Derivation("total_headroom_bytes", "sum over ports and lossless PGs of the PG headroom size (xoff + xon)", SOURCE_POOLS),),
        ),
    )
    shared = buffer_bytes - total
    if shared <= 0:
        raise InfeasibleDesignError(
            f"PFC headroom needs {total:,.0f} B ({len(port_kinds)} ports x {lossless_pg_count} lossless PGs) but {profile.name} has {buffer_bytes:,.0f} B of buffer",
            place="classes.lossless",
            hint="make fewer classes lossless, shorten cables, or use a switch with more buffer",
        )
    shared_bytes = Derived(
        value=float(int(shared)),
        unit="B",
        quantity="shared_bytes",
        provenance=Provenance(
            model="buffer_layout",
            inputs=(input_value("buffer_bytes", buffer_bytes, "B"), input_value("total_headroom_bytes", total, "B")),
            derivations=(Derivation("shared_bytes", "floor(B - total_headroom_bytes): each accounting view (ingress, egress) must fit the physical buffer", f"{SOURCE_POOLS}; B from vendor profile {profile.name} ({profile.buffer_bytes.source})"),),
        ),
    )
    # Multi-MMU chips (Tomahawk: 4 x 4 MB) apply dynamic thresholds per MMU, so a port competes
    # for its MMU's share of the pool (TLT §6 testbed: ~1.8 MB for one busy port of 16 MB).
    mmu_count = int(profile.mmu_count.value or 1)
    mmu_shared = Derived(
        value=shared_bytes.value / mmu_count,
        unit="B",
        quantity="mmu_shared_bytes",
        provenance=Provenance(
            model="buffer_layout",
            inputs=(input_value("shared_bytes", shared_bytes.value, "B"), input_value("mmu_count", float(mmu_count), "MMUs")),
            derivations=(Derivation("mmu_shared_bytes", "shared_bytes / mmu_count", f"{SOURCE_POOLS}; MMU count from vendor profile {profile.name} ({profile.mmu_count.source})"),),
        ),
    )
    share = dynamic_threshold_share(mmu_shared.value, design.alpha, design.congested_ports)
    pools = [PoolIR(INGRESS_POOL, "ingress", "dynamic", shared_bytes), PoolIR(EGRESS_LOSSY_POOL, "egress", "dynamic", shared_bytes)]
    zero = derived_constant(0, "B", quantity="reserved_bytes", formula="0 (no private reservation; the queue draws from the shared pool)", source=SOURCE_POOLS)
    profiles = [
        BufferProfileIR(INGRESS_LOSSY_PROFILE, INGRESS_POOL, zero, dynamic_th=dynamic_th),
        BufferProfileIR(EGRESS_LOSSY_PROFILE, EGRESS_LOSSY_POOL, zero, dynamic_th=dynamic_th),
    ]
    if has_lossless:
        egress_pool, egress_profile = _egress_lossless(profile, shared_bytes, zero)
        pools.append(egress_pool)
        profiles.append(egress_profile)
        for entry in sorted(headroom.values(), key=lambda h: h.profile_name):
            profiles.append(
                BufferProfileIR(entry.profile_name, INGRESS_POOL, entry.size_bytes, dynamic_th=dynamic_th, xon_bytes=entry.xon_bytes, xoff_bytes=entry.xoff_bytes)
            )
    return BufferPlan(
        pools=tuple(pools),
        profiles=tuple(profiles),
        headroom_by_port_kind=headroom,
        shared_bytes=shared_bytes,
        total_headroom_bytes=total_headroom,
        per_port_share_bytes=derived_from(share, "per_port_share_bytes"),
        mmu_shared_bytes=mmu_shared,
        dynamic_th=dynamic_th,
    )
