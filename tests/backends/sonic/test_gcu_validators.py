"""GCU's field-operation validators as transcribed (sonic-utilities generic_config_updater,
commit 691b1bbc): which changes ``config apply-patch`` refuses, on GCU's own diff."""

from __future__ import annotations

from typing import Any

import pytest

from qosforge.backends.sonic.gcu_validators import branch_of, gcu_refusals, required_branch
from qosforge.backends.sonic.hwsku import gcu_asic_of_hwsku

POOL = {"size": "10875072", "type": "ingress", "mode": "dynamic"}
PROFILE = {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "0"}


def _running() -> dict[str, Any]:
    return {
        "PORT": {"Ethernet0": {"speed": "40000"}},
        "BUFFER_POOL": {"ingress_lossless_pool": dict(POOL)},
        "BUFFER_PROFILE": {"ingress_lossy_profile": dict(PROFILE)},
        "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}},
        "WRED_PROFILE": {"AZURE_LOSSLESS": {"green_min_threshold": "1048576"}},
    }


def _paths(patch: list[dict[str, Any]], asic: str | None) -> list[str]:
    return [f"{refusal.operation} {refusal.path}" for refusal in gcu_refusals(_running(), patch, asic)]


@pytest.mark.parametrize("asic", ["td2", "th", "spc2", None])
def test_every_buffer_pool_change_is_refused(asic: str | None) -> None:
    # The pool scenario lists no fields (gcu_field_operation_validators.conf.json), on every ASIC.
    assert _paths([{"op": "replace", "path": "/BUFFER_POOL/ingress_lossless_pool/size", "value": "9000000"}], asic) == \
        ["replace /BUFFER_POOL/ingress_lossless_pool/size"]
    assert _paths([{"op": "add", "path": "/BUFFER_POOL/egress_lossy_pool", "value": dict(POOL, type="egress")}], asic) == \
        ["add /BUFFER_POOL/egress_lossy_pool"]


def test_a_whole_buffer_pool_table_added_is_refused() -> None:
    running = _running()
    del running["BUFFER_POOL"]
    refusals = gcu_refusals(running, [{"op": "add", "path": "/BUFFER_POOL", "value": {"ingress_lossless_pool": POOL}}], "th")
    assert [(r.operation, r.path) for r in refusals] == [("add", "/BUFFER_POOL")]
    assert "'ingress_lossless_pool'" in refusals[0].reason  # the value's key is read as the field


def test_buffer_profiles_whole_or_by_the_fields_gcu_allows() -> None:
    new = {"op": "add", "path": "/BUFFER_PROFILE/pg_lossless_40000_5m_profile", "value": dict(PROFILE, xoff="38912")}
    assert _paths([new], "td2") == []  # a whole profile: add/remove/replace pass on any ASIC
    assert _paths([new], None) == []
    assert _paths([{"op": "replace", "path": "/BUFFER_PROFILE/ingress_lossy_profile/dynamic_th", "value": "1"}], "td2") == []
    assert _paths([{"op": "replace", "path": "/BUFFER_PROFILE/ingress_lossy_profile/dynamic_th", "value": "1"}], None) == \
        ["replace /BUFFER_PROFILE/ingress_lossy_profile/dynamic_th"]  # GCU's ASIC 'unknown' fails every scenario
    assert _paths([{"op": "replace", "path": "/BUFFER_PROFILE/ingress_lossy_profile/size", "value": "1024"}], "th") == \
        ["replace /BUFFER_PROFILE/ingress_lossy_profile/size"]


def test_xoff_tuning_is_refused_on_trident2_only() -> None:
    running = _running()
    running["BUFFER_PROFILE"]["ingress_lossy_profile"]["xoff"] = "1000"
    patch = [{"op": "replace", "path": "/BUFFER_PROFILE/ingress_lossy_profile/xoff", "value": "2000"}]
    assert [r.path for r in gcu_refusals(running, patch, "td2")] == ["/BUFFER_PROFILE/ingress_lossy_profile/xoff"]  # td2: ""
    assert gcu_refusals(running, patch, "th") == []


def test_a_whole_buffer_profile_table_added_is_refused() -> None:
    running = _running()
    del running["BUFFER_PROFILE"]
    assert [r.path for r in gcu_refusals(running, [{"op": "add", "path": "/BUFFER_PROFILE", "value": {"p": PROFILE}}], "th")] == ["/BUFFER_PROFILE"]


def test_pfc_watchdog_entries_on_listed_asics_only() -> None:
    entry = {"op": "add", "path": "/PFC_WD/Ethernet0", "value": {"action": "drop", "detection_time": "200", "restoration_time": "200"}}
    assert _paths([entry], "th") == []
    assert _paths([entry], None) == ["add /PFC_WD/Ethernet0"]
    assert _paths([{"op": "remove", "path": "/PFC_WD/GLOBAL"}], "th") == ["remove /PFC_WD/GLOBAL"]  # never, on any ASIC
    running = _running()
    del running["PFC_WD"]
    whole = [{"op": "add", "path": "/PFC_WD", "value": {"Ethernet0": entry["value"]}}]
    assert [r.path for r in gcu_refusals(running, whole, "th")] == ["/PFC_WD"]  # 'Ethernet0' is no PFC_WD field


def test_tables_without_validators_pass() -> None:
    patch = [{"op": "replace", "path": "/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold", "value": "2097152"},
             {"op": "add", "path": "/SCHEDULER", "value": {"scheduler.0": {"type": "DWRR", "weight": "14"}}}]
    assert _paths(patch, None) == []


@pytest.mark.parametrize(("hwsku", "asic"), [("Arista-7050-QX32", "td2"), ("Force10-S6000", "td2"), ("Arista-7060CX-32S-C32-T1", "th"),
                                             ("ACS-MSN3700", "spc2"), ("mellanox-sn2700", "spc1"), ("Mellanox-SN2700-X", None), ("VS", None)])
def test_hwsku_lookup_is_gcus(hwsku: str, asic: str | None) -> None:
    # Mellanox HWSKUs match exactly (ignoring case), Broadcom ones by containment (get_asic_name).
    assert gcu_asic_of_hwsku(hwsku) == asic


@pytest.mark.parametrize(
    ("build_version", "branch"),
    [
        ("SONiC.20191130.52", "20191130"),
        ("20220532.29", "20220532"),
        ("SONiC.master.123456-abcdef", None),
        ("", None),
        (
            "SONiC.20181130.85.20191130",
            "20191130",
        ),  # the last eight-digit part, as GCU's loop keeps it
    ],
)
def test_the_branch_is_read_as_gcu_reads_it(build_version: str, branch: str | None) -> None:
    assert branch_of(build_version) == branch


def test_scenarios_need_their_first_branch_where_the_branch_is_known() -> None:
    # PG headroom (xoff) on Tomahawk: from 20221100; dynamic_th on Spectrum-2: from 20191100
    # (gcu_field_operation_validators.conf.json).
    running = _running()
    running["BUFFER_PROFILE"]["ingress_lossy_profile"]["xoff"] = "1000"
    xoff = [
        {"op": "replace", "path": "/BUFFER_PROFILE/ingress_lossy_profile/xoff", "value": "2000"}
    ]
    [refusal] = gcu_refusals(running, xoff, "th", "20220500")
    assert (
        "needs SONiC branch 20221100 or later; the running image is branch 20220500"
        in refusal.reason
    )
    assert (
        gcu_refusals(running, xoff, "th", "20221100") == []
        and gcu_refusals(running, xoff, "th", None) == []
    )
    assert required_branch(running, xoff, "th") == "20221100"
    dynamic = [
        {"op": "replace", "path": "/BUFFER_PROFILE/ingress_lossy_profile/dynamic_th", "value": "1"}
    ]
    assert required_branch(running, dynamic, "spc2") == "20191100"
    assert [r.path for r in gcu_refusals(running, dynamic, "spc2", "20181100")] == [
        "/BUFFER_PROFILE/ingress_lossy_profile/dynamic_th"
    ]
    # Both at once: the later of the two; a change no validator checks needs no branch.
    assert required_branch(running, xoff + dynamic, "spc1") == "20191100"
    wred = [
        {
            "op": "replace",
            "path": "/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold",
            "value": "2097152",
        }
    ]
    assert required_branch(running, wred, "spc1") is None
