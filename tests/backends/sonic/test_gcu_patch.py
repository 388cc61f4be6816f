"""GCU JSON Patch: applied to the base it gives the base with exactly its QoS/buffer tables replaced."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonpointer import JsonPointer

from qosforge.backends.sonic.base_config import base_patches, read_base_configs
from qosforge.backends.sonic.gcu_patch import (
    MERGED_TABLES,
    QOS_AND_BUFFER_TABLES,
    BaseConfigError,
    gcu_patch,
)
from qosforge.vendor_profiles import load_vendor_profile

GOLDEN = Path(__file__).parent / "golden" / "leaf1.json"


def _compiled() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text())


def _running_base() -> dict[str, Any]:
    """A synthetic running config: SONiC's stock QoS (qos_config.j2 defaults) on 32 ports plus
    non-QoS tables whose keys hold '|' and '/' (GCU addresses them as single JSON Pointer tokens)."""
    ports = [f"Ethernet{4 * i}" for i in range(32)]
    return {
        "DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "hwsku": "Force10-S6000", "buffer_model": "traditional"}},
        "PORT": {p: {"lanes": ",".join(str(4 * i + k + 1) for k in range(4)), "speed": "100000", "admin_status": "up"} for i, p in enumerate(ports)},
        "INTERFACE": {"Ethernet0|10.0.0.0/31": {}, "Ethernet0": {}},
        "VLAN_MEMBER": {"Vlan1000|Ethernet4": {"tagging_mode": "untagged"}},
        "DSCP_TO_TC_MAP": {"AZURE": {str(d): ("3" if d == 3 else "1") for d in range(64)}},
        "TC_TO_QUEUE_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
        "MPLS_TC_TO_TC_MAP": {"AZURE": {"0": "0"}},
        "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}, "odd/name~1": {"type": "STRICT"}},
        "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "1048576", "green_max_threshold": "2097152"}},
        "BUFFER_POOL": {"ingress_lossless_pool": {"size": "10875072", "type": "ingress", "mode": "dynamic", "xoff": "4194112"}},
        "BUFFER_PG": {f"{p}|3-4": {"profile": "pg_lossless_100000_5m_profile"} for p in ports},
        "PORT_QOS_MAP": {p: {"dscp_to_tc_map": "AZURE", "mpls_tc_to_tc_map": "AZURE", "pfc_enable": "3,4"} for p in ports},
        "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}},
        "QUEUE": {},
        "FLEX_COUNTER_TABLE": {"RIF": {"FLEX_COUNTER_STATUS": "enable"}, "QUEUE": {"FLEX_COUNTER_STATUS": "disable", "POLL_INTERVAL": "10000"}},
    }


def _expected(base: dict[str, Any], compiled: dict[str, Any]) -> dict[str, Any]:
    kept = {t: v for t, v in base.items() if t not in QOS_AND_BUFFER_TABLES}
    expected = {**kept, **{t: v for t, v in compiled.items() if v and t not in MERGED_TABLES}}
    for table in MERGED_TABLES:  # merged group by group, field by field: the base's other groups stay
        merged = copy.deepcopy(base.get(table, {}))
        for key, entry in compiled.get(table, {}).items():
            merged.setdefault(key, {}).update(entry)
        if merged:
            expected[table] = merged
    return expected


def test_patch_moves_the_qos_tables_to_the_compiled_ones_and_nothing_else() -> None:
    base, compiled = _running_base(), _compiled()
    pristine = copy.deepcopy(base)
    patch = gcu_patch(base, compiled)
    assert base == pristine  # the input is not modified
    result = jsonpatch.apply_patch(base, patch)
    assert result == _expected(base, compiled)
    for table in ("DEVICE_METADATA", "PORT", "INTERFACE", "VLAN_MEMBER"):
        assert result[table] == base[table]
    assert "MPLS_TC_TO_TC_MAP" not in result and "QUEUE" in result  # stale table gone, empty one filled
    # the counter groups watch needs are enabled; the switch's own other groups and periods stay
    assert result["FLEX_COUNTER_TABLE"]["RIF"] == {"FLEX_COUNTER_STATUS": "enable"}
    assert result["FLEX_COUNTER_TABLE"]["QUEUE"] == {"FLEX_COUNTER_STATUS": "enable", "POLL_INTERVAL": "10000"}


def test_patch_uses_gcu_path_conventions() -> None:
    patch = gcu_patch(_running_base(), _compiled())
    assert {op["op"] for op in patch} <= {"add", "remove", "replace"}
    paths = [op["path"] for op in patch]
    for path in paths:
        assert JsonPointer(path).parts[0] in QOS_AND_BUFFER_TABLES | MERGED_TABLES
    # '|' stays literal inside one token; '/' and '~' in a key are escaped per RFC 6901.
    assert "/BUFFER_PG/Ethernet0|3-4" in paths
    assert "/SCHEDULER/odd~1name~01" in paths
    assert {"op": "remove", "path": "/MPLS_TC_TO_TC_MAP"} in patch
    assert not any(p.startswith(("/PORT/", "/INTERFACE", "/DEVICE_METADATA")) for p in paths)


def test_identical_config_gives_an_empty_patch() -> None:
    compiled = _compiled()
    base = {**_running_base(), **compiled}
    base = {t: v for t, v in base.items() if t not in QOS_AND_BUFFER_TABLES or t in compiled}
    assert gcu_patch(base, compiled) == []


_names = st.text(alphabet="abEth0123|/~-_.", min_size=1, max_size=6)
_tables = st.dictionaries(_names, st.dictionaries(_names, st.text(max_size=3), max_size=3), max_size=4)


@settings(max_examples=60, deadline=None)
@given(
    old=st.dictionaries(st.sampled_from(sorted(QOS_AND_BUFFER_TABLES - {"PFC_WD", "CABLE_LENGTH", *("PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE")})), _tables, max_size=5),
    new=st.dictionaries(st.sampled_from(["SCHEDULER", "WRED_PROFILE", "BUFFER_POOL", "BUFFER_PROFILE", "DSCP_TO_TC_MAP"]), _tables, max_size=4),
    other=_tables,
)
def test_patch_property(old: dict[str, Any], new: dict[str, Any], other: dict[str, Any]) -> None:
    base = {"PORT": {"Ethernet0": {}}, "ACL_RULE": other, **old}
    assert jsonpatch.apply_patch(base, gcu_patch(base, new)) == _expected(base, new)


@pytest.mark.parametrize(
    ("base", "message"),
    [
        ([1, 2], "JSON object of tables, not a list"),
        ({"PORT": {"Ethernet0": {}}, "BUFFER_PG": []}, "table BUFFER_PG is a list"),
        ({"PORT": {"Ethernet0": {}}, "BUFFER_PG": {"Ethernet0|0": "x"}}, "BUFFER_PG|Ethernet0|0 is a str"),
        ({"DEVICE_METADATA": {"localhost": {}}}, "no PORT table"),
    ],
)
def test_garbage_base_is_a_clear_error(base: Any, message: str) -> None:
    with pytest.raises(BaseConfigError, match=message):
        gcu_patch(base, _compiled())


def test_ports_missing_from_the_base_are_named() -> None:
    base = _running_base()
    del base["PORT"]["Ethernet4"]
    with pytest.raises(BaseConfigError, match=r"1 port\(s\) that the base config's PORT table lacks: Ethernet4"):
        gcu_patch(base, _compiled())


def test_a_compiled_table_outside_the_set_is_a_bug() -> None:
    with pytest.raises(ValueError, match="DEVICE_METADATA"):
        gcu_patch(_running_base(), {**_compiled(), "DEVICE_METADATA": {"localhost": {"buffer_model": "dynamic"}}})


def test_base_folder_and_file(tmp_path: Path) -> None:
    (tmp_path / "leaf1").mkdir()
    (tmp_path / "leaf1" / "config_db.json").write_text(json.dumps(_running_base()))
    assert read_base_configs(tmp_path, ["leaf1"])["leaf1"]["PORT"]
    assert read_base_configs(tmp_path / "leaf1" / "config_db.json", ["leaf1"])["leaf1"]["PORT"]
    with pytest.raises(BaseConfigError, match="2 switches are compiled"):
        read_base_configs(tmp_path / "leaf1" / "config_db.json", ["leaf1", "leaf2"])
    with pytest.raises(BaseConfigError, match=r"leaf2/config_db\.json: no such file"):
        read_base_configs(tmp_path, ["leaf1", "leaf2"])
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(BaseConfigError, match="not JSON"):
        read_base_configs(tmp_path / "bad.json", ["leaf1"])
    # Force10-S6000 is a Trident2 (GCU's td2); the golden adds pools GCU refuses: no patch text.
    (result,) = base_patches(tmp_path, {"leaf1": _compiled()}, {"leaf1": load_vendor_profile("broadcom-trident2")})
    assert result.text is None and any(r.path.startswith("/BUFFER_POOL") for r in result.refusals)


@pytest.mark.parametrize("speed", ["100000", 100000])
def test_a_running_speed_is_checked_whichever_json_type_it_has(speed: object) -> None:
    # A redis dump may carry PORT.speed as a JSON number; it used to skip the speed check.
    base = _running_base()
    base["PORT"]["Ethernet0"]["speed"] = speed
    with pytest.raises(BaseConfigError, match="Ethernet0 runs at 100G, compiled for 40G"):
        gcu_patch(base, _compiled(), port_speeds_bps={"Ethernet0": 40e9})


# Fresh interpreters under several hash seeds (~2 CPU s): the slow tier (pyproject.toml).
@pytest.mark.slow
def test_the_patch_is_the_same_file_whatever_the_hash_seed() -> None:
    """The operations come in one order on every run (the realcheck run found four orders in four
    runs: the tables were walked in a frozenset's hash order)."""
    import os
    import subprocess
    import sys

    here = str(Path(__file__).parent)
    script = (
        f"import json, sys; sys.path.insert(0, {here!r}); "
        "from test_gcu_patch import _compiled, _running_base; "
        "from qosforge.backends.sonic.gcu_patch import gcu_patch; "
        "print(json.dumps(gcu_patch(_running_base(), _compiled())))"
    )
    outputs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3", "4")}
    assert len(outputs) == 1
    assert len(json.loads(outputs.pop())) > 1
