"""Baselines: record today's findings, then fail only on new ones (``--write-baseline`` /
``--baseline``), so a fabric with known debt can adopt lint today.

A finding is identified by file, rule, table, key and field: not by line (edits move lines) or
message (numbers in messages change with unrelated edits).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from qosforge.errors import QosforgeError
from qosforge.lint.findings import Finding

BASELINE_VERSION = 1
Fingerprint = tuple[str, str, str, str, str]


def fingerprint(finding: Finding) -> Fingerprint:
    return (finding.file, finding.rule, finding.table, finding.key, finding.field or "")


def baseline_text(findings: Iterable[Finding]) -> str:
    entries = sorted({fingerprint(f) for f in findings})
    return json.dumps({"version": BASELINE_VERSION, "findings": [
        {"file": e[0], "rule": e[1], "table": e[2], "key": e[3], "field": e[4]} for e in entries]}, indent=2) + "\n"


def read_baseline(path: Path) -> frozenset[Fingerprint]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != BASELINE_VERSION:
            raise ValueError(f"version {data.get('version')!r}")
        return frozenset((e["file"], e["rule"], e["table"], e["key"], e["field"]) for e in data["findings"])
    except OSError as error:
        raise QosforgeError(f"cannot read the baseline ({error.strerror})", place=str(path),
                            hint="write one with --write-baseline FILE") from None
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        raise QosforgeError(f"not a qosforge lint baseline ({error})", place=str(path),
                            hint="write one with --write-baseline FILE") from None


__all__ = ["BASELINE_VERSION", "baseline_text", "fingerprint", "read_baseline"]
