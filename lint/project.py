"""Project settings for CI: ``.qosforge-lint.toml`` or ``[tool.qosforge.lint]`` in pyproject.toml.

Shape (both files)::

    disable = ["dscp-map-incomplete"]          # rules off everywhere
    [severity]                                 # severities changed everywhere
    dscp-conflict = "error"
    [[per-path]]                               # by glob on the path as given on the command line
    paths = ["legacy/*.json"]
    disable = ["bracket-reference"]
    severity = { lossless-chain = "warning" }

Read with the standard library's ``tomllib``. A malformed file is bad input (exit 2) that names
the file and the key.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qosforge.errors import QosforgeError
from qosforge.lint.findings import Severity

PROJECT_FILE = ".qosforge-lint.toml"


@dataclass(frozen=True)
class PathSettings:
    paths: tuple[str, ...]
    disable: frozenset[str] = frozenset()
    severity: dict[str, Severity] = field(default_factory=dict)


@dataclass(frozen=True)
class LintSettings:
    disable: frozenset[str] = frozenset()
    severity: dict[str, Severity] = field(default_factory=dict)
    per_path: tuple[PathSettings, ...] = ()
    source: str | None = None

    def for_file(self, file: str) -> tuple[frozenset[str], dict[str, Severity]]:
        """The rules off and the severity overrides that apply to ``file``."""
        disabled = set(self.disable)
        severity = dict(self.severity)
        for settings in self.per_path:
            if any(fnmatch.fnmatch(file, pattern) or fnmatch.fnmatch(Path(file).name, pattern)
                   for pattern in settings.paths):
                disabled |= settings.disable
                severity.update(settings.severity)
        return frozenset(disabled), severity


def _rules(value: Any, where: str, known: frozenset[str]) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise QosforgeError("expected a list of rule ids", place=where, hint='write disable = ["rule-id", ...]')
    unknown = sorted(set(value) - known)
    if unknown:
        raise QosforgeError(f"unknown rule id(s) {', '.join(unknown)}", place=where,
                            hint="see qosforge lint --list-rules")
    return frozenset(value)


def _severities(value: Any, where: str, known: frozenset[str]) -> dict[str, Severity]:
    if not isinstance(value, dict):
        raise QosforgeError("expected a table rule-id = severity", place=where, hint='write dscp-conflict = "error"')
    result: dict[str, Severity] = {}
    for rule, level in value.items():
        if rule not in known:
            raise QosforgeError(f"unknown rule id {rule}", place=f"{where}.{rule}", hint="see qosforge lint --list-rules")
        try:
            result[rule] = Severity(level)
        except ValueError:
            raise QosforgeError(f"severity {level!r} is not error, warning or info", place=f"{where}.{rule}",
                                hint='use "error", "warning" or "info"') from None
    return result


def parse_settings(data: dict[str, Any], source: str, known: frozenset[str]) -> LintSettings:
    allowed = {"disable", "severity", "per-path"}
    stray = sorted(set(data) - allowed)
    if stray:
        raise QosforgeError(f"unknown setting(s) {', '.join(stray)}", place=source,
                            hint="settings are disable, severity and per-path")
    per_path = []
    for index, item in enumerate(data.get("per-path", [])):
        where = f"{source}: per-path[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("paths"), list):
            raise QosforgeError("each per-path entry needs paths = [globs]", place=where,
                                hint='write [[per-path]] paths = ["legacy/*.json"]')
        per_path.append(PathSettings(tuple(map(str, item["paths"])),
                                     _rules(item.get("disable", []), f"{where}.disable", known),
                                     _severities(item.get("severity", {}), f"{where}.severity", known)))
    return LintSettings(_rules(data.get("disable", []), f"{source}: disable", known),
                        _severities(data.get("severity", {}), f"{source}: severity", known), tuple(per_path), source)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise QosforgeError(f"not TOML: {error}", place=str(path), hint="fix the TOML syntax") from None
    except OSError as error:
        raise QosforgeError(f"cannot read it ({error.strerror})", place=str(path), hint="check the path") from None


def load_settings(directory: Path, known: frozenset[str]) -> LintSettings:
    """``.qosforge-lint.toml`` in ``directory``, else ``[tool.qosforge.lint]`` of its pyproject.toml,
    else no settings."""
    project = directory / PROJECT_FILE
    if project.is_file():
        return parse_settings(_read_toml(project), str(project), known)
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file():
        section = _read_toml(pyproject).get("tool", {}).get("qosforge", {}).get("lint")
        if isinstance(section, dict):
            return parse_settings(section, f"{pyproject} [tool.qosforge.lint]", known)
    return LintSettings()


__all__ = ["PROJECT_FILE", "LintSettings", "PathSettings", "load_settings", "parse_settings"]
