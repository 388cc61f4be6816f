"""simulate --hosts: the simulated hosts run the rendered host settings. The hosts compile renders
for roce-pod lose nothing in an incast; hosts that send the RoCE class on another priority (PFC
and DCQCN there, priority 4, while the switch's lossless PG pauses priority 3) lose packets in the
PG's headroom: the drops lint's host-dscp-priority and host-pfc-* rules predict for that document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qosforge.cli import main

ROOT = Path(__file__).resolve().parents[2]
HOST_KIND = "nvidia-connectx-6dx-100G"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    return int(exited.value.code or 0), capsys.readouterr().out


def _simulate(
    capsys: pytest.CaptureFixture[str],
    hosts: Path,
    flows: str = "64",
    duration: str = "1ms",
    warmup: str = "0s",
) -> dict[str, Any]:
    code, out = _run(
        capsys,
        "simulate",
        str(ROOT / "examples" / "roce-pod.yaml"),
        "--scenario",
        "incast",
        "--flows",
        flows,
        "--duration",
        duration,
        "--warmup",
        warmup,
        "--hosts",
        str(hosts),
        "--format",
        "json",
    )
    assert code == 0, out
    report: dict[str, Any] = json.loads(out)
    return report


def test_mismatched_host_priority_drops_what_lint_predicted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, _ = _run(
        capsys,
        "compile",
        str(ROOT / "examples" / "roce-pod.yaml"),
        "--target",
        "host",
        "--target",
        "sonic",
        "-o",
        str(out),
        "-q",
    )
    assert code == 0
    deployed = out / "hosts" / HOST_KIND / "host_settings.json"
    mismatched = tmp_path / "priority4.json"
    document = json.loads(deployed.read_text())
    document["qos"]["dscp_to_priority"]["26"] = 4
    document["qos"]["pfc_priorities"] = [4]
    document["qos"]["dcqcn"]["rp_priorities"] = document["qos"]["dcqcn"]["np_priorities"] = [4]
    mismatched.write_text(json.dumps(document))
    code, text = _run(
        capsys,
        "lint",
        str(out / "leaf1" / "config_db.json"),
        "--hosts",
        str(mismatched),
        "--format",
        "json",
    )
    rules = {f["rule"] for f in json.loads(text)["findings"]}
    assert (
        code == 1 and {"host-dscp-priority", "host-pfc-missing", "host-pfc-not-lossless"} <= rules
    )
    good, bad = _simulate(capsys, deployed), _simulate(capsys, mismatched)
    assert good["hosts"] == {
        "file": str(deployed),
        "host_kind": HOST_KIND,
        "host_priorities": [3],
        "trust": "dscp",
        "pfc_priorities": [3],
        "dcqcn_reaction_point": True,
        "dcqcn_notification_point": True,
    }
    assert good["lossless_drops"] == 0 and good["pfc_xoff_sent"] > 0  # PFC fired and held
    assert (
        bad["lossless_drops"] > 0
        and bad["drops_by_reason"]["lossless_headroom"] == bad["lossless_drops"]
    )


def _refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The part of the one-line error each refusal below must say (exit 2, no traceback)."""
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "Traceback" not in err, err
    for expected in (
        "attach to leaf1, leaf2, leaf3, leaf4, not to T1",
        "NIC runs at 100 Gb/s, the simulated hosts at 1 Gb/s",
    ):
        if expected in err:
            return expected
    return err


def test_a_document_of_other_hosts_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # roce-pod's hosts (leaf1..4, 100G) applied to dctcp-fig17's 1G hosts on T1/T2 would run
    # roce-pod's DSCP map and DCQCN steps there without a word.
    out = tmp_path / "out"
    code, _ = _run(
        capsys,
        "compile",
        str(ROOT / "examples" / "roce-pod.yaml"),
        "--target",
        "host",
        "-o",
        str(out),
        "-q",
    )
    assert code == 0
    document = out / "hosts" / HOST_KIND / "host_settings.json"
    argv = (
        "simulate",
        str(ROOT / "examples" / "dctcp-fig17.yaml"),
        "--scenario",
        "incast",
        "--flows",
        "4",
        "--duration",
        "1ms",
        "--warmup",
        "0s",
        "--hosts",
        str(document),
    )
    assert _refusal(capsys, *argv) == "attach to leaf1, leaf2, leaf3, leaf4, not to T1"
    speed = tmp_path / "speed.json"
    moved = json.loads(document.read_text())
    moved["attachments"] = [{"switch": "T1", "port": "Ethernet0"}]
    speed.write_text(json.dumps(moved))
    assert (
        _refusal(capsys, *argv[:-1], str(speed))
        == "NIC runs at 100 Gb/s, the simulated hosts at 1 Gb/s"
    )


def _edited(tmp_path: Path, document: dict[str, object], name: str, **qos: object) -> Path:
    edited = json.loads(json.dumps(document))
    edited["qos"].update(qos)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(edited))
    return path


def _edited_dcqcn(tmp_path: Path, document: dict[str, object], name: str, **dcqcn: object) -> Path:
    qos = json.loads(json.dumps(document["qos"]))
    qos["dcqcn"].update(dcqcn)
    return _edited(tmp_path, document, name, dcqcn=qos["dcqcn"])


def test_a_nic_whose_reaction_point_is_off_is_not_slowed_by_cnps(
    rendered: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 8 RoCE senders into one 100G port for 10 ms (5 ms measured).
    enabled = _simulate(capsys, _edited(tmp_path, rendered, "rp-on"), "8", "10ms", "5ms")
    disabled = _simulate(
        capsys, _edited_dcqcn(tmp_path, rendered, "rp-off", rp_priorities=[]), "8", "10ms", "5ms"
    )
    assert enabled["hosts"]["dcqcn_reaction_point"] is True
    assert disabled["hosts"]["dcqcn_reaction_point"] is False
    # Both receivers send CNPs; the enabled senders cut their rates and the queue stays short
    # without PFC, the disabled ones keep sending at line rate: the queue grows into PFC, every
    # packet is marked, and the link carries the RoCE payload bound, 100 x 980/1062 Gb/s.
    assert enabled["cnps_sent"] > 0 and disabled["cnps_sent"] > enabled["cnps_sent"]
    assert enabled["pfc_xoff_sent"] == 0 and disabled["pfc_xoff_sent"] > 0
    assert float(disabled["queue_mean_packets"]) > 100 * float(enabled["queue_mean_packets"])
    assert float(disabled["goodput_gbps"]) == pytest.approx(100 * 980 / 1062, rel=1e-3)
    assert disabled["lossless_drops"] == enabled["lossless_drops"] == 0


def test_a_nic_whose_notification_point_is_off_sends_no_cnp(
    rendered: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _simulate(capsys, _edited_dcqcn(tmp_path, rendered, "np-off", np_priorities=[]))
    assert report["hosts"]["dcqcn_notification_point"] is False and report["cnps_sent"] == 0
    assert float(report["mark_fraction"]) > 0  # the switch marks; nobody answers


def test_a_nic_that_trusts_pcp_sends_roce_on_priority_0_and_is_never_paused(
    rendered: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _simulate(capsys, _edited(tmp_path, rendered, "pcp", trust="pcp"))
    hosts = report["hosts"]
    assert hosts["trust"] == "pcp" and hosts["host_priorities"] == [0]
    # The switch classifies by DSCP and pauses the lossless PG's priority 3; the NIC sends on 0 and
    # does not stop: the headroom overflows and DCQCN (on priority 3 only) never runs.
    assert report["pfc_xoff_sent"] > 0 and report["lossless_drops"] > 0
    assert report["lossless_drops_by_reason"]["lossless_headroom"] == report["lossless_drops"]
    assert hosts["dcqcn_reaction_point"] is False and report["cnps_sent"] == 0


def test_a_nic_without_pfc_on_the_paused_priority_ignores_pause(
    rendered: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _simulate(capsys, _edited(tmp_path, rendered, "no-pfc", pfc_priorities=[]))
    assert report["hosts"]["pfc_priorities"] == []
    assert report["pfc_xoff_sent"] > 0 and report["lossless_drops"] > 0


def test_a_document_without_dcqcn_for_a_roce_class_is_refused(
    rendered: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _edited(tmp_path, rendered, "no-dcqcn", dcqcn=None)
    err = _refusal(
        capsys,
        "simulate",
        str(ROOT / "examples" / "roce-pod.yaml"),
        "--scenario",
        "incast",
        "--flows",
        "8",
        "--duration",
        "1ms",
        "--warmup",
        "0s",
        "--hosts",
        str(path),
    )
    assert "runs no DCQCN" in err and "qos.dcqcn" in err
