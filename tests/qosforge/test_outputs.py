"""qosforge.outputs: what a compile writes and removes, decided from the manifest."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.errors import QosforgeError
from qosforge.outputs import (
    OutputFile,
    OutputSpool,
    RenderedFile,
    RunRequest,
    SpooledFile,
    plan_outputs,
    sha256_text,
    write_outputs,
)

INTENT = "/fabric.yaml"


def _entry(path: str, switch: str | None, target: str | None, text: str = "x", intent: str = INTENT) -> OutputFile:
    return OutputFile(path, intent, switch, target, sha256_text(text))


def _write(root: Path, path: str, text: str = "x") -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)


def test_whole_run_removes_switches_that_left(tmp_path: Path) -> None:
    previous = (_entry("a/config_db.json", "a", "sonic"), _entry("gone/config_db.json", "gone", "sonic"))
    for entry in previous:
        _write(tmp_path, entry.path)
    rendered = (RenderedFile("a/config_db.json", "a", "sonic", "new"), RenderedFile("report.json", None, None, "{}"))
    request = RunRequest(INTENT, "h", None, ("sonic",))
    plan = plan_outputs(tmp_path, previous, rendered, request, frozenset({"a"}))
    assert plan.removals == ("gone/config_db.json",)
    assert {entry.path for entry in plan.manifest} == {"a/config_db.json", "report.json"}
    assert plan.writes["a/config_db.json"] == "new"


def test_a_folder_of_another_intent_is_refused_unless_forced(tmp_path: Path) -> None:
    # Two fabrics in one folder used to mix silently: their switch folders side by side, one report.json.
    previous = (_entry("other/config_db.json", "other", "sonic", intent="/other.yaml"), _entry("report.json", None, None, intent="/other.yaml"))
    for entry in previous:
        _write(tmp_path, entry.path)
    rendered = (RenderedFile("a/config_db.json", "a", "sonic", "new"), RenderedFile("report.json", None, None, "{}"))
    with pytest.raises(QosforgeError, match=r"another intent, /other.yaml \(2 files\)") as error:
        plan_outputs(tmp_path, previous, rendered, RunRequest(INTENT, "h", None, ("sonic",)), frozenset({"a"}))
    assert error.value.place == "-o/--output" and "--force" in (error.value.hint or "")
    forced = RunRequest(INTENT, "h", None, ("sonic",), replace_other_intents=True)
    plan = plan_outputs(tmp_path, previous, rendered, forced, frozenset({"a"}))
    assert plan.removals == ("other/config_db.json",)
    assert {entry.intent for entry in plan.manifest} == {INTENT}


def test_subset_run_keeps_unasked_switches_and_targets(tmp_path: Path) -> None:
    previous = (_entry("a/config_db.json", "a", "sonic"), _entry("a/sai.json", "a", "sai"), _entry("b/config_db.json", "b", "sonic"))
    for entry in previous:
        _write(tmp_path, entry.path)
    request = RunRequest(INTENT, "h", ("a",), ("sonic",))
    plan = plan_outputs(tmp_path, previous, (RenderedFile("a/config_db.json", "a", "sonic", "y"),), request, frozenset({"a"}))
    assert plan.removals == ()
    assert {entry.path for entry in plan.manifest} == {"a/config_db.json", "a/sai.json", "b/config_db.json"}


def test_asked_file_no_longer_rendered_is_removed_unless_edited(tmp_path: Path) -> None:
    previous = (_entry("a/extra.json", "a", "sonic"), _entry("a/edited.json", "a", "sonic"))
    _write(tmp_path, "a/extra.json")
    _write(tmp_path, "a/edited.json", "changed by hand")
    request = RunRequest(INTENT, "h", None, ("sonic",))
    plan = plan_outputs(tmp_path, previous, (), request, frozenset({"a"}))
    assert plan.removals == ("a/extra.json",)
    assert plan.kept_modified == ("a/edited.json",)
    assert plan.manifest == ()


def test_an_absolute_intent_of_an_earlier_manifest_reads_as_relative(tmp_path: Path) -> None:
    import json

    from qosforge.outputs import MANIFEST_FORMAT, MANIFEST_NAME, intent_key, load_manifest

    root = tmp_path / "out"
    root.mkdir()
    entry = {"path": "report.json", "intent": str(tmp_path / "intents" / "fabric.yaml"), "switch": None, "target": None, "sha256": "0"}
    (root / MANIFEST_NAME).write_text(json.dumps({"format": MANIFEST_FORMAT, "files": [entry]}))
    # Recorded before intents were keyed relative to the output folder's parent: still the same intent.
    assert [e.intent for e in load_manifest(root)] == ["intents/fabric.yaml"] == [intent_key(tmp_path / "intents" / "fabric.yaml", root)]


def _folder(root: Path) -> dict[str, str]:
    files = (path for path in sorted(root.rglob("*")) if path.is_file())
    return {str(path.relative_to(root)): path.read_text(encoding="utf-8") for path in files}


@pytest.mark.parametrize("existing", [False, True])
def test_spooled_files_land_as_texts_do_and_the_spool_goes(tmp_path: Path, existing: bool) -> None:
    texts = {"a/config_db.json": '{"x": "é"}\n', "b/sai.json": "{}\n", "report.json": "{}\n"}
    rendered = [RenderedFile(path, path.split("/")[0] if "/" in path else None, "sonic", text)
                for path, text in texts.items()]
    request = RunRequest("fabric.yaml", "h", None, ("sonic",))
    in_memory, spooled = tmp_path / "memory" / "out", tmp_path / "spool" / "out"
    for root in (in_memory, spooled):
        root.parent.mkdir()
        if existing:  # replaced files: a hard link of the old tree must not be written through
            old = tuple(RenderedFile(r.path, r.switch, r.target, "old\n") for r in rendered)
            write_outputs(root, old, request, frozenset({"a", "b"}))
    memory_plan = write_outputs(in_memory, tuple(rendered), request, frozenset({"a", "b"}))
    with OutputSpool(spooled) as spool:
        kept = tuple(spool.keep(item) for item in rendered)
        assert all(isinstance(item, SpooledFile) for item in kept)
        spools = [item.name for item in spooled.parent.iterdir() if item.name != "out"]
        assert spools[0].startswith(".out.qosforge-spool-")
        spool_plan = write_outputs(spooled, kept, request, frozenset({"a", "b"}))
    assert _folder(spooled) == _folder(in_memory)
    assert _folder(spooled)["a/config_db.json"] == texts["a/config_db.json"]
    assert spool_plan.manifest == memory_plan.manifest
    assert [item.name for item in spooled.parent.iterdir()] == ["out"]  # the spool is gone


def test_without_a_parent_folder_nothing_is_spooled_or_created(tmp_path: Path) -> None:
    root = tmp_path / "missing" / "out"
    with OutputSpool(root) as spool:
        item = RenderedFile("report.json", None, None, "{}\n")
        assert spool.keep(item) is item
    assert not (tmp_path / "missing").exists()
