"""``qosforge simulate INTENT --traffic FILE``: the JSON contract, the time series files, the plot,
and errors that name FILE:LINE and the names that exist, with no output file left behind."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Run = Callable[..., tuple[int, str, str]]
ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "tests" / "validation" / "fabrics" / "lossless-watchdog.yaml")
HEAD = "apiVersion: qosforge/v1\nkind: Traffic\nflows:\n"
INCAST = HEAD + "  - {group: incast, src: [leaf1, leaf2], dst: leaf3:Ethernet0, class: tcp, start_window: 100us}\n" \
                "  - {group: storage, src: leaf1:Ethernet0, dst: leaf2:Ethernet0, class: rdma, size: 200kB}\n"


def _file(tmp_path: Path, text: str, name: str = "traffic.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_json_contract(run_cli: Run, tmp_path: Path) -> None:
    traffic = _file(tmp_path, INCAST)
    code, out, err = run_cli("simulate", SMALL, "--traffic", traffic, "--measure", "1ms:3ms", "--sample", "50us", "--format", "json")
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    assert report["scenario"] == "traffic"
    assert report["throughput_basis"]["flows"].startswith("payload")
    assert {"goodput_gbps", "ip_gbps", "wire_gbps"} <= set(report["throughput_basis"])
    assert (report["measure_start_s"], report["measure_end_s"], report["duration_s"], report["sample_s"]) == (1e-3, 3e-3, 3e-3, 50e-6)
    assert len(report["flows"]) == 5 and report["flows_count"] == 5
    flow = report["flows"][0]
    assert {"id", "group", "src", "dst", "class", "bytes_delivered", "throughput_bps", "fct_s", "retransmissions"} <= set(flow)
    assert (flow["src"], flow["dst"], flow["class"], flow["fct_s"]) == ("leaf1:Ethernet0", "leaf3:Ethernet0", "tcp", None)
    assert flow["throughput_bps"] == pytest.approx(flow["bytes_delivered"] * 8 / 2e-3)
    storage = report["flows"][4]
    assert storage["size_bytes"] == 200_000 and storage["transport"] == "dcqcn"
    groups = {g["name"]: g for g in report["groups"]}
    assert set(groups) == {"incast", "storage"} and groups["incast"]["flows"] == 4
    assert {"mean_throughput_bps", "min_throughput_bps", "max_throughput_bps", "jain_index"} <= set(groups["incast"])
    port = next(p for p in report["ports"] if (p["switch"], p["port"], p["class"]) == ("leaf3", "Ethernet0", "tcp"))
    assert {"mean_queue_bytes", "max_queue_bytes", "mean_queue_delay_s", "paused_s"} <= set(port)
    # Every 50 us from 1 ms: 40 samples, and the one at 3 ms unless the engine's sum of intervals rounds past it.
    assert port["samples"] in (40, 41)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_time_series_file_holds_the_reported_means(run_cli: Run, tmp_path: Path, suffix: str) -> None:
    traffic = _file(tmp_path, INCAST)
    series = tmp_path / f"queues{suffix}"
    code, out, err = run_cli("simulate", SMALL, "--traffic", traffic, "--measure", "0s:2ms", "--timeseries", str(series), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    if suffix == ".csv":
        with series.open() as handle:
            rows = list(csv.DictReader(handle))
    else:
        import pyarrow.parquet as pq

        rows = pq.read_table(series).to_pylist()
    assert set(rows[0]) == {"time_s", "switch", "port", "queue", "queue_bytes", "queue_packets", "paused_s"}
    for port in report["ports"]:
        mine = [float(r["queue_bytes"]) for r in rows if (r["switch"], r["port"], int(r["queue"])) == (port["switch"], port["port"], port["queue"])]
        assert len(mine) == port["samples"] in (20, 21)
        assert sum(mine) / len(mine) == pytest.approx(port["mean_queue_bytes"], rel=1e-9, abs=1e-9)
    # Times as written: the interval's multiples, without the sums' float noise.
    if suffix == ".csv":
        assert {r["time_s"] for r in rows} <= {repr(round(k * 1e-4, 12)) for k in range(21)}


def test_the_plot_is_readable(run_cli: Run, saved_figures: Any, tmp_path: Path) -> None:
    traffic = _file(tmp_path, HEAD + "  - {src: [leaf1, leaf2], dst: leaf3:Ethernet0, class: rdma, count: 4}\n")
    code, _, err = run_cli("simulate", SMALL, "--traffic", traffic, "--measure", "0s:2ms", "--plot", str(tmp_path / "q.png"))
    assert code == 0, err
    saved_figures.assert_readable()
    axes = saved_figures.only().axes
    assert axes[0].get_lines(), "the queues are drawn"


def test_csv_traffic_on_one_switch(run_cli: Run, tmp_path: Path) -> None:
    traffic = _file(tmp_path, "group,src,dst,class,size\nin,tor1:Ethernet[4-12/4],tor1:Ethernet0,bulk,300kB\n", "m.csv")
    code, out, err = run_cli("simulate", str(ROOT / "examples" / "tlt-softswitch.yaml"), "--traffic", traffic, "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["switches"] == ["tor1"] and [f["bytes_delivered"] for f in report["flows"]] == [300_000] * 3
    assert all(f["fct_s"] is not None for f in report["flows"])


def test_a_csv_with_a_byte_order_mark_reads_as_without(run_cli: Run, tmp_path: Path) -> None:
    # Spreadsheets save "CSV UTF-8" with a byte-order mark before the header.
    text = "group,src,dst,class,size\nin,tor1:Ethernet4,tor1:Ethernet0,bulk,300kB\n"
    plain, marked = _file(tmp_path, text, "plain.csv"), _file(tmp_path, "\ufeff" + text, "marked.csv")
    reports = []
    for traffic in (plain, marked):
        code, out, err = run_cli("simulate", str(ROOT / "examples" / "tlt-softswitch.yaml"), "--traffic", traffic, "--format", "json")
        assert code == 0, err
        reports.append(json.loads(out)["flows"])
    assert reports[0] == reports[1] and reports[0][0]["bytes_delivered"] == 300_000


@pytest.mark.parametrize(("entry", "words"), [
    ("  - {src: leaf9:Ethernet0, dst: 0, class: tcp}\n", ["no switch 'leaf9'", "switches: leaf1, leaf2, leaf3, spine1, spine2"]),
    ("  - {src: leaf1:Ethernet99, dst: 0, class: tcp}\n", ["no port 'Ethernet99' on switch leaf1", "host ports of leaf1: Ethernet0, Ethernet4"]),
    ("  - {src: leaf1:Ethernet8, dst: 0, class: tcp}\n", ["not a host port", "spine1:Ethernet0"]),
    ("  - {src: 77, dst: 0, class: tcp}\n", ["no host 77", "0..5"]),
    ("  - {src: 1, dst: 0, class: video}\n", ["no class 'video'", "classes: rdma, tcp"]),
    ("  - {src: [0, 1, 2], dst: [3, 4], class: tcp}\n", ["3 senders and 2 receivers", "pairing: all"]),
    ("  - {src: 1, dst: 1, class: tcp}\n", ["send to itself"]),
    ("  - {src: 1, dst: 0, class: tcp, rate: 400G}\n", ["rate 400 Gb/s is above the sender", "(40 Gb/s)"]),
])
def test_a_name_the_intent_lacks_is_refused_at_its_line(run_cli: Run, tmp_path: Path, entry: str, words: list[str]) -> None:
    traffic = _file(tmp_path, HEAD + "  - {src: 0, dst: 5, class: tcp}\n" + entry)
    series, plot = tmp_path / "q.csv", tmp_path / "q.png"
    code, out, err = run_cli("simulate", SMALL, "--traffic", traffic, "--timeseries", str(series), "--plot", str(plot))
    assert code == 2 and out == ""
    assert f"{traffic}:5" in err and "Traceback" not in err, err
    for word in words:
        assert word in err, err
    assert not series.exists() and not plot.exists()


@pytest.mark.parametrize(("argv", "words"), [
    (("--scenario", "fabric-incast"), ["--scenario", "drop --scenario"]),
    (("--warmup", "1ms"), ["--warmup", "--measure START:END"]),
    (("--flows", "3"), ["--flows", "count:"]),
    (("--measure", "3ms"), ["--measure", "START:END"]),
    (("--measure", "3ms:1ms"), ["--measure", "before it starts"]),
    (("--measure", "0s:1ms", "--duration", "2ms"), ["--duration"]),
    (("--measure", "0s:1ms", "--sample", "2ms"), ["--sample"]),
    (("--timeseries", "q.txt"), ["--timeseries", ".csv"]),
])
def test_flags_that_do_not_fit_are_refused(run_cli: Run, tmp_path: Path, argv: tuple[str, ...], words: list[str]) -> None:
    traffic = _file(tmp_path, INCAST)
    code, out, err = run_cli("simulate", SMALL, "--traffic", traffic, *argv)
    assert code == 2 and out == "", err
    for word in words:
        assert word in err, err


def test_a_flow_that_starts_after_the_run_is_named_and_an_idle_group_has_no_jain(
    run_cli: Run, tmp_path: Path
) -> None:
    # Before: the late group reported Jain 1.0 (equal shares of nothing) and not a word was said.
    traffic = _file(
        tmp_path,
        HEAD + "  - {group: early, src: leaf1:Ethernet0, dst: leaf2:Ethernet0, class: tcp}\n"
        "  - {group: late, src: leaf1:Ethernet4, dst: leaf2:Ethernet4, class: tcp, start: 3600s}\n",
    )
    code, out, err = run_cli(
        "simulate", SMALL, "--traffic", traffic, "--duration", "1ms", "--format", "json"
    )
    assert code == 0, err
    report = json.loads(out)
    groups = {g["name"]: g for g in report["groups"]}
    assert groups["late"]["jain_index"] is None and groups["late"]["total_throughput_bps"] == 0
    assert groups["early"]["jain_index"] == 1.0 and groups["early"]["total_throughput_bps"] > 0
    assert (
        "warning: 1 of 2 flows start after the run ends at 0.001 s and send nothing: flow 1 "
        "(group late, leaf1:Ethernet4 -> leaf2:Ethernet4) at 3600 s" in err
    )
    assert (
        "warning: group 'late' delivered nothing in 0 s .. 0.001 s: Jain's index is undefined"
        in err
    )
    assert len(report["warnings"]) == 2
    code, out, err = run_cli("simulate", SMALL, "--traffic", traffic, "--duration", "1ms")
    late = next(line for line in out.splitlines() if "│ late" in line)
    assert late.rstrip(" │").endswith("—")


def test_the_file_s_window_is_used_unless_a_flag_overrides_it(run_cli: Run, tmp_path: Path) -> None:
    traffic = _file(
        tmp_path,
        HEAD.replace("flows:", "measure: 1ms:2ms\nflows:")
        + "  - {group: g, src: leaf1:Ethernet0, dst: leaf2:Ethernet0, class: tcp}\n",
    )
    code, out, err = run_cli("simulate", SMALL, "--traffic", traffic, "--format", "json")
    report = json.loads(out)
    assert code == 0 and (report["measure_start_s"], report["measure_end_s"]) == (0.001, 0.002)
    assert report["window_from"] == "the traffic file's measure: 1ms:2ms" and "overrides" not in err
    code, out, err = run_cli(
        "simulate", SMALL, "--traffic", traffic, "--duration", "3ms", "--format", "json"
    )
    report = json.loads(out)
    assert code == 0 and (report["measure_start_s"], report["measure_end_s"]) == (0.0, 0.003)
    assert report["window_from"] == "--duration 0.003s"
    assert "note: --duration 0.003s overrides the traffic file's measure: 1ms:2ms" in err
    code, out, err = run_cli(
        "simulate", SMALL, "--traffic", traffic, "--measure", "1ms:2ms", "--format", "json"
    )
    assert (
        code == 0
        and json.loads(out)["window_from"] == "--measure 1ms:2ms"
        and "overrides" not in err
    )


def test_measure_and_friends_are_refused_without_traffic(run_cli: Run) -> None:
    code, _, err = run_cli("simulate", "--scenario", "dumbbell", "--transport", "dctcp", "--ecn-threshold", "65pkt", "--measure", "0s:1ms")
    assert code == 2 and "--measure" in err
    code, _, err = run_cli("simulate", "--transport", "dctcp")
    assert code == 2 and "--traffic" in err


def _short_run_with_outputs(
    run_cli: Run, traffic: str, series: str, plot: str
) -> tuple[int, str, str]:
    return run_cli("simulate", SMALL, "--traffic", traffic, "--duration", "200us",
                   "--timeseries", series, "--plot", plot)


def test_a_failed_plot_leaves_no_time_series(run_cli: Run, tmp_path: Path) -> None:
    traffic = _file(tmp_path, INCAST)
    series = tmp_path / "ts.csv"
    code, _out, err = _short_run_with_outputs(run_cli, traffic, str(series), "/proc/q.png")
    assert code == 2 and "/proc/q.png" in err and "Traceback" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["traffic.yaml"]


def test_ctrl_c_during_the_plot_exits_130_and_leaves_nothing(
    run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qosforge.cli import simulate_plots

    def interrupted(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(simulate_plots, "plot_traffic", interrupted)
    traffic = _file(tmp_path, INCAST)
    series, plot = str(tmp_path / "ts.csv"), str(tmp_path / "q.png")
    code, _out, err = _short_run_with_outputs(run_cli, traffic, series, plot)
    assert (code, err.strip()) == (130, "error: interrupted")  # click ends the ^C line first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["traffic.yaml"]


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda path: path.mkdir(), "a folder"),
        (lambda path: os.mkfifo(path), "a FIFO (named pipe)"),
    ],
)
def test_traffic_that_is_no_file_says_what_it_is(
    run_cli: Run, tmp_path: Path, make: Callable[[Path], None], kind: str
) -> None:
    path = tmp_path / "flows.yaml"
    make(path)
    code, out, err = run_cli("simulate", SMALL, "--traffic", str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"error: --traffic: {path} is {kind}, not a file"), err


def test_dev_zero_is_a_character_device(run_cli: Run) -> None:
    code, _, err = run_cli("simulate", SMALL, "--traffic", "/dev/zero")
    assert code == 2
    assert err.startswith("error: --traffic: /dev/zero is a character device, not a file"), err


def test_the_run_is_sized_from_the_files_flows_at_the_flag_that_set_its_length(
    run_cli: Run, tmp_path: Path
) -> None:
    one = _file(tmp_path, HEAD + "  - {src: 0, dst: 1, class: tcp, size: 64kB}\n")
    # 6 s of all six hosts at line rate would be 120 M packets; the file's one flow is 44.
    code, out, err = run_cli(
        "simulate", SMALL, "--traffic", one, "--measure", "0s:6s", "--format", "json"
    )
    assert code == 0, err
    assert json.loads(out)["flows"][0]["fct_s"] is not None
    endless = _file(tmp_path, HEAD + "  - {src: 0, dst: 1, class: tcp}\n", "endless.yaml")
    code, out, err = run_cli("simulate", SMALL, "--traffic", endless, "--measure", "0s:100s")
    assert (code, out) == (2, "")
    expected = "error: --measure: 100 s of the file's 1 flow is 333,333,333 packets of 1500 B"
    assert err.startswith(expected), err


def test_a_very_fine_sample_says_how_many_rows_it_makes(run_cli: Run, tmp_path: Path) -> None:
    one = _file(tmp_path, HEAD + "  - {src: 0, dst: 1, class: tcp, size: 64kB}\n")
    code, _out, err = run_cli(
        "simulate",
        SMALL,
        "--traffic",
        one,
        "--measure",
        "0s:1s",
        "--sample",
        "1ns",
        "--timeseries",
        str(tmp_path / "q.csv"),
    )
    assert code == 2
    assert "warning: --sample 1 ns over 1 s makes 1,000,000,001 samples of " in err, err


def test_the_files_seed_is_reported(run_cli: Run, tmp_path: Path) -> None:
    seeded = _file(
        tmp_path,
        HEAD.replace("flows:", "seed: 7\nflows:")
        + "  - {src: 0, dst: 1, class: tcp, size: 64kB, start_window: 10us, stagger: random}\n",
    )
    code, out, err = run_cli(
        "simulate", SMALL, "--traffic", seeded, "--duration", "200us", "--format", "json"
    )
    assert code == 0, err
    assert json.loads(out)["traffic_seed"] == 7
    code, out, err = run_cli("simulate", SMALL, "--traffic", seeded, "--duration", "200us")
    assert code == 0 and "the file's seed 7 draws its random start times" in out, err


def test_a_dscp_no_class_lists_runs_where_compile_maps_it(run_cli: Run, tmp_path: Path) -> None:
    """lossless-watchdog maps DSCP 1 (no class lists it) to TC 0, the plan's implicit default
    class, and DSCP 48 to the cnp control class's TC 6: the flows run there, as plain TCP (CUBIC,
    what a Linux host's TCP runs)."""
    traffic = _file(
        tmp_path,
        HEAD
        + "  - {group: d, src: 0, dst: 1, dscp: 1, size: 64kB}\n"
        + "  - {group: c, src: 2, dst: 3, dscp: 48, size: 64kB}\n",
    )
    code, out, err = run_cli(
        "simulate", SMALL, "--traffic", traffic, "--duration", "2ms", "--format", "json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert [(f["class"], f["dscp"], f["transport"]) for f in report["flows"]] == [
        ("default", 1, "cubic"),
        ("cnp", 48, "cubic"),
    ]
    assert all(f["fct_s"] is not None for f in report["flows"])
    assert {(p["queue"], p["class"]) for p in report["ports"]} == {(0, "default"), (6, "cnp")}


def test_a_queue_row_names_its_whole_port_on_an_80_column_pipe(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Piped output is 80 columns wide: the switch:port of a row must still be whole.
    from qosforge.cli.simulate_traffic import emit_traffic

    monkeypatch.setenv("COLUMNS", "80")
    port = {"switch": "spine12", "port": "Ethernet128", "queue": 3, "class": "rdma",
            "mean_queue_bytes": 570370.0, "max_queue_bytes": 1511000.0,
            "mean_queue_delay_s": 45.6e-6, "paused_s": 0.0}
    report = {"measure_start_s": 0.0, "measure_end_s": 1e-3, "window_from": "--duration",
              "groups": [], "sample_s": 1e-4, "ports": [port], "flows": [], "flows_count": 0,
              "drops": 0, "marks": 0, "pfc_xoff_sent": 0, "host_tcp": [], "seed": 1}
    emit_traffic(report, "table")
    assert "spine12:Ethernet128" in capsys.readouterr().out
