"""simulate --hosts: a TCP class's simulated hosts run the document's Linux TCP settings
(congestion control, net.ipv4.tcp_ecn, minimum RTO, initial window) and the report says which
host model each class ran and where each value came from; what cannot be simulated is refused
by its key (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qosforge.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _write(
    tmp_path: Path,
    document: dict[str, Any],
    name: str,
    kernel: dict[str, Any] | None = None,
    tcp_class: dict[str, Any] | None = None,
) -> Path:
    edited = json.loads(json.dumps(document))
    edited["kernel"].update(kernel or {})
    for cls in edited["classes"]:
        if cls["name"] == "tcp":
            cls.update(tcp_class or {})
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(edited))
    return path


def _simulate(capsys: pytest.CaptureFixture[str], hosts: Path, *extra: str) -> tuple[int, str, str]:
    argv = [
        "simulate",
        str(ROOT / "examples" / "roce-pod.yaml"),
        "--scenario",
        "incast",
        "--class",
        "tcp",
        "--flows",
        "16",
        "--duration",
        "2ms",
        "--warmup",
        "0s",
        "--hosts",
        str(hosts),
        "--format",
        "json",
        *extra,
    ]
    with pytest.raises(SystemExit) as exited:
        main(argv)
    captured = capsys.readouterr()
    return int(exited.value.code or 0), captured.out, captured.err


def test_the_report_names_each_tcp_class_s_host_model_and_its_sources(
    rendered: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, rendered, "rendered")
    code, out, err = _simulate(capsys, path)
    assert code == 0, err
    report = json.loads(out)
    assert report["transport"] == "dctcp"
    assert report["hosts"]["tcp"] == [
        {
            "class": "tcp",
            "congestion_control": "dctcp",
            "flow_kind": "dctcp",
            "ecn_capable": True,
            # roce-pod's hosts.rto_min, rendered into the document's class (route rto_min).
            "rto_min_s": 0.004,
            "initial_window_segments": 10,
            "sources": {
                "congestion_control": "host document classes[0].congestion_control",
                "ecn": "TCP_CONG_NEEDS_ECN",
                "rto_min": "host document classes[0].rto_min_s (route rto_min)",
                "initial_window": "Linux default (TCP_INIT_CWND, RFC 6928)",
            },
        }
    ]


def test_the_hosts_settings_change_the_run(
    rendered: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CUBIC hosts on the DCTCP class's WRED queue: with Linux's default tcp_ecn = 2 their
    packets are not ECT, so the queue drops them; with tcp_ecn = 1 it marks them."""
    runs = {}
    for ecn in (2, 1):
        path = _write(
            tmp_path,
            rendered,
            f"cubic-ecn{ecn}",
            kernel={"tcp_ecn": ecn},
            tcp_class={"congestion_control": "cubic", "rto_min_s": 0.005},
        )
        code, out, err = _simulate(capsys, path)
        assert code == 0, err
        runs[ecn] = json.loads(out)
    default, negotiated = runs[2], runs[1]
    assert default["hosts"]["tcp"][0]["ecn_capable"] is False and default["transport"] == "cubic"
    assert negotiated["hosts"]["tcp"][0]["ecn_capable"] is True
    assert default["hosts"]["tcp"][0]["rto_min_s"] == 0.005
    assert default["drops"] > 0 and default["mark_fraction"] == 0
    assert negotiated["mark_fraction"] > 0 and negotiated["drops"] < default["drops"]


@pytest.mark.parametrize(
    ("kernel", "tcp_class", "key"),
    [
        ({}, {"congestion_control": "bbr"}, "--hosts: classes[0].congestion_control"),
        (
            {"tcp_congestion_control": "vegas"},
            {"congestion_control": None},
            "--hosts: kernel.tcp_congestion_control",
        ),
    ],
)
def test_a_congestion_control_that_cannot_be_simulated_is_refused(
    rendered: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kernel: dict[str, Any],
    tcp_class: dict[str, Any],
    key: str,
) -> None:
    code, out, err = _simulate(capsys, _write(tmp_path, rendered, "refused", kernel, tcp_class))
    assert code == 2 and out == "" and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and key in errors[0] and "cannot be simulated" in errors[0]
