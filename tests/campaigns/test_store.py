"""The JSONL store: latest row per point, resume, crash-cut lines, and foreign files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qosforge.campaigns.store import ResultStore, Row
from qosforge.errors import QosforgeError


def _row(point: str, error: str | None = None) -> Row:
    return Row(point=point, command=("simulate",), params={"seed": 1}, result=None if error else {"x": 1}, error=error, timing={"seconds": 0.1})


def test_a_later_row_supersedes_an_earlier_one(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    store = ResultStore(path)
    store.load()
    store.open()
    store.append(_row("a", error="boom"))
    store.append(_row("b"))
    store.append(_row("a"))
    store.close()
    again = ResultStore(path)
    again.load()
    assert again.finished("a") and again.finished("b") and not again.finished("c")
    assert [json.loads(line)["status"] for line in path.read_text().splitlines()] == ["failed", "ok", "ok"]


def test_failed_points_are_not_finished(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(_row("a", error="boom").to_json()) + "\n")
    store = ResultStore(path)
    store.load()
    assert not store.finished("a") and store.latest["a"].error == "boom"


def test_a_line_cut_by_a_crash_is_dropped_and_the_file_stays_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(_row("a").to_json()) + "\n" + '{"point": "b", "comm')
    store = ResultStore(path)
    store.load()
    assert store.finished("a") and "b" not in store.latest
    store.open()
    store.append(_row("b"))
    store.close()
    assert [json.loads(line)["point"] for line in path.read_text().splitlines()] == ["a", "b"]


@pytest.mark.parametrize(("text", "place"), [("not json\n", "runs.jsonl:1"), ('{"a": 1}\n', "runs.jsonl:1")])
def test_a_file_that_is_not_a_campaigns_is_bad_input(tmp_path: Path, text: str, place: str) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(text)
    with pytest.raises(QosforgeError) as raised:
        ResultStore(path).load()
    assert raised.value.place is not None and raised.value.place.endswith(place)
    assert path.read_text() == text


def test_a_folder_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(QosforgeError, match="is a folder"):
        ResultStore(tmp_path).load()
