"""Noise control: the same finding on many ports becomes one finding listing the ports.

SONiC configs repeat one entry per port (48-512 ports), so one mistake in a template shows up
once per port. Findings that differ only in the port they name (same file, rule, severity,
table, field, and message once the port is masked) are merged into the first one, whose message
then lists the ports and their count (``values["ports"]``, ``values["port_list"]``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from qosforge.lint.findings import Finding
from qosforge.lint.rules.helpers import ports_text

#: Tables keyed by port ([<host>|<asic>|]<port>[|<index>]).
_PORT_TABLES = frozenset({"BUFFER_PG", "BUFFER_QUEUE", "QUEUE", "PORT_QOS_MAP", "PFC_WD", "PORT",
                          "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"})
_MASK = "<port>"


def _port(finding: Finding) -> str | None:
    if finding.table == "CABLE_LENGTH" and finding.field:
        return finding.field  # CABLE_LENGTH|<name>.<port>
    if finding.table not in _PORT_TABLES or not finding.key:
        return None
    parts = finding.key.split("|")
    port = parts[2] if len(parts) == 4 else parts[0]
    return None if port in ("global", "GLOBAL", "") else port


def _mask(text: str, port: str) -> str:
    return re.sub(rf"(?<![\w-]){re.escape(port)}(?![\w-])", _MASK, text)


def aggregate(findings: list[Finding]) -> list[Finding]:
    """``findings`` with per-port repeats merged (order kept: each group sits where its first was)."""
    groups: dict[tuple[object, ...], list[tuple[str, Finding]]] = {}
    order: list[tuple[object, ...] | int] = []
    for position, finding in enumerate(findings):
        port = _port(finding)
        if port is None:
            order.append(position)
            continue
        signature = (finding.file, finding.rule, finding.severity, finding.table, _mask(finding.field or "", port),
                     _mask(finding.key, port), _mask(finding.message, port))
        if signature not in groups:
            groups[signature] = []
            order.append(signature)
        groups[signature].append((port, finding))
    merged: list[Finding] = []
    for item in order:
        if isinstance(item, int):
            merged.append(findings[item])
            continue
        members = groups[item]
        first_port, first = members[0]
        if len(members) == 1:
            merged.append(first)
            continue
        ports = list(dict.fromkeys(port for port, _ in members))
        message = _mask(first.message, first_port).replace(_MASK, "each port")
        merged.append(replace(
            first, message=f"{message} (on {len(ports)} ports: {ports_text(ports)})",
            values={**first.values, "ports": len(ports), "port_list": ",".join(ports)}))
    return merged


__all__ = ["aggregate"]
