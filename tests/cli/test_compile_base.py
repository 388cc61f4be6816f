"""`qosforge compile --base`: a GCU patch per switch next to its config_db.json."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonpatch

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tlt-testbed.yaml"
Run = Callable[..., tuple[int, str, str]]


def _running_config() -> dict[str, object]:
    return {
        "DEVICE_METADATA": {"localhost": {"hostname": "aurora720", "hwsku": "Arista-7060CX-32S-C32"}},
        "PORT": {f"Ethernet{4 * i}": {"lanes": str(4 * i + 1), "speed": "40000"} for i in range(32)},
        "LOOPBACK_INTERFACE": {"Loopback0|10.1.0.1/32": {}},
        "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}},
    }


def test_base_file_writes_a_patch_that_gcu_can_apply(tmp_path: Path, run_cli: Run) -> None:
    base = tmp_path / "running.json"
    base.write_text(json.dumps(_running_config()))
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(tmp_path / "out"), "--base", str(base), "--format", "json")
    assert code == 0, err
    compiled = json.loads((tmp_path / "out" / "aurora720" / "config_db.json").read_text())
    patch = json.loads((tmp_path / "out" / "aurora720" / "gcu-patch.json").read_text())
    result = jsonpatch.apply_patch(_running_config(), patch)
    assert result == {**{t: v for t, v in _running_config().items() if t != "SCHEDULER"}, **compiled}


def test_garbage_base_is_exit_2_and_writes_nothing(tmp_path: Path, run_cli: Run) -> None:
    base = tmp_path / "running.json"
    base.write_text('["not", "a", "config"]')
    out = tmp_path / "out"
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(out), "--base", str(base))
    assert code == 2
    assert err.startswith(f"error: {base}: a config_db.json is a JSON object of tables") and "Traceback" not in err
    assert not out.exists()


def test_dynamic_buffer_model_base_is_exit_2_and_writes_nothing(tmp_path: Path, run_cli: Run) -> None:
    running = _running_config()
    running["DEVICE_METADATA"] = {"localhost": {"hostname": "aurora720", "buffer_model": "dynamic"}}
    base = tmp_path / "running.json"
    base.write_text(json.dumps(running))
    out = tmp_path / "out"
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(out), "--base", str(base))
    assert code == 2 and "Traceback" not in err
    assert "buffer_model" in err and "traditional" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_base_needs_the_sonic_target(tmp_path: Path, run_cli: Run) -> None:
    code, _, err = run_cli("compile", str(EXAMPLE), "--target", "sai", "-o", str(tmp_path / "out"), "--base", str(tmp_path))
    assert code == 2 and "--base needs the sonic target" in err


def test_a_base_that_does_not_exist_says_so(tmp_path: Path, run_cli: Run) -> None:
    code, _out, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "--base", str(tmp_path / "no-such-folder"), "-o", str(tmp_path / "out"))
    assert code == 2 and "no such file or folder" in err and not (tmp_path / "out").exists()


def test_a_base_whose_ports_run_at_another_speed_is_refused(tmp_path: Path, run_cli: Run) -> None:
    running = _running_config()
    running["PORT"] = {name: {**entry, "speed": "100000"} for name, entry in running["PORT"].items()}  # type: ignore[attr-defined]
    base = tmp_path / "running.json"
    base.write_text(json.dumps(running))
    code, _out, err = run_cli("compile", str(EXAMPLE), "--target", "sonic", "-o", str(tmp_path / "out"), "--base", str(base))
    assert code == 2 and "run at another speed than the intent says" in err and "runs at 100G, compiled for 40G" in err
    assert not (tmp_path / "out").exists()
