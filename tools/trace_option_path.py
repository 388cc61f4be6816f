"""Trace the path one option's value travels through qosforge's files, as it runs.

Runs ``qosforge ARGS...`` in this process under a profile hook (``sys.setprofile``, inherited by the
worker processes a local sweep forks) that records every call into a repository source file one of
whose arguments carries the option's value: the text as typed (``--text``, also inside argv lists
and option mappings) or its parsed value (``--value``), looked for up to three levels into lists,
mappings, dataclasses and qosforge objects. From the calls, in time order over all processes:

* **files**: distinct repository files the value entered;
* **hops**: changes of file between consecutive recorded calls;
* **returns**: hops into a file the value had already been in.

``--until FILE`` cuts the trace at the first call into FILE (the option's consumer), so the report
path back is not counted. The run is stopped (the point fails, the command exits 1) at the first
numba JIT compilation, so tracing an older checkout never compiles its engine: the option reaches
its consumer before the engine runs. ``--checkout DIR`` traces another checkout of the repository
(e.g. ``git worktree add --detach DIR COMMIT``) with this environment's dependencies.

    python tools/trace_option_path.py --text 3.21ms --value 0.00321 \\
        --until softswitch/traffic/fabric_workloads.py -- \\
        simulate examples/roce-pod.yaml --scenario pause-storm --stall 3.21ms --duration 5ms --format json

Prints one JSON object (``--sequence`` adds every recorded call); the command's stdout is dropped. Python's profile hook sees calls
into Python functions only; what click does between them is not counted (it is no repository file).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class Stop(BaseException):
    """Raised from the hook at the first numba JIT compilation (not an Exception: nothing catches it)."""


class Tracer:
    def __init__(self, root: Path, text: str, value: float, out: Path) -> None:
        self.root = str(root.resolve()) + "/"
        self.skip = (self.root + ".venv/", self.root + "tests/")
        self.text, self.value, self.out = text, value, out
        self.real: dict[str, str] = {}
        self.lock = threading.Lock()
        self.stream: Any = None
        self.pid = 0

    def carries(self, value: Any, depth: int = 0) -> bool:
        if isinstance(value, str):
            return self.text in value
        if isinstance(value, float):
            return abs(value - self.value) <= 1e-15 * max(1.0, abs(self.value))
        if value is None or isinstance(value, (int, bytes)) or depth >= 3:
            return False
        try:
            if isinstance(value, dict):
                return any(self.carries(item, depth + 1) for item in list(value.values())[:64])
            if isinstance(value, (list, tuple, set, frozenset)):
                return any(self.carries(item, depth + 1) for item in list(value)[:64])
            fields = getattr(value, "__dataclass_fields__", None)
            if fields is not None:
                return any(self.carries(getattr(value, name, None), depth + 1) for name in list(fields)[:64])
            attributes = getattr(value, "__dict__", None)
            if isinstance(attributes, dict) and type(value).__module__.startswith("qosforge"):
                return any(self.carries(item, depth + 1) for item in list(attributes.values())[:64])
        except Exception:  # a property that raises: not carrying the value
            return False
        return False

    def hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        name = code.co_filename
        if code.co_name == "_compile_for_args" and name.endswith("numba/core/dispatcher.py"):
            raise Stop("numba JIT compilation reached: stopped before the engine runs")
        if name.startswith("<") or code.co_name == "<module>":
            return  # generated code (a dataclass __init__): the call that built it is recorded
        path = self.real.get(name)
        if path is None:
            path = self.real[name] = os.path.realpath(name)
        if not path.startswith(self.root) or path.startswith(self.skip):
            return
        count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(code.co_flags & 8)
        local = frame.f_locals
        for argument in code.co_varnames[:count]:
            if argument not in ("self", "cls") and self.carries(local.get(argument)):
                self.record(path[len(self.root):], code.co_qualname, argument)
                return

    def record(self, path: str, function: str, argument: str) -> None:
        with self.lock:
            if self.stream is None or self.pid != os.getpid():  # a forked worker writes its own file
                self.pid = os.getpid()
                self.stream = open(self.out / f"{self.pid}.jsonl", "a")  # kept open: one file per process
            self.stream.write(json.dumps({"t": time.monotonic_ns(), "pid": self.pid, "file": path,
                                          "function": function, "argument": argument}) + "\n")
            self.stream.flush()


def summarise(rows: list[dict[str, Any]], until: str | None) -> dict[str, Any]:
    rows = sorted(rows, key=lambda row: row["t"])
    if until is not None:
        first = next((index for index, row in enumerate(rows) if row["file"] == until), None)
        if first is None:
            raise SystemExit(f"error: --until: the value never reached {until}")
        rows = rows[:first + 1]
    seen: list[str] = []
    hops = returns = 0
    last: str | None = None
    for row in rows:
        if row["file"] != last:
            if last is not None:
                hops += 1
                returns += row["file"] in seen
            last = row["file"]
            if row["file"] not in seen:
                seen.append(row["file"])
    return {"calls": len(rows), "files": len(seen), "hops": hops, "returns": returns,
            "processes": len({row["pid"] for row in rows}), "files_in_order": seen,
            "sequence": [f"{row['file']}:{row['function']}({row['argument']})" for row in rows]}


def _use_checkout(checkout: Path, overlay: Path) -> None:
    """Import qosforge from ``checkout``: its folders laid out as the installed package (symlinks
    under ``overlay``, as pyproject.toml's package-dir maps them), the editable install's finder dropped."""
    package_dir = tomllib.loads((checkout / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    (overlay / "qosforge").mkdir(parents=True)
    for entry in (checkout / "qosforge").iterdir():
        (overlay / "qosforge" / entry.name).symlink_to(entry)
    for package, folder in package_dir.items():
        if package != "qosforge":
            (overlay / "qosforge" / package.split(".", 1)[1]).symlink_to(checkout / folder)
    sys.meta_path[:] = [finder for finder in sys.meta_path if "__editable__" not in repr(finder)]
    sys.path.insert(0, str(overlay))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--text", required=True, help="the option's value as typed, e.g. 3.21ms")
    parser.add_argument("--value", type=float, required=True, help="its parsed value, e.g. 0.00321")
    parser.add_argument("--until", metavar="FILE", help="cut at the first call into FILE (repository path)")
    parser.add_argument("--checkout", type=Path, help="trace this checkout instead of this repository")
    parser.add_argument("--sequence", action="store_true", help="print every recorded call")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then qosforge's arguments")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    root = (args.checkout or ROOT).resolve()
    with tempfile.TemporaryDirectory() as scratch:
        if args.checkout is not None:
            _use_checkout(root, Path(scratch) / "overlay")
        out = Path(scratch) / "trace"
        out.mkdir()
        tracer = Tracer(root, args.text, args.value, out)
        from qosforge.cli import main as qosforge_main

        parent = os.getpid()
        sys.setprofile(tracer.hook)
        threading.setprofile(tracer.hook)
        code: Any = 0
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # the command's own output is not the measure
                qosforge_main(command)
        except SystemExit as exited:
            code = exited.code
        except Stop:
            code = "stopped at the engine"
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
        if os.getpid() != parent:  # a forked worker that returned here: leave its parent to report
            os._exit(0)
        rows = [json.loads(line) for path in out.glob("*.jsonl") for line in path.read_text().splitlines()]
    result = {"command": command, "exit": code, **summarise(rows, args.until)}
    if not args.sequence:
        del result["sequence"]
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
