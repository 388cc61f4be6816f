"""SAI programs for a whole fabric, rendered and validated once per kind of switch.

A switch's SAI program depends on its IR but not on its name or its ports' peers (those only
label the program and its port contexts). Switches whose IR is equal apart from those — every
leaf of a pod, every spine — share one rendered, validated program; each gets it with its own
name and port peers. SONiC's ``render_fabric`` shares its configs the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from qosforge.backends.sai.memo import BoundedMemo
from qosforge.backends.sai.program import SaiProgram
from qosforge.backends.sai.render import render_sai_program
from qosforge.ir import SwitchIR


def _kind(switch: SwitchIR) -> SwitchIR:
    """The switch without what its program does not depend on."""
    return replace(switch, name="", ports=tuple(replace(port, peer=None) for port in switch.ports))


def render_sai_fabric(switches: Iterable[SwitchIR]) -> Iterator[tuple[SwitchIR, SaiProgram]]:
    """Each switch with its validated SAI program (a bad program raises for the first switch of
    its kind, naming that switch)."""
    programs: BoundedMemo[SaiProgram] = BoundedMemo()
    for switch in switches:
        shared = programs.get(_kind(switch), lambda switch=switch: render_sai_program(switch))  # type: ignore[misc]
        if shared.switch_name == switch.name:
            yield switch, shared
            continue
        ports = tuple(
            replace(context, peer=port.peer)
            for context, port in zip(shared.ports, switch.ports, strict=True)
        )
        yield switch, replace(shared, switch_name=switch.name, ports=ports)


__all__ = ["render_sai_fabric"]
