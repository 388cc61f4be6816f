"""``explain``'s first line gives the value once: a host setting's rendering already starts with
its value and unit, a config_db value's does not (its unit follows in parentheses)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROCE = str(ROOT / "examples" / "roce-pod.yaml")
Run = Callable[..., tuple[int, str, str]]


def test_a_host_settings_unit_is_printed_once(run_cli: Run) -> None:
    code, out, err = run_cli("explain", ROCE, "--host", "nvidia-connectx-6dx-100G",
                             "--path", "class.tcp.rto_min")
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("class.tcp.rto_min on nvidia-connectx-6dx-100G = 4 ms (ip-route: ")
    assert first.count("4 ms") == 1 and "rto_min 4ms" in first


def test_a_host_setting_in_other_units_keeps_the_models_quantity(run_cli: Run) -> None:
    code, out, err = run_cli("explain", ROCE, "--host", "nvidia-connectx-6dx-100G",
                             "--path", "ecn.roce_rp.rpg_ai_rate")
    assert code == 0, err
    assert out.splitlines()[0].endswith("(1e+08 bps)")


def test_a_config_db_value_keeps_its_unit(run_cli: Run) -> None:
    code, out, err = run_cli("explain", ROCE, "--switch", "leaf1",
                             "--path", "BUFFER_POOL/ingress_lossless_pool/size")
    assert code == 0, err
    first = out.splitlines()[0]
    value = first.split(" = ")[1].split()[0]
    assert first.endswith(f"({float(value):g} B)")
