"""qosforge push against a real gNMI target over gRPC on 127.0.0.1 (tests/deliver/gnmi_target.py):
TLS with generated certificates, username/password, a Set validated against the model by the
target, Get read-back, backups, dry run, and the one-line errors with exit code 2."""

# ruff: noqa: F811  (pytest fixtures imported from gnmi_fixtures are parameters by name)
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deliver"))
from gnmi_fixtures import Pki, StartTarget, model_checked_once, pki, small_intent, start_target  # noqa: F401

from qosforge.deliver.compare import compare

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def compiled(small_intent: str, tmp_path: Path, run_cli: Run, model_checked_once: None) -> Path:
    code, _out, err = run_cli("compile", small_intent, "--switch", "leaf1", "-o", str(tmp_path / "out"), "--format", "json")
    assert code == 0, err
    return tmp_path / "out" / "leaf1" / "openconfig.json"


def test_push_applies_and_reads_back_identical(compiled: Path, start_target: StartTarget, pki: Pki, run_cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    target = start_target(credentials=("netops", "s3cret"))
    target.state.config = {"openconfig-qos:queues": {"queue": [{"name": "old", "config": {"name": "old"}}]}}
    monkeypatch.setenv("QOSFORGE_GNMI_PASSWORD", "s3cret")
    code, out, err = run_cli("push", "--config", str(compiled), "--address", target.address, "--tls-ca", str(pki.ca), "--username", "netops")
    assert code == 0, err
    assert "leaf1 (127.0.0.1:" in out and "applied, in sync" in out
    assert target.state.calls == ["Capabilities", "Get", "Set", "Get"]
    intended = json.loads(compiled.read_text())
    assert compare(intended, {"openconfig-qos:qos": target.state.config}) == ()
    # the previous /qos was saved beside the config, and pushing it back restores it
    backup = compiled.parent / "openconfig.backup.json"
    assert json.loads(backup.read_text()) == {"openconfig-qos:qos": {"openconfig-qos:queues": {"queue": [{"name": "old", "config": {"name": "old"}}]}}}
    code, out, err = run_cli("push", "--config", str(backup), "--address", target.address, "--tls-ca", str(pki.ca), "--username", "netops")
    assert code == 0, err
    assert target.state.config == {"openconfig-qos:queues": {"queue": [{"name": "old", "config": {"name": "old"}}]}}
    assert compare(intended, json.loads((compiled.parent / "previous.openconfig.backup.json").read_text())) == ()


def test_push_from_intent(small_intent: str, start_target: StartTarget, pki: Pki, run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = start_target()
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("push", small_intent, "--switch", "spine1", "--address", target.address, "--tls-ca", str(pki.ca), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report == {"switches": [{"name": "spine1", "address": target.address, "in_sync": True, "differences": [], "error": None}]}
    assert (tmp_path / "spine1.openconfig.backup.json").exists()


def test_model_breaking_payload_is_rejected_and_reported(compiled: Path, start_target: StartTarget, pki: Pki, run_cli: Run, tmp_path: Path) -> None:
    target = start_target()
    document = json.loads(compiled.read_text())
    # valid for qosforge's reader, broken for the model: the target's own check must catch it
    document["openconfig-qos:qos"]["queues"]["queue"][0]["config"]["queue-id"] = 300
    bad = tmp_path / "leaf1" / "openconfig.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps(document))
    import qosforge.api.delivery as delivery

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(delivery, "read_config", lambda path, target: json.loads(path.read_text()))
        code, _out, err = run_cli("push", "--config", str(bad), "--switch", "leaf1", "--address", target.address, "--tls-ca", str(pki.ca))
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "leaf1 (127.0.0.1:" in err and "rejected the Set (nothing applied)" in err and "uint8" in err
    assert target.state.config == {}


def test_config_that_breaks_the_model_is_unusable_input(compiled: Path, run_cli: Run, tmp_path: Path) -> None:
    document = json.loads(compiled.read_text())
    document["openconfig-qos:qos"]["queues"]["queue"][0]["config"]["colour"] = "red"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    code, _out, err = run_cli("push", "--config", str(bad), "--switch", "leaf1", "--address", "127.0.0.1:9", "--insecure")
    assert code == 2 and "not an openconfig-qos document" in err and "colour" in err


def test_wrong_credentials(compiled: Path, start_target: StartTarget, pki: Pki, run_cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    target = start_target(credentials=("netops", "s3cret"))
    monkeypatch.setenv("QOSFORGE_GNMI_PASSWORD", "wrong")
    code, _out, err = run_cli("push", "--config", str(compiled), "--address", target.address, "--tls-ca", str(pki.ca), "--username", "netops")
    assert code == 2
    assert "authentication failed" in err and "UNAUTHENTICATED" in err and "wrong" not in err
    assert target.state.calls == ["Capabilities"] and target.state.config == {}


def test_untrusted_server_certificate_and_skip_verify(compiled: Path, start_target: StartTarget, pki: Pki, run_cli: Run) -> None:
    target = start_target()
    code, _out, err = run_cli("push", "--config", str(compiled), "--address", target.address, "--tls-ca", str(pki.other_ca), "--timeout", "5s")
    assert code == 2 and "unreachable or TLS handshake failed" in err
    assert target.state.calls == []
    code, _out, err = run_cli("push", "--config", str(compiled), "--address", target.address, "--skip-verify")
    assert code == 0, err


def test_mutual_tls(compiled: Path, start_target: StartTarget, pki: Pki, run_cli: Run) -> None:
    target = start_target(mutual_tls=True)
    code, _out, err = run_cli("push", "--config", str(compiled), "--address", target.address, "--tls-ca", str(pki.ca), "--timeout", "5s")
    assert code == 2 and "leaf1 (127.0.0.1:" in err and target.state.calls == []
    code, _out, err = run_cli("push", "--config", str(compiled), "--address", target.address, "--tls-ca", str(pki.ca),
                              "--tls-cert", str(pki.client_cert), "--tls-key", str(pki.client_key))
    assert code == 0, err
    assert target.state.calls == ["Capabilities", "Get", "Set", "Get"]
    code, _out, err = run_cli("push", "--config", str(compiled), "--address", target.address, "--tls-ca", str(pki.ca), "--tls-cert", str(pki.client_cert))
    assert code == 2 and "needs both --tls-cert and --tls-key" in err


def test_unreachable_address(compiled: Path, run_cli: Run, pki: Pki) -> None:
    code, out, err = run_cli("push", "--config", str(compiled), "--address", "127.0.0.1:1", "--tls-ca", str(pki.ca), "--timeout", "3s")
    assert code == 2 and out == ""
    assert err.startswith("error: leaf1 (127.0.0.1:1): Capabilities: unreachable") and err.count("\n") == 1


def test_an_unreachable_plaintext_address_blames_no_tls(compiled: Path, run_cli: Run) -> None:
    # With --insecure no handshake is tried: the cause is the address, and --insecure (given)
    # or a CA cannot be the fix.
    code, out, err = run_cli("push", "--config", str(compiled), "--address", "127.0.0.1:1",
                             "--insecure", "--timeout", "3s")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: leaf1 (127.0.0.1:1): Capabilities: unreachable: UNAVAILABLE: ")
    hint = "(hint: check the address and port, and that the device's gNMI server is running)"
    assert err.rstrip().endswith(hint)


def test_dry_run_sends_nothing(compiled: Path, start_target: StartTarget, run_cli: Run) -> None:
    target = start_target(tls=False)
    code, out, err = run_cli("push", "--config", str(compiled), "--address", target.address, "--insecure", "--dry-run")
    assert code == 0, err
    assert "dry run: no connection opened" in out and "json_ietf_val" in out and 'name: "qos"' in out
    assert target.state.calls == []
    # Readable: the value as indented JSON after the message, not one escaped ~40 kB line.
    assert max(len(line) for line in out.splitlines()) < 200
    marker = "# replace[0] json_ietf_val, indented:\n"
    value = json.loads(out.split(marker, 1)[1])
    assert value == {f"openconfig-qos:{name}": member for name, member in json.loads(compiled.read_text())["openconfig-qos:qos"].items()}


def test_a_config_outside_a_compiled_switch_folder_needs_switch(compiled: Path, run_cli: Run, tmp_path: Path) -> None:
    copied = tmp_path / "elsewhere" / "openconfig.json"
    copied.parent.mkdir()
    copied.write_text(compiled.read_text())
    # Before: the folder's name ("elsewhere") was taken for the device.
    code, out, err = run_cli("push", "--config", str(copied), "--address", "127.0.0.1:9", "--insecure", "--dry-run")
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: --config: ") and "not in a compiled switch folder" in err and "--switch NAME" in err
    code, out, err = run_cli("push", "--config", str(copied), "--switch", "leaf1", "--address", "127.0.0.1:9", "--insecure", "--dry-run")
    assert code == 0 and out.startswith("# SetRequest for leaf1 "), err
    # In its compiled switch folder (the manifest says out/leaf1 is leaf1's) the switch is known, and another is refused.
    code, out, err = run_cli("push", "--config", str(compiled), "--address", "127.0.0.1:9", "--insecure", "--dry-run")
    assert code == 0 and out.startswith("# SetRequest for leaf1 "), err
    code, out, err = run_cli("push", "--config", str(compiled), "--switch", "spine1", "--address", "127.0.0.1:9", "--insecure", "--dry-run")
    assert code == 2 and out == "" and "compiled for switch leaf1, not spine1" in err and err.count("\n") == 1


def test_capabilities_missing_model_or_encoding(compiled: Path, start_target: StartTarget, run_cli: Run) -> None:
    from pygnmi.spec.v080 import gnmi_pb2

    target = start_target(tls=False, encodings=(gnmi_pb2.JSON,))
    code, _out, err = run_cli("push", "--config", str(compiled), "--address", target.address, "--insecure")
    assert code == 2 and "does not support encoding JSON_IETF" in err and target.state.calls == ["Capabilities"]
    older = start_target(tls=False, model_version="2024-10-01")
    code, _out, err = run_cli("push", "--config", str(compiled), "--address", older.address, "--insecure")
    assert code == 0 and "warning:" in err and "version 2024-10-01" in err and "openconfig-qos@2026-01-16" in err


def test_inventory_acts_on_every_switch(small_intent: str, start_target: StartTarget, pki: Pki, run_cli: Run, tmp_path: Path) -> None:
    leaf, spine = start_target(), start_target()
    inventory = tmp_path / "inventory.yaml"
    inventory.write_text(
        f"defaults: {{tls_ca: {pki.ca}}}\n"
        f"switches:\n  leaf1: {{address: '{leaf.address}'}}\n  spine1: {{address: '{spine.address}'}}\n  leaf2: {{address: '127.0.0.1:1', timeout: 2s}}\n"
    )
    code, out, _err = run_cli("push", small_intent, "--inventory", str(inventory), "--backup", str(tmp_path / "backups"), "--format", "json")
    assert code == 2  # leaf2 is unreachable: the worst outcome wins, the others are applied
    switches = {s["name"]: s for s in json.loads(out)["switches"]}
    assert switches["leaf1"]["in_sync"] is True and switches["spine1"]["in_sync"] is True
    assert switches["leaf2"]["in_sync"] is None and "unreachable" in switches["leaf2"]["error"]
    assert (tmp_path / "backups" / "leaf1.openconfig.backup.json").exists()
    assert leaf.state.calls == spine.state.calls == ["Capabilities", "Get", "Set", "Get"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--address", "127.0.0.1:9"], "give either INTENT"),
        (["--config", "x.json", "--switch", "s", "--address", "nohost"], "is not HOST:PORT"),
        (["--config", "x.json", "--switch", "s", "--address", "127.0.0.1:9", "--insecure", "--skip-verify"], "--insecure turns TLS off"),
        (["--config", "missing.json", "--switch", "s", "--address", "127.0.0.1:9"], "cannot read"),
        (["--config", "x.json", "--switch", "s", "--address", "127.0.0.1:9", "--timeout", "10"], "--timeout"),
    ],
)
def test_unusable_input(argv: list[str], message: str, run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.json").write_text("{}")
    code, out, err = run_cli("push", *argv)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
