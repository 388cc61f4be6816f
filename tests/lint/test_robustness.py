"""Lint never crashes: any bytes give findings or a clean "unusable input", never an exception.

Property tests over random bytes, random JSON documents, and real-shaped configs (the test
configs) mutated at random: fields deleted, retyped (numbers, booleans, lists, objects, null, huge
numbers, long and non-ASCII text, deep nesting), renamed, keys duplicated, tables renamed. Every
rule runs (with --profile and --intent); a rule that raised would show as an ``internal-error``
finding, which must never appear. ``--fix`` on the result must also work and re-lint.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosforge.lint.context import KNOWN_TABLES
from qosforge.lint.engine import FileReport, Linter
from qosforge.lint.fix import apply_fixes, render_fixed
from qosforge.lint.load import load_config

CONFIGS = Path(__file__).parent / "configs"
BASES = {name: json.loads((CONFIGS / name).read_text()) for name in
         ("broadcom_traditional.json", "mellanox_whole.json", "mellanox_dynamic.json")}
LINTERS = {
    "plain": Linter(),
    "profile": Linter(profile="mellanox-spectrum-2"),
    "intent": Linter(intent=CONFIGS / "broadcom_fabric.yaml", switch="tor1"),
}
SETTINGS = settings(max_examples=int(os.environ.get("QOSFORGE_FUZZ_EXAMPLES", "120")), deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=25)
odd_values = st.one_of(
    json_values,
    st.sampled_from(["", "NULL", "-1", "0", "4294967296", "9" * 25, "9" * 5000, "3, 4", "[BUFFER_POOL|x]",
                     "Ethernet0,Ethernet4", "Ethernet0|0-99999999999999", "ecn_all", "true", "True", "40m", "0m", "1e6", "é€\u200b", "\ud800",
                     "\x00", "a|b|c", "0-99999999999999999999"]),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.just(2**200),
)


def _check(report: FileReport) -> None:
    assert report.unusable is not None or all(f.rule != "internal-error" for f in report.findings), [
        f.message for f in report.findings if f.rule == "internal-error"]
    for finding in report.findings:
        json.dumps(finding.to_json())
        finding.message.encode("utf-8")


def _lint_everywhere(data: bytes) -> None:
    for linter in LINTERS.values():
        report = linter.lint_bytes(data, "fuzz.json")
        _check(report)
        if report.unusable is None:
            loaded = load_config(data, "fuzz.json", KNOWN_TABLES)
            fixed, _ = apply_fixes(loaded)
            relinted = linter.lint_bytes(render_fixed(fixed, loaded.text).encode("utf-8"), "fuzz.fixed.json")
            assert relinted.unusable is None, relinted.unusable
            _check(relinted)


@SETTINGS
@given(st.binary(max_size=300))
def test_any_bytes(data: bytes) -> None:
    for linter in LINTERS.values():
        _check(linter.lint_bytes(data, "fuzz.json"))


@SETTINGS
@given(json_values)
def test_any_json_document(value: Any) -> None:
    _lint_everywhere(json.dumps(value).encode())


@SETTINGS
@given(st.dictionaries(st.sampled_from([*sorted(KNOWN_TABLES), "PFC_PRIORITY_TO_QUEUE_MAP", "BUFFER_PG|Ethernet0|3"]),
                       st.dictionaries(st.text(max_size=16), json_values, max_size=4), max_size=8))
def test_any_json_in_the_tables_lint_reads(tables: dict[str, Any]) -> None:
    _lint_everywhere(json.dumps(tables).encode())


def _paths(config: Any) -> list[tuple[str, ...]]:
    paths: list[tuple[str, ...]] = []
    for table, entries in config.items():
        paths.append((table,))
        if isinstance(entries, dict):
            for key, entry in entries.items():
                paths.append((table, key))
                if isinstance(entry, dict):
                    paths.extend((table, key, field) for field in entry)
    return paths


def _parent(config: Any, path: tuple[str, ...]) -> Any:
    node = config
    for part in path[:-1]:
        node = node[part]
    return node


def _delete(config: Any, path: tuple[str, ...], draw: Callable[[Any], Any]) -> None:
    del _parent(config, path)[path[-1]]


def _retype(config: Any, path: tuple[str, ...], draw: Callable[[Any], Any]) -> None:
    _parent(config, path)[path[-1]] = draw(odd_values)


def _rename(config: Any, path: tuple[str, ...], draw: Callable[[Any], Any]) -> None:
    parent = _parent(config, path)
    new = draw(st.text(max_size=12) | st.sampled_from([*sorted(KNOWN_TABLES), path[-1].upper(), path[-1] + ",x",
                                                       "Ethernet0|0-99999999999999", path[-1] + "|0-9999999"]))
    parent[new] = parent.pop(path[-1])


def _copy_elsewhere(config: Any, path: tuple[str, ...], draw: Callable[[Any], Any]) -> None:
    target = draw(st.sampled_from(_paths(config)))
    node = _parent(config, target)[target[-1]]
    if isinstance(node, dict):
        node[draw(st.text(max_size=8))] = copy.deepcopy(_parent(config, path)[path[-1]])


def _nest(config: Any, path: tuple[str, ...], draw: Callable[[Any], Any]) -> None:
    value: Any = draw(json_scalars)
    for _ in range(draw(st.integers(min_value=1, max_value=25))):  # stays within MAX_DEPTH
        value = [value] if draw(st.booleans()) else {"k": value}
    _parent(config, path)[path[-1]] = value


MUTATIONS = (_delete, _retype, _rename, _copy_elsewhere, _nest)


def _dumps(value: Any, path: tuple[str, ...], duplicate: tuple[tuple[str, ...], Any] | None,
           indent: int | None) -> str:
    """json.dumps, except that the object at ``duplicate``'s parent path gets its key again."""
    if not isinstance(value, dict):
        return json.dumps(value, indent=indent)
    pairs = [(key, _dumps(child, (*path, key), duplicate, indent)) for key, child in value.items()]
    if duplicate is not None and duplicate[0][:-1] == path:
        pairs.append((duplicate[0][-1], json.dumps(duplicate[1])))
    separator = ",\n" if indent is not None else ", "
    return "{" + separator.join(f"{json.dumps(key)}: {text}" for key, text in pairs) + "}"


@SETTINGS
@given(st.sampled_from(sorted(BASES)), st.sampled_from(sorted(LINTERS)), st.data())
def test_mutated_real_configs(base: str, which: str, data: st.DataObject) -> None:
    config = copy.deepcopy(BASES[base])
    for _ in range(data.draw(st.integers(min_value=1, max_value=6))):
        paths = _paths(config)
        if not paths:
            break
        mutation = data.draw(st.sampled_from(MUTATIONS))
        mutation(config, data.draw(st.sampled_from(paths)), data.draw)
    duplicate = None
    paths = [path for path in _paths(config) if isinstance(_parent(config, path), dict)]
    if paths and data.draw(st.booleans()):  # a key written twice, which only the text can carry
        duplicate = (data.draw(st.sampled_from(paths)), data.draw(odd_values))
    text = _dumps(config, (), duplicate, data.draw(st.sampled_from([None, 2])))
    report = LINTERS[which].lint_bytes(text.encode(), "mutated.json")
    _check(report)
    assert report.unusable is None  # every mutation stays a JSON object within the bounds
    fixed, _ = apply_fixes(load_config(text.encode(), "mutated.json", KNOWN_TABLES))
    _check(LINTERS[which].lint_bytes(render_fixed(fixed, text).encode("utf-8"), "mutated.fixed.json"))


def test_huge_and_deep_inputs_are_bounded() -> None:
    """Deep nesting is refused quickly; huge tables are linted in linear time (a giant map bound
    to many ports would be quadratic in the checks: it is cut and reported)."""
    import time

    # 300x the entries a map keeps for the checks (MAX_MAP_ENTRIES) bound to 500 ports: unbounded,
    # the per-port checks would walk 10 million entries.
    giant = {"DSCP_TO_TC_MAP": {"AZURE": {str(i): "0" for i in range(20_000)}},
             "PORT_QOS_MAP": {f"Ethernet{i}": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"} for i in range(500)}}
    start = time.perf_counter()
    report = LINTERS["plain"].lint_bytes(json.dumps(giant).encode(), "giant.json")
    assert time.perf_counter() - start < 20
    assert report.unusable is None and "oversized-map" in {f.rule for f in report.findings}
    deep = LINTERS["plain"].lint_bytes(b"[" * 2_000_000 + b"]" * 2_000_000, "deep.json")
    assert deep.unusable is not None and "nested deeper" in deep.unusable.message
    wide = {"WRED_PROFILE": {f"w{i}": {"green_min_threshold": str(i), "green_max_threshold": "1"} for i in range(5_000)}}
    report = LINTERS["plain"].lint_bytes(json.dumps(wide).encode(), "wide.json")
    assert report.unusable is None and len(report.findings) > 2_500
