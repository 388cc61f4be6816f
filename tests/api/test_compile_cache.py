"""The compiled-intent cache: a hit only for the same intent bytes and the same installation, a
miss rebuilt and stored, nothing stored for a failed compile, off when asked."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from qosforge.api import compile_cache
from qosforge.cli import main
from qosforge.errors import QosforgeError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(compile_cache.CACHE_ENVIRONMENT, str(tmp_path / "cache"))
    return tmp_path / "cache"


def _counting(value: object) -> tuple[list[int], object]:
    calls: list[int] = []

    def build() -> object:
        calls.append(1)
        return value

    return calls, build


def test_a_second_compile_of_the_same_bytes_is_read_back(folder: Path, tmp_path: Path) -> None:
    intent = tmp_path / "a.yaml"
    intent.write_text("metadata: {name: a}\n")
    calls, build = _counting({"switches": ("leaf1", "leaf2"), "buffer_bytes": 12_582_912})
    first = compile_cache.cached("test", intent, build)
    second = compile_cache.cached("test", intent, build)
    assert calls == [1] and second == first
    assert len(list(folder.glob("*.pickle"))) == 1
    # A changed intent (one byte) or another kind of compile is another entry.
    intent.write_text("metadata: {name: b}\n")
    compile_cache.cached("test", intent, build)
    compile_cache.cached("other", intent, build)
    assert calls == [1, 1, 1]


def test_an_edited_package_file_is_another_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout edited in place keeps its version number: the files themselves are the key."""
    package = tmp_path / "package"
    package.mkdir()
    module = package / "model.py"
    module.write_text("ALPHA = 1\n")
    monkeypatch.setattr(compile_cache, "_package_roots", lambda: [package])
    before = compile_cache.cache_key("test", b"intent")
    assert compile_cache.cache_key("test", b"intent") == before
    module.write_text("ALPHA = 22\n")  # another size (a same-size edit changes the mtime)
    assert compile_cache.cache_key("test", b"intent") != before


def test_the_real_key_covers_the_bundled_profiles() -> None:
    roots = compile_cache._package_roots()
    assert any((root / "mellanox-spectrum-2.yaml").is_file() for root in roots)
    assert any((root / "compile.py").is_file() and root.name == "compiler" for root in roots)


def test_a_damaged_entry_is_rebuilt(folder: Path, tmp_path: Path) -> None:
    intent = tmp_path / "a.yaml"
    intent.write_text("x: 1\n")
    calls, build = _counting([1, 2, 3])
    compile_cache.cached("test", intent, build)
    (entry,) = folder.glob("*.pickle")
    entry.write_bytes(b"\x80\x05truncated")
    assert compile_cache.cached("test", intent, build) == [1, 2, 3]
    assert calls == [1, 1]
    assert pickle.loads(entry.read_bytes()) == [1, 2, 3]


def test_a_failed_compile_is_not_stored(folder: Path, tmp_path: Path) -> None:
    intent = tmp_path / "bad.yaml"
    intent.write_text("x: 1\n")

    def refuse() -> object:
        raise QosforgeError("bad intent", place="INTENT")

    for _ in range(2):
        with pytest.raises(QosforgeError, match="bad intent"):
            compile_cache.cached("test", intent, refuse)
    assert not folder.exists() or not list(folder.iterdir())


def test_off_means_every_run_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(compile_cache.CACHE_ENVIRONMENT, "off")
    assert compile_cache.cache_folder() is None
    intent = tmp_path / "a.yaml"
    intent.write_text("x: 1\n")
    calls, build = _counting(1)
    compile_cache.cached("test", intent, build)
    compile_cache.cached("test", intent, build)
    assert calls == [1, 1]


def test_the_default_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(compile_cache.CACHE_ENVIRONMENT)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert compile_cache.cache_folder() == tmp_path / "qosforge" / "compiled"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # invalid per the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert compile_cache.cache_folder() == tmp_path / "home" / ".cache" / "qosforge" / "compiled"


def test_only_the_newest_entries_are_kept(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compile_cache, "MAX_ENTRIES", 3)
    for index in range(5):
        intent = tmp_path / f"i{index}.yaml"
        intent.write_text(f"x: {index}\n")
        compile_cache.cached("test", intent, lambda: 0)
    assert len(list(folder.glob("*.pickle"))) == 3


def test_simulate_traffic_reads_the_compile_back_and_reports_the_same(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The second run of an unchanged intent neither compiles it nor renders and loads its
    switches' SAI programs, and its report is the first's."""
    command = [
        "simulate",
        str(ROOT / "examples" / "dctcp-fig17.yaml"),
        "--traffic",
        str(ROOT / "examples" / "dctcp-fig17.traffic.yaml"),
        "--duration",
        "3ms",
        "--format",
        "json",
    ]
    reports = []
    for run in range(2):
        if run == 1:
            import qosforge.compiler.compile as compiler

            def no_compile(*args: object, **kwargs: object) -> object:
                raise AssertionError("compiled again although the intent did not change")

            monkeypatch.setattr(compiler, "compile_intent", no_compile)
            import qosforge.backends.sai.render as renderer

            monkeypatch.setattr(renderer, "render_sai_program", no_compile)
        with pytest.raises(SystemExit) as done:
            main(command)
        assert done.value.code == 0
        report = json.loads(capsys.readouterr().out)
        reports.append(
            {
                key: value
                for key, value in report.items()
                if key not in ("wall_seconds", "loop_cpu_seconds", "packet_events_per_second")
            }
        )
    assert reports[0] == reports[1]
    # The compiled intent and the world loaded from it.
    assert len(list(folder.glob("*.pickle"))) == 2


def test_another_switch_selection_loads_its_own_world_from_the_same_compile(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The loaded world is stored per selection of switches: --switch T1 after a run of the
    whole fabric reuses the compile but not the two-switch world."""
    intent = str(ROOT / "examples" / "dctcp-fig17.yaml")
    traffic = folder.parent / "one-switch.traffic.yaml"
    traffic.write_text("apiVersion: qosforge/v1\nkind: Traffic\nflows:\n"
                       "  - {src: T1:Ethernet0, dst: T1:Ethernet1, size: 20kB, class: bulk}\n")
    runs = {}
    for selection in ((), ("--switch", "T1")):
        with pytest.raises(SystemExit) as done:
            main(["simulate", intent, "--traffic", str(traffic), *selection, "--duration", "1ms",
                  "--format", "json"])
        assert done.value.code == 0, capsys.readouterr().err
        runs[selection] = json.loads(capsys.readouterr().out)
        if not selection:
            import qosforge.compiler.compile as compiler

            def no_compile(*args: object, **kwargs: object) -> object:
                raise AssertionError("compiled again although the intent did not change")

            monkeypatch.setattr(compiler, "compile_intent", no_compile)
    assert len(list(folder.glob("*.pickle"))) == 3
    assert [report["switches"] for report in runs.values()] == [["T1", "T2"], ["T1"]]
