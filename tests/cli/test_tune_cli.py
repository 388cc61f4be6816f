"""``qosforge tune``: the command's flags, its summary, and one-line errors with exit 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., tuple[int, str, str]]
ROOT = Path(__file__).resolve().parents[2]
INTENT = str(ROOT / "examples" / "roce-pod.yaml")
TRAFFIC = str(ROOT / "examples" / "roce-pod-mixed.traffic.yaml")


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        (
            ["--objective", "class=rdma,goodput_percent<=30"],
            "error: --objective: goodput_percent is a floor (hint: write goodput_percent>=30)",
        ),
        (["--minimize", "rdma"], "error: --minimize: 'rdma' is not CLASS.METRIC"),
        (["--seeds", "x"], "error: --seeds: 'x' is not N or a list of seeds"),
        (
            ["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
            "error: --workers: sets local workers, and --scheduler uses a cluster's",
        ),
        (
            ["--free", "classes.rdma.weight"],
            "error: --free: 'classes.rdma.weight' is not a block tune searches",
        ),
        (["--flow-sizes", "web-search"], "error: --flow-sizes: is for --from-gnmi"),
        # The rollout's devices are checked before the tune runs, not after it: the shipped
        # example inventory names a CA file (ca.pem) an operator supplies.
        (
            ["--push", "--switch", "leaf1", "--inventory",
             str(ROOT / "examples" / "inventories" / "roce-pod.yaml")],
            "error: leaf1 (192.0.2.11:9339): --tls-ca: cannot read ",
        ),
        (
            ["--push", "--switch", "leaf9", "--inventory",
             str(ROOT / "examples" / "inventories" / "roce-pod.yaml")],
            "error: --switch: switch(es) leaf9 not in the inventory",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    run_cli: Run, tmp_path: Path, extra: list[str], line: str
) -> None:
    code, out, err = run_cli(
        "tune", INTENT, "--traffic", TRAFFIC, "--out", str(tmp_path / "tuned"), *extra
    )
    assert code == 2 and out == ""
    assert (
        err.strip().splitlines()[0].startswith(line)
        and len(err.strip().splitlines()) == 1
        and "Traceback" not in err
    )
    assert not (tmp_path / "tuned").exists()


def test_a_small_tune_prints_the_change_and_its_cost(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "tuned"
    code, text, err = run_cli(
        "tune",
        INTENT,
        "--traffic",
        TRAFFIC,
        "--out",
        str(out),
        "--budget",
        "1",
        "--seeds",
        "1",
        "--holdout",
        "101",
        "--no-robustness",
        "--workers",
        "1",
        # A dry run of the rollout: nothing listens on port 9, and nothing connects to it.
        "--push",
        "--switch",
        "leaf1",
        "--address",
        "127.0.0.1:9",
        "--insecure",
    )
    assert code == 0, err
    lines = text.splitlines()
    assert (
        lines[0]
        == "objectives (the default set): minimise rdma.fct_p99_us; rdma.lossless_drops <= 0; "
        "rdma.pfc_pause_percent <= 10"
    )
    assert any(line.startswith("score on held-out seeds: ") for line in lines)
    assert any(line.startswith("  rdma.fct_p99_us: ") for line in lines)
    assert lines[-1].endswith(f"overrides, tuned intent, configs and tune.json in {out}")
    assert "tune: 7 knobs" in err
    log = (out / "rollout.log").read_text()
    assert log.startswith("dry run: would push leaf1 (canary), run it for 10s")
    assert f"rollout: dry-run; steps in {out / 'rollout.log'}" in err
    document = json.loads((out / "tune.json").read_text())
    assert document["trials"][0]["trial"] == 0 and len(document["trials"]) == 2
    # tune.json holds the seconds the summary prints (it once stopped before the final compile).
    assert lines[-1].startswith(
        f"wall {document['wall_seconds']:.1f} s, CPU {document['cpu_seconds']:.1f} s; "
    )


@pytest.mark.parametrize(
    ("where", "line"),
    [
        ("under-a-file", "is a file, not a folder"),
        ("missing-parent", "does not exist"),
    ],
)
def test_an_out_folder_that_cannot_be_written_is_refused_before_the_search(
    run_cli: Run, tmp_path: Path, where: str, line: str
) -> None:
    # Found after the search, such a folder cost every simulation of the tune, and a missing
    # parent was created although no other command creates one.
    (tmp_path / "a-file").write_text("")
    out = tmp_path / ("a-file" if where == "under-a-file" else "missing") / "tuned"
    code, text, err = run_cli(
        "tune", INTENT, "--traffic", TRAFFIC, "--out", str(out), "--budget", "1",
        "--seeds", "1", "--holdout", "101", "--no-robustness", "--workers", "1",
    )
    assert code == 2 and text == "", err
    [message] = err.strip().splitlines()  # no "tune: N knobs" or trial lines: nothing ran
    assert message.startswith("error: --out: ") and line in message
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a-file"]


def test_the_summary_prints_sizes_as_sizes() -> None:
    from qosforge.cli.tune import render_text

    knobs = [
        {"name": "tcp.ecn@100G.min", "start": 64500.0, "unit": "B"},
        {"name": "rdma.dcqcn.ratio", "start": 40.0, "unit": "x"},
        {"name": "rdma.dcqcn.pmax", "start": 1, "unit": "%"},
    ]
    best = {"tcp.ecn@100G.min": 186862.52557, "rdma.dcqcn.ratio": 10.4265, "rdma.dcqcn.pmax": 64}
    document = {
        "objectives": {"source": "the default set", "targets": ["minimise rdma.fct_p99_us"]},
        "knobs": knobs, "best": {"trial": 1, "values": best},
        "trials": [{"refused": None, "pruned": False}] * 2, "simulations": 3,
        "held_out": {"score_before": 1.0, "score_after": 0.5, "metrics": [
            {"name": "storage.fct_p99_us", "before_mean": 5510.70, "before_std": 7.435,
             "after_mean": 3741.96, "after_std": 610.14},
        ]},
        "robustness": {}, "notes": [], "wall_seconds": 1.0, "cpu_seconds": 1.0, "out": "tuned",
    }
    lines = render_text(document)
    assert "  tcp.ecn@100G.min: 64.5 kB -> 186.86 kB" in lines  # was 6.45e+04 -> 1.869e+05 B
    assert "  rdma.dcqcn.ratio: 40 x -> 10.4265 x" in lines
    assert "  rdma.dcqcn.pmax: 1 % -> 64 %" in lines
    assert "  storage.fct_p99_us: 5511 ± 7.4 -> 3742 ± 610" in lines  # was ± 6.1e+02
