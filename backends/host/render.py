"""Render a host kind in the forms operators apply: a sysctl.d file, a NIC setup script (mlx5:
mlnx_qos, sysfs, rdma_cm configfs) and host_settings.json with every value, its unit, the
command that applies it and its provenance (the document ``lint --hosts`` and ``simulate
--hosts`` read back, :mod:`qosforge.backends.host.document`)."""

from __future__ import annotations

import json
from typing import Any

from qosforge.backends.host.document import DOCUMENT_FORMAT
from qosforge.backends.host.settings import (
    HostKind,
    HostValue,
    route_attributes,
    route_requests_ecn,
)
from qosforge.provenance import to_jsonable

SYSCTL_FILE = "99-qosforge.conf"
NIC_SCRIPT = "nic-setup.sh"
ROUTES_SCRIPT = "tcp-routes.sh"
DOCUMENT_FILE = "host_settings.json"


def render_sysctl(kind: HostKind) -> str:
    """A sysctl.d(5) file: apply with ``sysctl -p FILE`` or install in /etc/sysctl.d/."""
    lines = [f"# qosforge host settings for host kind {kind.name} ({kind.nic.name}, {kind.speed_bps / 1e9:g}G)",
             "# Install as /etc/sysctl.d/99-qosforge.conf, or apply now with: sysctl -p 99-qosforge.conf",
             "# Every key is per network namespace (Linux Documentation/networking/ip-sysctl.rst)."]
    kernel = [v for v in kind.values if v.form == "sysctl"]
    if not kernel:
        lines.append("# No kernel-wide setting is needed for this host's classes (a TCP class's ECN, "
                     "minimum RTO and initial window are per route: tcp-routes.sh).")
    for value in kernel:
        lines.append(f"# {value.knob_source}")
        if value.note:
            lines.append(f"# note: {value.note}")
        lines.append(value.apply)
    manual = [v for v in kind.values if v.form == "manual" and v.name.startswith("class.")]
    for value in manual:
        lines.append(f"# manual: {value.name} = {value.value}: {value.note}")
    return "\n".join(lines) + "\n"


def render_nic_script(kind: HostKind) -> str:
    """A POSIX shell script of the NIC commands (empty of commands when the NIC has none)."""
    lines = ["#!/bin/sh",
             f"# qosforge NIC settings for host kind {kind.name} ({kind.nic.name}, {kind.speed_bps / 1e9:g}G).",
             "# Usage: sh nic-setup.sh IFACE RDMA_DEVICE   (e.g. sh nic-setup.sh ens1f0np0 mlx5_0)",
             "# Run as root; configfs must be mounted at /sys/kernel/config (Documentation/ABI/testing/configfs-rdma_cm).",
             "set -eu",
             'IFACE="${1:?usage: nic-setup.sh IFACE RDMA_DEVICE}"',
             'RDMA_DEV="${2:-}"']
    commands = [v for v in kind.values if v.form in ("mlnx_qos", "sysfs", "configfs")]
    if not commands:
        lines.append(f"# {kind.nic.name}: no NIC command is rendered (see host_settings.json 'manual').")
    source = None
    for value in commands:
        if value.form == "configfs":
            lines.append('[ -n "$RDMA_DEV" ] || { echo "nic-setup.sh: RDMA_DEVICE is needed for the rdma_cm settings" >&2; exit 2; }')
        # A run of values from one source (the DSCP map's 64 entries) names it once.
        cited = f"  ({value.knob_source})" if value.knob_source != source else ""
        source = value.knob_source
        lines.append(f"# {value.name} = {value.value} {value.unit}".rstrip() + cited)
        lines.append(value.apply)
    manual = [v for v in kind.values if v.form == "manual" and not v.name.startswith("class.")]
    for value in manual:
        lines.append(f"# manual: {value.name} = {value.value:g} {value.unit}: {value.note}" if isinstance(value.value, float)
                     else f"# manual: {value.name} = {value.value} {value.unit}: {value.note}")
    return "\n".join(lines) + "\n"


#: The per-class values tcp-routes.sh sets (HostValue names ``class.<name>.<attribute>``).
ROUTE_ATTRIBUTES = ("rto_min", "initcwnd", "congctl", "features")


def render_routes(kind: HostKind) -> str:
    """A POSIX shell script that gives one class's routes the minimum RTO, initial window and
    congestion control the intent states (ip-route(8) rto_min, initcwnd, congctl): routes are
    per destination, so the operator names the class's peers' prefix and the route to them."""
    usage = "usage: tcp-routes.sh CLASS DESTINATION ROUTE..."
    # Each class with its route values (tcp-routes.sh's attributes), the classes with none left out.
    stated_of = {c.name: [v for v in kind.values
                          if v.name in {f"class.{c.name}.{a}" for a in ROUTE_ATTRIBUTES}]
                 for c in kind.classes}
    classes = [c for c in kind.classes if stated_of[c.name]]
    # The example names a class of this intent, one the script takes where there is one.
    example = next((c.name for c in [*classes, *kind.classes]), "CLASS")
    lines = ["#!/bin/sh",
             f"# qosforge TCP route attributes for host kind {kind.name} "
             f"({kind.nic.name}, {kind.speed_bps / 1e9:g}G).",
             "# Usage: sh tcp-routes.sh CLASS DESTINATION ROUTE...   "
             f"(e.g. sh tcp-routes.sh {example} 10.1.0.0/16 via 10.0.0.1 dev eth0)",
             "# Replaces the route to DESTINATION, the prefix of the class's peers, with",
             "# ROUTE... and the class's attributes:",
             "# ip route replace DESTINATION ROUTE... ATTRIBUTES. Run as root."]
    if not classes:
        lines.append("# No class of this host kind states a minimum RTO or initial window: Linux's "
                     "defaults hold (200 ms, 10 segments).")
    lines += ["set -eu", f'CLASS="${{1:?{usage}}}"', f'DESTINATION="${{2:?{usage}}}"', "shift 2",
              'case "$CLASS" in']
    for klass in classes:
        said = ", ".join(f"{v.name.rsplit('.', 1)[1]} = {v.value} {v.unit}".rstrip()
                         for v in stated_of[klass.name])
        lines.append(f"  # {klass.name}: {said} (ip-route(8); host_settings.json has the sources)")
        lines.append(f'  {klass.name}) ip route replace "$DESTINATION" "$@" '
                     f"{route_attributes(klass)} ;;")
    names = ", ".join(c.name for c in classes) or "none"
    lines.append(f'  *) echo "tcp-routes.sh: no route attributes for class $CLASS '
                 f'(classes: {names})" >&2; exit 2 ;;')
    lines.append("esac")
    return "\n".join(lines) + "\n"


def _value_json(value: HostValue) -> dict[str, Any]:
    return {"name": value.name, "value": value.value, "unit": value.unit, "form": value.form, "apply": value.apply,
            "knob_source": value.knob_source, "note": value.note, "provenance": to_jsonable(value.derived.provenance)}


def host_document(kind: HostKind) -> dict[str, Any]:
    """host_settings.json: the summary ``lint --hosts`` and ``simulate --hosts`` read, and every value."""
    dcqcn = None
    if kind.dcqcn is not None:
        dcqcn = {"rp_priorities": list(kind.rp_priorities), "np_priorities": list(kind.np_priorities),
                 "rai_bps": kind.dcqcn.rai_bps, "rhai_bps": kind.dcqcn.rhai_bps, "timer_s": kind.dcqcn.timer_s,
                 "byte_counter_bytes": kind.dcqcn.byte_counter_bytes, "fast_recovery_stages": int(kind.dcqcn.fast_recovery_stages),
                 "g": kind.dcqcn.g, "cnp_interval_s": kind.dcqcn.cnp_interval_s, "min_rate_bps": kind.dcqcn.min_rate_bps}
    return {
        "format": DOCUMENT_FORMAT,
        "host_kind": kind.name,
        "nic": {"profile": kind.nic.name, "vendor": kind.nic.vendor, "driver": kind.nic.driver, "speed_bps": kind.speed_bps},
        "attachments": [{"switch": switch, "port": port} for switch, port in kind.attachments],
        "qos": {
            "trust": kind.trust,
            "dscp_to_priority": {str(d): p for d, p in kind.dscp_to_priority},
            "pfc_priorities": list(kind.pfc_priorities),
            "cnp": None if kind.cnp_dscp is None else {"dscp": kind.cnp_dscp, "priority": kind.cnp_priority},
            "dcqcn": dcqcn,
        },
        "kernel": {"tcp_congestion_control": kind.tcp_congestion_control, "tcp_ecn": kind.tcp_ecn,
                   "tcp_rto_min_us": kind.tcp_rto_min_us},
        "classes": [{"name": c.name, "transport": c.transport, "dscp": list(c.dscp), "priority": c.priority, "lossless": c.lossless,
                     "congestion_control": c.congestion_control, "ecn": c.ecn,
                     "route_ecn": route_requests_ecn(c), "rto_min_s": c.rto_min_s,
                     "initial_window_segments": c.initial_window_segments} for c in kind.classes],
        "values": [_value_json(v) for v in kind.values if v.form != "manual"],
        "manual": [_value_json(v) for v in kind.values if v.form == "manual"],
    }


def render_document(kind: HostKind) -> str:
    return json.dumps(host_document(kind), indent=2) + "\n"


__all__ = ["DOCUMENT_FILE", "NIC_SCRIPT", "ROUTES_SCRIPT", "SYSCTL_FILE", "host_document",
           "render_document", "render_nic_script", "render_routes", "render_sysctl"]
