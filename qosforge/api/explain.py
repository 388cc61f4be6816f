"""``explain``: how one rendered value was derived (model, formula, inputs, paper section).

A switch's value (a config_db path such as ``WRED_PROFILE/bulk_40G/green_max_threshold``) or a
host setting (``ecn.roce_rp.rpg_ai_rate`` of ``compile --target host``): the intent is compiled
for the one target that explains that kind of subject (its explain phase,
backends/phases.py), and the phase answers with an :class:`~qosforge.backends.phases.Explanation`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.backends.phases import Explanation as Explanation


class ExplainUsageError(QosforgeError):
    """Request fields that cannot go together (the CLI reports it as a usage error, exit 2)."""


@dataclass(frozen=True)
class ExplainRequest:
    """``switch`` (a config_db value) or ``host`` (a host kind's setting), not both."""

    intent_path: str
    value_path: str
    switch: str | None = None
    host: str | None = None
    target: str | None = None
    """None: the first registered target that explains this kind of subject."""
    approximations: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExplainResult:
    subject: str
    """The switch or host kind whose value this is."""
    target: str
    explanation: Explanation


def explain(request: ExplainRequest) -> ExplainResult:
    """Compile the intent for the explaining target and explain ``request.value_path``."""
    from qosforge.api.compile import compile_fabric
    from qosforge.backends.registry import get_target, require_phase, targets_supporting

    if request.switch is not None and request.host is not None:
        raise ExplainUsageError(
            "--switch and --host explain different things: give --switch NAME (a config_db value) "
            "or --host KIND (a host setting), not both"
        )
    if request.switch is None and request.host is None:
        raise ExplainUsageError(
            "give --switch NAME (a config_db value) or --host KIND (a host setting)"
        )
    subject_kind = "host" if request.host is not None else "switch"
    subject = request.host if request.host is not None else request.switch
    assert subject is not None  # one of switch / host, checked above
    target_name = request.target
    if target_name is None:  # the first target that explains this kind of subject
        target_name = next(
            name
            for name in targets_supporting("explain")
            if (e := get_target(name).explain) is not None and e.subject == subject_kind
        )
    explainer = require_phase(target_name, "explain").explain
    assert explainer is not None  # require_phase refuses a target without the phase
    if explainer.subject != subject_kind:
        raise ExplainUsageError(
            f"target '{target_name}' explains a {explainer.subject}'s values: "
            f"give --{explainer.subject}, not --{subject_kind}"
        )
    switches = (subject,) if subject_kind == "switch" else ()
    fabric = compile_fabric(
        request.intent_path, switches, request.approximations, (target_name,)
    ).fabric
    explanation = explainer.explain(fabric.for_target(target_name), subject, request.value_path)
    return ExplainResult(subject, target_name, explanation)


__all__ = ["ExplainRequest", "ExplainResult", "ExplainUsageError", "explain"]
