"""The routing model of a fabric: which protocol's converged routes the deadlock check, the
failure sweeps and the software switch forward on (docs/deadlock.md "Routing models").

* ``ebgp-rfc7938``: eBGP as RFC 7938 §5.2.1 lays a Clos out: every switch its own BGP speaker
  over single-hop sessions on each link, the spines of a tier sharing one ASN (all super-spines
  one, each pod's spines one) and every leaf (ToR) its own. A switch drops a route whose AS path
  already holds its own ASN (RFC 4271 §9.1.2, AS loop detection) unless ``allowas_in`` lets
  that many copies through; among the shortest AS paths it installs ECMP next hops over every
  path of equal length (``multipath_relax``, FRR's ``bgp bestpath as-path multipath-relax``,
  which SONiC's bgpd templates set; RFC 7938 §6.2) or, without it, over identical AS paths only.
  The default of the ``leaf_spine`` and ``clos`` generators, which is how SONiC fabrics run.
* ``shortest-path``: every fewest-switch-hop path (an IGP with ECMP, or BGP with unique ASNs
  everywhere). The default of explicit topologies: they have no tiers to derive an ASN plan
  from, and refusing them without one would break every explicit intent written before routing
  could be stated; an operator running eBGP on one gives ``asn.switches``.

ASNs default to the private range (RFC 6996 §5): 64512-65534 while the plan fits (RFC 7938
§5.2.1's example puts the top tier on 65534), otherwise the four-octet private range
4200000000-4294967294 (RFC 7938 §5.2.2 and RFC 6793 for fabrics past 1,023 ASNs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:  # annotations only: the software switch's routing needs no intent schema
    from qosforge.compiler.intent import Intent, RoutingSpec
    from qosforge.compiler.loader import SourceMap

EBGP = "ebgp-rfc7938"
SHORTEST_PATH = "shortest-path"
#: RFC 6996 §5: the two-octet and the four-octet private-use ranges (first, last).
PRIVATE_ASN_16 = (64_512, 65_534)
PRIVATE_ASN_32 = (4_200_000_000, 4_294_967_294)


@dataclass(frozen=True)
class BgpSettings:
    """The eBGP knobs of :class:`Routing` as arrays over a list of switches."""

    asn: npt.NDArray[np.int64]
    """Per switch: its ASN."""
    allowas_in: int
    multipath_relax: bool

    @cached_property
    def _groups(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], int]:
        values, index, size = np.unique(self.asn, return_inverse=True, return_counts=True)
        index = index.reshape(-1).astype(np.int64)
        return index, size[index] > 1, int(values.size)

    @property
    def asn_index(self) -> npt.NDArray[np.int64]:
        """Per switch: its ASN's place among the distinct ASNs."""
        return self._groups[0]

    @property
    def shared(self) -> npt.NDArray[np.bool_]:
        """Per switch: whether another switch has its ASN (only those can see it in a path)."""
        return self._groups[1]

    @property
    def n_asns(self) -> int:
        return self._groups[2]

    @cached_property
    def group_bit(self) -> npt.NDArray[np.uint64] | None:
        """Per switch: one bit for its ASN when other switches share it (0 for a switch of its
        own ASN, which no settled path can hold), or None past 64 shared ASNs."""
        index, shared, _ = self._groups
        groups = np.unique(index[shared])
        if groups.size > 64:
            return None
        position = np.searchsorted(groups, index)
        bits = np.left_shift(np.uint64(1), np.minimum(position, 63).astype(np.uint64))
        return np.where(shared, bits, np.uint64(0)).astype(np.uint64)


@dataclass(frozen=True)
class Routing:
    """A fabric's routing model, resolved: its ASNs by switch name (eBGP) and why this model."""

    model: str = SHORTEST_PATH
    asns: tuple[tuple[str, int], ...] = ()
    """(switch, ASN) of every switch (eBGP; empty for shortest-path)."""
    allowas_in: int = 0
    multipath_relax: bool = True
    chosen_by: str = "the default of explicit topologies"
    """Why this model: the intent's ``topology.routing.model``, or whose default it is."""

    @property
    def is_bgp(self) -> bool:
        return self.model == EBGP

    def bgp(self, switch_names: Sequence[str]) -> BgpSettings | None:
        """The eBGP settings over ``switch_names`` (None for shortest-path); a switch without an
        ASN gets a private one of its own (a switch outside the intent's plan)."""
        if not self.is_bgp:
            return None
        given = dict(self.asns)
        spare = iter(range(PRIVATE_ASN_32[1], PRIVATE_ASN_32[0], -1))
        asn = np.array(
            [given[name] if name in given else next(spare) for name in switch_names], dtype=np.int64
        )
        return BgpSettings(asn, self.allowas_in, self.multipath_relax)

    def describe(self) -> str:
        """One line: ``ebgp-rfc7938 (..., the default of generated topologies)``."""
        if not self.is_bgp:
            return f"{self.model} (fewest switch hops, ECMP; {self.chosen_by})"
        members: dict[int, int] = {}
        for _, asn in self.asns:
            members[asn] = members.get(asn, 0) + 1
        tiers = sum(1 for count in members.values() if count > 1)
        knobs = [
            f"{len(members):,} ASNs for {len(self.asns):,} switches"
            + (f", {tiers:,} shared by a tier" if tiers else ""),
            "multipath-relax" if self.multipath_relax else "multipath over identical AS paths only",
        ]
        if self.allowas_in:
            knobs.append(f"allowas-in {self.allowas_in}")
        return f"{self.model} (AS-path loop detection, {', '.join(knobs)}; {self.chosen_by})"

    def to_json(self) -> dict[str, object]:
        return {
            "model": self.model,
            "chosen_by": self.chosen_by,
            "allowas_in": self.allowas_in,
            "multipath_relax": self.multipath_relax,
            "asns": dict(self.asns),
        }


#: The model of a topology built by hand in code (tests, the software switch without an intent).
SHORTEST_PATH_ROUTING = Routing()


@dataclass(frozen=True)
class SwitchTier:
    """A switch as the ASN plan sees it: its tier and, for a Clos spine, its pod."""

    name: str
    role: str
    """'leaf', 'spine', 'super-spine' or 'switch' (explicit)."""
    pod: int = 0


def _default_plan(switches: Sequence[SwitchTier]) -> dict[str, int]:
    """RFC 7938 §5.2.1: one ASN for the top tier, one per pod's spines, one per leaf; counted up
    from the bottom of the private range for leaves and down from its top for the shared tiers."""
    leaves = [s for s in switches if s.role == "leaf"]
    pods = sorted({s.pod for s in switches if s.role == "spine"})
    has_super = any(s.role == "super-spine" for s in switches)
    needed = len(leaves) + len(pods) + int(has_super)
    low, high = (
        PRIVATE_ASN_16 if needed <= PRIVATE_ASN_16[1] - PRIVATE_ASN_16[0] + 1 else PRIVATE_ASN_32
    )
    plan = {leaf.name: low + i for i, leaf in enumerate(leaves)}
    top_taken = int(has_super)
    pod_asn = {pod: high - top_taken - i for i, pod in enumerate(pods)}
    for switch in switches:
        if switch.role == "spine":
            plan[switch.name] = pod_asn[switch.pod]
        elif switch.role == "super-spine":
            plan[switch.name] = high
    return plan


def _tier_plan(
    spec: RoutingSpec,
    switches: Sequence[SwitchTier],
    place: tuple[str | int, ...],
    source_map: SourceMap,
) -> dict[str, int]:
    plan = _default_plan(switches)
    given = spec.asn
    has_super = any(s.role == "super-spine" for s in switches)
    if given.super_spine is not None and not has_super:
        raise source_map.error(
            (*place, "asn", "super_spine"),
            "a leaf_spine has no super-spines",
            "give the spines' shared ASN as asn.spine, or drop super_spine",
        )
    leaves = [s for s in switches if s.role == "leaf"]
    if given.leaf is not None:
        plan.update({leaf.name: given.leaf + i for i, leaf in enumerate(leaves)})
        if given.leaf + len(leaves) - 1 > PRIVATE_ASN_32[1]:
            raise source_map.error(
                (*place, "asn", "leaf"),
                f"{len(leaves):,} leaves counted up from {given.leaf} pass ASN {PRIVATE_ASN_32[1]}",
                "start the leaves lower (each leaf takes the next ASN)",
            )
    for switch in switches:
        if switch.role == "spine" and given.spine is not None:
            plan[switch.name] = given.spine + switch.pod
        elif switch.role == "super-spine" and given.super_spine is not None:
            plan[switch.name] = given.super_spine
    return plan


def with_model(intent: Intent, model: str) -> Intent:
    """``intent`` routed by ``model`` instead of its own (``check deadlock --routing``): the
    verdict under the other model, with the intent's ASNs and knobs where the model uses them."""
    routing = intent.topology.routing.model_copy(update={"model": model})
    return intent.model_copy(
        update={"topology": intent.topology.model_copy(update={"routing": routing})}
    )


def resolve_routing(
    spec: RoutingSpec, generated: bool, switches: Sequence[SwitchTier], source_map: SourceMap
) -> Routing:
    """The intent's ``topology.routing`` over the resolved switches: the model and, for eBGP, the
    ASN of every switch (the generators' plan, then the operator's tier ASNs and overrides)."""
    place: tuple[str | int, ...] = ("topology", "routing")
    model = spec.model or (EBGP if generated else SHORTEST_PATH)
    chosen_by = (
        "the intent's topology.routing.model"
        if spec.model is not None
        else "the default of generated topologies"
        if generated
        else "the default of explicit topologies"
    )
    if model == SHORTEST_PATH:
        return Routing(SHORTEST_PATH, chosen_by=chosen_by)
    names = {s.name for s in switches}
    for name in spec.asn.switches:
        if name not in names:
            raise source_map.error(
                (*place, "asn", "switches", name),
                f"no switch '{name}' in the topology",
                f"name switches of the fabric, e.g. {', '.join(sorted(names)[:3])}",
            )
    if generated:
        plan = _tier_plan(spec, switches, place, source_map)
    else:
        tiers = [
            key for key in ("super_spine", "spine", "leaf") if getattr(spec.asn, key) is not None
        ]
        if tiers:
            raise source_map.error(
                (*place, "asn", tiers[0]),
                f"asn.{tiers[0]} numbers a generated fabric's tier; an explicit topology has none",
                "give every switch its ASN under asn.switches",
            )
        missing = [s.name for s in switches if s.name not in spec.asn.switches]
        if missing:
            raise source_map.error(
                (*place, "asn"),
                f"eBGP needs every switch's ASN; {len(missing)} have none "
                f"({', '.join(missing[:4])})",
                "list each switch under asn.switches (RFC 7938 §5.2.1: spines of a tier share one, "
                "each leaf its own), "
                "or use model: shortest-path",
            )
        plan = {}
    plan.update(spec.asn.switches)
    asns = tuple((s.name, plan[s.name]) for s in switches)
    return Routing(EBGP, asns, spec.allowas_in, spec.multipath_relax, chosen_by)


__all__ = [
    "EBGP",
    "PRIVATE_ASN_16",
    "PRIVATE_ASN_32",
    "SHORTEST_PATH",
    "SHORTEST_PATH_ROUTING",
    "BgpSettings",
    "Routing",
    "SwitchTier",
    "resolve_routing",
    "with_model",
]
