"""The ``sonic`` target: config_db.json per switch (registered in qosforge.backends.registry), with
explain (TABLE/KEY/FIELD), ``--base`` (a GCU patch), the file lint reads and refused values as
:class:`~qosforge.backends.phases.RenderValueError`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from qosforge.backends.phases import (
    Explainer,
    Explanation,
    LintReader,
    Patcher,
    PatchResult,
    RenderedText,
)
from qosforge.backends.registry import RenderedFile, Target
from qosforge.backends.sonic.capabilities import APPROXIMATIONS, TARGET_NAME, sonic_view
from qosforge.ir import SwitchIR

FILE_NAME = "config_db.json"


def _render(switches: tuple[SwitchIR, ...]) -> Iterator[RenderedFile]:
    from qosforge.backends.sonic.explain import value_error
    from qosforge.backends.sonic.render import (
        ConfigDbViolationError,
        config_db_to_json,
        render_fabric,
    )

    texts: dict[int, str] = {}
    try:
        for switch, config in render_fabric(switches):
            if id(config) not in texts:  # one encoding per switch kind
                texts[id(config)] = config_db_to_json(config)
            yield RenderedFile(switch.name, FILE_NAME, texts[id(config)])
    except ConfigDbViolationError as error:  # a value computed from an input no check bounds: bad input
        from qosforge.backends.sonic.explain import value_error

        refused = value_error(next(s for s in switches if s.name == error.switch), error.violations)
        if refused is None:
            raise  # a structural violation: the renderer's bug (exit 70)
        raise refused from None


def _explain(switches: tuple[SwitchIR, ...], switch_name: str, path: str) -> Explanation:
    from qosforge.backends.sonic.explain import explain_value

    return explain_value(next(s for s in switches if s.name == switch_name), path)


def _patch(base: Path, rendered: tuple[RenderedText, ...], switches: tuple[SwitchIR, ...], output_root: Path) -> Iterable[PatchResult]:
    from qosforge.backends.sonic.patch import gcu_patches

    return gcu_patches(base, rendered, switches, output_root)


def _parse(tables: Any, **options: Any) -> Any:
    from qosforge.backends.sonic.parse import parse_config_db

    return parse_config_db(tables, **options)


TARGET = Target(
    name=TARGET_NAME,
    description="SONiC CONFIG_DB QoS and buffer tables",
    file_names=(FILE_NAME,),
    view=sonic_view,
    render=_render,
    approximations=APPROXIMATIONS,
    explain=Explainer("switch", "a config_db value TABLE/KEY/FIELD, e.g. WRED_PROFILE/bulk_40G/green_max_threshold", _explain),
    patch=Patcher("a GCU patch moves a SONiC config_db", _patch),
    lint=LintReader(FILE_NAME, "SONiC config_db.json", _parse),
)
