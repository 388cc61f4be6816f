"""The ``sonic`` target: config_db.json per switch (registered in qosforge.backends.registry)."""

from __future__ import annotations

from collections.abc import Iterator

from qosforge.backends.registry import RenderedFile, Target
from qosforge.backends.sonic.capabilities import APPROXIMATIONS, TARGET_NAME, sonic_view
from qosforge.ir import SwitchIR


def _render(switches: tuple[SwitchIR, ...]) -> Iterator[RenderedFile]:
    from qosforge.backends.sonic.render import config_db_to_json, render_fabric

    texts: dict[int, str] = {}
    for switch, config in render_fabric(switches):
        if id(config) not in texts:  # one encoding per switch kind
            texts[id(config)] = config_db_to_json(config)
        yield RenderedFile(switch.name, "config_db.json", texts[id(config)])


TARGET = Target(
    name=TARGET_NAME,
    description="SONiC CONFIG_DB QoS and buffer tables",
    file_names=("config_db.json",),
    view=sonic_view,
    render=_render,
    approximations=APPROXIMATIONS,
)
