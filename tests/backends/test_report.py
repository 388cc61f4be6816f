"""The fabric report: JSON layout, values with provenance, and the rich table."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
from rich.console import Console

from qosforge.backends.report import SCHEMA, format_quantity, render_report_table, report_to_json
from qosforge.ir import FabricIR


def _fixture_module() -> ModuleType:
    # The IR fixture lives with the SONiC backend tests; load it by path (importlib import mode).
    path = Path(__file__).parent / "sonic" / "conftest.py"
    spec = importlib.util.spec_from_file_location("sonic_ir_fixture", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fabric() -> FabricIR:
    module = _fixture_module()
    return FabricIR(name="lab", source_file="lab.yaml", switches=(module.make_switch(),), targets=("sonic",))


def test_top_level_keys_are_stable(fabric: FabricIR) -> None:
    report = report_to_json(fabric)
    assert list(report) == ["schema", "fabric", "source_file", "targets", "target_models", "switches"]
    assert report["schema"] == SCHEMA
    [switch] = report["switches"]
    assert list(switch) == ["name", "vendor_profile", "buffer", "pools", "pool_totals", "classes",
                            "pfc_headroom", "gaps", "control_classes", "pfc_watchdog"]
    json.dumps(report)  # JSON-ready


def test_quantities_carry_value_unit_formula_and_source(fabric: FabricIR) -> None:
    [switch] = report_to_json(fabric)["switches"]
    web = next(c for c in switch["classes"] if c["name"] == "web")
    assert web["thresholds"] == [{
        "value": 97500.0, "unit": "B", "quantity": "k_bytes", "model": "fixture.k_bytes",
        "formula": "K = 65 packets x 1500 B", "source": "DCTCP §3.4 (K=65 pkts at 10G)", "label": "k_bytes"}]
    assert [(w["profile"], w["color"], w["mark"], w["drop"]) for w in web["wred"]] == [
        ("dctcp_ecn", "green", True, False)]


def test_tlt_class_reports_threshold_and_capacity(fabric: FabricIR) -> None:
    [switch] = report_to_json(fabric)["switches"]
    tlt = next(c for c in switch["classes"] if c["name"] == "tlt")
    assert tlt["thresholds"][-1]["value"] == 400000.0
    assert tlt["thresholds"][-1]["source"] == "TLT §4.2"
    assert tlt["capacity"]["tlt_flows_without_important_loss"]["value"] == 203
    assert tlt["important_dscp"] == [20]
    assert next(c for c in switch["classes"] if c["name"] == "web")["capacity"] is None


def test_pfc_headroom_grouped_by_port_signature(fabric: FabricIR) -> None:
    [switch] = report_to_json(fabric)["switches"]
    groups = [(g["cable_m"], g["ports"], [p["name"] for p in g["profiles"]], g["profiles"][0]["xoff"]["value"])
              for g in switch["pfc_headroom"]]
    assert groups == [(5.0, ["Ethernet0"], ["lossless_100g_5m"], 48128.0),
                      (40.0, ["Ethernet4"], ["lossless_100g_40m"], 53248.0)]


def test_pool_totals_against_asic_buffer(fabric: FabricIR) -> None:
    [switch] = report_to_json(fabric)["switches"]
    totals = switch["pool_totals"]
    assert totals["ingress_bytes"] == 32e6  # 30 MB pool + 2 MB shared headroom
    assert totals["ingress_fraction_of_buffer"] == pytest.approx(32 / 42)
    assert totals["ingress_fits"] is True
    small = dataclasses.replace(fabric.switches[0], buffer_bytes=dataclasses.replace(
        fabric.switches[0].buffer_bytes, value=30e6))
    [small_switch] = report_to_json(dataclasses.replace(fabric, switches=(small,)))["switches"]
    assert small_switch["pool_totals"]["ingress_fits"] is False


def test_gaps_and_approximations(fabric: FabricIR) -> None:
    [switch] = report_to_json(fabric)["switches"]
    assert switch["gaps"] == [{
        "target": "sonic", "class": "tlt", "feature": "dscp-to-color",
        "detail": "config_db has no DSCP_TO_COLOR table; important and unimportant packets share green",
        "alternatives": ["sai target", "drop all packets at K"], "approximation": "uncolored-threshold",
        "status": "approximated"}]


def test_rich_table_shows_every_section(fabric: FabricIR) -> None:
    console = Console(record=True, width=200, color_system=None)
    render_report_table(fabric, console)
    text = console.export_text()
    for needle in ("Fabric lab", "leaf1", "Classes: thresholds and capacities", "97,500 B",
                   "DCTCP §3.4", "PFC headroom per port signature", "48,128 B", "Pools vs ASIC buffer",
                   "ingress_pool", "76.2% fits", "Capability gaps", "approximated: uncolored-threshold", "203 flows"):
        assert needle in text, needle


def test_format_quantity() -> None:
    assert format_quantity(None) == "-"
    # One format everywhere (qosforge.units.format_value): SI size with the exact count, time units.
    assert format_quantity({"value": 97500.0, "unit": "B"}) == "97.5 kB (97,500 B)"
    assert format_quantity({"value": 400000.0, "unit": "B"}) == "400 kB"
    assert format_quantity({"value": 2e-05, "unit": "s"}) == "20 us"


def test_wred_profiles_name_their_config_db_key(fabric: FabricIR) -> None:
    # The lossless queue's profile is AZURE_LOSSLESS in config_db (backends/sonic/render.py); the
    # report used to give only the IR name, with nothing mapping one to the other.
    from qosforge.backends.sonic.render import render_config_db

    config_db = render_config_db(fabric.switches[0])
    report = report_to_json(fabric)
    wred = {w["profile"]: w["config_db_name"] for cls in report["switches"][0]["classes"] for w in cls["wred"]}
    rdma = next(cls for cls in report["switches"][0]["classes"] if cls["name"] == "rdma")
    assert {w["config_db_name"] for w in rdma["wred"]} == {"AZURE_LOSSLESS"}
    assert set(wred.values()) <= set(config_db["WRED_PROFILE"])
    console = Console(width=400, record=True)
    render_report_table(fabric, console)
    assert f"WRED {rdma['wred'][0]['profile']} (config_db AZURE_LOSSLESS)" in console.export_text()
    without_sonic = report_to_json(dataclasses.replace(fabric, targets=("sai",)))
    assert {w["config_db_name"] for cls in without_sonic["switches"][0]["classes"] for w in cls["wred"]} == {None}
