"""``qosforge explain --host KIND --path NAME``: how a host setting was derived (its model,
formula, inputs and source), by the stable name host_settings.json gives it
(``ecn.roce_rp.rpg_ai_rate``, ``net.ipv4.tcp_ecn``)."""

from __future__ import annotations

import difflib

from qosforge.backends.host.settings import HostKind
from qosforge.backends.phases import Explanation
from qosforge.errors import QosforgeError


def explain_host_value(kinds: tuple[HostKind, ...], kind_name: str, name: str) -> Explanation:
    kind = next((k for k in kinds if k.name == kind_name), None)
    if kind is None:
        raise QosforgeError(f"no host kind {kind_name!r}", place="--host", hint=f"host kinds: {', '.join(k.name for k in kinds) or 'none'}")
    value = kind.value(name)
    if value is None:
        names = [v.name for v in kind.values]
        close = difflib.get_close_matches(name, names, n=3) or names[:5]
        raise QosforgeError(f"host kind {kind.name} has no setting {name!r}", place="--path", hint=f"try {', '.join(close)}")
    derived = value.derived
    provenance = derived.provenance
    steps = tuple(d for d in provenance.derivations if d.quantity == derived.quantity) or provenance.derivations
    others = tuple(d for d in provenance.derivations if d not in steps)
    shown = f"{value.value:g}" if isinstance(value.value, float) else str(value.value)
    return Explanation(path=name, rendered=f"{shown} {value.unit} ({value.form}{': ' + value.apply if value.apply else ''})".replace("  ", " "),
                       value=derived.value, unit=derived.unit, model=provenance.model, quantity=derived.quantity,
                       inputs=provenance.inputs, derivations=others + steps)


__all__ = ["explain_host_value"]
