"""The traffic file parser: every entry field, FILE:LINE / FILE:ROW errors with their fix, and
properties (hypothesis) of what any well-formed file parses to."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from qosforge.errors import QosforgeError
from qosforge.softswitch.traffic import traffic_file
from qosforge.softswitch.traffic.spec import MAX_FLOWS
from qosforge.softswitch.traffic.traffic_file import load_traffic, stagger_offsets_s

HEAD = "apiVersion: qosforge/v1\nkind: Traffic\nflows:\n"


def _write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_every_field_is_read(tmp_path: Path) -> None:
    path = _write(tmp_path, HEAD + (
        "  - group: S1\n"
        "    src: \"T1:Ethernet[0-9]\"\n"
        "    dst: [T2:Ethernet30, 3]\n"
        "    pairing: all\n"
        "    count: 2\n"
        "    class: bulk\n"
        "    size: 1MiB\n"
        "    start: 250us\n"
        "    start_window: 1s\n"
        "    stagger: random\n"
        "  - {src: 0, dst: 1, dscp: 26, rate: 500M, pattern: poisson}\n"))
    traffic = load_traffic(path)
    first, second = (placed.entry for placed in traffic.entries)
    assert first.group == "S1" and first.src == ("T1:Ethernet[0-9]",) and first.dst == ("T2:Ethernet30", 3)
    assert (first.pairing, first.count, first.class_name) == ("all", 2, "bulk")
    assert first.size_bytes == 2**20 and first.start_s == pytest.approx(250e-6) and first.start_window_s == 1.0
    assert second.group == "default" and second.size_bytes is None and second.dscp == 26
    assert second.rate_bps == 500e6 and second.pattern == "poisson"
    assert traffic.entries[0].place == f"{path}:4" and traffic.entries[1].place == f"{path}:14"
    assert traffic.entries[0].place_of("class") == f"{path}:9"


@pytest.mark.parametrize(("entry", "line", "words"), [
    ("  - {src: 0, dst: 1}\n", 4, ["exactly one of 'class'", "dscp"]),
    ("  - {src: 0, dst: 1, class: a, dscp: 3}\n", 4, ["exactly one of 'class'"]),
    ("  - src: 0\n    dst: 1\n    class: a\n    size: 12 parsecs\n", 7, ["size"]),
    ("  - src: 0\n    dst: 1\n    class: a\n    size: 1.5B\n", 7, ["whole number of bytes"]),
    ("  - src: 0\n    dst: 1\n    class: a\n    start: 3\n", 7, ["start"]),
    ("  - src: 0\n    dst: 1\n    class: a\n    stagger: sideways\n", 7, ["even", "random"]),
    ("  - src: 0\n    dst: 1\n    class: a\n    sizes: 1MB\n", 7, ["did you mean 'size'"]),
    ("  - src: 0\n    dst: 1\n    dscp: 64\n", 6, ["0..63"]),
    ("  - src: 0\n    dst: 1\n    class: a\n    pattern: cbr\n", 4, ["'rate'"]),
    ("  - src: 0\n    dst: 1\n    class: a\n    count: 0\n", 7, ["count"]),
    ("  - just a string\n", 4, ["mapping"]),
])
def test_an_error_names_the_line_and_the_fix(tmp_path: Path, entry: str, line: int, words: list[str]) -> None:
    path = _write(tmp_path, HEAD + entry)
    with pytest.raises(QosforgeError) as raised:
        load_traffic(path)
    text = raised.value.one_line()
    assert text.startswith(f"{path}:{line}"), text
    assert raised.value.hint, text
    for word in words:
        assert word in text, text


@pytest.mark.parametrize(("text", "line", "word"), [
    ("apiVersion: qosforge/v2\nkind: Traffic\nflows: []\n", 1, "apiVersion"),
    ("apiVersion: qosforge/v1\nkind: Fabric\nflows: []\n", 2, "kind"),
    ("apiVersion: qosforge/v1\nkind: Traffic\nflows: []\n", 3, "flows"),
    ("apiVersion: qosforge/v1\nkind: Traffic\nflows:\n  - {src: 0\n", 5, "YAML"),
    ("- 1\n- 2\n", 1, "mapping"),
])
def test_document_errors_name_the_line(tmp_path: Path, text: str, line: int, word: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(QosforgeError) as raised:
        load_traffic(path)
    assert raised.value.one_line().startswith(f"{path}:{line}"), raised.value.one_line()
    assert word in raised.value.one_line()


@pytest.mark.parametrize(
    ("top", "window", "text"),
    [
        ("measure: 4s:5s\n", (4.0, 5.0), "measure: 4s:5s"),
        ("duration: 10ms\n", (0.0, 0.01), "duration: 10ms"),
        ("measure: 1ms:3ms\nduration: 3ms\n", (0.001, 0.003), "measure: 1ms:3ms"),
        ("", None, None),
    ],
)
def test_a_file_carries_its_run_window(
    tmp_path: Path, top: str, window: tuple[float, float] | None, text: str | None
) -> None:
    loaded = load_traffic(
        _write(
            tmp_path,
            "apiVersion: qosforge/v1\nkind: Traffic\n"
            + top
            + "flows:\n  - {src: 0, dst: 1, class: a}\n",
        )
    )
    assert (
        loaded.measure_s == (pytest.approx(window) if window else None)
        and loaded.window_text == text
    )


@pytest.mark.parametrize(
    ("top", "line", "words"),
    [
        ("measure: 5s:4s\n", 3, ["measure", "ends (4 s) before it starts (5 s)"]),
        ("measure: 4s\n", 3, ["measure", "not START:END"]),
        (
            "measure: 1ms:3ms\nduration: 2ms\n",
            4,
            ["duration", "window's end (0.003 s), not 0.002 s"],
        ),
        ("duration: 10\n", 3, ["duration"]),
    ],
)
def test_a_bad_file_window_names_its_line(
    tmp_path: Path, top: str, line: int, words: list[str]
) -> None:
    path = _write(
        tmp_path,
        "apiVersion: qosforge/v1\nkind: Traffic\n"
        + top
        + "flows:\n  - {src: 0, dst: 1, class: a}\n",
    )
    with pytest.raises(QosforgeError) as raised:
        load_traffic(path)
    text = raised.value.one_line()
    assert text.startswith(f"{path}:{line}"), text
    for word in words:
        assert word in text, text


def test_csv_rows_and_their_errors(tmp_path: Path) -> None:
    path = _write(tmp_path, "group,src,dst,class,size,start_window\nS1,T1:Ethernet0 T1:Ethernet1,T2:Ethernet0,bulk,,1s\n\nS2,4,5,bulk,64kB,\n", "m.csv")
    traffic = load_traffic(path)
    assert [p.entry.group for p in traffic.entries] == ["S1", "S2"]
    assert traffic.entries[0].entry.src == ("T1:Ethernet0", "T1:Ethernet1")
    assert traffic.entries[1].entry.src == (4,) and traffic.entries[1].entry.size_bytes == 64_000
    assert traffic.entries[1].place == f"{path}:4"
    bad = _write(tmp_path, "group,src,dst,class,size\nS1,0,1,bulk,lots\n", "bad.csv")
    with pytest.raises(QosforgeError) as raised:
        load_traffic(bad)
    assert raised.value.one_line().startswith(f"{bad}:2: size")
    unknown = _write(tmp_path, "group,source,dst,class\n", "unknown.csv")
    with pytest.raises(QosforgeError, match="did you mean 'src'"):
        load_traffic(unknown)


@pytest.mark.parametrize(("text", "line", "words"), [
    # A quote left open at the end: the csv module would otherwise read to the end of the file.
    ("group,src,dst,class,size\nS1,0,\"1,bulk,1MB\nS2,2,3,bulk,1MB\n", 2, "never closed"),
    # After a blank line the row's own line is named, not the line the parser stopped at.
    ("group,src,dst,class,size\n\nS1,0,1,bulk,1MB\nS2,2,3,bulk,\"1MB\n", 4, "never closed"),
    # A quote closed on a later line swallows the line end into one cell.
    ("group,src,dst,class,size\nS1,\"0\n\",1,bulk,1MB\n", 2, "not closed before line 3"),
])
def test_csv_quote_left_open_names_the_row_it_opened_on(tmp_path: Path, text: str, line: int, words: str) -> None:
    path = _write(tmp_path, text, "q.csv")
    with pytest.raises(QosforgeError) as raised:
        load_traffic(path)
    assert raised.value.one_line().startswith(f"{path}:{line}: "), raised.value.one_line()
    assert words in raised.value.one_line()


def test_csv_rows_after_a_multi_line_header_keep_their_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, "group,src,dst,class,size\n\n\nS1,0,1,bulk,1MB\n", "lines.csv")
    assert load_traffic(path).entries[0].place == f"{path}:4"


def test_garbage_is_refused_without_a_traceback(tmp_path: Path) -> None:
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(QosforgeError, match="not a text file"):
        load_traffic(binary)


def test_even_and_random_staggers_are_deterministic(tmp_path: Path) -> None:
    path = _write(tmp_path, HEAD + "  - {src: 0, dst: 1, class: a, start_window: 1s}\n  - {src: 0, dst: 1, class: a, start_window: 1s, stagger: random}\n")
    even, random = (p.entry for p in load_traffic(path).entries)
    assert stagger_offsets_s(even, 4, 1, 0) == [0.0, 0.25, 0.5, 0.75]
    drawn = stagger_offsets_s(random, 50, 7, 1)
    assert drawn == stagger_offsets_s(random, 50, 7, 1)
    assert drawn != stagger_offsets_s(random, 50, 8, 1)
    assert all(0.0 <= x < 1.0 for x in drawn)


# A plain scalar YAML reads as a string: not a core-schema keyword such as Null, true or False
# (YAML 1.2 §10.3.2), which a file would have to quote.
_NAME = st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=12).filter(
    lambda s: not s[0].isdigit() and s[0] != "-" and isinstance(YAML(typ="safe").load(s), str))
_SIZE = st.one_of(st.just("long-lived"), st.integers(1, 10**9).map(lambda n: f"{n}B"))


@settings(max_examples=60, deadline=None)
@given(entries=st.lists(st.tuples(_NAME, st.integers(0, 500), st.integers(0, 500), st.integers(0, 63), _SIZE,
                                   st.integers(0, 10**6), st.integers(1, 100)), min_size=1, max_size=8))
def test_any_well_formed_yaml_file_round_trips(tmp_path_factory: pytest.TempPathFactory, entries: list[tuple[str, int, int, int, str, int, int]]) -> None:
    lines = [HEAD]
    for group, src, dst, dscp, size, start_us, count in entries:
        lines.append(f"  - group: {group}\n    src: {src}\n    dst: {dst}\n    dscp: {dscp}\n    size: {size}\n    start: {start_us}us\n    count: {count}\n")
    path = tmp_path_factory.mktemp("t") / "t.yaml"
    path.write_text("".join(lines))
    traffic = load_traffic(path)
    assert len(traffic.entries) == len(entries)
    for index, (placed, (group, src, dst, dscp, size, start_us, count)) in enumerate(zip(traffic.entries, entries, strict=True)):
        entry = placed.entry
        assert (entry.group, entry.src, entry.dst, entry.dscp, entry.count) == (group, (src,), (dst,), dscp, count)
        assert entry.size_bytes == (None if size == "long-lived" else int(size[:-1]))
        assert entry.start_s == pytest.approx(start_us * 1e-6)
        assert placed.place == f"{path}:{4 + 7 * index}"  # each entry is 7 lines after the 3-line head


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=200))
def test_any_text_parses_or_is_refused_with_a_place(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("t") / "t.yaml"
    path.write_text(HEAD + text, encoding="utf-8")
    try:
        load_traffic(path)
    except QosforgeError as error:
        assert error.place is not None and error.place.startswith(str(path)), error.one_line()
        assert error.hint


@settings(max_examples=40, deadline=None)
@given(flows=st.integers(1, 200), window_ms=st.integers(1, 5000), seed=st.integers(0, 2**32 - 1), stagger=st.sampled_from(["even", "random"]))
def test_staggered_starts_lie_in_the_window(tmp_path_factory: pytest.TempPathFactory, flows: int, window_ms: int, seed: int, stagger: str) -> None:
    path = tmp_path_factory.mktemp("t") / "t.yaml"
    path.write_text(HEAD + f"  - {{src: 0, dst: 1, class: a, start_window: {window_ms}ms, stagger: {stagger}}}\n")
    entry = load_traffic(path).entries[0].entry
    offsets = stagger_offsets_s(entry, flows, seed, 0)
    assert len(offsets) == flows
    assert all(0.0 <= x < window_ms * 1e-3 for x in offsets)
    if stagger == "even":
        assert offsets == sorted(offsets) and len(set(offsets)) == flows


def test_the_flow_cap_is_checked_while_reading(tmp_path: Path) -> None:
    # The second entry takes the file past MAX_FLOWS; the YAML error after it is never reached.
    path = _write(
        tmp_path,
        HEAD
        + f"  - {{src: 0, dst: 1, class: a, count: {MAX_FLOWS}}}\n"
        + "  - {src: 0, dst: 2, class: a}\n  - {src: [\n",
    )
    with pytest.raises(QosforgeError) as raised:
        load_traffic(path)
    expected = f"{path}:5: the entries up to here make at least {MAX_FLOWS + 1:,} flows"
    assert raised.value.one_line().startswith(expected)


@pytest.mark.parametrize(
    "cap",
    [
        # The tally's code at a cap of 100 entries; the real cap (50,001 entries to parse, ~1.6 CPU
        # s) in the slow tier.
        100,
        pytest.param(MAX_FLOWS, marks=pytest.mark.slow),
    ],
)
def test_a_file_of_more_entries_than_flows_a_run_carries_fails_at_the_entry_past_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cap: int
) -> None:
    monkeypatch.setattr(traffic_file, "MAX_FLOWS", cap)
    path = _write(tmp_path, HEAD + "  - {src: 0, dst: 1, class: a}\n" * (cap + 1) + "  - {src: [\n")
    with pytest.raises(QosforgeError) as raised:
        load_traffic(path)
    assert raised.value.place == f"{path}:{3 + cap + 1}"
    assert f"more than the {cap:,} a run carries" in raised.value.one_line()


def test_a_misspelt_field_is_named_as_unknown(tmp_path: Path) -> None:
    path = _write(tmp_path, HEAD + "  - sorce: 0\n    dst: 1\n    class: a\n")
    with pytest.raises(QosforgeError) as raised:
        load_traffic(path)
    expected = f"{path}:4: sorce: unknown field 'sorce' (hint: did you mean 'src'?)"
    assert raised.value.one_line() == expected


@pytest.mark.parametrize("name", ["t.yaml", "t.csv"])
def test_the_cap_holds_for_csv_and_yaml_alike(tmp_path: Path, name: str) -> None:
    if name.endswith(".csv"):
        text = "src,dst,class,count\n" + f"0,1,a,{MAX_FLOWS}\n0,2,a,1\n"
        line = 3
    else:
        text = (
            HEAD
            + f"  - {{src: 0, dst: 1, class: a, count: {MAX_FLOWS}}}\n"
            + "  - {src: 0, dst: 2, class: a}\n"
        )
        line = 5
    path = _write(tmp_path, text, name)
    with pytest.raises(QosforgeError, match="more than the 50,000 a run carries") as raised:
        load_traffic(path)
    assert raised.value.place == f"{path}:{line}"


@settings(max_examples=40, deadline=None)
@given(
    entries=st.lists(
        st.tuples(
            _NAME,
            st.integers(0, 500),
            st.sampled_from(["1", "[2, x]", "'3'", "null", "true", "1e3"]),
            st.sampled_from(["dscp: 26", "class: bulk", "class: '7'", "dscp: 0x1A"]),
            st.sampled_from(
                ["", "size: 64kB", "start: 5us", "transport: dctcp", "rate: 1G", "pattern: cbr"]
            ),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_libyaml_events_read_a_file_as_ruamel_yaml_does(
    entries: list[tuple[str, int, str, str, str]],
) -> None:
    """The fast reader (libyaml events) and the ruamel.yaml path give the same entries, places
    and errors, in block and flow style."""
    lines = [HEAD]
    for index, (group, src, dst, klass, extra) in enumerate(entries):
        if index % 2:
            lines.append(
                f"  - {{group: {group}, src: {src}, dst: {dst}, {klass}"
                f"{', ' + extra if extra else ''}}}\n"
            )
        else:
            lines.append(
                f"  - group: {group}\n    src: {src}\n    dst: {dst}\n    {klass}\n"
                + (f"    {extra}\n" if extra else "")
            )
    text = "".join(lines)

    def outcome(load: Any) -> object:
        try:
            return load("f.yaml", text)
        except QosforgeError as error:
            return error.one_line()

    assert outcome(traffic_file._load_yaml) == outcome(traffic_file._load_yaml_ruamel)


def test_plain_files_never_take_the_slow_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def slow(name: str, text: str) -> object:
        raise AssertionError("read by ruamel.yaml")

    monkeypatch.setattr(traffic_file, "_load_yaml_ruamel", slow)
    for example in sorted(Path(__file__).parents[3].joinpath("examples").glob("*.traffic.yaml")):
        traffic = load_traffic(example)
        assert traffic.entries or traffic.collectives


def test_anchors_and_aliases_are_read_by_ruamel_yaml(
    tmp_path: Path,
) -> None:  # the event reader steps aside
    path = _write(tmp_path, HEAD + "  - &e {src: 0, dst: 1, class: a}\n  - *e\n")
    traffic = load_traffic(path)
    assert len(traffic.entries) == 2 and traffic.entries[0].entry == traffic.entries[1].entry
    assert traffic.entries[0].entry.src == (0,)
