"""The ``sai`` target: sai.json and sairedis.rec per switch (registered in
qosforge.backends.registry)."""

from __future__ import annotations

from collections.abc import Iterator

from qosforge.backends.registry import RenderedFile, Target
from qosforge.backends.sai.capabilities import APPROXIMATIONS, TARGET_NAME, sai_view
from qosforge.ir import SwitchIR


def _render(switches: tuple[SwitchIR, ...]) -> Iterator[RenderedFile]:
    from qosforge.backends.sai import program_to_json, program_to_recording, render_sai_fabric

    # Every program is rendered and validated (once per switch kind) before any file is yielded.
    for switch, program in render_sai_fabric(switches):
        yield RenderedFile(switch.name, "sai.json", program_to_json(program))
        yield RenderedFile(switch.name, "sairedis.rec", program_to_recording(program))


TARGET = Target(
    name=TARGET_NAME,
    description="SAI object graph (sai.json) and a sairedis recording",
    file_names=("sai.json", "sairedis.rec"),
    view=sai_view,
    render=_render,
    approximations=APPROXIMATIONS,
)
