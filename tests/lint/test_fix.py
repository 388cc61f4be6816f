"""--fix: mechanical fixes only; the fixed file re-lints without the fixed findings."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qosforge.lint.context import KNOWN_TABLES
from qosforge.lint.fix import apply_fixes, render_fixed
from qosforge.lint.load import load_config

Config = dict[str, Any]

#: What broadcom_bad_encoding.json breaks that --fix must repair.
FIXED_RULES = {"value-not-string", "bracket-reference", "bad-boolean", "bad-enum", "bad-pattern",
               "scheduler-priority", "unknown-table", "multi-port-key", "redis-key-format"}


def _fix(configs: Path, name: str) -> tuple[str, list[Any]]:
    text = (configs / name).read_text()
    loaded = load_config(text.encode(), name, KNOWN_TABLES)
    data, fixes = apply_fixes(loaded)
    return render_fixed(data, text), fixes


def test_the_fixed_file_relints_without_the_fixed_findings(configs: Path, lint_config: Callable[..., Any],
                                                          load_named: Callable[[str], Config]) -> None:
    before = lint_config((configs / "broadcom_bad_encoding.json").read_bytes())
    assert FIXED_RULES <= {f.rule for f in before}
    fixed_text, fixes = _fix(configs, "broadcom_bad_encoding.json")
    assert {fix.rule for fix in fixes} == FIXED_RULES | {"wred-min-gt-max"}
    after = lint_config(fixed_text.encode())
    # Only the WRED window without a witness is left: which of its numbers is wrong is unknowable.
    assert [(f.rule, f.key) for f in after] == [("wred-min-gt-max", "lone")]
    fixed = json.loads(fixed_text)
    assert fixed["WRED_PROFILE"]["edge"]["yellow_min_threshold"] == "1048576"  # swapped, as green has it
    assert fixed["WRED_PROFILE"]["lone"]["green_min_threshold"] == "900000"  # untouched
    # Apart from the additions made to break it (two WRED profiles bound in QUEUE), the fixed file
    # is the original clean config.
    original = load_named("broadcom_traditional.json")
    for table in original:
        for key, entry in original[table].items():
            added = {"wred_profile"} if table == "QUEUE" and key.endswith(("|0", "|6")) else set()
            assert {k: v for k, v in fixed[table][key].items() if k not in added} == entry, (table, key)


def test_every_fixable_finding_is_marked(configs: Path, lint_config: Callable[..., Any]) -> None:
    before = lint_config((configs / "broadcom_bad_encoding.json").read_bytes())
    marked = {(f.rule, f.key) for f in before if f.fixable}
    assert ("wred-min-gt-max", "edge") in marked and ("wred-min-gt-max", "lone") not in marked
    assert {f.rule for f in before if f.fixable} == FIXED_RULES | {"wred-min-gt-max"}


def test_style_and_order_are_kept(configs: Path) -> None:
    text = '{\n    "SCHEDULER": {\n        "b": {"type": "DWRR", "weight": 5},\n        "a": {"type": "dwrr"}\n    }\n}\n'
    loaded = load_config(text.encode(), "c.json", KNOWN_TABLES)
    data, fixes = apply_fixes(loaded)
    out = render_fixed(data, text)
    assert out == ('{\n    "SCHEDULER": {\n        "b": {\n            "type": "DWRR",\n            "weight": "5"\n'
                   '        },\n        "a": {\n            "type": "DWRR"\n        }\n    }\n}\n')
    assert [(f.rule, f.key, f.field) for f in fixes] == [("value-not-string", "b", "weight"), ("bad-enum", "a", "type")]


def test_what_is_not_mechanical_is_left_alone() -> None:
    config = {
        "BUFFER_POOL": {"p": {"size": 3.5, "type": "Ingress", "mode": "dynamic"}},  # 3.5 bytes? no
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3;4"}},
        "WRED_PROFILE": {"w": {"wred_green_enable": "yes", "green_min_threshold": True}},
        "BUFFER_QUEUE": {"Ethernet0,Ethernet4|3": {"profile": "a"}, "Ethernet4|3": {"profile": "b"}},
        "PFC_PRIORITY_TO_QUEUE_MAP": {"AZURE": {"3": "3"}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {"3": "4"}},
    }
    loaded = load_config(json.dumps(config).encode(), "c.json", KNOWN_TABLES)
    data, fixes = apply_fixes(loaded)
    assert [(f.rule, f.table, f.field) for f in fixes] == [("bad-enum", "BUFFER_POOL", "type")]
    assert data["BUFFER_POOL"]["p"]["type"] == "ingress" and data["BUFFER_POOL"]["p"]["size"] == 3.5
    assert data["BUFFER_QUEUE"] == config["BUFFER_QUEUE"]  # splitting would overwrite Ethernet4|3
    assert data["MAP_PFC_PRIORITY_TO_QUEUE"] == {"AZURE": {"3": "4"}}  # both tables name AZURE


def test_lists_become_comma_separated_strings() -> None:
    config = {"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": [3, 4], "pfcwd_sw_enable": ["3", 4]}},
              "BUFFER_PORT_EGRESS_PROFILE_LIST": {"Ethernet0": {"profile_list": ["a", "[BUFFER_PROFILE|b]"]}},
              "CABLE_LENGTH": {"AZURE": {"Ethernet0,Ethernet4": 40}}}
    loaded = load_config(json.dumps(config).encode(), "c.json", KNOWN_TABLES)
    data, _ = apply_fixes(loaded)
    assert data["PORT_QOS_MAP"]["Ethernet0"] == {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"}
    assert data["BUFFER_PORT_EGRESS_PROFILE_LIST"]["Ethernet0"]["profile_list"] == "a,b"
    assert data["CABLE_LENGTH"] == {"AZURE": {"Ethernet0": "40m", "Ethernet4": "40m"}}
