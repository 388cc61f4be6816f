"""Traffic files with collectives and per-step flows: what is read, and the refusals with FILE:LINE."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.errors import QosforgeError
from qosforge.softswitch.traffic.traffic_file import load_traffic

HEAD = "apiVersion: qosforge/v1\nkind: Traffic\n"


def _load(tmp_path: Path, text: str, name: str = "t.yaml"):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_text(text)
    return load_traffic(path)


def test_collectives_alone_make_a_traffic_file(tmp_path: Path) -> None:
    traffic = _load(
        tmp_path,
        HEAD
        + "collectives:\n  - {group: ar, collective: all-to-all, hosts: [0, 1, 2], size: 3MB, iterations: 2, dscp: 26}\n",
    )
    assert traffic.entries == () and len(traffic.collectives) == 1
    entry = traffic.collectives[0].entry
    assert (entry.collective, entry.hosts, entry.size_bytes, entry.iterations, entry.dscp) == (
        "all-to-all",
        (0, 1, 2),
        3_000_000,
        2,
        26,
    )
    assert traffic.collectives[0].place.endswith("t.yaml:4")


def test_neither_flows_nor_collectives_is_refused(tmp_path: Path) -> None:
    with pytest.raises(QosforgeError) as caught:
        _load(tmp_path, HEAD + "seed: 1\n")
    assert "'flows:' or 'collectives:'" in caught.value.one_line()


def test_a_csv_trace_reads_the_step_column(tmp_path: Path) -> None:
    traffic = _load(
        tmp_path, "group,src,dst,size,class,step\nar,0,1,1MB,rdma,0\nar,1,0,1MB,rdma,1\n", "t.csv"
    )
    assert [e.entry.step for e in traffic.entries] == [0, 1]


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ("ar,0,1,,rdma,0", "'step' must finish"),
        ("ar,0,1,1MB,rdma,-1", "greater than or equal to 0"),
    ],
)
def test_bad_steps_are_refused_at_their_row(tmp_path: Path, row: str, fragment: str) -> None:
    with pytest.raises(QosforgeError) as caught:
        _load(tmp_path, f"group,src,dst,size,class,step\n{row}\n", "t.csv")
    line = caught.value.one_line()
    assert "t.csv:2" in line and fragment in line
