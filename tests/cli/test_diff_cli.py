"""qosforge diff against a real gNMI target: in sync, drift after an out-of-band change (text and
JSON), and the exit codes."""

# ruff: noqa: F811  (pytest fixtures imported from gnmi_fixtures are parameters by name)
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deliver"))
from gnmi_fixtures import Pki, StartTarget, model_checked_once, pki, small_intent, start_target  # noqa: F401

Run = Callable[..., tuple[int, str, str]]


def test_drift_after_out_of_band_change(small_intent: str, start_target: StartTarget, pki: Pki, run_cli: Run, tmp_path: Path) -> None:
    target = start_target()
    common = ("--switch", "leaf1", "--address", target.address, "--tls-ca", str(pki.ca))
    code, _out, err = run_cli("push", small_intent, *common, "--backup", str(tmp_path / "b.json"))
    assert code == 0, err
    code, out, err = run_cli("diff", small_intent, *common)
    assert code == 0 and "read, in sync" in out
    # an operator edits the device by hand: a WRED threshold and a queue binding
    profiles = target.state.config["openconfig-qos:queue-management-profiles"]["queue-management-profile"]
    wred = profiles[0]["wred"]["uniform"]["config"]
    intended_max = wred["max-threshold"]
    wred["max-threshold"] = "999999"
    target.state.config["openconfig-qos:interfaces"]["interface"][0]["output"]["queues"]["queue"].pop()
    code, out, err = run_cli("diff", small_intent, *common, "--format", "json")
    assert code == 1, err
    (switch,) = json.loads(out)["switches"]
    assert switch["name"] == "leaf1" and switch["in_sync"] is False
    by_path = {d["path"]: d for d in switch["differences"]}
    path = f"/qos/queue-management-profiles/queue-management-profile[name={profiles[0]['name']}]/wred/uniform/config/max-threshold"
    assert by_path[path] == {"path": path, "intended": str(int(intended_max)), "actual": "999999"}
    assert any(d["actual"] is None and "/output/queues/queue[" in d["path"] for d in switch["differences"])
    code, out, _err = run_cli("diff", small_intent, *common)
    assert code == 1 and "difference(s)" in out and f"{path}: intended {int(intended_max)}, actual 999999" in out


def test_diff_of_an_empty_device_and_unreachable(small_intent: str, start_target: StartTarget, run_cli: Run) -> None:
    target = start_target(tls=False)
    code, out, _err = run_cli("diff", small_intent, "--switch", "leaf1", "--address", target.address, "--insecure", "--format", "json")
    assert code == 1 and json.loads(out)["switches"][0]["in_sync"] is False
    code, _out, err = run_cli("diff", small_intent, "--switch", "leaf1", "--address", "127.0.0.1:1", "--insecure", "--timeout", "2s")
    assert code == 2 and "unreachable" in err


def test_an_inventory_switch_the_intent_lacks_is_named_with_the_alternatives(small_intent: str, run_cli: Run, tmp_path: Path) -> None:
    inventory = tmp_path / "inventory.yaml"
    inventory.write_text("switches:\n  leaf1: {address: '127.0.0.1:9339'}\n  leaf99: {address: '127.0.0.1:9340'}\n")
    code, _out, err = run_cli("diff", small_intent, "--inventory", str(inventory), "--insecure")
    assert code == 2 and err.count("\n") == 1
    assert f"{inventory}:3:3" in err and "'leaf99'" in err and "its switches: " in err and "--switch leaf1" in err


def test_without_an_address_diff_points_to_push_dry_run(small_intent: str, run_cli: Run) -> None:
    code, _out, err = run_cli("diff", small_intent, "--switch", "leaf1")
    assert code == 2 and "qosforge push ... --dry-run" in err
    code, _out, err = run_cli("push", small_intent, "--switch", "leaf1")
    assert code == 2 and "or --dry-run" in err
