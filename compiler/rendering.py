"""The render loop: every file of every target the fabric was compiled for, read from the target
registry (backends/registry.py), with a value a target refuses placed at the intent field behind it
(compiler/rendered_inputs.py) instead of escaping as the target's own error."""

from __future__ import annotations

from collections.abc import Iterator

from qosforge.backends.registry import RenderedFile, RenderValueError, get_target
from qosforge.compiler.intent import Intent
from qosforge.compiler.loader import SourceMap
from qosforge.ir import FabricIR


def render_fabric_targets(
    fabric: FabricIR, intent: Intent, source_map: SourceMap
) -> Iterator[tuple[str, RenderedFile]]:
    """(target name, file) for every file of every selected target, in target order."""
    for target_name in fabric.targets:
        switches = fabric.for_target(target_name)
        try:
            for output in get_target(target_name).render(switches):
                yield target_name, output
        except RenderValueError as error:
            from qosforge.compiler.rendered_inputs import rendered_value_error

            raise rendered_value_error(error, switches, intent, source_map) from None


__all__ = ["render_fabric_targets"]
