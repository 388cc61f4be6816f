"""One candidate of a tune, checked and simulated: what a worker runs.

:func:`check_candidate` compiles the candidate intent for every target the intent deploys to
(and SONiC) and lints the config_db files it renders against the intent (the ``compile`` and
``lint --intent`` a person would run); a candidate either refuses is never simulated.
:func:`simulate_candidate` runs the traffic on the candidate (``simulate INTENT --traffic
FILE``, the application layer's own function) for one seed and load, and
:func:`class_metrics` reads the objectives' metrics from its report. Jobs and results are plain
data so they travel to worker processes or a Dask cluster as they are.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qosforge.errors import QosforgeError

#: Queue depth sampled every 10 us: a few hundred samples in a few-millisecond window, so the
#: p99 of the samples is a percentile, not the maximum (at simulate's default 100 us, a 3 ms
#: window has 30 samples).
SAMPLE = "10us"


@dataclass(frozen=True)
class CheckJob:
    intent_text: str
    intent_name: str
    targets: tuple[str, ...] = ("sonic",)
    """Every target the candidate is compiled (rendered) for; lint reads SONiC's config_db."""


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    reason: str
    """Empty when it passed; else the first error compile or lint gave."""
    cpu_s: float


@dataclass(frozen=True)
class SimulationJob:
    intent_text: str
    traffic_text: str
    seed: int
    load: float
    """Offered-load factor: every finite entry's start window is divided by it (1.2: the same
    messages arrive 20 % faster)."""
    measure: str
    message_max_bytes: Mapping[str, float]


@dataclass(frozen=True)
class SimulationResult:
    metrics: dict[str, dict[str, float | None]]
    cpu_s: float
    error: str = ""


def check_candidate(job: CheckJob) -> CheckResult:
    """Compile and render the candidate for every target of ``job`` (a target's capability
    view or renderer may refuse what another takes) and lint its SONiC config_db files against
    it (lint's rules read SONiC's schema only); errors only, warnings pass."""
    from qosforge.api.compile import CompileRequest, compile_to_folder
    from qosforge.api.lint import LintRequest, lint
    from qosforge.api.reporting import QuietReporter

    started = time.process_time()
    with tempfile.TemporaryDirectory(prefix="qosforge-tune-") as folder:
        intent = Path(folder) / job.intent_name
        intent.write_text(job.intent_text, encoding="utf-8")
        out = Path(folder) / "out"
        try:
            compile_to_folder(
                CompileRequest(intent_path=str(intent), output_dir=str(out), targets=job.targets),
                QuietReporter(),
            )
        except QosforgeError as error:
            return CheckResult(False, f"compile: {error.message}", time.process_time() - started)
        files = tuple(sorted(str(path) for path in out.glob("*/config_db.json")))
        outcome = lint(
            LintRequest(files=files, intent=str(intent), jobs=1, settings_dir=Path(folder)),
            QuietReporter(),
        )
        errors = [f for f in outcome.report.findings if f.severity.value == "error"]
        if errors or outcome.exit_code != 0:
            first = errors[0] if errors else None
            text = (
                f"{first.rule}: {first.message}"
                if first is not None
                else f"lint exit {outcome.exit_code}"
            )
            return CheckResult(False, f"lint: {text}", time.process_time() - started)
    return CheckResult(True, "", time.process_time() - started)


def scaled_traffic(traffic_text: str, seed: int, load: float) -> str:
    """The traffic file with its ``seed`` set and every finite entry's ``start_window``
    divided by ``load`` (entries without a window, long-lived flows and collectives stay)."""
    from ruamel.yaml import YAML

    from qosforge.units import parse_time_s

    yaml = YAML()
    document = yaml.load(traffic_text)
    document["seed"] = seed
    if not math.isclose(load, 1.0):
        for entry in document.get("flows") or []:
            window = entry.get("start_window")
            if window is not None and str(entry.get("size", "long-lived")) != "long-lived":
                entry["start_window"] = (
                    f"{parse_time_s(str(window), allow_zero=True) / load * 1e6:.6g}us"
                )
    import io

    stream = io.StringIO()
    yaml.dump(document, stream)
    return stream.getvalue()


def simulate_candidate(job: SimulationJob) -> SimulationResult:
    """Run the traffic on the candidate for one seed and load; metrics per class."""
    from qosforge.api.reporting import QuietReporter
    from qosforge.api.simulate import SimulateRequest, simulate

    started = time.process_time()
    with tempfile.TemporaryDirectory(prefix="qosforge-tune-") as folder:
        intent = Path(folder) / "intent.yaml"
        intent.write_text(job.intent_text, encoding="utf-8")
        traffic = Path(folder) / "traffic.yaml"
        traffic.write_text(scaled_traffic(job.traffic_text, job.seed, job.load), encoding="utf-8")
        request = SimulateRequest(
            intent=str(intent),
            traffic_path=str(traffic),
            measure_text=job.measure,
            seed=job.seed,
            sample_text=SAMPLE,
            typed=frozenset({"intent", "traffic_path", "measure_text", "seed", "sample_text"}),
        )
        try:
            outcome = simulate(request, QuietReporter())
        except QosforgeError as error:
            return SimulationResult({}, time.process_time() - started, error=error.message)
    return SimulationResult(
        class_metrics(outcome.report, job.message_max_bytes), time.process_time() - started
    )


def _percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (the value at rank ceil(p N)), as an operator's p99 of
    completion times is usually read."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def class_metrics(
    report: Mapping[str, Any], message_max_bytes: Mapping[str, float]
) -> dict[str, dict[str, float | None]]:
    """The objectives' metrics per class from a ``simulate --traffic`` report.

    - ``fct_p99_us``: nearest-rank p99 of the class's finite flows up to its message bound; a
      flow unfinished at the run's end counts as never finishing (its FCT is infinite, so a
      p99 that lands on one is reported as None: not met).
    - ``goodput_percent``: the class's delivered payload rate over the window, as a share of
      the line rate of the distinct host ports receiving it (the receivers' links are the
      bottleneck a class's goodput is held to).
    - ``lossless_drops``: the class's lost packets if it is lossless (drops_by_class), else 0.
    - ``pfc_pause_percent``: the largest share of the window any of the class's queues spent
      PFC-paused.
    - ``queue_delay_p99_us``: the largest p99 queueing delay of the class's queues (each
      queue's p99 depth over samples every :data:`SAMPLE`, at its port rate); None when a
      queue's p99 is beyond the depth histogram.
    """
    flows = report.get("flows", [])
    window_s = float(report["measure_end_s"]) - float(report["measure_start_s"])
    speeds = {
        (str(port["switch"]), str(port["port"])): float(port["speed_bps"])
        for port in report.get("ports", [])
    }
    out: dict[str, dict[str, float | None]] = {}
    classes = sorted({str(flow["class"]) for flow in flows if flow.get("class") is not None})
    for name in classes:
        mine = [flow for flow in flows if flow.get("class") == name]
        bound = message_max_bytes.get(name, 100e3)
        small = [
            flow
            for flow in mine
            if flow.get("size_bytes") is not None and float(flow["size_bytes"]) <= bound
        ]
        fcts = [math.inf if flow["fct_s"] is None else float(flow["fct_s"]) for flow in small]
        fct = _percentile(fcts, 0.99) if fcts else None
        receivers = {str(flow["dst"]) for flow in mine}
        line = sum(_host_rate(receiver, speeds) for receiver in receivers)
        delivered = (
            sum(float(flow["bytes_delivered"]) for flow in mine) * 8.0 / window_s
            if window_s > 0
            else 0.0
        )
        queues = [port for port in report.get("ports", []) if port.get("class") == name]
        drops = report.get("drops_by_class", {}).get(name, {})
        out[name] = {
            "fct_p99_us": None if fct is None or math.isinf(fct) else fct * 1e6,
            "goodput_percent": 100.0 * delivered / line if line > 0 else None,
            "lossless_drops": float(drops.get("drops", 0)) if drops.get("lossless") else 0.0,
            "pfc_pause_percent": max(
                (100.0 * float(q["paused_s"]) / window_s for q in queues), default=0.0
            )
            if window_s > 0
            else 0.0,
            "queue_delay_p99_us": _largest_delay_us(queues),
            "messages": float(len(small)),
            "unfinished": float(sum(1 for value in fcts if math.isinf(value))),
        }
    return out


def _largest_delay_us(queues: list[Any]) -> float | None:
    """The largest p99 queueing delay of the class's queues; None when any queue's p99 is
    beyond the depth histogram (then the largest is unknown)."""
    delays = [queue.get("p99_queue_delay_s") for queue in queues]
    if any(delay is None for delay in delays):
        return None
    return max((float(delay) * 1e6 for delay in delays), default=0.0)


def _host_rate(receiver: str, speeds: Mapping[tuple[str, str], float]) -> float:
    """The line rate of a receiving host's port (``leaf2:Ethernet0``); 0 where unknown."""
    switch, _, port = receiver.partition(":")
    return speeds.get((switch, port), 0.0)


__all__ = [
    "CheckJob",
    "CheckResult",
    "SimulationJob",
    "SimulationResult",
    "check_candidate",
    "class_metrics",
    "scaled_traffic",
    "simulate_candidate",
]
