"""Buffer checks: pools, profiles, PG/queue bindings, overlaps, capacity, buffermgrd's own PGs."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from qosforge.backends.sonic.checks.schema import LOSSLESS_POOL
from qosforge.backends.sonic.checks.view import ConfigView, IndexedEntry
from qosforge.backends.sonic.checks.violation import Violation
from qosforge.backends.sonic.keys import (
    TRADITIONAL_PG_PROFILE,
    bare_reference,
    contiguous_ranges,
    priorities,
    uint,
)


def check_buffers(view: ConfigView, found: list[Violation]) -> None:
    dynamic_model = view.dynamic
    why = view.model.source
    for name, pool in view.entries("BUFFER_POOL").items():
        if "percentage" in pool and "size" in pool:
            found.append(Violation("pool-size", "BUFFER_POOL", name, "percentage",
                                   "percentage must not be configured along with size"))
        if "percentage" in pool and not dynamic_model:
            found.append(Violation("pool-size", "BUFFER_POOL", name, "percentage",
                                   f"percentage is only valid in the dynamic buffer model (traditional: {why})"))
        if "size" not in pool and not dynamic_model:
            found.append(Violation("pool-size", "BUFFER_POOL", name, "size",
                                   f"traditional model ({why}): SAI needs size on create (orchagent crash otherwise)"))
    pg_profiles = {bare_reference(entry.get("profile", "")) for entry in view.entries("BUFFER_PG").values()}
    for name, profile in view.entries("BUFFER_PROFILE").items():
        modes = [field for field in ("dynamic_th", "static_th") if field in profile]
        if len(modes) != 1:
            found.append(Violation("threshold-mode", "BUFFER_PROFILE", name, None,
                                   f"give exactly one of dynamic_th / static_th (has {modes or 'none'})"))
        pool_name = bare_reference(profile.get("pool", ""))
        its_pool = view.entries("BUFFER_POOL").get(pool_name)
        if dynamic_model and its_pool is not None and len(modes) == 1 and its_pool.get("mode") and \
                modes[0] != f"{its_pool['mode']}_th":
            found.append(Violation("threshold-mode-pool", "BUFFER_PROFILE", name, modes[0],
                                   f"pool {pool_name} is {its_pool['mode']}; use {its_pool['mode']}_th"))
        if "xoff" in profile and pool_name != LOSSLESS_POOL and (name in pg_profiles or _buffermgrd_name(name)):
            # Only a PG profile is lossless headroom: xoff on a profile that only queues use (some
            # templates give their egress_lossless_profile one) is never read as headroom.
            found.append(Violation("lossless-pool-name", "BUFFER_PROFILE", name, "pool",
                                   f"lossless PG profile in {pool_name or 'no pool'}, not {LOSSLESS_POOL}: "
                                   "buffermgrd's shared-headroom accounting and the Lua headroom plugins read only "
                                   f"{LOSSLESS_POOL}"))
    for table, bad_type, what in (("BUFFER_PG", "egress", "ingress"), ("BUFFER_QUEUE", "ingress", "egress")):
        for key, entry in view.entries(table).items():
            profile_name = entry.get("profile", "")
            if table == "BUFFER_PG" and profile_name == "NULL" and not dynamic_model:
                found.append(Violation("null-profile", table, key, "profile",
                                       f"profile NULL only works in the dynamic buffer model (traditional: {why})"))
            profile_pool = view.pool_of(profile_name)
            if profile_pool is not None and profile_pool.get("type") == bad_type:
                found.append(Violation("profile-direction", table, key, "profile",
                                       f"{profile_name} uses an {bad_type} pool; {table} needs an {what} pool"))


def _buffermgrd_name(name: str) -> bool:
    """A profile named as buffermgrd names the lossless PG profiles it creates (sonic-swss
    cfgmgr/buffermgr.cpp: pg_lossless_<speed>_<cable>_profile), which it puts in ingress_lossless_pool."""
    return name.startswith("pg_lossless_") and name.endswith("_profile")


def check_overlaps(view: ConfigView, found: list[Violation]) -> None:
    for table in ("BUFFER_PG", "BUFFER_QUEUE", "QUEUE"):
        for _port, items in sorted(view.port_index(table).items()):
            ordered = sorted(items, key=lambda i: (i.parsed.low, i.parsed.high, i.key))
            if _disjoint(ordered):
                continue
            by_chassis: dict[str | None, dict[int, str]] = {}
            for item in ordered:
                seen = by_chassis.setdefault(item.parsed.chassis, {})
                clashes = sorted({seen[i] for i in item.parsed.indices() if i in seen})
                if clashes:
                    found.append(Violation("overlapping-keys", table, item.key, None, f"overlaps {', '.join(clashes)}"))
                for index in item.parsed.indices():
                    seen.setdefault(index, item.key)


def _disjoint(ordered: list[IndexedEntry]) -> bool:
    """The usual case, decided in one pass: one switch's keys (no VOQ chassis) whose index
    ranges, sorted by their start, each end before the next begins."""
    return all(item.parsed.chassis is None for item in ordered) and \
        all(before.parsed.high < after.parsed.low for before, after in itertools.pairwise(ordered))


def ingress_pool_bytes(pools: Mapping[str, Mapping[str, str]]) -> int:
    """Σ (size + xoff) over the ingress pools: the part of the buffer they partition. The one
    definition both pool-overcommit and lint's buffer-capacity use.

    Ingress pools (size + shared-headroom xoff) partition the buffer (sonic-buildimage #28657).
    Egress pools are not summed: SONiC's own Broadcom templates size egress_lossless_pool as the
    whole MMU next to egress_lossy_pool (device/common/profiles/td2/gen/BALANCED/buffers_defaults_t1.j2),
    a static upper bound, not a partition."""
    return sum((uint(pool.get("size")) or 0) + (uint(pool.get("xoff")) or 0) for pool in pools.values()
               if isinstance(pool, Mapping) and pool.get("type") in ("ingress", "both"))


def check_pool_overcommit(view: ConfigView, asic_buffer_bytes: int, found: list[Violation]) -> None:
    """The ingress pools together, and every single pool, fit the ASIC's buffer."""
    ingress_total = ingress_pool_bytes(view.entries("BUFFER_POOL"))
    for name, pool in view.entries("BUFFER_POOL").items():
        size = uint(pool.get("size")) or 0
        xoff = uint(pool.get("xoff")) or 0
        if size + xoff > asic_buffer_bytes:
            found.append(Violation("pool-overcommit", "BUFFER_POOL", name, "size",
                                   f"size + xoff = {size + xoff} B > ASIC buffer {asic_buffer_bytes} B"))
    if ingress_total > asic_buffer_bytes:
        found.append(Violation("pool-overcommit", "BUFFER_POOL", "", None,
                               f"ingress pools (size + xoff) total {ingress_total} B > ASIC buffer "
                               f"{asic_buffer_bytes} B"))


def check_traditional_pgs(view: ConfigView, found: list[Violation]) -> None:
    """A lossless PG the file writes on a port where buffermgrd writes its own is overwritten
    unless key and profile are buffermgrd's. An absent key is fine: buffermgrd writes it."""
    if view.dynamic or not view.has("BUFFER_PG"):
        return
    for port, entry in view.entries("PORT_QOS_MAP").items():
        enabled = priorities(entry.get("pfc_enable"))
        cable = view.cables.get(port)
        if port == "global" or not enabled or cable is None or cable == "0m":
            continue  # buffermgrd leaves the port alone (cfgmgr/buffermgr.cpp)
        speed = view.entries("PORT").get(port, {}).get("speed")
        for low, high in contiguous_ranges(enabled):
            key = f"{port}|{low}" if low == high else f"{port}|{low}-{high}"
            pg_entry = view.entries("BUFFER_PG").get(key)
            if pg_entry is None:
                continue
            match = TRADITIONAL_PG_PROFILE.fullmatch(pg_entry.get("profile", ""))
            if match is None or match.group(2) != cable or (speed is not None and match.group(1) != speed):
                expected = f"pg_lossless_{speed or '<speed>'}_{cable}_profile"
                found.append(Violation("traditional-pg-overwrite", "BUFFER_PG", key, "profile",
                                       f"buffermgrd overwrites it with {expected}; name the profile so"))


__all__ = ["check_buffers", "check_overlaps", "check_pool_overcommit", "check_traditional_pgs", "ingress_pool_bytes"]
