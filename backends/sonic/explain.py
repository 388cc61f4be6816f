"""``qosforge explain`` for SONiC: map a config_db value back to the IR number it was rendered
from, and so to its model, formula, inputs and paper section (docs/architecture.md §5).

Names are resolved with the renderer's own :func:`choose_names`, so the paths accepted here are
exactly the rendered ones (``TABLE/KEY/FIELD``, e.g. ``WRED_PROFILE/bulk_40G/green_max_threshold``).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from qosforge.backends.phases import Explanation, IrPath, RenderValueError, ir_value
from qosforge.backends.sonic.checks.violation import Violation
from qosforge.backends.sonic.render import choose_names, render_config_db
from qosforge.errors import QosforgeError
from qosforge.ir import Derived, SwitchIR


def value_paths(switch: SwitchIR) -> dict[str, IrPath]:
    """Every config_db value of ``switch`` rendered from one IR value, by TABLE/KEY/FIELD: the path
    of that value in the IR (``explain`` reads its provenance there; a value SONiC refuses is
    raised at that path, for the compiler to place in the intent)."""
    names = choose_names(switch)
    index: dict[str, IrPath] = {}
    for p, pool in enumerate(switch.pools):
        name = names.pools.get(pool.name, pool.name)
        index[f"BUFFER_POOL/{name}/size"] = ("pools", p, "size_bytes")
        if pool.shared_headroom_bytes is not None:
            index[f"BUFFER_POOL/{name}/xoff"] = ("pools", p, "shared_headroom_bytes")
    rendered_profile_names: dict[str, set[str]] = {p.name: {p.name} for p in switch.buffer_profiles}
    for port in switch.ports:
        renamed = names.lossless_pg_profile.get(port.name)
        if renamed is None:
            continue
        for group in port.priority_groups:
            if group.lossless:
                rendered_profile_names[group.buffer_profile].add(renamed)
    for b, profile in enumerate(switch.buffer_profiles):
        fields = {
            "size": "reserved_bytes",
            "dynamic_th": "dynamic_th",
            "static_th": "static_th_bytes",
            "xon": "xon_bytes",
            "xoff": "xoff_bytes",
            "xon_offset": "xon_offset_bytes",
        }
        for name in rendered_profile_names[profile.name]:
            for field, attribute in fields.items():
                if getattr(profile, attribute) is not None:
                    index[f"BUFFER_PROFILE/{name}/{field}"] = ("buffer_profiles", b, attribute)
    for w, wred in enumerate(switch.wred_profiles):
        name = names.wred[wred.name]
        for c, curve in enumerate(wred.curves):
            curve_path = ("wred_profiles", w, "curves", c)
            index[f"WRED_PROFILE/{name}/{curve.color}_min_threshold"] = (*curve_path, "min_bytes")
            index[f"WRED_PROFILE/{name}/{curve.color}_max_threshold"] = (*curve_path, "max_bytes")
            index[f"WRED_PROFILE/{name}/{curve.color}_drop_probability"] = (*curve_path, "probability_percent")
    for s, scheduler in enumerate(switch.schedulers):
        if scheduler.max_rate_bytes_per_s is not None:
            index[f"SCHEDULER/{scheduler.name}/cir"] = ("schedulers", s, "max_rate_bytes_per_s")
            index[f"SCHEDULER/{scheduler.name}/pir"] = ("schedulers", s, "max_rate_bytes_per_s")
    if switch.pfc_watchdog is not None:  # whole milliseconds, not model outputs: no provenance
        for port in switch.ports:
            if port.pfc_priorities:
                index[f"PFC_WD/{port.name}/detection_time"] = ("pfc_watchdog", "detection_ms")
                index[f"PFC_WD/{port.name}/restoration_time"] = ("pfc_watchdog", "restoration_ms")
        index["PFC_WD/GLOBAL/POLL_INTERVAL"] = ("pfc_watchdog", "poll_interval_ms")
    return index


def provenance_index(switch: SwitchIR) -> dict[str, Derived]:
    """Every numeric config_db value of ``switch`` that comes from a model, by TABLE/KEY/FIELD."""
    values = {path: ir_value(switch, ir_path) for path, ir_path in value_paths(switch).items()}
    return {path: value for path, value in values.items() if isinstance(value, Derived)}


def value_error(switch: SwitchIR, violations: Sequence[Violation]) -> RenderValueError | None:
    """The first refused config_db *value* as a :class:`RenderValueError` at its IR path, or None
    when no violation is about a value (a structural one: the renderer's bug). A value no IR
    field maps to one-to-one is raised at the switch as a whole (its topology)."""
    values = [v for v in violations if v.field is not None]
    if not values:
        return None
    first = values[0]
    more = f" (and {len(values) - 1} more value(s))" if len(values) > 1 else ""
    return RenderValueError(
        switch.name, value_paths(switch).get(f"{first.table}/{first.key}/{first.field}", ()),
        f"switch '{switch.name}': the rendered config_db value {first.table}|{first.key}.{first.field} is refused: "
        f"{first.message}{more}; it is computed from this input",
        hint="bring this input into the range config_db takes (qosforge explain shows how the value is derived)",
    )


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


__all__ = ["Explanation", "explain_value", "provenance_index", "value_error", "value_paths"]
