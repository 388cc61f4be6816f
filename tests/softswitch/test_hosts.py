"""simulate --hosts: the simulated hosts run the rendered host settings. The hosts compile renders
for roce-pod lose nothing in an incast; hosts that send the RoCE class on another priority (PFC
and DCQCN there, priority 4, while the switch's lossless PG pauses priority 3) lose packets in the
PG's headroom: the drops lint's host-dscp-priority and host-pfc-* rules predict for that document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qosforge.cli import main

ROOT = Path(__file__).resolve().parents[2]
HOST_KIND = "nvidia-connectx-6dx-100G"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    return int(exited.value.code or 0), capsys.readouterr().out


def _simulate(capsys: pytest.CaptureFixture[str], hosts: Path) -> dict[str, object]:
    code, out = _run(capsys, "simulate", str(ROOT / "examples" / "roce-pod.yaml"), "--scenario", "incast", "--flows", "64", "--duration", "1ms",
                     "--warmup", "0s", "--hosts", str(hosts), "--format", "json")
    assert code == 0, out
    report: dict[str, object] = json.loads(out)
    return report


def test_mismatched_host_priority_drops_what_lint_predicted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code, _ = _run(capsys, "compile", str(ROOT / "examples" / "roce-pod.yaml"), "--target", "host", "--target", "sonic", "-o", str(out), "-q")
    assert code == 0
    deployed = out / "hosts" / HOST_KIND / "host_settings.json"
    mismatched = tmp_path / "priority4.json"
    document = json.loads(deployed.read_text())
    document["qos"]["dscp_to_priority"]["26"] = 4
    document["qos"]["pfc_priorities"] = [4]
    document["qos"]["dcqcn"]["rp_priorities"] = document["qos"]["dcqcn"]["np_priorities"] = [4]
    mismatched.write_text(json.dumps(document))
    code, text = _run(capsys, "lint", str(out / "leaf1" / "config_db.json"), "--hosts", str(mismatched), "--format", "json")
    rules = {f["rule"] for f in json.loads(text)["findings"]}
    assert code == 1 and {"host-dscp-priority", "host-pfc-missing", "host-pfc-not-lossless"} <= rules
    good, bad = _simulate(capsys, deployed), _simulate(capsys, mismatched)
    assert good["hosts"] == {"file": str(deployed), "host_kind": HOST_KIND, "host_priorities": [3]}
    assert good["lossless_drops"] == 0 and good["pfc_xoff_sent"] > 0  # PFC fired and held
    assert bad["lossless_drops"] > 0 and bad["drops_by_reason"]["lossless_headroom"] == bad["lossless_drops"]  # type: ignore[index]


def _refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The part of the one-line error each refusal below must say (exit 2, no traceback)."""
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "Traceback" not in err, err
    for expected in ("attach to leaf1, leaf2, leaf3, leaf4, not to T1", "NIC runs at 100 Gb/s, the simulated hosts at 1 Gb/s"):
        if expected in err:
            return expected
    return err


def test_a_document_of_other_hosts_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # roce-pod's hosts (leaf1..4, 100G) applied to dctcp-fig17's 1G hosts on T1/T2 would run
    # roce-pod's DSCP map and DCQCN steps there without a word.
    out = tmp_path / "out"
    code, _ = _run(capsys, "compile", str(ROOT / "examples" / "roce-pod.yaml"), "--target", "host", "-o", str(out), "-q")
    assert code == 0
    document = out / "hosts" / HOST_KIND / "host_settings.json"
    argv = ("simulate", str(ROOT / "examples" / "dctcp-fig17.yaml"), "--scenario", "incast", "--flows", "4", "--duration", "1ms",
            "--warmup", "0s", "--hosts", str(document))
    assert _refusal(capsys, *argv) == "attach to leaf1, leaf2, leaf3, leaf4, not to T1"
    speed = tmp_path / "speed.json"
    moved = json.loads(document.read_text())
    moved["attachments"] = [{"switch": "T1", "port": "Ethernet0"}]
    speed.write_text(json.dumps(moved))
    assert _refusal(capsys, *argv[:-1], str(speed)) == "NIC runs at 100 Gb/s, the simulated hosts at 1 Gb/s"
