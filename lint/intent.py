"""What an intent file tells the linter: classes, their transports and RTTs, the design point.

``--intent FILE`` turns on the transport rules (docs/architecture.md §2: which DSCPs run which transport,
the RTT, design M, ...). The intent is loaded with the compiler's own loader and compiled for one
switch with :func:`qosforge.compiler.compile.compile_intent`, so the RTT of each class is the
one the compiler derives (topology or the class's ``rtt``) and an intent that does not compile is
reported as unusable input (exit 2) rather than linted against.

Which switch a config file is: ``--switch NAME``; otherwise the name of the folder holding the
file, which must be a switch of the intent (``qosforge compile`` writes
``out/<switch>/config_db.json``); any other folder is bad input (exit 2), never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from qosforge.compiler.intent import ClassSpec, Design, Intent
from qosforge.compiler.loader import SourceMap
from qosforge.errors import QosforgeError

#: compile_intent refuses TLT on SONiC without this named approximation; lint checks what the
#: config carries for TLT itself (rules tlt-*), so it always accepts it here.
_TLT_APPROXIMATION = "tlt-without-color"
_TARGET = "sonic"


@dataclass(frozen=True)
class IntentClass:
    spec: ClassSpec
    rtt_s: float
    """The class's base RTT as the compiler derives it (topology or ``classes[].rtt``)."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def dscps(self) -> tuple[int, ...]:
        important = tuple(self.spec.tlt.important_dscp) if self.spec.tlt is not None else ()
        return (*self.spec.dscp, *important)


@dataclass(frozen=True)
class SwitchIntent:
    """The intent as it applies to one switch."""

    file: str
    switch: str
    profile: str
    design: Design
    classes: tuple[IntentClass, ...]
    port_speeds_bps: dict[str, float]
    port_cables_m: dict[str, float]
    port_phy_delays_s: dict[str, float] = field(default_factory=dict)
    """Each port's declared PHY delay (gearbox, retimer, FEC): part of the wire headroom covers."""
    approximations: tuple[str, ...] = ()
    """Named approximations the intent accepts (``approximations:``), e.g. tlt-without-color."""


class IntentCatalogue:
    """A loaded intent: resolves the switch of each config file, compiles each switch once."""

    def __init__(self, path: Path) -> None:
        from qosforge.compiler.deadlock import check_deadlock_free, check_routes_reach_every_host
        from qosforge.compiler.loader import load_intent
        from qosforge.compiler.topology import resolve_topology

        self.path = path
        intent, source_map = load_intent(path)
        self._intent: Intent = intent
        self._source_map: SourceMap = source_map
        topology = resolve_topology(intent, source_map)
        # An intent compile refuses is no reference to lint against: its eBGP routes cut hosts off
        # or its lossless classes can deadlock on them (compiler/deadlock); said once, not per
        # config file.
        check_deadlock_free(intent, topology, source_map, blocks=check_routes_reach_every_host(topology, source_map))
        self._switches = {s.name: s for s in topology.switches}
        self._compiled: dict[str, SwitchIntent] = {}
        self._rtts: dict[tuple[str, tuple[tuple[float, float], ...]], dict[str, float]] = {}

    @property
    def profiles(self) -> set[str]:
        return {s.profile for s in self._switches.values()}

    def switch_for(self, config_file: Path, requested: str | None) -> str:
        if requested is not None:
            if requested not in self._switches:
                sample = ", ".join(sorted(self._switches)[:8]) + (" ..." if len(self._switches) > 8 else "")
                raise QosforgeError(f"no switch named {requested!r} in {self.path}", place="--switch",
                                    hint=f"switches: {sample}")
            return requested
        folder = config_file.resolve().parent.name
        if folder in self._switches:
            return folder
        # Never guess: linting leaf7's file against leaf1's ports and RTTs reports nonsense.
        sample = ", ".join(sorted(self._switches)[:5]) + (" ..." if len(self._switches) > 5 else "")
        raise QosforgeError(
            f"its folder {folder!r} is not a switch of {self.path} (switches: {sample})",
            place=str(config_file), hint="put the file in out/<switch>/ as qosforge compile writes it, "
            "or pass --switch NAME")

    def _class_rtts(self, name: str) -> dict[str, float]:
        """Class name -> RTT, compiled once per switch signature (the compiler shares plans the
        same way), so linting a 1,000-leaf fabric compiles one leaf."""
        signature = self._switches[name].signature
        cached = self._rtts.get(signature)
        if cached is not None:
            return cached
        from qosforge.compiler.compile import compile_intent

        # config_db is SONiC's, whatever targets the intent lists.
        fabric = compile_intent(intent=self._intent, source_map=self._source_map, switches=(name,),
                                accepted_approximations=(_TLT_APPROXIMATION,), targets=(_TARGET,))
        rtts = {c.name: c.rtt_s.value for c in fabric.switches[0].classes}
        self._rtts[signature] = rtts
        return rtts

    def switch_profiles(self, switch: str | None = None) -> dict[str, str]:
        """Switch name -> vendor profile the intent gives it (only ``switch`` when named)."""
        names = [switch] if switch is not None and switch in self._switches else list(self._switches)
        return {name: self._switches[name].profile for name in names}

    def for_switch(self, name: str) -> SwitchIntent:
        cached = self._compiled.get(name)
        if cached is not None:
            return cached
        rtt = self._class_rtts(name)
        resolved = self._switches[name]
        result = SwitchIntent(
            file=str(self.path),
            switch=name,
            profile=resolved.profile,
            design=self._intent.design,
            classes=tuple(IntentClass(spec, rtt[spec.name]) for spec in self._intent.classes if spec.name in rtt),
            port_speeds_bps={p.name: p.speed_bps for p in resolved.ports},
            port_cables_m={p.name: p.cable_m for p in resolved.ports},
            port_phy_delays_s={p.name: p.phy_delay_s for p in resolved.ports if p.phy_delay_s},
            approximations=tuple(str(a) for a in self._intent.approximations),
        )
        self._compiled[name] = result
        return result


__all__ = ["IntentCatalogue", "IntentClass", "SwitchIntent"]
