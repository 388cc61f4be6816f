"""Fabric report: what the compiler decided for every switch and class, and why.

:func:`report_to_json` is the stable machine form (``--format json``); :func:`render_report_table`
prints the same content with rich. Both read only the :class:`~qosforge.ir.FabricIR`.

JSON layout (keys are stable; new keys may be added, none are renamed or removed)::

    {
      "schema": "qosforge.report/v1",
      "fabric": str, "source_file": str, "targets": [str],
      "target_models": {target: str},                  # e.g. openconfig: "openconfig-qos@2026-01-16 (...)"
      "switches": [{
        "name": str, "vendor_profile": str,
        "buffer": Q,                                   # ASIC shared buffer
        "pools": [{"name", "direction", "mode", "size": Q, "shared_headroom": Q | null,
                   "fraction_of_buffer": float}],      # (size + shared headroom) / buffer
        "pool_totals": {"ingress_bytes": float, "egress_bytes": float,
                        "ingress_fraction_of_buffer": float, "ingress_fits": bool},
        "classes": [{
          "name", "transport", "traffic_class": int, "queue": int,
          "priority_group": int | null, "lossless": bool, "dscp": [int], "important_dscp": [int],
          "rtt": Q, "bdp": Q,
          "thresholds": [Q + {"label": str}],          # ECN marking params, then TLT threshold K
          "speed_bps": float,                          # the port speed these thresholds are for
          "model_thresholds": [Q + {"label": str}],    # the model's marking where the intent stated
                                                       # its own (classes[].ecn); [] otherwise
          "warnings": [str],                           # stated marking > 2x off the model's
          "wred": [{"profile", "config_db_name": str | null, "color", "drop": bool, "mark": bool,
                    "min": Q, "max": Q, "probability": Q}],
                                                       # config_db_name: the WRED_PROFILE key the sonic
                                                       # target writes (AZURE_LOSSLESS), null without it
          "buffer_profiles": [{"name", "dynamic_th": Q | null, "static_th": Q | null}],
          "capacity": {"tlt_flows_without_important_loss": Q} | null,
          "host_settings": [Q]
        }],
        "pfc_headroom": [{"speed_bps": float, "cable_m": float, "ports": [str],
                          "profiles": [{"name", "size": Q, "xon": Q | null, "xoff": Q | null,
                                        "xon_offset": Q | null}]}],
        "gaps": [{"target", "class", "feature", "detail", "alternatives": [str],
                  "approximation": str | null, "status": "approximated" | "unresolved"}],
        "control_classes": [{"name", "purpose", "traffic_class": int, "queue": int, "dscp": [int],
                             "scheduler": "strict", "lossless": false, "source"}],
                                                       # CNP / FastLane notification classes
        "pfc_watchdog": {"detection_ms": int, "restoration_ms": int, "poll_interval_ms": int,
                         "action": str, "source": str} | null
      }]
    }

where ``Q`` (a :class:`~qosforge.ir.Derived` value) is
``{"value": float, "unit": str, "quantity": str, "model": str, "formula": str | null,
"source": str | null}`` — formula and source are the provenance's derivation of that quantity.
A threshold's ``label`` says what it is where models share a quantity name
(``ecn_marking_threshold_bytes`` for the transport's K, ``tlt_color_drop_threshold_bytes`` for
TLT's K); elsewhere it equals ``quantity``.
Lists keep IR order, except ``pfc_headroom`` (by speed, then cable length).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from qosforge.ir import (
    BufferProfileIR,
    CapabilityGap,
    ClassIR,
    Derived,
    FabricIR,
    SwitchIR,
)
from qosforge.units import format_value

SCHEMA = "qosforge.report/v1"


def quantity_to_json(derived: Derived | None) -> dict[str, Any] | None:
    if derived is None:
        return None
    derivation = derived.provenance.derivation_of(derived.quantity)
    return {
        "value": float(derived.value),
        "unit": derived.unit,
        "quantity": derived.quantity,
        "model": derived.provenance.model,
        "formula": None if derivation is None else derivation.formula,
        "source": None if derivation is None else derivation.source,
    }


def report_to_json(fabric: FabricIR) -> dict[str, Any]:
    """The fabric report as JSON-ready data (layout in the module docstring).

    Classes and numbers are the full plan; ``gaps`` collects what each target's view lost.
    """
    gaps: dict[str, tuple[CapabilityGap, ...]] = {}
    for view in fabric.views:
        for target_switch in view.switches:
            if target_switch.gaps:
                gaps[target_switch.name] = gaps.get(target_switch.name, ()) + target_switch.gaps
    sonic_names: dict[str, dict[str, str]] = {}
    if "sonic" in fabric.targets:
        from qosforge.backends.sonic.render import wred_profile_names

        sonic_names = {switch.name: wred_profile_names(switch) for switch in fabric.for_target("sonic")}
    return {
        "schema": SCHEMA,
        "fabric": fabric.name,
        "source_file": fabric.source_file,
        "targets": list(fabric.targets),
        "target_models": _target_models(fabric.targets),
        "switches": [_switch_json(switch, gaps.get(switch.name, ()), sonic_names.get(switch.name, {})) for switch in fabric.switches],
    }


def _target_models(targets: tuple[str, ...]) -> dict[str, str]:
    """The model each target renders against, where it names one (openconfig: the YANG revision)."""
    from qosforge.backends.registry import get_target

    return {name: model() for name in targets if (model := get_target(name).model) is not None}


def _pool_total(size: Derived, headroom: Derived | None) -> float:
    return float(size.value) + (float(headroom.value) if headroom is not None else 0.0)


def _switch_json(switch: SwitchIR, gaps: tuple[CapabilityGap, ...], config_db_names: dict[str, str]) -> dict[str, Any]:
    buffer_bytes = float(switch.buffer_bytes.value)
    totals = {"ingress": 0.0, "egress": 0.0}
    for pool in switch.pools:
        totals[pool.direction] += _pool_total(pool.size_bytes, pool.shared_headroom_bytes)
    return {
        "name": switch.name,
        "vendor_profile": switch.vendor_profile,
        "buffer": quantity_to_json(switch.buffer_bytes),
        "pools": [{
            "name": pool.name, "direction": pool.direction, "mode": pool.mode,
            "size": quantity_to_json(pool.size_bytes),
            "shared_headroom": quantity_to_json(pool.shared_headroom_bytes),
            "fraction_of_buffer": _pool_total(pool.size_bytes, pool.shared_headroom_bytes) / buffer_bytes,
        } for pool in switch.pools],
        "pool_totals": {
            "ingress_bytes": totals["ingress"],
            "egress_bytes": totals["egress"],
            "ingress_fraction_of_buffer": totals["ingress"] / buffer_bytes,
            # Ingress pools partition the buffer; egress pools may be upper bounds, and SONiC checks neither.
            "ingress_fits": totals["ingress"] <= buffer_bytes,
        },
        "classes": [_class_json(switch, cls, config_db_names) for cls in switch.classes],
        "pfc_headroom": _headroom_json(switch),
        "gaps": [{
            "target": gap.target, "class": gap.class_name, "feature": gap.feature,
            "detail": gap.detail, "alternatives": list(gap.alternatives),
            "approximation": gap.approximation,
            "status": "unresolved" if gap.approximation is None else "approximated",
        } for gap in (*switch.gaps, *gaps)],
        "control_classes": [{
            "name": c.name, "purpose": c.purpose, "traffic_class": c.traffic_class, "queue": c.queue,
            "dscp": list(c.dscp), "scheduler": "strict", "lossless": False, "source": c.source,
        } for c in switch.control_classes],
        "pfc_watchdog": None if switch.pfc_watchdog is None else {
            "detection_ms": switch.pfc_watchdog.detection_ms, "restoration_ms": switch.pfc_watchdog.restoration_ms,
            "poll_interval_ms": switch.pfc_watchdog.poll_interval_ms, "action": switch.pfc_watchdog.action,
            "source": switch.pfc_watchdog.source,
        },
    }


#: Marking quantities whose model name is ambiguous next to TLT's threshold (both "threshold_bytes").
_MARKING_LABELS = {"threshold_bytes": "ecn_marking_threshold_bytes"}


def _labelled(derived: Derived, label: str) -> dict[str, Any]:
    return {**(quantity_to_json(derived) or {}), "label": label}


def _class_json(switch: SwitchIR, cls: ClassIR, config_db_names: dict[str, str]) -> dict[str, Any]:
    queues = [q for port in switch.ports for q in port.queues if q.class_name == cls.name]
    wred_names = list(dict.fromkeys(q.wred_profile for q in queues if q.wred_profile is not None))
    wred = [{
        "profile": profile.name, "config_db_name": config_db_names.get(profile.name), "color": curve.color, "drop": curve.drop, "mark": curve.mark,
        "min": quantity_to_json(curve.min_bytes), "max": quantity_to_json(curve.max_bytes),
        "probability": quantity_to_json(curve.probability_percent),
    } for profile in switch.wred_profiles if profile.name in wred_names for curve in profile.curves]
    profile_names = list(dict.fromkeys(q.buffer_profile for q in queues))
    thresholds = [_labelled(d, _MARKING_LABELS.get(d.quantity, d.quantity)) for d in cls.marking]
    if cls.tlt_threshold_bytes is not None:
        thresholds.append(_labelled(cls.tlt_threshold_bytes, "tlt_color_drop_threshold_bytes"))
    return {
        "name": cls.name,
        "transport": cls.transport,
        "traffic_class": cls.traffic_class,
        "queue": cls.queue,
        "priority_group": cls.priority_group,
        "lossless": cls.lossless,
        "dscp": list(cls.dscp),
        "important_dscp": list(cls.important_dscp),
        "rtt": quantity_to_json(cls.rtt_s),
        "bdp": quantity_to_json(cls.bdp_bytes),
        "thresholds": thresholds,
        "speed_bps": float(cls.rate_bps),
        "model_thresholds": [_labelled(d, _MARKING_LABELS.get(d.quantity, d.quantity)) for d in cls.model_marking],
        "warnings": list(cls.warnings),
        "wred": wred,
        "buffer_profiles": [{
            "name": p.name, "dynamic_th": quantity_to_json(p.dynamic_th),
            "static_th": quantity_to_json(p.static_th_bytes),
        } for p in switch.buffer_profiles if p.name in profile_names],
        "capacity": None if cls.tlt_flows_without_important_loss is None else {
            "tlt_flows_without_important_loss": quantity_to_json(cls.tlt_flows_without_important_loss),
        },
        "host_settings": [quantity_to_json(d) for d in cls.host_settings],
    }


def _headroom_json(switch: SwitchIR) -> list[dict[str, Any]]:
    """Lossless PG profiles grouped by port signature (speed, cable): what decides PFC headroom."""
    profiles = {p.name: p for p in switch.buffer_profiles}
    groups: dict[tuple[float, float], tuple[list[str], list[BufferProfileIR]]] = {}
    for port in switch.ports:
        lossless = [profiles[pg.buffer_profile] for pg in port.priority_groups
                    if pg.lossless and pg.buffer_profile in profiles]
        if not lossless:
            continue
        ports, used = groups.setdefault((port.speed_bps, port.cable_m), ([], []))
        ports.append(port.name)
        used.extend(p for p in lossless if p not in used)
    return [{
        "speed_bps": float(speed), "cable_m": float(cable), "ports": ports,
        "profiles": [{
            "name": p.name, "size": quantity_to_json(p.reserved_bytes),
            "xon": quantity_to_json(p.xon_bytes), "xoff": quantity_to_json(p.xoff_bytes),
            "xon_offset": quantity_to_json(p.xon_offset_bytes),
        } for p in used],
    } for (speed, cable), (ports, used) in sorted(groups.items())]


# ---------------------------------------------------------------------------------------------
# Human form


def format_quantity(q: dict[str, Any] | None) -> str:
    if q is None:
        return "-"
    return format_value(float(q["value"]), q["unit"])


def _with_source(q: dict[str, Any]) -> str:
    where = q["source"] or q["model"]
    formula = f"{q['formula']}; " if q["formula"] else ""
    return f"{q.get('label', q['quantity'])} = {format_quantity(q)}  [{formula}{where}]"


def render_report_table(fabric: FabricIR, console: Console) -> None:
    """Print the report: per switch, classes, PFC headroom, pools and capability gaps."""
    report = report_to_json(fabric)
    console.print(f"[bold]Fabric {report['fabric']}[/bold] ({report['source_file']}), "
                  f"targets: {', '.join(report['targets']) or '-'}")
    for switch in report["switches"]:
        console.rule(f"{switch['name']} ({switch['vendor_profile']}), buffer "
                     f"{format_quantity(switch['buffer'])}")
        console.print(_classes_table(switch))
        if switch["pfc_headroom"]:
            console.print(_headroom_table(switch))
        console.print(_pools_table(switch))
        if switch["gaps"]:
            console.print(_gaps_table(switch))


def _config_db_alias(wred: dict[str, Any]) -> str:
    """`` (config_db AZURE_LOSSLESS)`` where config_db names the profile otherwise."""
    name = wred.get("config_db_name")
    return f" (config_db {name})" if name and name != wred["profile"] else ""


def _classes_table(switch: dict[str, Any]) -> Table:
    table = Table(title="Classes: thresholds and capacities", show_lines=True)
    for column in ("class", "transport", "TC/queue/PG", "thresholds (value, formula, source)", "capacity"):
        table.add_column(column)
    for cls in switch["classes"]:
        lines = [_with_source(q) for q in cls["thresholds"]]
        lines += [f"model's recommendation: {_with_source(q)}" for q in cls["model_thresholds"]]
        lines += [f"[yellow]warning: {text}[/yellow]" for text in cls["warnings"]]
        lines += [f"WRED {w['profile']}{_config_db_alias(w)} {w['color']} {'drop' if w['drop'] else ''}"
                  f"{'+' if w['drop'] and w['mark'] else ''}{'mark' if w['mark'] else ''}: "
                  f"{format_quantity(w['min'])}..{format_quantity(w['max'])} "
                  f"@ {format_quantity(w['probability'])}" for w in cls["wred"]]
        capacity = "-"
        if cls["capacity"] is not None:
            capacity = _with_source(cls["capacity"]["tlt_flows_without_important_loss"])
        pg = "-" if cls["priority_group"] is None else str(cls["priority_group"])
        kind = f"{cls['transport']}{' (lossless)' if cls['lossless'] else ''}"
        name = f"{cls['name']} @ {format_value(cls['speed_bps'], 'bps')}" if cls["speed_bps"] else cls["name"]
        table.add_row(name, kind, f"{cls['traffic_class']}/{cls['queue']}/{pg}",
                      "\n".join(lines) or "-", capacity)
    for control in switch["control_classes"]:
        table.add_row(control["name"], "signalling (lossy, strict priority)",
                      f"{control['traffic_class']}/{control['queue']}/-",
                      f"DSCP {', '.join(str(d) for d in control['dscp'])}: {control['purpose']}  [{control['source']}]", "-")
    return table


def _headroom_table(switch: dict[str, Any]) -> Table:
    table = Table(title="PFC headroom per port signature")
    for column in ("speed", "cable", "ports", "profile", "xoff", "xon", "size"):
        table.add_column(column)
    for group in switch["pfc_headroom"]:
        for profile in group["profiles"]:
            table.add_row(format_value(group["speed_bps"], "bps"), f"{group['cable_m']:g} m",
                          ", ".join(group["ports"]), profile["name"], format_quantity(profile["xoff"]),
                          format_quantity(profile["xon"]), format_quantity(profile["size"]))
    return table


def _pools_table(switch: dict[str, Any]) -> Table:
    table = Table(title=f"Pools vs ASIC buffer {format_quantity(switch['buffer'])}")
    for column in ("pool", "direction", "mode", "size", "shared headroom", "of buffer"):
        table.add_column(column)
    for pool in switch["pools"]:
        table.add_row(pool["name"], pool["direction"], pool["mode"], format_quantity(pool["size"]),
                      format_quantity(pool["shared_headroom"]), f"{pool['fraction_of_buffer']:.1%}")
    totals = switch["pool_totals"]
    verdict = "fits" if totals["ingress_fits"] else "[red]OVERCOMMITTED[/red]"
    table.add_row("ingress total", "", "", format_value(totals["ingress_bytes"], "B"), "",
                  f"{totals['ingress_fraction_of_buffer']:.1%} {verdict}")
    return table


def _gaps_table(switch: dict[str, Any]) -> Table:
    table = Table(title="Capability gaps and approximations")
    for column in ("target", "class", "feature", "detail", "status", "alternatives"):
        table.add_column(column)
    for gap in switch["gaps"]:
        status = f"approximated: {gap['approximation']}" if gap["approximation"] else "[red]unresolved[/red]"
        table.add_row(gap["target"], gap["class"], gap["feature"], gap["detail"], status,
                      ", ".join(gap["alternatives"]))
    return table
