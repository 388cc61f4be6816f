"""End-to-end ``qosforge whatif pfc-headroom`` through the click CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from qosforge.cli import cli, main
from qosforge.errors import EXIT_BAD_INPUT

SONIC_40M = [
    "whatif",
    "pfc-headroom",
    "--mode",
    "sonic",
    "--asic",
    "mellanox-spectrum-2",
    "--speed",
    "100G",
    "--cable",
    "40m",
    "--port-mtu",
    "9100",
    "--lossless-mtu",
    "1024",
    "--small-packet-percent",
    "50",
    "--lanes",
    "4",
    "--format",
    "json",
]


def _json(args: list[str]) -> dict:  # type: ignore[type-arg]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)  # type: ignore[no-any-return]


def _error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == EXIT_BAD_INPUT
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    return lines[0]


def test_sonic_mode_reproduces_the_section_441_row() -> None:
    payload = _json(SONIC_40M)
    assert (payload["xon_bytes"], payload["xoff_bytes"], payload["size_bytes"]) == (
        19456,
        53248,
        72704,
    )
    assert payload["units"]["xoff_bytes"] == "B"
    assert payload["provenance"]["model"] == "sonic_headroom[mellanox]"


@pytest.mark.parametrize(
    ("asic", "speed", "expected"),
    [
        ("barefoot-tofino-2", "400G", (69632, 274432, 69632)),
        ("vs", "100G", (18432, 48128, 66560)),
        ("mellanox-spectrum", "100G", (19456, 48128, 67584)),
    ],
)
def test_sonic_mode_uses_each_vendor_profile(
    asic: str, speed: str, expected: tuple[int, int, int]
) -> None:
    args = [*SONIC_40M]
    args[args.index("mellanox-spectrum-2")] = asic
    args[args.index("100G")] = speed
    payload = _json(args)
    assert (payload["xon_bytes"], payload["xoff_bytes"], payload["size_bytes"]) == expected


def test_sonic_mode_flags_for_8_lanes_and_shp() -> None:
    eight = [*SONIC_40M]
    eight[eight.index("--lanes") + 1] = "8"
    assert _json(eight)["size_bytes"] == 101376
    shp = _json([*SONIC_40M, "--shp"])
    assert (shp["xoff_bytes"], shp["size_bytes"]) == (51200, 19456)


def test_sonic_defaults_match_the_sonic_template_values() -> None:
    payload = _json(
        [
            "whatif",
            "pfc-headroom",
            "--mode",
            "sonic",
            "--asic",
            "mellanox-spectrum-2",
            "--speed",
            "100G",
            "--cable",
            "40m",
            "--format",
            "json",
        ]
    )
    assert payload["xoff_bytes"] == 53248


def test_physical_mode_is_the_default_and_uses_the_asic_cell() -> None:
    payload = _json(
        [
            "whatif",
            "pfc-headroom",
            "--speed",
            "100G",
            "--cable",
            "40m",
            "--asic",
            "mellanox-spectrum-2",
            "--format",
            "json",
        ]
    )
    assert payload["provenance"]["model"] == "pfc_headroom"
    assert payload["xoff_bytes"] == 418 * 144  # tests/models/test_pfc_headroom.py worked example
    assert payload["size_bytes"] == payload["xoff_bytes"] + payload["xon_bytes"]


def test_physical_mode_without_cell_is_byte_granular() -> None:
    payload = _json(
        ["whatif", "pfc-headroom", "--speed", "100G", "--cable", "40m", "--format", "json"]
    )
    assert payload["cell_occupancy"] == 1.0
    assert payload["xoff_bytes"] == 50420  # ceil(50419.2 B) with 1-byte cells


def test_physical_peer_response_override_for_speeds_outside_the_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _error(["whatif", "pfc-headroom", "--speed", "150G", "--cable", "40m"], capsys)
    assert line.startswith("error: --speed:") and "--peer-response-quanta" in line
    payload = _json(
        [
            "whatif",
            "pfc-headroom",
            "--speed",
            "150G",
            "--cable",
            "40m",
            "--peer-response-quanta",
            "400",
            "--format",
            "json",
        ]
    )
    assert payload["peer_response_bytes"] == 400 * 64


def test_cable_sweep_in_both_modes() -> None:
    sonic = _json([*SONIC_40M, "--sweep", "cable=5m:300m:60"])
    assert len(sonic["xoff_bytes"]) == 60
    assert sonic["cable_m"][0] == 5 and sonic["cable_m"][-1] == 300
    assert sonic["xoff_bytes"][0] == 48128 and sonic["xoff_bytes"][-1] == 94208
    assert all(
        a <= b for a, b in zip(sonic["xoff_bytes"][:-1], sonic["xoff_bytes"][1:], strict=True)
    )
    physical = _json(
        [
            "whatif",
            "pfc-headroom",
            "--speed",
            "100G",
            "--sweep",
            "cable=1m:1km:11",
            "--format",
            "json",
        ]
    )
    assert len(physical["xoff_bytes"]) == 11
    assert all(
        a <= b for a, b in zip(physical["xoff_bytes"][:-1], physical["xoff_bytes"][1:], strict=True)
    )


def test_sweep_table_and_plot(tmp_path: Path) -> None:
    plot = tmp_path / "headroom.png"
    result = CliRunner().invoke(
        cli,
        [*SONIC_40M[:-2], "--sweep", "cable=5m:300m:5", "--plot", str(plot)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "94,208 B" in result.output
    assert plot.stat().st_size > 0


def test_unknown_asic_exits_2_naming_the_flag_and_known_profiles(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = _error(
        [
            "whatif",
            "pfc-headroom",
            "--mode",
            "sonic",
            "--asic",
            "spectrum-9",
            "--speed",
            "100G",
            "--cable",
            "40m",
        ],
        capsys,
    )
    assert line.startswith("error: --asic:")
    assert "mellanox-spectrum-2" in line and "barefoot-tofino-2" in line


def test_sonic_mode_needs_an_asic_with_an_asic_table(capsys: pytest.CaptureFixture[str]) -> None:
    line = _error(
        ["whatif", "pfc-headroom", "--mode", "sonic", "--speed", "100G", "--cable", "40m"], capsys
    )
    assert line.startswith("error: --asic:") and "mellanox-spectrum-2" in line
    line = _error(
        [
            "whatif",
            "pfc-headroom",
            "--mode",
            "sonic",
            "--asic",
            "broadcom-trident2",
            "--speed",
            "100G",
            "--cable",
            "40m",
        ],
        capsys,
    )
    assert line.startswith("error: --asic:") and "ASIC_TABLE" in line


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--small-packet-percent", "150"], "--small-packet-percent"),
        (["--port-mtu", "0"], "--port-mtu"),
        (["--lossless-mtu", "0"], "--lossless-mtu"),
        (["--cell", "0B"], "--cell"),
    ],
)
def test_physical_bad_values_name_the_flag(
    extra: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _error(["whatif", "pfc-headroom", "--speed", "100G", "--cable", "40m", *extra], capsys)
    assert line.startswith(f"error: {flag}:")


def test_sonic_bad_values_name_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    args = [a for a in SONIC_40M if a not in ("--format", "json")]
    args[args.index("--port-mtu") + 1] = "20000"
    assert _error(args, capsys).startswith("error: --port-mtu:")


def test_phy_delay_adds_its_round_trip_in_both_models_and_lint_hints_reproduce_it(run_cli) -> None:  # type: ignore[no-untyped-def]
    """--phy-delay (the intent's phy_delay) is wire: 2 x delay x rate more in flight, in the
    physical model and in SONiC's plugin (its gearbox term, counted both ways)."""
    import json

    def xoff(*extra: str) -> float:
        code, out, err = run_cli("whatif", "pfc-headroom", "--speed", "100G", "--cable", "40m", "--asic", "mellanox-spectrum-2", *extra, "--format", "json")
        assert code == 0, err
        return float(json.loads(out)["xoff_bytes"])

    extra_bytes = 2 * 1e-6 * 100e9 / 8  # 25 kB at 100G
    for mode in ("physical", "sonic"):
        plain, geared = xoff("--mode", mode), xoff("--mode", mode, "--phy-delay", "1us")
        assert extra_bytes <= geared - plain <= 1.3 * extra_bytes + 2048, (mode, plain, geared)
    assert xoff("--mode", "sonic", "--gearbox-delay", "1us") == xoff("--mode", "sonic", "--phy-delay", "1us")
