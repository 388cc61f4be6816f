"""Which NIC each host runs (the intent's ``host_nic``), checked at its field.

A generated topology names one NIC for every host (``leaf_spine.host_nic`` / ``clos.host_nic``);
an explicit one per host port (``switches[].ports[].host_nic``, only where ``peer: host``). The
default is ``linux-kernel`` (vendor_profiles/nics/linux-kernel.yaml): the kernel's TCP settings
only. A named NIC must exist, run at its host link's speed, and run DCQCN when a dcqcn or irn
class is planned (its senders' congestion control runs in the NIC).
"""

from __future__ import annotations

from collections.abc import Callable

from qosforge.compiler.intent import Intent
from qosforge.compiler.loader import SourceMap
from qosforge.compiler.port_names import expand_port_names
from qosforge.compiler.topology import ResolvedTopology
from qosforge.errors import QosforgeError
from qosforge.transports import transport
from qosforge.vendor_profiles.host_nics import DEFAULT_HOST_NIC, load_host_nic


def _named(intent: Intent) -> list[tuple[tuple[str | int, ...], str, Callable[[str, str], bool]]]:
    """(intent path, NIC profile, which (switch, port) hosts it covers) for every host_nic given."""
    topology = intent.topology
    generator = topology.leaf_spine or topology.clos
    if generator is not None:
        if generator.host_nic is None:
            return []
        name = "leaf_spine" if topology.leaf_spine is not None else "clos"
        return [(("topology", name, "host_nic"), generator.host_nic, lambda switch, port: True)]
    named: list[tuple[tuple[str | int, ...], str, Callable[[str, str], bool]]] = []
    for s, switch in enumerate(topology.switches or []):
        for p, port in enumerate(switch.ports):
            if port.host_nic is not None:
                named.append((("topology", "switches", s, "ports", p, "host_nic"), port.host_nic,
                              _covers(switch.name, frozenset(expand_port_names(port.name)))))
    return named


def _covers(owner: str, ports: frozenset[str]) -> Callable[[str, str], bool]:
    def covers(switch: str, port: str) -> bool:
        return switch == owner and port in ports

    return covers


def host_nic_lookup(intent: Intent, topology: ResolvedTopology, source_map: SourceMap) -> Callable[[str, str], str]:
    """(switch, host port) -> the host's NIC profile name, after checking every named NIC at its
    field: the profile exists, runs at the host link's speed, and runs DCQCN if a class needs it."""
    named = _named(intent)
    needs_dcqcn = [c.name for c in intent.classes if transport(c.transport).host.nic_dcqcn]
    by_port: dict[tuple[str, str], str] = {}
    for path, name, covers in named:
        try:
            profile = load_host_nic(name)
        except QosforgeError as error:
            raise source_map.error(path, error.message, error.hint) from None
        for switch in topology.switches:
            for port in switch.ports:
                if port.peer != "host" or not covers(switch.name, port.name):
                    continue
                if not profile.runs_at(port.speed_bps):
                    speeds = ", ".join(f"{s / 1e9:g}G" for s in profile.speeds_bps)
                    raise source_map.error(path, f"host NIC {profile.name} does not run at {port.speed_bps / 1e9:g}G "
                                                 f"(host of {switch.name}:{port.name}); it runs at {speeds} ({profile.speeds_source.strip()})",
                                           "use a NIC that runs at the host link's speed, or change the host link's speed")
                by_port[(switch.name, port.name)] = profile.name
        if needs_dcqcn and not profile.dcqcn:
            raise source_map.error(path, f"class '{needs_dcqcn[0]}' runs DCQCN in the senders' NICs, but host NIC {profile.name} has none "
                                         f"({profile.dcqcn_source.strip()})", "name a RoCE NIC with DCQCN, e.g. nvidia-connectx-6dx")

    def lookup(switch: str, port: str) -> str:
        return by_port.get((switch, port), DEFAULT_HOST_NIC)

    return lookup


__all__ = ["host_nic_lookup"]
