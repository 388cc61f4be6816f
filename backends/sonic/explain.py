"""``qosforge explain`` for SONiC: map a config_db value back to the IR number it was rendered
from, and so to its model, formula, inputs and paper section (DESIGN.md §5).

Names are resolved with the renderer's own :func:`choose_names`, so the paths accepted here are
exactly the rendered ones (``TABLE/KEY/FIELD``, e.g. ``WRED_PROFILE/bulk_40G/green_max_threshold``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from qosforge.backends.sonic.render import choose_names, render_config_db
from qosforge.ir import Derived, SwitchIR
from qosforge.errors import QosforgeError
from qosforge.provenance import Derivation, InputValue


@dataclass(frozen=True)
class Explanation:
    path: str
    rendered: str
    value: float
    unit: str
    model: str
    quantity: str
    inputs: tuple[InputValue, ...]
    derivations: tuple[Derivation, ...]


def provenance_index(switch: SwitchIR) -> dict[str, Derived]:
    """Every numeric config_db value of ``switch`` that comes from a model, by TABLE/KEY/FIELD."""
    names = choose_names(switch)
    index: dict[str, Derived] = {}
    for pool in switch.pools:
        name = names.pools.get(pool.name, pool.name)
        index[f"BUFFER_POOL/{name}/size"] = pool.size_bytes
        if pool.shared_headroom_bytes is not None:
            index[f"BUFFER_POOL/{name}/xoff"] = pool.shared_headroom_bytes
    rendered_profile_names: dict[str, set[str]] = {p.name: {p.name} for p in switch.buffer_profiles}
    for port in switch.ports:
        renamed = names.lossless_pg_profile.get(port.name)
        if renamed is None:
            continue
        for group in port.priority_groups:
            if group.lossless:
                rendered_profile_names[group.buffer_profile].add(renamed)
    for profile in switch.buffer_profiles:
        fields = {
            "size": profile.reserved_bytes,
            "dynamic_th": profile.dynamic_th,
            "static_th": profile.static_th_bytes,
            "xon": profile.xon_bytes,
            "xoff": profile.xoff_bytes,
            "xon_offset": profile.xon_offset_bytes,
        }
        for name in rendered_profile_names[profile.name]:
            for field, derived in fields.items():
                if derived is not None:
                    index[f"BUFFER_PROFILE/{name}/{field}"] = derived
    for wred in switch.wred_profiles:
        name = names.wred[wred.name]
        for curve in wred.curves:
            index[f"WRED_PROFILE/{name}/{curve.color}_min_threshold"] = curve.min_bytes
            index[f"WRED_PROFILE/{name}/{curve.color}_max_threshold"] = curve.max_bytes
            index[f"WRED_PROFILE/{name}/{curve.color}_drop_probability"] = curve.probability_percent
    for scheduler in switch.schedulers:
        if scheduler.max_rate_bytes_per_s is not None:
            index[f"SCHEDULER/{scheduler.name}/cir"] = scheduler.max_rate_bytes_per_s
            index[f"SCHEDULER/{scheduler.name}/pir"] = scheduler.max_rate_bytes_per_s
    return index


def explain_value(switch: SwitchIR, path: str) -> Explanation:
    """How the config_db value at ``path`` on ``switch`` was derived."""
    config = render_config_db(switch)
    parts = path.strip("/").split("/")
    if len(parts) != 3:
        raise QosforgeError(f"{path!r} is not TABLE/KEY/FIELD", place="--path", hint="e.g. BUFFER_POOL/ingress_lossless_pool/size")
    table, key, field = parts
    index = provenance_index(switch)
    normalized = f"{table}/{key}/{field}"
    rendered = config.get(table, {}).get(key, {}).get(field)
    if normalized not in index:
        if rendered is not None:
            raise QosforgeError(
                f"{normalized} = {rendered!r} is a fixed encoding choice, not a model output",
                place="--path",
                hint="see backends/sonic/render.py for how names, maps and enums are chosen",
            )
        close = difflib.get_close_matches(normalized, list(index), n=3)
        known = close or sorted(index)[:5]
        raise QosforgeError(f"{switch.name} has no config_db value {normalized}", place="--path", hint=f"try {', '.join(known)}")
    derived = index[normalized]
    provenance = derived.provenance
    steps = tuple(d for d in provenance.derivations if d.quantity == derived.quantity) or provenance.derivations
    others = tuple(d for d in provenance.derivations if d not in steps)
    return Explanation(
        path=normalized,
        rendered=str(rendered),
        value=derived.value,
        unit=derived.unit,
        model=provenance.model,
        quantity=derived.quantity,
        inputs=provenance.inputs,
        derivations=others + steps,
    )
