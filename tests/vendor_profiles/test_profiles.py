"""Vendor profiles: every bundled YAML loads, every value is sourced, the schema is strict, the
loader's errors help, and ``qosforge profiles list|show`` work (table and JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

import qosforge.vendor_profiles as vp
from qosforge.cli.profiles import profiles_group
from qosforge.errors import ProfileError
from qosforge.vendor_profiles import (
    SOURCED_FIELDS,
    VendorProfile,
    list_vendor_profiles,
    load_vendor_profile,
    vendor_profile_names,
)

PROFILE_DIR = Path(vp.__file__).parent
EXPECTED = {
    "broadcom-trident",
    "broadcom-trident2",
    "broadcom-tomahawk",
    "broadcom-tomahawk3",
    "mellanox-spectrum",
    "mellanox-spectrum-2",
    "mellanox-spectrum-4",
    "barefoot-tofino-2",
    "vs",
    "softswitch",
}


def _raw(name: str) -> dict[str, Any]:
    data = YAML(typ="safe").load((PROFILE_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


# --- loading -------------------------------------------------------------------------------


def test_every_expected_profile_is_bundled_and_loads() -> None:
    assert set(vendor_profile_names()) == EXPECTED
    profiles = list_vendor_profiles()
    assert [p.name for p in profiles] == sorted(EXPECTED)
    assert all(isinstance(p, VendorProfile) for p in profiles)


def test_profiles_are_cached() -> None:
    assert load_vendor_profile("broadcom-trident2") is load_vendor_profile("TD2")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_value_has_a_source_that_resolves(name: str) -> None:
    profile = load_vendor_profile(name)
    ids = {entry.id for entry in profile.sources}
    sources = [profile.sourced(field).source for field in SOURCED_FIELDS]
    if profile.pfc_headroom.sonic is not None:
        sources.append(profile.pfc_headroom.sonic.source)
    for source in sources:
        first = source.split()[0]
        # Either it names a bibliography entry, or it is free text (several words, not an id).
        assert first in ids or len(source.split()) > 1, source
        if first in ids:
            assert profile.source_for(source) is not None
    # An unknown value always says why.
    for field in profile.unknown_fields():
        assert profile.sourced(field).note, field


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_yaml_value_is_written_with_value_and_source(name: str) -> None:
    raw = _raw(name)
    for field in SOURCED_FIELDS:
        node: Any = raw
        for part in field.split("."):
            node = node[part]
        assert set(node) <= {"value", "source", "note"} and {"value", "source"} <= set(node), field


# --- values reproduce the papers and SONiC ---------------------------------------------------


def test_paper_values() -> None:
    td2 = load_vendor_profile("broadcom-trident2")
    # SONiC's own Trident II pools are 12,766,208 B (61376 cells x 208 B), which TLT §2.2 rounds to
    # "12 MB"; the paper's worked example (12·10^6 B) is reproduced in the model tests.
    assert td2.buffer_bytes.known() == 12_766_208
    assert [(g.count, g.speed_bps) for g in td2.ports.known()] == [(32, 40e9)]
    tomahawk = load_vendor_profile("broadcom-tomahawk")
    assert tomahawk.buffer_bytes.known() == 16_000_000
    assert tomahawk.mmu_count.known() == 4  # TLT §6 footnote 3
    assert tomahawk.buffer_bytes.known() / tomahawk.mmu_count.known() == 4_000_000
    trident = load_vendor_profile("broadcom-trident")
    assert trident.buffer_bytes.known() == 9_000_000
    assert [(g.count, g.speed_bps) for g in trident.ports.known()] == [(24, 10e9)]
    assert trident.red.steps.known() == 8  # TBTCP §6.2
    assert trident.red.step_offset.known() == 0.5
    assert trident.red.per_step_programmable.known() is False  # TBTCP §8
    for profile in list_vendor_profiles():
        assert profile.fastlane_support.known() is False  # FastLane: no commodity ASIC
        assert profile.red.probability_granularity.known() == 0.01  # SAI whole percent


@pytest.mark.parametrize(
    ("name", "table", "script", "cell", "pipeline", "peer", "reserved", "max_shp"),
    [
        ("mellanox-spectrum", "MELLANOX-SPECTRUM", "mellanox", 96, 19, 3.8, 20, 8192),
        ("mellanox-spectrum-2", "MELLANOX-SPECTRUM-2", "mellanox", 144, 19, 3.8, 20, 8192),
        ("mellanox-spectrum-4", "MELLANOX-SPECTRUM-4", "mellanox", 192, 19, 3.8, 20, 8192),
        ("barefoot-tofino-2", "BAREFOOT-TOFINO-2", "barefoot", 176, 68, 9, None, None),
        ("vs", "VS-ASIC", "mellanox", 128, 18, 3.8, None, None),
    ],
)
def test_sonic_asic_table(
    name: str, table: str, script: str, cell: int, pipeline: float, peer: float,
    reserved: int | None, max_shp: int | None,
) -> None:
    sonic = load_vendor_profile(name).pfc_headroom.sonic  # sonic-swss cfgmgr/buffermgrdyn.cpp with sonic-buildimage platform/mellanox/asic_table.j2
    assert sonic is not None
    assert (sonic.name, sonic.script, sonic.cell_size_bytes) == (table, script, cell)
    delays = (sonic.pipeline_latency_kb, sonic.mac_phy_delay_kb, sonic.peer_response_time_kb)
    assert delays == (pipeline, 0.8, peer)
    assert (sonic.port_reserved_shp_cells, sonic.port_max_shp_cells) == (reserved, max_shp)


def test_broadcom_has_no_sonic_asic_table() -> None:
    for name in sorted(n for n in EXPECTED if n.startswith("broadcom-")):
        assert load_vendor_profile(name).pfc_headroom.sonic is None


# --- names, aliases and errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("nvidia-spectrum-2", "mellanox-spectrum-2"),
        ("NVIDIA-Spectrum-2", "mellanox-spectrum-2"),
        ("th", "broadcom-tomahawk"),
    ],
)
def test_alias(alias: str, name: str) -> None:
    assert load_vendor_profile(alias).name == name


def test_aliases_never_shadow_a_profile_so_a_file_stem_names_its_own_profile() -> None:
    # load_vendor_profile takes a file stem without building the alias index; that is right only
    # while no alias of one profile is another profile's name, which the index refuses.
    index = vp._name_index()
    for name in vp.vendor_profile_names():
        assert index[name] == name
        assert load_vendor_profile(name.upper()).name == name


def test_unknown_name_lists_known_names_and_a_close_match() -> None:
    with pytest.raises(ProfileError) as caught:
        load_vendor_profile("broadcom-tomahwak")
    text = str(caught.value)
    assert "broadcom-tomahwak" in text
    assert "did you mean 'broadcom-tomahawk'" in text
    for name in EXPECTED:
        assert name in text


def test_unknown_value_raises_profile_error_naming_profile_and_field() -> None:
    profile = load_vendor_profile("broadcom-tomahawk3")
    assert profile.buffer_bytes.value is None
    with pytest.raises(ProfileError) as caught:
        profile.buffer_bytes.known("buffer_bytes")
    text = str(caught.value)
    assert "broadcom-tomahawk3" in text and "buffer_bytes" in text and "hint:" in text
    assert "buffer_bytes" in profile.unknown_fields()


def test_sourced_lookup_rejects_unknown_field_name() -> None:
    with pytest.raises(ProfileError):
        load_vendor_profile("vs").sourced("buffer")


# --- schema strictness ------------------------------------------------------------------------


def _mutated(mutate: Any) -> dict[str, Any]:
    data = _raw("broadcom-trident2")
    mutate(data)
    return data


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(extra_field=1),  # unknown top-level field
        lambda d: d["buffer_bytes"].update(unit="MB"),  # unknown field in a sourced value
        lambda d: d["red"].update(curve="linear"),  # unknown field in a nested block
        lambda d: d["buffer_bytes"].update(value="12M"),  # ambiguous unit
        lambda d: d["buffer_bytes"].update(value=12),  # a size without unit
        # bytes per second is not a port speed
        lambda d: d["ports"].update(value=[{"count": 32, "speed_bps": "40GB"}]),
        lambda d: d["cell_bytes"].update(value="unknown", note=None),  # unknown without a reason
        lambda d: d["cell_bytes"].update(source="no-such-source"),  # id that does not resolve
        lambda d: d["dynamic_th_min"].update(value=5),  # min above max
        lambda d: d["pfc_headroom"].update(sonic={"name": "X"}),  # incomplete ASIC_TABLE
    ],
)
def test_schema_rejects_bad_profiles(mutate: Any) -> None:
    with pytest.raises(ValueError):  # pydantic.ValidationError is a ValueError
        VendorProfile.model_validate(_mutated(mutate))


def test_free_text_source_is_accepted() -> None:
    text = "measured on an Arista 7050QX-32 by the operator"
    data = _mutated(lambda d: d["cell_bytes"].update(source=text))
    assert VendorProfile.model_validate(data).cell_bytes.value == 208


def test_bad_profile_file_gives_profile_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken.yaml").write_text("name: broken\nvendor: x\n", encoding="utf-8")
    monkeypatch.setattr(vp, "_profile_files", lambda: {"broken": tmp_path / "broken.yaml"})
    vp._load_file.cache_clear()
    try:
        with pytest.raises(ProfileError) as caught:
            vp._load_file("broken")
        assert "vendor_profiles/broken.yaml" in str(caught.value)
    finally:
        vp._load_file.cache_clear()


# --- CLI ------------------------------------------------------------------------------------


@pytest.fixture
def app() -> click.Group:
    """The root CLI if it already registers ``profiles``, else a local group holding it."""
    from qosforge.cli import cli

    if "profiles" in cli.commands:
        return cli
    local = click.Group("qosforge")
    local.add_command(profiles_group)
    return local


def test_cli_list_table(app: click.Group) -> None:
    result = CliRunner().invoke(app, ["profiles", "list"])
    assert result.exit_code == 0, result.output
    for name in EXPECTED:
        assert name in result.output
    assert "16 MB" in result.output and "32x40G" in result.output


def test_cli_list_json(app: click.Group) -> None:
    result = CliRunner().invoke(app, ["profiles", "list", "--format", "json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    by_name = {entry["name"]: entry for entry in payload}
    assert set(by_name) == EXPECTED
    assert by_name["broadcom-tomahawk"]["mmu_count"] == 4
    assert by_name["broadcom-trident2"]["buffer_bytes"] == 12_766_208
    assert by_name["mellanox-spectrum-2"]["sonic_asic_table"] == "MELLANOX-SPECTRUM-2"
    assert "buffer_bytes" in by_name["broadcom-tomahawk3"]["unknown_fields"]


def test_cli_show_table_by_alias(app: click.Group) -> None:
    result = CliRunner().invoke(app, ["profiles", "show", "nvidia-spectrum-2"])
    assert result.exit_code == 0, result.output
    assert "mellanox-spectrum-2" in result.output
    assert "MELLANOX-SPECTRUM-2" in result.output
    assert "sonic-asic-table" in result.output


def test_cli_show_json(app: click.Group) -> None:
    result = CliRunner().invoke(app, ["profiles", "show", "broadcom-tomahawk", "--format", "json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["buffer_bytes"]["value"] == 16_000_000
    assert payload["buffer_bytes"]["source"].startswith("tlt")
    assert payload["ports"]["value"] == [{"count": 32, "speed_bps": 100e9}]
    assert payload["lanes_per_port"]["value"] == 4
    assert {"ports": 1, "speeds_bps": [100e9, 40e9]} in payload["breakout_modes"]["value"]
    assert payload["red"]["steps"]["value"] == 8
    assert payload["red"]["threshold_granularity_bytes"]["value"] is None
    assert {entry["id"] for entry in payload["sources"]} >= {"tlt", "tbtcp"}


def test_cli_show_unknown_name(app: click.Group) -> None:
    result = CliRunner().invoke(app, ["profiles", "show", "tomahwak"])
    assert result.exit_code != 0
    assert isinstance(result.exception, ProfileError)
    assert "broadcom-tomahawk" in str(result.exception)


def test_cli_main_reports_unknown_name_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from qosforge.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["profiles", "show", "tomahwak"])
    assert exited.value.code == 2
    assert "did you mean 'broadcom-tomahawk'" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_port_layout_is_sourced_and_consistent(name: str) -> None:
    profile = load_vendor_profile(name)
    for field in ("ports", "lanes_per_port", "breakout_modes"):
        assert profile.sourced(field).source
    if profile.ports.value is None:
        assert profile.breakout_modes.value is None and profile.lanes_per_port.value is None
        return
    assert profile.breakout_modes.value is not None and profile.lanes_per_port.value is not None
    (group,) = profile.ports.value
    native = [mode for mode in profile.breakout_modes.value if mode.ports == 1]
    assert native and group.speed_bps in native[0].speeds_bps
    for mode in profile.breakout_modes.value:
        # A split never yields more ports than the port has lanes, nor more than its native rate.
        assert mode.ports <= profile.lanes_per_port.value
        assert mode.ports * max(mode.speeds_bps) <= group.speed_bps


def test_known_port_layouts_match_their_sonic_platform_files() -> None:
    spectrum2 = load_vendor_profile("mellanox-spectrum-2")
    assert [(g.count, g.speed_bps) for g in spectrum2.ports.known()] == [(32, 200e9)]
    assert spectrum2.lanes_per_port.known() == 4
    assert [(m.ports, m.speeds_bps) for m in spectrum2.breakout_modes.known()] == [(1, [200e9, 100e9, 40e9]), (2, [100e9, 50e9]), (4, [50e9, 25e9, 10e9])]
    assert load_vendor_profile("mellanox-spectrum-4").lanes_per_port.known() == 8
    assert load_vendor_profile("broadcom-trident2").lanes_per_port.known() == 4


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_asic_name_does_not_repeat_the_vendor(name: str) -> None:
    """``profiles show`` prints "vendor asic": an ASIC named after its vendor read "qosforge
    qosforge software switch"."""
    profile = vp.load_vendor_profile(name)
    assert not profile.asic.lower().startswith(profile.vendor.lower() + " "), profile.asic
