"""A compiled intent on the software switch: intent -> IR -> SAI program -> loaded switch.

The switch itself only ever sees the SAI program (docs/architecture.md §6); the IR is kept next to it
for what SAI does not carry and a scenario needs: each class's DSCPs, transport, RTT and
host-side settings (TBTCP beta and r).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from qosforge.errors import QosforgeError
from qosforge.ir import ClassIR, SwitchIR
from qosforge.softswitch.config import SwitchConfig, load_switch_program
from qosforge.softswitch.traffic.spec import TBTCP_BETA, TBTCP_R, FlowKind
from qosforge.transports import transports

if TYPE_CHECKING:
    from qosforge.backends.sai import SaiProgram
    from qosforge.compiler.intent import Intent



def transport_hosts() -> dict[str, FlowKind]:
    """How each intent transport runs on the switch's hosts: its TransportSpec's flow kind
    (transports/; e.g. D2TCP and EAR hosts run DCTCP, IRN runs DCQCN, each says why); transports
    without one are not simulated."""
    kinds = get_args(FlowKind)
    hosts: dict[str, FlowKind] = {}
    for spec in transports():
        if spec.flow_kind is None:
            continue
        if spec.flow_kind not in kinds:  # a registration error, not the user's: name it
            raise ValueError(f"transport {spec.name!r} runs as flow kind {spec.flow_kind!r}, which the engine does not have ({', '.join(kinds)})")
        hosts[spec.name] = spec.flow_kind  # type: ignore[assignment]  # checked against FlowKind above
    return hosts


@dataclass(frozen=True)
class DesignPoint:
    """The intent's design inputs a scenario reproduces (intent ``design``)."""

    congested_ports: int = 1
    small_packet_fraction: float = 0.5
    lossless_mtu_bytes: float = 1024.0
    port_mtu_bytes: float = 9100.0
    mtu_bytes: float = 1500.0


@dataclass(frozen=True)
class CompiledSwitch:
    ir: SwitchIR
    program: SaiProgram
    config: SwitchConfig
    design: DesignPoint = DesignPoint()
    assumptions: tuple[tuple[str, str], ...] = ()
    """The ``--assume`` values the configuration was loaded with."""
    declared_classes: tuple[str, ...] = ()
    """The intent's class names in the order the operator declared them (the IR orders by TC)."""

    @property
    def config_assumptions(self) -> dict[str, str]:
        return dict(self.assumptions)

    @property
    def cnp_dscp(self) -> int | None:
        """The DSCP of RoCE CNPs where the compiled plan has a CNP class (its own queue)."""
        cnp = next((c for c in self.ir.control_classes if c.name == "cnp"), None)
        return cnp.dscp[0] if cnp is not None else None

    def traffic_class(self, name: str | None, *, lossless: bool = False) -> ClassIR:
        """The named class, or by default the intent's first declared class on this switch
        (the first lossless one with ``lossless``): what an operator who lists a class first
        means by "the" class. The IR orders classes by TC, so its first entry would be whichever
        class took the lowest TC (on roce-pod the lossy tcp on TC 1, not the rdma declared first)."""
        classes = self.ir.classes
        if name is not None:
            for entry in classes:
                if entry.name == name:
                    return entry
            raise QosforgeError(f"no class {name!r} on switch {self.ir.name}", place="--class", hint=f"classes: {', '.join(self.class_names)}")
        candidates = [c for c in classes if c.lossless or not lossless]
        if not candidates:
            raise QosforgeError("the intent has no lossless class, so no PFC pause can spread", place="--class",
                                hint="a pause storm needs a class with lossless: true (e.g. examples/roce-pod.yaml)")
        rank = {n: i for i, n in enumerate(self.declared_classes)}
        # Undeclared classes (the catch-all default, or an IR built without its intent) come last, in TC order.
        return min(candidates, key=lambda c: (rank.get(c.name, len(rank)), c.name == "default"))

    @property
    def class_names(self) -> list[str]:
        """The switch's class names, declared ones first in the intent's order."""
        rank = {n: i for i, n in enumerate(self.declared_classes)}
        names = dict.fromkeys(c.name for c in self.ir.classes)
        return sorted(names, key=lambda n: (rank.get(n, len(rank)), n == "default"))

    def port_index(self, name: str | None) -> int:
        if name is None:
            return 0
        for index, port in enumerate(self.config.ports):
            if port.name == name:
                return index
        raise QosforgeError(f"no port {name!r} on switch {self.ir.name}", place="--port", hint=f"ports: {', '.join(p.name for p in self.config.ports[:6])}, ...")


def class_chosen_by(name: str | None, *, lossless: bool = False) -> str:
    """How a scenario's class was chosen, for its report (``class_chosen_by``)."""
    if name is not None:
        return "--class"
    return f"default: the intent's first {'lossless ' if lossless else ''}class (--class NAME picks another)"


def host_transport(entry: ClassIR) -> FlowKind:
    hosts = transport_hosts()
    if entry.transport not in hosts:
        raise QosforgeError(f"class {entry.name!r}: transport {entry.transport} has no host model in the software switch", place="--class", hint=f"modelled: {', '.join(hosts)}")
    return hosts[entry.transport]


def tbtcp_host_settings(entry: ClassIR) -> tuple[float, float]:
    """(beta, r) the compiler chose for a TBTCP class, else TBTCP's own choices (§5.1, §7)."""
    settings = {d.quantity: d.value for d in entry.host_settings}
    return settings.get("beta", TBTCP_BETA), settings.get("window_reduction_r", TBTCP_R)


def load_compiled(switch: SwitchIR, *, assume: Mapping[str, str] | None = None, design: DesignPoint | None = None,
                  declared_classes: tuple[str, ...] = ()) -> CompiledSwitch:
    # The renderer (with the SAI metadata, the vendor profiles' schemas) is imported here, not at
    # the top: a warm `simulate --traffic` unpickles its loaded switches and never renders.
    from qosforge.backends.sai import render_sai_program

    program = render_sai_program(switch)
    return CompiledSwitch(ir=switch, program=program, config=load_switch_program(program, assume=assume), design=design or DesignPoint(),
                          assumptions=tuple(sorted((assume or {}).items())), declared_classes=declared_classes)


def compile_for_softswitch(intent_path: Path, switch_name: str | None, *, assume: Mapping[str, str] | None = None, approximations: tuple[str, ...] = ()) -> CompiledSwitch:
    """Compile ``intent_path`` for SAI and load one switch (default: the first) into the switch."""
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent

    intent, source_map = load_intent(intent_path)
    selected = (switch_name,) if switch_name else ()
    fabric = compile_intent(intent, source_map, switches=selected, accepted_approximations=approximations, targets=("sai",))
    switches = fabric.for_target("sai")
    return load_compiled(switches[0], assume=assume, design=design_point(intent), declared_classes=declared_classes(intent))


def design_point(intent: Intent) -> DesignPoint:
    """The intent's ``design`` inputs a scenario reproduces."""
    d = intent.design
    return DesignPoint(d.congested_ports, d.small_packet_percent / 100.0, float(d.lossless_mtu), float(d.port_mtu), float(d.mtu))


def declared_classes(intent: Intent) -> tuple[str, ...]:
    """The intent's class names in declaration order (the default ``--class``)."""
    return tuple(spec.name for spec in intent.classes)


__all__ = ["CompiledSwitch", "DesignPoint", "class_chosen_by", "compile_for_softswitch", "declared_classes", "design_point", "host_transport", "load_compiled",
           "tbtcp_host_settings", "transport_hosts"]
