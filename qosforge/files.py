"""Writing output files: atomically, with normal permissions, never creating what the user did
not ask for.

* :func:`write_atomically` / :func:`write_text_atomically`: one file, via a temporary sibling and
  a rename, so a failed run leaves no partial file. The file gets the mode any tool would give it
  (``0666 & ~umask``; an existing file keeps its mode). Special files (``/dev/stdout``, a FIFO)
  are written directly: renaming over them would replace the device.
* :func:`check_output_file`: a file flag such as ``--plot`` must name a file in an existing folder
  with a suffix the writer supports; checked before any work is done.
* :func:`replace_directory_contents`: a whole output folder, complete or untouched (staged beside
  it, then swapped in; see :mod:`qosforge.outputs` for what a compile writes and removes).
* :func:`all_or_nothing`: every file written with :func:`write_atomically` inside it stays under
  its temporary name until the block ends, then all are renamed into place; a block that raises
  (an error, or Ctrl-C wherever it lands) leaves none of them. The CLI runs each command in one,
  so ``--timeseries ts.csv --plot bad.png`` writes neither file.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from qosforge.errors import QosforgeError

#: File types matplotlib's Agg canvas writes (``FigureCanvasBase.get_supported_filetypes``).
PLOT_SUFFIXES = (".png", ".svg", ".pdf", ".eps", ".jpeg", ".jpg", ".pgf", ".ps", ".raw", ".rgba", ".svgz", ".tif", ".tiff", ".webp")

_umask: int | None = None


def current_umask() -> int:
    """The process umask (read once: os.umask can only be read by setting it, so it is restored
    at once; the CLI is single-threaded)."""
    global _umask
    if _umask is None:
        _umask = os.umask(0o022)
        os.umask(_umask)
    return _umask


def default_file_mode() -> int:
    """``0666 & ~umask``: the mode ``open(path, "w")`` would give a new file."""
    return 0o666 & ~current_umask()


def check_output_file(path: Path, *, flag: str, suffixes: Iterable[str] = ()) -> None:
    """Fail early, with the flag named, when ``path`` cannot be written as asked.

    The parent folder must exist (a tool does not create ``/nonexistent`` for a file flag) and
    take a new file, the path must not be a folder, and with ``suffixes`` its suffix must be one of
    them.
    """
    allowed = tuple(suffixes)
    if path.is_dir():
        raise QosforgeError(f"{str(path)!r} is a folder", place=flag, hint="give a file name inside it")
    if allowed and path.suffix.lower() not in allowed:
        shown = path.suffix or "no suffix"
        raise QosforgeError(
            f"{str(path)!r} has {shown}, not a supported file type",
            place=flag,
            hint=f"use one of {', '.join(allowed)} (e.g. {path.with_suffix(allowed[0]).name if path.name else 'plot.png'})",
        )
    parent = path.parent
    if not parent.is_dir():
        if parent.exists():
            raise QosforgeError(f"{str(parent)!r} is a file, not a folder", place=flag,
                                hint="choose a path inside a folder")
        raise QosforgeError(f"folder {str(parent)!r} does not exist", place=flag, hint="create the folder first, or choose another path")
    if _special(path):
        # Written in place, not via a sibling (write_atomically): the file itself must take it.
        if not os.access(path, os.W_OK):
            raise QosforgeError(f"{str(path)!r} is not writable", place=flag,
                                hint="choose a file you can write")
    elif not _can_create_in(parent):
        raise QosforgeError(f"cannot write {str(path)!r}: folder {str(parent)!r} is not writable",
                            place=flag,
                            hint="choose a folder you can write to, or make this one writable")


def check_output_folder(path: Path, *, flag: str) -> None:
    """Fail early, with the flag named, when ``path`` cannot be the output folder: a file there
    or in its path, a parent folder that does not exist (a tool does not create ``/nonexistent``
    for its output folder), or a folder that will not take a new file (/proc, /sys, a read-only
    mount)."""
    for ancestor in (path, *path.parents):
        if ancestor.exists() and not ancestor.is_dir():
            raise QosforgeError(f"{str(ancestor)!r} is a file, not a folder", place=flag,
                                hint="choose a folder path")
    if path.is_dir():
        folder = path
    elif path.parent.is_dir():
        folder = path.parent
    else:
        raise QosforgeError(f"folder {str(path.parent)!r} does not exist", place=flag,
                            hint="create it first, or choose another path")
    if not _can_create_in(folder):
        raise QosforgeError(f"cannot write into folder {str(folder)!r}", place=flag,
                            hint="choose a folder you can write to, or make this one writable")


def _special(path: Path) -> bool:
    """An existing file that is not a regular one (``/dev/stdout``, a FIFO)."""
    try:
        return not stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _can_create_in(folder: Path) -> bool:
    """Whether a file can be created in ``folder``, as :func:`write_atomically` creates its
    temporary sibling. Tried, not read from the mode bits: root passes any permission check
    (access(2)), while a read-only mount or /sys refuses even root."""
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".qosforge-check-"):
            return True
    except OSError:
        return False


def write_text_atomically(
    path: Path, text: str, *, create_parents: bool = False, now: bool = False
) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically; see :func:`write_atomically`."""
    write_atomically(path, _text_writer(text), create_parents=create_parents, now=now)


def _text_writer(text: str) -> Callable[[Path], None]:
    def write(temporary: Path) -> None:
        temporary.write_text(text, encoding="utf-8")

    return write


def write_atomically(
    path: Path, writer: Callable[[Path], None], *, create_parents: bool = False, now: bool = False
) -> None:
    """Let ``writer`` fill a temporary sibling of ``path``, then rename it into place (inside
    :func:`all_or_nothing`: when the block ends, unless ``now``, for a record of something already
    done that must stay whatever follows, such as a device's configuration before a push).

    The temporary file keeps ``path``'s suffix so format-sniffing writers (matplotlib) behave.
    Missing parent folders are an error unless ``create_parents`` (an output tree the tool owns).
    """
    try:
        _write_atomically(path, writer, create_parents, None if now else _STAGED.get())
    except OSError as error:
        if error.filename is None:  # raised by write/close: say which file
            raise OSError(error.errno, error.strerror, str(path)) from error
        raise


def _write_atomically(
    path: Path, writer: Callable[[Path], None], create_parents: bool, staged: _Staged | None
) -> None:
    if create_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    if _is_special_file(path):
        writer(path)
        return
    handle, temporary_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(handle)
    temporary = Path(temporary_name)
    try:
        writer(temporary)
        os.chmod(temporary, _mode_for(path))
        if staged is None:
            os.replace(temporary, path)
        else:
            staged.add(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@dataclass
class _Staged:
    """Files written inside :func:`all_or_nothing`: (temporary, final path), in writing order."""

    files: list[tuple[Path, Path]] = field(default_factory=list)

    def add(self, temporary: Path, path: Path) -> None:
        final = Path(os.path.abspath(path))
        for earlier, target in [item for item in self.files if item[1] == final]:
            earlier.unlink(missing_ok=True)  # written twice in one run: the last version wins
            self.files.remove((earlier, target))
        self.files.append((temporary, final))

    def discard(self) -> None:
        for temporary, _ in self.files:
            temporary.unlink(missing_ok=True)
        self.files.clear()

    def commit(self) -> None:
        for temporary, path in self.files:
            os.replace(temporary, path)
        self.files.clear()


_STAGED: contextvars.ContextVar[_Staged | None] = contextvars.ContextVar(
    "qosforge_staged_outputs", default=None
)


@contextlib.contextmanager
def all_or_nothing(keep: Callable[[BaseException], bool] = lambda _: False) -> Iterator[None]:
    """Hold every file :func:`write_atomically` writes in this block under its temporary name and
    rename them all into place when the block ends; when it raises, remove them instead, unless
    ``keep(exception)`` says the exception ends a run that succeeded (a command's chosen exit).

    Ctrl-C cannot land between two of the renames: one that arrives before they start discards the
    files, one during them is raised (KeyboardInterrupt) after the last.
    """
    staged = _Staged()
    token = _STAGED.set(staged)
    try:
        yield
    except BaseException as error:
        if keep(error):
            _commit(staged)
        else:
            staged.discard()
        raise
    else:
        _commit(staged)
    finally:
        staged.discard()  # a failed rename: the rest never appear
        _STAGED.reset(token)


def _commit(staged: _Staged) -> None:
    if not staged.files:
        return
    if threading.current_thread() is not threading.main_thread():
        staged.commit()
        return
    # Python raises KeyboardInterrupt from its SIGINT handler at the next bytecode, which could be
    # between two renames; a handler that only records the interrupt keeps the set whole.
    interrupted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _frame: interrupted.append(number))
    try:
        if not interrupted:
            staged.commit()
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise KeyboardInterrupt


def _is_special_file(path: Path) -> bool:
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return default_file_mode()


def replace_directory_contents(root: Path, writes: Mapping[str, str | Path],
                               removals: Iterable[str]) -> None:
    """Make folder ``root`` hold ``writes`` (relative path -> text, or a finished file on the
    same file system that is moved in by rename) and lose ``removals``, as one step: either
    every change is visible or none is.

    The new state is built in a sibling folder (existing files hard-linked, so building it costs
    no copies and leaves ``root`` untouched), then exchanged with ``root`` in one
    ``renameat2(RENAME_EXCHANGE)`` (Linux), or by two renames elsewhere. Files in ``root`` that are
    in neither argument are carried over unchanged. When ``root`` cannot be swapped (it is the
    working folder, holds it, or is a mount point) the files are written one by one, each
    atomically, and removals come last.
    """
    root = Path(os.path.abspath(root))
    if root.exists() and not root.is_dir():
        raise QosforgeError(f"{str(root)!r} is a file, not a folder", place="-o/--output", hint="choose a folder path")
    if not root.parent.is_dir():
        root.parent.mkdir(parents=True, exist_ok=True)
    removals = [item for item in removals if item not in writes]
    if root.exists() and not _swappable(root):
        _update_in_place(root, writes, removals)
        return
    stage = Path(tempfile.mkdtemp(prefix=f".{root.name}.qosforge-", dir=root.parent))
    try:
        if root.exists():
            _mirror(root, stage)
            os.chmod(stage, stat.S_IMODE(root.stat().st_mode))
        else:
            os.chmod(stage, 0o777 & ~current_umask())  # mkdtemp made it 0700
        _apply(stage, writes, removals)
        if root.exists():
            _exchange(stage, root)
            shutil.rmtree(stage, ignore_errors=True)  # now the previous contents
        else:
            os.rename(stage, root)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def _swappable(root: Path) -> bool:
    cwd = Path(os.path.abspath(os.getcwd()))
    if cwd == root or root in cwd.parents:
        return False
    return not root.is_symlink() and not os.path.ismount(root)


def _mirror(source: Path, destination: Path) -> None:
    """Recreate ``source``'s tree in ``destination`` with hard links (copies where not allowed)."""
    for folder, subfolders, files in os.walk(source):
        relative = Path(folder).relative_to(source)
        target_folder = destination / relative
        for name in subfolders:
            origin = Path(folder) / name
            if origin.is_symlink():
                os.symlink(os.readlink(origin), target_folder / name)
                continue
            (target_folder / name).mkdir()
            shutil.copystat(origin, target_folder / name)
        subfolders[:] = [name for name in subfolders if not (Path(folder) / name).is_symlink()]
        for name in files:
            origin = Path(folder) / name
            if origin.is_symlink():
                os.symlink(os.readlink(origin), target_folder / name)
                continue
            try:
                os.link(origin, target_folder / name)
            except OSError:
                shutil.copy2(origin, target_folder / name)


def _apply(root: Path, writes: Mapping[str, str | Path], removals: Iterable[str]) -> None:
    for relative, content in writes.items():
        path = root / relative
        if isinstance(content, Path):
            _move_into_place(content, path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = _mode_for(path)
        path.unlink(missing_ok=True)  # never write through a hard link into the live tree
        path.write_text(content, encoding="utf-8")
        os.chmod(path, mode)
    _remove(root, removals)


def _move_into_place(spooled: Path, path: Path) -> None:
    """A file rendered to the spool folder, renamed to ``path`` with the mode a new file there
    gets: one rename, as atomic as write_text_atomically, and it replaces a link itself rather
    than writing through it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(path)
    os.replace(spooled, path)
    os.chmod(path, mode)


def _remove(root: Path, removals: Iterable[str]) -> None:
    for relative in removals:
        path = root / relative
        path.unlink(missing_ok=True)
        for folder in Path(relative).parents:
            if folder == Path("."):
                break
            with contextlib.suppress(OSError):  # not empty: other files stay
                (root / folder).rmdir()


def _update_in_place(root: Path, writes: Mapping[str, str | Path], removals: Iterable[str]) -> None:
    for relative, content in writes.items():
        if isinstance(content, Path):
            _move_into_place(content, root / relative)
        else:
            # Not staged by all_or_nothing: the folder's removals follow at once, so its files
            # do too.
            _write_atomically(root / relative, _text_writer(content), True, None)
    _remove(root, removals)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> None:
    """Swap two folders atomically (Linux ``renameat2(RENAME_EXCHANGE)``), else by two renames."""
    import ctypes
    import ctypes.util

    libc_name = ctypes.util.find_library("c")
    renameat2 = getattr(ctypes.CDLL(libc_name, use_errno=True), "renameat2", None) if libc_name else None
    if renameat2 is not None:
        result = renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
        if result == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(code, os.strerror(code), str(second))
    parked = first.with_name(first.name + ".previous")
    os.rename(second, parked)
    try:
        os.rename(first, second)
    except BaseException:
        os.rename(parked, second)
        raise
    os.rename(parked, first)


__all__ = [
    "PLOT_SUFFIXES",
    "all_or_nothing",
    "check_output_file",
    "current_umask",
    "default_file_mode",
    "replace_directory_contents",
    "write_atomically",
    "write_text_atomically",
]
