"""qosforge.files: atomic writes with normal modes, checked file flags, folder swaps."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from qosforge.errors import QosforgeError
from qosforge.files import (
    all_or_nothing,
    check_output_file,
    check_output_folder,
    default_file_mode,
    replace_directory_contents,
    write_text_atomically,
)


def test_write_needs_the_folder_unless_asked(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_text_atomically(tmp_path / "missing" / "f.txt", "x")
    write_text_atomically(tmp_path / "made" / "f.txt", "x", create_parents=True)
    assert (tmp_path / "made" / "f.txt").read_text() == "x"
    assert stat.S_IMODE((tmp_path / "made" / "f.txt").stat().st_mode) == default_file_mode()


def test_check_output_file(tmp_path: Path) -> None:
    check_output_file(tmp_path / "p.png", flag="--plot", suffixes=(".png",))
    for bad in (tmp_path / "p.txt", tmp_path / "no" / "p.png", tmp_path):
        with pytest.raises(QosforgeError) as raised:
            check_output_file(bad, flag="--plot", suffixes=(".png",))
        assert raised.value.place == "--plot"


def test_replace_directory_contents_swaps_and_keeps_foreign_files(tmp_path: Path) -> None:
    root = tmp_path / "out"
    replace_directory_contents(root, {"a/x.json": "1", "b/y.json": "2"}, ())
    (root / "mine.txt").write_text("keep")
    inode_before = os.stat(root / "mine.txt").st_ino
    replace_directory_contents(root, {"a/x.json": "3"}, ("b/y.json",))
    assert (root / "a" / "x.json").read_text() == "3"
    assert not (root / "b").exists()
    assert (root / "mine.txt").read_text() == "keep"
    assert os.stat(root / "mine.txt").st_ino == inode_before  # hard-linked, not copied
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_all_or_nothing_renames_every_file_at_the_end(tmp_path: Path) -> None:
    first, second = tmp_path / "a.csv", tmp_path / "b.png"
    with all_or_nothing():
        write_text_atomically(first, "1")
        assert not first.exists()  # held under its temporary name until the block ends
        write_text_atomically(second, "2")
        write_text_atomically(first, "3")  # written twice: the last version wins
    assert (first.read_text(), second.read_text()) == ("3", "2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.png"]


@pytest.mark.parametrize("failure", [OSError(5, "I/O error"), KeyboardInterrupt()])
def test_all_or_nothing_leaves_nothing_when_the_run_fails(
    tmp_path: Path, failure: BaseException
) -> None:
    (tmp_path / "old.csv").write_text("before")
    with pytest.raises(type(failure)), all_or_nothing():
        write_text_atomically(tmp_path / "old.csv", "new")
        write_text_atomically(tmp_path / "new.csv", "new")
        raise failure
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.csv"]
    assert (tmp_path / "old.csv").read_text() == "before"


def test_all_or_nothing_keeps_the_files_of_a_chosen_exit_and_what_must_be_written_now(
    tmp_path: Path,
) -> None:
    with (
        pytest.raises(SystemExit),
        all_or_nothing(keep=lambda error: isinstance(error, SystemExit) and error.code == 1),
    ):
        write_text_atomically(tmp_path / "kept.json", "1")
        raise SystemExit(1)
    assert (tmp_path / "kept.json").read_text() == "1"
    with pytest.raises(RuntimeError), all_or_nothing():
        write_text_atomically(tmp_path / "backup.json", "device", now=True)
        assert (tmp_path / "backup.json").read_text() == "device"
        raise RuntimeError
    assert (tmp_path / "backup.json").read_text() == "device"


@pytest.fixture
def unwritable_folder(tmp_path: Path) -> Path:
    """A folder no file can be created in: read-only by its mode, or, for root (whom the mode
    does not stop), /sys, whose kernel refuses every new file."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    for candidate in (folder, Path("/sys")):
        try:
            (candidate / "probe").touch()
        except OSError:
            return candidate
        (candidate / "probe").unlink()
    pytest.skip("no folder here refuses a new file")


def test_check_output_file_refuses_a_folder_it_cannot_write(unwritable_folder: Path) -> None:
    with pytest.raises(QosforgeError) as raised:
        check_output_file(unwritable_folder / "p.png", flag="--plot", suffixes=(".png",))
    assert raised.value.place == "--plot"
    assert f"folder {str(unwritable_folder)!r} is not writable" in raised.value.message
    assert not list(unwritable_folder.glob(".qosforge-check-*"))


def test_check_output_file_takes_a_writable_special_file() -> None:
    # /dev/null is written in place (not via a sibling), so /dev itself need not take new files.
    check_output_file(Path("/dev/null"), flag="--out")


def test_check_output_folder_names_what_is_wrong_with_the_path(tmp_path: Path) -> None:
    a_file = tmp_path / "afile"
    a_file.write_text("x")
    check_output_folder(tmp_path / "new", flag="-o")  # a new folder in an existing one
    check_output_folder(tmp_path, flag="-o")  # an existing folder
    cases = {
        a_file: f"{str(a_file)!r} is a file, not a folder",
        a_file / "sub": f"{str(a_file)!r} is a file, not a folder",
        tmp_path / "missing" / "sub": f"folder {str(tmp_path / 'missing')!r} does not exist",
    }
    for path, message in cases.items():
        with pytest.raises(QosforgeError) as raised:
            check_output_folder(path, flag="-o")
        assert (raised.value.place, raised.value.message) == ("-o", message)


def test_check_output_folder_refuses_a_folder_it_cannot_write(unwritable_folder: Path) -> None:
    for path in (unwritable_folder, unwritable_folder / "out"):
        with pytest.raises(QosforgeError) as raised:
            check_output_folder(path, flag="--out")
        assert raised.value.message == f"cannot write into folder {str(unwritable_folder)!r}"
