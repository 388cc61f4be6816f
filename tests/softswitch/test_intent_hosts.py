"""The TCP hosts the intent states, in the simulator: without ``--hosts`` each class's flows run
the intent's minimum RTO and initial window (else Linux's 200 ms and 10), ``--rto-min`` still
overrides, and the report names each value's source; ``compile --target host`` then
``simulate --hosts`` with the rendered document gives every class the same values (round trip)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qosforge.cli import main

#: Two TCP classes: bulk on the intent's 4 ms, legacy on its own 7 ms and IW16.
INTENT = Path(__file__).resolve().parents[1] / "validation" / "fabrics" / "tcp-hosts.yaml"
#: What the intent states per class: (rto_min_s, initial window, their sources).
STATED = {
    "bulk": (0.004, 10, "intent hosts.rto_min", "Linux default (TCP_INIT_CWND, RFC 6928)"),
    "legacy": (
        0.007,
        16,
        "intent classes[1].hosts.rto_min",
        "intent classes[1].hosts.initial_window_segments",
    ),
}


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    captured = capsys.readouterr()
    return int(exited.value.code or 0), captured.out, captured.err


def _incast(
    capsys: pytest.CaptureFixture[str], intent: Path, klass: str, *extra: str
) -> dict[str, Any]:
    code, out, err = _run(
        capsys,
        [
            "simulate",
            str(intent),
            "--scenario",
            "incast",
            "--class",
            klass,
            "--flows",
            "4",
            "--duration",
            "1ms",
            "--warmup",
            "0s",
            "--format",
            "json",
            *extra,
        ],
    )
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


@pytest.fixture
def intent() -> Path:
    return INTENT


@pytest.mark.parametrize("klass", sorted(STATED))
def test_without_a_host_document_the_intent_s_values_run(
    capsys: pytest.CaptureFixture[str], intent: Path, klass: str
) -> None:
    rto, window, rto_source, window_source = STATED[klass]
    (model,) = _incast(capsys, intent, klass)["hosts"]["tcp"]
    assert (model["class"], model["rto_min_s"], model["initial_window_segments"]) == (
        klass,
        rto,
        window,
    )
    assert (model["sources"]["rto_min"], model["sources"]["initial_window"]) == (
        rto_source,
        window_source,
    )


def test_the_flag_overrides_the_intent(capsys: pytest.CaptureFixture[str], intent: Path) -> None:
    (model,) = _incast(capsys, intent, "legacy", "--rto-min", "3ms")["hosts"]["tcp"]
    assert (model["rto_min_s"], model["sources"]["rto_min"]) == (0.003, "--rto-min")
    assert model["initial_window_segments"] == 16


def test_an_intent_that_states_nothing_runs_linux_s_defaults(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "linux.yaml"
    path.write_text(
        INTENT.read_text()
        .replace("hosts:\n  rto_min: 4ms\n", "")
        .replace("    hosts: {rto_min: 7ms, initial_window_segments: 16}\n", "")
    )
    (model,) = _incast(capsys, path, "bulk")["hosts"]["tcp"]
    assert (model["rto_min_s"], model["initial_window_segments"]) == (0.2, 10)
    assert model["sources"]["rto_min"] == "Linux default (TCP_RTO_MIN, include/net/tcp.h)"


def test_the_rendered_host_document_round_trips_every_class_s_values(
    capsys: pytest.CaptureFixture[str], intent: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    code, _, err = _run(capsys, ["compile", str(intent), "--target", "host", "-o", str(out)])
    assert code == 0, err
    (document,) = sorted(out.glob("hosts/*/host_settings.json"))
    rendered = json.loads(document.read_text())
    # The two classes state different minimum RTOs: no one sysctl, each class's route says it.
    assert rendered["kernel"]["tcp_rto_min_us"] is None
    for klass, (rto, window, _, _) in STATED.items():
        (model,) = _incast(capsys, intent, klass, "--hosts", str(document))["hosts"]["tcp"]
        assert (model["rto_min_s"], model["initial_window_segments"]) == (rto, window), klass
        assert model["sources"]["rto_min"].startswith("host document classes[")
        # ECN as the intent has it: legacy TCP beside a DCTCP class is not made ECN-capable by
        # a host-wide net.ipv4.tcp_ecn = 1 written for the DCTCP class.
        (stated,) = _incast(capsys, intent, klass)["hosts"]["tcp"]
        assert (model["flow_kind"], model["ecn_capable"]) == (
            stated["flow_kind"], stated["ecn_capable"]), klass


def test_the_intent_s_minimum_rto_is_the_one_the_hosts_time_out_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """100 DCTCP flows into one 1G port of dctcp-fig17: the queue (about 1,000 packets, 12 ms at
    1G) delays packets past a 4 ms minimum RTO, so hosts stated at 4 ms time out with nothing
    dropped (timeouts no loss caused); Linux's 200 ms, where the intent states none, does
    not. The RTO lower bound is the one the intent states, not a fixed engine value."""
    example = Path(__file__).resolve().parents[2] / "examples" / "dctcp-fig17.yaml"
    stated = tmp_path / "fig17-4ms.yaml"
    stated.write_text(
        example.read_text().replace("\nclasses:\n", "\nhosts: {rto_min: 4ms}\nclasses:\n", 1)
    )
    runs = {}
    for name, path in (("linux", example), ("4ms", stated)):
        code, out, err = _run(
            capsys,
            [
                "simulate",
                str(path),
                "--scenario",
                "incast",
                "--flows",
                "100",
                "--duration",
                "10ms",
                "--warmup",
                "1ms",
                "--format",
                "json",
            ],
        )
        assert code == 0, err
        runs[name] = json.loads(out)
    linux, datacenter = runs["linux"], runs["4ms"]
    assert linux["hosts"]["tcp"][0]["rto_min_s"] == 0.2
    assert datacenter["hosts"]["tcp"][0]["rto_min_s"] == 0.004
    assert linux["drops"] == datacenter["drops"] == 0
    assert linux["timeouts"] == 0 and datacenter["timeouts"] > 0
    # Nothing was lost, so both deliver the line's payload.
    assert linux["goodput_gbps"] == pytest.approx(datacenter["goodput_gbps"], rel=0.02)
