"""``qosforge compare``'s modes as intent variants, their refusal where the switch cannot trim,
and the per-mode numbers taken from a traffic run's report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosforge.api.compare import (
    MODES,
    CompareRequest,
    compare,
    free_dscp,
    mode_document,
    parse_modes,
    roce_class,
    summarise,
)
from qosforge.api.reporting import StderrReporter
from qosforge.compiler.loader import load_intent
from qosforge.errors import QosforgeError

ROOT = Path(__file__).resolve().parents[2]
ROCE_POD = ROOT / "examples" / "roce-pod.yaml"
TRIM_POD = ROOT / "examples" / "trim-pod.yaml"
ALLREDUCE = ROOT / "examples" / "allreduce.traffic.yaml"
VICTIMS = ROOT / "examples" / "victims.traffic.yaml"


def _document(path: Path) -> object:
    from ruamel.yaml import YAML

    return YAML().load(path.read_text())


def test_modes_parse_in_the_order_given_and_unknown_or_repeated_ones_are_refused() -> None:
    assert parse_modes("trimming, lossy-irn") == ("trimming", "lossy-irn")
    assert parse_modes(",".join(MODES)) == MODES
    with pytest.raises(QosforgeError, match="unknown mode 'pfc'"):
        parse_modes("lossy-irn,pfc")
    with pytest.raises(QosforgeError, match="twice"):
        parse_modes("lossy-irn,lossy-irn")


def test_each_mode_changes_only_the_roce_class(tmp_path: Path) -> None:
    document = _document(ROCE_POD)
    index = roce_class(document, None)
    assert document["classes"][index]["name"] == "rdma"
    expected = {
        "lossless-dcqcn": ("dcqcn", True, None),
        "pfc-only": ("dcqcn", True, None),
        "lossy-irn": ("irn", None, None),
        "trimming": ("irn", None, {"size": "256B", "dscp": 1}),
    }
    for mode, (transport, lossless, trim) in expected.items():
        variant = mode_document(document, index, mode)
        entry = variant["classes"][index]
        assert (entry["transport"], entry.get("lossless"), entry.get("trim")) == (
            transport,
            lossless,
            trim,
        )
        assert variant["classes"][1] == document["classes"][1]
        assert variant["topology"] == document["topology"]
    assert document["classes"][index]["transport"] == "dcqcn"  # the original is untouched


def test_the_trimmed_mode_keeps_the_intents_own_trim_block() -> None:
    document = _document(TRIM_POD)
    variant = mode_document(document, roce_class(document, None), "trimming")
    assert dict(variant["classes"][0]["trim"]) == {"size": "256B", "dscp": 11}
    lossless = mode_document(document, 0, "lossless-dcqcn")["classes"][0]
    assert "trim" not in lossless and lossless["lossless"] is True


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.integers(0, 63), max_size=62))
def test_the_trim_dscp_is_the_lowest_unused_one(used: set[int]) -> None:
    document = {
        "design": {"cnp_dscp": 48},
        "classes": [{"name": "a", "transport": "dcqcn", "dscp": sorted(used) or [0]}],
    }
    taken = (used or {0}) | {48}
    if len(taken) == 64:
        return
    assert free_dscp(document) == min(set(range(64)) - taken)


def test_a_class_that_is_not_roce_is_refused_at_the_flag() -> None:
    document = _document(ROCE_POD)
    with pytest.raises(QosforgeError, match="runs dctcp, not RoCE") as error:
        roce_class(document, "tcp")
    assert error.value.place == "--class"
    with pytest.raises(QosforgeError, match="no class 'gpu'"):
        roce_class(document, "gpu")


def test_trimming_on_a_profile_that_cannot_trim_is_refused_naming_the_asic() -> None:
    result = compare(
        CompareRequest(str(ROCE_POD), str(ALLREDUCE), modes=("trimming",)), StderrReporter()
    )
    (row,) = result.modes
    assert row.refused is not None and "mellanox-spectrum-2" in row.refused
    assert row.jct_s is None


def test_every_mode_variant_of_the_trimming_pod_compiles(tmp_path: Path) -> None:
    from qosforge.compiler.compile import compile_intent

    document = _document(TRIM_POD)
    for mode in MODES:
        from io import StringIO

        from ruamel.yaml import YAML

        path = tmp_path / f"{mode}.yaml"
        stream = StringIO()
        YAML().dump(mode_document(document, 0, mode), stream)
        path.write_text(stream.getvalue())
        loaded, source_map = load_intent(path)
        compile_intent(loaded, source_map, targets=("sai",))


def _report(
    fcts: list[float | None], jcts: list[float | None], paused: list[float]
) -> dict[str, object]:
    flows = [
        {
            "fct_s": f,
            "size_bytes": 1000,
            "timeouts": 1,
            "retransmissions": 2,
            "trimmed_packets": 3,
            "ooo_packets": 4,
            "pfc_paused": i < 3,
            "pfc_victim": i == 0,
        }
        for i, f in enumerate(fcts)
    ]
    return {
        "flows": flows,
        "collectives": [{"jct_s": j} for j in jcts],
        "ports": [{"paused_s": p} for p in paused],
        "lossless_drops": 5,
        "drops": 6,
    }


def test_a_modes_row_takes_the_slowest_collective_and_nearest_rank_percentiles() -> None:
    row = summarise(
        "lossy-irn",
        _report([0.004, 0.001, 0.003, 0.002, None], [0.01, 0.02], [0.0, 1e-3, 2e-3]),
        1.5,
    )
    assert row.jct_s == 0.02
    assert row.fct_p50_s == 0.002 and row.fct_p99_s == 0.004
    assert row.unfinished_flows == 1 and row.flows == 5
    assert (row.timeouts, row.retransmissions, row.trimmed_packets, row.ooo_packets) == (
        5,
        10,
        15,
        20,
    )
    assert row.pfc_pause_s == pytest.approx(3e-3) and (row.paused_queues, row.queues) == (2, 3)
    assert (row.paused_flows, row.victim_flows, row.victim_share) == (3, 1, 0.2)
    assert row.to_json()["victim_share"] == 0.2
    unfinished = summarise("lossy-irn", _report([0.001], [0.01, None], []), 0.0)
    assert unfinished.jct_s is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("classes: [\n", r"bad\.yaml:2:1: malformed YAML"),
        ("apiVersion: qosforge/v1\nbogus: 1\n", "unknown field 'bogus'"),
    ],
)
def test_a_malformed_intent_is_refused_at_its_line_and_nothing_is_written(
    tmp_path: Path, text: str, message: str
) -> None:
    intent = tmp_path / "bad.yaml"
    intent.write_text(text)
    out = tmp_path / "out"
    traffic = ROOT / "examples" / "incast64.traffic.yaml"
    request = CompareRequest(intent=str(intent), traffic=str(traffic), out_dir=str(out))
    with pytest.raises(QosforgeError, match=message):
        compare(request, StderrReporter())
    assert not out.exists()


def test_pfc_victims_are_counted_where_pfc_pauses_and_none_where_nothing_pauses() -> None:
    result = compare(
        CompareRequest(
            str(ROCE_POD),
            str(VICTIMS),
            modes=("pfc-only", "lossy-irn"),
            duration="8ms",
            assumptions=("red.steps=1024", "red.step_offset=0"),
            fail_links=0,
        ),
        StderrReporter(),
    )
    pfc, lossy = result.modes
    # PFC alone: leaf4 pauses both spines' links to it; the eight incast flows and the leaf2 flow
    # to host 49 cross them, and only that one's own path is free: one victim of ten flows.
    assert pfc.paused_queues == 2 and pfc.paused_flows == 9
    assert pfc.victim_flows == 1 and pfc.victim_share == pytest.approx(0.1)
    # Without PFC nothing pauses, so nothing is a victim.
    assert lossy.pfc_pause_s == 0.0 and (lossy.paused_flows, lossy.victim_flows) == (0, 0)


def test_the_victim_is_the_flow_whose_own_path_is_free() -> None:
    from qosforge.api.compare import PFC_ONLY_FLOWS
    from qosforge.api.scenarios.traffic import TrafficOptions, run_traffic
    from qosforge.api.simulation import assumptions

    options = TrafficOptions(
        intent=str(ROCE_POD),
        traffic=str(VICTIMS),
        switches=(),
        measure=None,
        duration_s=8e-3,
        sample_s=None,
        seed=1,
        rto_min_s=None,
        assume=assumptions(("red.steps=1024", "red.step_offset=0")),
        timeseries=None,
        plot=None,
        flow_overrides=PFC_ONLY_FLOWS,
    )
    report, _ = run_traffic(options, StderrReporter())
    flags: dict[str, set[tuple[bool, bool]]] = {}
    for flow in report["flows"]:
        flags.setdefault(flow["group"], set()).add((flow["pfc_paused"], flow["pfc_victim"]))
    assert flags == {
        "incast": {(True, False)},
        "victim": {(True, True)},
        "local": {(False, False)},
    }
    victim = next(f for f in report["flows"] if f["group"] == "victim")
    # 2 MB at 100G takes 0.16 ms alone; stopped with the incast's links it takes several times it.
    assert victim["fct_s"] > 3 * 2e6 * 8 / 100e9


@pytest.mark.parametrize(
    ("flows", "duration", "message"),
    [
        ("flows: [{src: 0, dst: banana}]\n", None, r"garbage\.traffic\.yaml"),
        # Valid YAML that only the fabric refuses (roce-pod has 64 hosts): found once the first
        # mode's variant is compiled, it stops the comparison instead of refusing every mode.
        ("flows: [{src: 0, dst: 999, class: rdma, size: 1MB}]\n", None, r"garbage\.traffic\.yaml"),
        ("flows: [{src: 0, dst: 1, class: rdma, size: 1MB}]\n", "0s", "--duration"),
    ],
)
def test_bad_shared_input_stops_the_comparison_and_leaves_out_untouched(
    tmp_path: Path, flows: str, duration: str | None, message: str
) -> None:
    traffic = tmp_path / "garbage.traffic.yaml"
    traffic.write_text("apiVersion: qosforge/v1\nkind: Traffic\n" + flows)
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("kept")
    request = CompareRequest(
        intent=str(ROCE_POD), traffic=str(traffic), out_dir=str(out), duration=duration,
        modes=("lossless-dcqcn", "pfc-only"),
    )  # fmt: skip
    with pytest.raises(QosforgeError) as raised:
        compare(request, StderrReporter())
    assert re.search(message, raised.value.one_line()), raised.value.one_line()
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]


def test_out_gets_each_modes_configs_as_compile_writes_them(tmp_path: Path) -> None:
    # compile's manifest rules hold in a mode's folder: a file qosforge did not write stays.
    traffic = tmp_path / "one.traffic.yaml"
    traffic.write_text(
        "apiVersion: qosforge/v1\nkind: Traffic\n"
        "flows: [{src: 0, dst: 20, class: rdma, size: 100kB}]\n"
    )
    out = tmp_path / "out"
    (out / "lossy-irn").mkdir(parents=True)
    (out / "lossy-irn" / "notes.txt").write_text("mine")
    request = CompareRequest(
        intent=str(ROCE_POD), traffic=str(traffic), out_dir=str(out), duration="1ms",
        modes=("lossy-irn",), fail_links=0,
    )  # fmt: skip
    (row,) = compare(request, StderrReporter()).modes
    assert row.refused is None and row.out_dir == str(out / "lossy-irn")
    assert (out / "lossy-irn" / "notes.txt").read_text() == "mine"
    assert (out / "lossy-irn" / "report.json").is_file() and (out / "lossy-irn.yaml").is_file()
    # What this comparison ran, whatever else the folder holds from earlier ones.
    recorded = json.loads((out / "compare.json").read_text())
    assert [m["mode"] for m in recorded["modes"]] == ["lossy-irn"]


def test_the_traffic_file_is_read_once_for_every_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import qosforge.softswitch.traffic.traffic_file as traffic_file

    traffic = tmp_path / "one.traffic.yaml"
    traffic.write_text(
        "apiVersion: qosforge/v1\nkind: Traffic\n"
        "flows: [{src: 0, dst: 20, class: rdma, size: 100kB}]\n"
    )
    reads: list[Path] = []
    load = traffic_file.load_traffic

    def counted(path: Path) -> traffic_file.TrafficFile:
        reads.append(path)
        return load(path)

    monkeypatch.setattr(traffic_file, "load_traffic", counted)
    request = CompareRequest(
        intent=str(ROCE_POD), traffic=str(traffic), duration="1ms",
        modes=("lossless-dcqcn", "lossy-irn"), fail_links=0,
    )  # fmt: skip
    rows = compare(request, StderrReporter()).modes
    assert reads == [traffic]
    # Both modes ran the file: its one 100 kB flow finished in each.
    assert [(row.refused, row.flows, row.unfinished_flows) for row in rows] == [(None, 1, 0)] * 2


class _Recorder(StderrReporter):
    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)


def test_notes_are_said_once_and_only_where_they_apply(tmp_path: Path) -> None:
    # Two modes of one intent share its notes (the software switch's approximations): each is
    # said once. Without pfc-only or collectives, pfc-only's admission-control note does not apply.
    traffic = tmp_path / "one.traffic.yaml"
    traffic.write_text(
        "apiVersion: qosforge/v1\nkind: Traffic\n"
        "flows: [{src: 0, dst: 20, class: rdma, size: 100kB}]\n"
    )
    recorder = _Recorder()
    request = CompareRequest(
        intent=str(ROCE_POD), traffic=str(traffic), duration="1ms",
        modes=("lossless-dcqcn", "lossy-irn"), fail_links=0,
    )  # fmt: skip
    result = compare(request, recorder)
    assert recorder.notes, "roce-pod's runs note the software switch's approximations"
    assert len(recorder.notes) == len(set(recorder.notes)), recorder.notes
    assert result.notes == ()
