"""Fingerprints of the software switch's results, to prove an engine change moves no result.

A change to the event core that is meant to be result-neutral (a faster event queue, a
rearranged loop) must leave every number of every run exactly as it was. This script runs a
fixed set of scenarios and prints one SHA-256 per scenario over everything the run produced:
every field of the collected ``SimulationResult`` (counters, drops, marks, per-queue and per-PG
maxima, monitor statistics and traces, flow start/finish times and windows, PFC times, queue
histograms) and, for the CLI scenarios, ``qosforge simulate --format json`` — in both, only the
wall and CPU times (and rates derived from them) are left out. Run it before and after the change
and compare the lines; ``--dump DIR`` also writes each scenario's numbers as JSON so a change
that is *meant* to move results can be tabulated key by key (``--compare OLD_DIR NEW_DIR``).

Scenarios: ``bench/bench_softswitch.py``'s switch at 0.02 s; the dumbbell of
``qosforge simulate`` for every transport; ``--scenario incast`` on every example intent; and
fabric-incast, all-to-all and pause-storm on ``examples/roce-pod.yaml`` with the ``--assume``
flags docs/softswitch.md uses for it. Everything runs in this one process (a few tens of
seconds with the ahead-of-time core).

    python bench/engine_fingerprint.py [--only SUBSTRING] [--dump DIR]
    python bench/engine_fingerprint.py --compare OLD_DIR NEW_DIR

``--compare`` exits 0 only when both folders hold the same scenarios with identical numbers, 1 on
any difference, a scenario on one side only or a folder without dumps; ``--only`` that matches no
scenario exits 2.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _usage import OneLineParser, require_match

from qosforge.softswitch.queue_histograms import QueueHistograms

ROOT = Path(__file__).resolve().parents[1]

#: Result fields and JSON keys that measure the machine, not the simulation.
TIMING_KEYS = frozenset({"wall_seconds", "cpu_seconds", "loop_cpu_seconds", "packet_events_per_second"})
TRANSPORTS = ("dcqcn", "dctcp", "newreno", "tbtcp", "tcp", "tcp-ecn")
DUMBBELL = ["--scenario", "dumbbell", "--flows", "10", "--speed", "10G", "--rtt", "100us", "--ecn-threshold", "65pkt",
            "--queue-limit", "1000pkt", "--duration", "0.3s", "--warmup", "0.1s"]
ROCE_POD = str(ROOT / "examples" / "roce-pod.yaml")
ROCE_ASSUME = ["--assume", "red.steps=1024", "--assume", "red.step_offset=0"]
FABRIC_SCENARIOS = ("fabric-incast", "all-to-all", "pause-storm")
_ABSENT = object()


def _canonical(value: Any) -> Any:
    """A JSON-able form of a result value that keeps every bit (floats as their hex)."""
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "sha256": hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()}
    if isinstance(value, QueueHistograms):
        # Hashed as the dense [port, queue, bin] int64 array it stands for, port by port.
        digest = hashlib.sha256()
        for chunk in value.dense_chunks():
            digest.update(np.ascontiguousarray(chunk).tobytes())
        return {"dtype": "int64", "shape": list(value.shape), "sha256": digest.hexdigest()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _canonical(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name not in TIMING_KEYS}
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items()) if k not in TIMING_KEYS}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value).hex()
    if isinstance(value, np.integer):
        return int(value)
    return value


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


class _Capture:
    """Records every SimulationResult that ``simulate_fabric`` returns in this process."""

    def __init__(self) -> None:
        import qosforge.softswitch.simulation as simulation

        self.results: list[Any] = []
        original = simulation.simulate_fabric

        def recording(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            self.results.append(result)
            return result

        simulation.simulate_fabric = recording  # simulate() looks it up in the module at call time


def _cli_json(arguments: list[str]) -> dict[str, Any]:
    from click.testing import CliRunner

    from qosforge.cli import cli

    outcome = CliRunner().invoke(cli, ["simulate", *arguments, "--format", "json"], catch_exceptions=False)
    if outcome.exit_code != 0:
        raise SystemExit(f"qosforge simulate {' '.join(arguments)} exited {outcome.exit_code}: {outcome.output.strip()[-400:]}")
    text = outcome.stdout
    parsed: dict[str, Any] = json.loads(text[text.index("{"):])
    return parsed


def _bench_scenario() -> dict[str, Any]:
    import bench_softswitch

    row = bench_softswitch.run_one(0.02)
    return {k: v for k, v in row.items() if k in {"packet_events", "events", "drops", "marks"}}


def scenarios() -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
    yield "bench_softswitch 0.02s", _bench_scenario
    for transport in TRANSPORTS:
        yield f"dumbbell {transport}", lambda t=transport: _cli_json([*DUMBBELL, "--transport", t])
    for example in sorted(p for p in (ROOT / "examples").glob("*.yaml") if not p.name.endswith(".traffic.yaml")):
        # Spectrum profiles leave the RED step quantisation unknown: the docs' assumption for them.
        assume = ROCE_ASSUME if "spectrum" in example.read_text() else []
        yield f"incast {example.name}", lambda e=example, a=assume: _cli_json([str(e), "--scenario", "incast", "--flows", "100", "--duration", "10ms",
                                                                            "--warmup", "1ms", *a])
    for scenario in FABRIC_SCENARIOS:
        yield f"{scenario} roce-pod.yaml", lambda s=scenario: _cli_json([ROCE_POD, "--scenario", s, *ROCE_ASSUME])


def fingerprint(numbers: dict[str, Any], results: list[Any]) -> str:
    payload = json.dumps({"numbers": _canonical(_without_timing(numbers)), "results": [_canonical(r) for r in results]}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def _flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _flatten(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, item in enumerate(value):
            yield from _flatten(item, f"{prefix}[{i}]")
    else:
        yield prefix, value


def _dumps(folder: Path) -> dict[str, Path]:
    """Scenario name -> its ``--dump`` file in ``folder`` (empty when the folder is missing)."""
    return {path.stem: path for path in sorted(folder.glob("*.json"))} if folder.is_dir() else {}


def compare(old_dir: Path, new_dir: Path) -> int:
    """Every top-level key that differs between two ``--dump`` folders (old, new, relative
    change), per scenario how many per-switch/per-port keys (``switches[...]``) differ, and the
    scenarios found on one side only. 0 only when both folders hold the same scenarios with
    identical numbers; 1 on any difference or a folder without dumps (a typo must not pass)."""
    old_dumps, new_dumps = _dumps(old_dir), _dumps(new_dir)
    empty = [folder for folder, dumps in ((old_dir, old_dumps), (new_dir, new_dumps)) if not dumps]
    for folder in empty:
        print(f"error: {folder}: no --dump files (*.json) there", file=sys.stderr)
    if empty:
        return 1
    print("| scenario | key | old | new | relative |")
    print("|---|---|---|---|---|")
    differences = 0
    for name in sorted(old_dumps.keys() | new_dumps.keys()):
        if name not in new_dumps or name not in old_dumps:
            differences += 1
            print(f"| {name} | (whole scenario) | {'present' if name in old_dumps else 'absent'} | {'present' if name in new_dumps else 'absent'} | |")
            continue
        old = dict(_flatten(json.loads(old_dumps[name].read_text())))
        new = dict(_flatten(json.loads(new_dumps[name].read_text())))
        keys = sorted(old.keys() | new.keys())
        for key in (key for key in keys if "[" not in key and old.get(key, _ABSENT) != new.get(key, _ABSENT)):
            before, after = old.get(key, "absent"), new.get(key, "absent")
            relative = ""
            if isinstance(before, (int, float)) and isinstance(after, (int, float)) and not isinstance(before, bool):
                relative = f"{(after - before) / abs(before):+.2%}" if before else "from 0"
            differences += 1
            print(f"| {name} | {key} | {before} | {after} | {relative} |")
        nested = [key for key in keys if "[" in key]
        changed = sum(1 for key in nested if old.get(key, _ABSENT) != new.get(key, _ABSENT))
        if changed:
            differences += 1
            print(f"| {name} | per-switch/port keys | {len(nested)} | {changed} changed | |")
    print(f"# {differences} difference(s)" if differences else "# identical")
    return 1 if differences else 0


def main(argv: list[str]) -> int:
    parser = OneLineParser(__doc__)
    parser.add_argument("--only", help="run only the scenarios whose name contains this")
    parser.add_argument("--dump", type=Path, help="also write each scenario's numbers (JSON) into this folder")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD_DIR", "NEW_DIR"),
                        help="compare two --dump folders; exit 1 on any difference")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    chosen = dict(scenarios())
    chosen = {name: chosen[name] for name in require_match(args.only, chosen)}
    from qosforge.softswitch.engine.core import kernel

    print(f"# event core: {'ahead-of-time' if kernel().ahead_of_time else 'numba JIT'}")
    capture = _Capture()
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    for name, run in chosen.items():
        capture.results.clear()
        numbers = run()
        print(f"{fingerprint(numbers, capture.results)}  {name}", flush=True)
        if args.dump:
            (args.dump / f"{name.replace(' ', '_')}.json").write_text(json.dumps(_without_timing(numbers), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
