"""``qosforge compare``: one intent's RoCE class run as each loss-handling mode on the same traffic.

Each mode is a compiled variant of the intent (its RoCE class changed, nothing else), run on the
same traffic file, seed and window:

* ``lossless-dcqcn``: PFC and DCQCN (transport dcqcn, lossless), as the intent compiles it.
* ``pfc-only``: the same switch configuration, the NICs' DCQCN reaction and notification points
  off (mlx5 ``ecn/roce_rp``, ``ecn/roce_np``): PFC alone, as Meta runs RoCE for training
  (Gangidi et al., "RDMA over Ethernet for Distributed AI Training at Meta Scale", SIGCOMM 2024,
  §5: DCQCN off, admission control in the collective library). The library's admission is the
  collectives' own step dependencies (one outstanding message per rank and step); its
  receiver-driven clear-to-send is not modelled.
* ``lossy-irn``: no PFC, IRN's selective repeat and BDP-FC (Mittal et al., SIGCOMM 2018) on
  DCQCN's rate control (transport irn).
* ``trimming``: ``lossy-irn`` with the class trimmed (SONiC SWITCH_TRIMMING, SAI PACKET_TRIM_*):
  refused, with the compiler's reason, where the intent's switch profile cannot trim.

Each mode reports the collectives' job completion time, FCT p50/p99, lossless and total drops,
timeouts, trimmed packets, PFC pause time and how many queues it reached, the flows PFC paused
and its victims among them (paused, their own path uncongested), and the mode's
deadlock exposure from ``check deadlock`` (single link failures). The CLI renders the table and
the plot (qosforge/cli/compare.py).
"""

from __future__ import annotations

import io
import json
import math
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qosforge.api.reporting import OnceEachReporter, Reporter
from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.softswitch.traffic.traffic_file import TrafficFile

MODES = ("lossless-dcqcn", "pfc-only", "lossy-irn", "trimming")
MODE_DESCRIPTIONS = {
    "lossless-dcqcn": "PFC + DCQCN (transport dcqcn, lossless)",
    "pfc-only": "PFC, the NICs' DCQCN off (Meta, SIGCOMM 2024 §5)",
    "lossy-irn": "no PFC; IRN selective repeat + BDP-FC, DCQCN rate control",
    "trimming": "lossy-irn with packet trimming (NACK per trimmed packet)",
}
#: The trimmed mode's trim size when the intent's class gives none: 256 B keeps the headers of a
#: RoCEv2 packet (Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 and extension headers) with room to spare.
DEFAULT_TRIM_SIZE = "256B"
#: pfc-only: the FlowSpec fields that turn a NIC's DCQCN points off (softswitch/traffic/spec.py).
PFC_ONLY_FLOWS: tuple[tuple[str, object], ...] = (
    ("dcqcn_reaction_point", False),
    ("dcqcn_notification_point", False),
)
ROCE_TRANSPORTS = ("dcqcn", "irn")


@dataclass(frozen=True)
class CompareRequest:
    intent: str
    traffic: str
    modes: tuple[str, ...] = MODES
    class_name: str | None = None
    """The RoCE class the modes change (default: the intent's first dcqcn or irn class)."""
    out_dir: str | None = None
    measure: str | None = None
    duration: str | None = None
    seed: int = 1
    assumptions: tuple[str, ...] = ()
    fail_links: int = 1
    """Link failures the deadlock exposure sweeps (0: the healthy routes only)."""


@dataclass(frozen=True)
class ModeResult:
    mode: str
    description: str
    refused: str | None = None
    """Why the mode could not be compiled or run (None: it ran)."""
    jct_s: float | None = None
    """The slowest collective's job completion time (None: no collective, or unfinished)."""
    fct_p50_s: float | None = None
    fct_p99_s: float | None = None
    flows: int = 0
    unfinished_flows: int = 0
    lossless_drops: int = 0
    drops: int = 0
    timeouts: int = 0
    retransmissions: int = 0
    trimmed_packets: int = 0
    ooo_packets: int = 0
    pfc_pause_s: float = 0.0
    """Seconds of PFC pause summed over every queue the traffic crosses."""
    paused_queues: int = 0
    """Queues that were paused at all: how far the pause spread."""
    queues: int = 0
    paused_flows: int = 0
    """Flows PFC paused at some hop (softswitch/fabric_metrics.py pfc_victims)."""
    victim_flows: int = 0
    """Paused flows whose own path crosses no congested queue: PFC's victims (DCQCN SIGCOMM 2015
    §2; IRN SIGCOMM 2018 §2), a lower bound where ECMP hides a flow's path."""
    deadlock_verdict: str | None = None
    deadlock_detail: str | None = None
    cpu_s: float = 0.0
    out_dir: str | None = None

    @property
    def victim_share(self) -> float | None:
        """Victim flows over all the mode's flows (None: no flow ran)."""
        return self.victim_flows / self.flows if self.flows else None

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "victim_share": self.victim_share}


@dataclass(frozen=True)
class CompareResult:
    intent: str
    traffic: str
    class_name: str
    modes: tuple[ModeResult, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "intent": self.intent,
            "traffic": self.traffic,
            "class": self.class_name,
            "modes": [m.to_json() for m in self.modes],
            "notes": list(self.notes),
        }


def parse_modes(text: str) -> tuple[str, ...]:
    """``--modes a,b``: known modes, each once, in the order given."""
    modes = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [m for m in modes if m not in MODES]
    if not modes or unknown:
        raise QosforgeError(
            f"unknown mode {unknown[0]!r}" if unknown else "no mode given",
            place="--modes",
            hint=f"a comma-separated list of {', '.join(MODES)}",
        )
    if len(set(modes)) != len(modes):
        raise QosforgeError("a mode is listed twice", place="--modes", hint="list each mode once")
    return modes


def _load_document(path: Path) -> Any:
    from qosforge.compiler.loader import load_intent

    if not path.is_file():
        raise QosforgeError(
            f"no such file: {path}",
            place="INTENT",
            hint="give an intent YAML, e.g. examples/roce-pod.yaml",
        )
    # The compiler's own loader: malformed YAML, duplicate keys, unknown fields and bad values are
    # refused at their line, as compile refuses them, before any mode's variant is written; its
    # round-trip document (comments and order kept) is what the variants are edited from.
    _, source_map = load_intent(path)
    return source_map.root


def roce_class(document: Any, name: str | None) -> int:
    """Index of the class the modes change: the named one, else the first RoCE class."""
    classes = document.get("classes") or []
    for index, entry in enumerate(classes):
        if (name is None and entry.get("transport") in ROCE_TRANSPORTS) or entry.get(
            "name"
        ) == name:
            if entry.get("transport") not in ROCE_TRANSPORTS:
                raise QosforgeError(
                    f"class {name!r} runs {entry.get('transport')}, not RoCE",
                    place="--class",
                    hint="name a class whose transport is dcqcn or irn",
                )
            return index
    if name is not None:
        raise QosforgeError(
            f"no class {name!r} in the intent",
            place="--class",
            hint=f"classes: {', '.join(str(c.get('name')) for c in classes)}",
        )
    raise QosforgeError(
        "the intent has no RoCE class (transport dcqcn or irn)",
        place="INTENT",
        hint="compare changes a RoCE class's loss handling; add one or use simulate",
    )


def free_dscp(document: Any) -> int:
    """The lowest DSCP no class, TLT or FastLane block, nor the CNPs use: the trim DSCP of the
    trimming mode when the class gives none."""
    used = {int((document.get("design") or {}).get("cnp_dscp", 48))}
    for entry in document.get("classes") or []:
        used.update(int(d) for d in entry.get("dscp") or [])
        used.update(int(d) for d in (entry.get("tlt") or {}).get("important_dscp") or [])
        fastlane = entry.get("fastlane") or {}
        if "dscp" in fastlane:
            used.add(int(fastlane["dscp"]))
        trim = entry.get("trim") or {}
        if isinstance(trim.get("dscp"), int):
            used.add(int(trim["dscp"]))
    return next(d for d in range(64) if d not in used)


def mode_document(document: Any, index: int, mode: str) -> Any:
    """The intent with class ``index`` set up for ``mode`` (a deep copy; the rest untouched)."""
    import copy

    variant = copy.deepcopy(document)
    entry = variant["classes"][index]
    original_trim = document["classes"][index].get("trim")
    for key in ("lossless", "trim"):
        if key in entry:
            del entry[key]
    if mode in ("lossless-dcqcn", "pfc-only"):
        entry["transport"] = "dcqcn"
        entry["lossless"] = True
    else:
        entry["transport"] = "irn"
        if mode == "trimming":
            entry["trim"] = (
                copy.deepcopy(original_trim)
                if original_trim
                else {"size": DEFAULT_TRIM_SIZE, "dscp": free_dscp(document)}
            )
    return variant


def _dump(document: Any) -> str:
    from ruamel.yaml import YAML

    stream = io.StringIO()
    YAML().dump(document, stream)
    return stream.getvalue()


def _percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile by the nearest-rank method (the smallest value with at least q % of
    the values at or below it)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return ordered[rank - 1]


def summarise(mode: str, report: dict[str, Any], cpu_s: float) -> ModeResult:
    """A mode's row from its traffic run's report."""
    flows = report["flows"]
    fcts = [float(f["fct_s"]) for f in flows if f["fct_s"] is not None]
    sized = [f for f in flows if f["size_bytes"] is not None]
    collectives = report.get("collectives") or []
    jcts = [c["jct_s"] for c in collectives]
    jct = None if not jcts or any(j is None for j in jcts) else float(max(jcts))
    ports = report["ports"]
    paused = [float(p["paused_s"] or 0.0) for p in ports]
    return ModeResult(
        mode,
        MODE_DESCRIPTIONS[mode],
        jct_s=jct,
        fct_p50_s=_percentile(fcts, 50),
        fct_p99_s=_percentile(fcts, 99),
        flows=len(flows),
        unfinished_flows=len(sized) - len(fcts),
        lossless_drops=int(report["lossless_drops"]),
        drops=int(report["drops"]),
        timeouts=sum(int(f["timeouts"]) for f in flows),
        retransmissions=sum(int(f["retransmissions"]) for f in flows),
        trimmed_packets=sum(int(f["trimmed_packets"]) for f in flows),
        ooo_packets=sum(int(f["ooo_packets"]) for f in flows),
        pfc_pause_s=sum(paused),
        paused_queues=sum(1 for p in paused if p > 0.0),
        queues=len(ports),
        paused_flows=sum(1 for f in flows if f.get("pfc_paused")),
        victim_flows=sum(1 for f in flows if f.get("pfc_victim")),
        cpu_s=cpu_s,
    )


def _deadlock(intent_path: Path, fail_links: int) -> tuple[str, str]:
    from qosforge.api.check import DeadlockRequest, check_deadlock

    outcome = check_deadlock(DeadlockRequest(str(intent_path), fail_links=fail_links))
    texts = [str(row.get("text", "")) for row in outcome.summary()]
    detail = "; ".join(t for t in texts if t) or (outcome.skipped or "")
    return str(outcome.verdict), detail


def _run_mode(
    request: CompareRequest, mode: str, intent_path: Path, shared: _SharedInputs,
    reporter: Reporter,
) -> ModeResult:
    from qosforge.api.scenarios.traffic import TrafficOptions, run_traffic
    from qosforge.api.simulation import assumptions

    cpu_start = time.process_time()
    options = TrafficOptions(
        intent=str(intent_path),
        traffic=request.traffic,
        switches=(),
        measure=request.measure,
        duration_s=shared.duration_s,
        sample_s=None,
        seed=request.seed,
        rto_min_s=None,
        assume=assumptions(request.assumptions),
        timeseries=None,
        plot=None,
        flow_overrides=PFC_ONLY_FLOWS if mode == "pfc-only" else (),
        traffic_file=shared.traffic,
    )
    report, _ = run_traffic(options, reporter)
    verdict, detail = _deadlock(intent_path, request.fail_links)
    row = summarise(mode, report, time.process_time() - cpu_start)
    return replace(row, deadlock_verdict=verdict, deadlock_detail=detail)


def _write_mode(row: ModeResult, variant_text: str, out: Path, reporter: Reporter) -> ModeResult:
    """``--out``: the mode's variant as ``<mode>.yaml`` and, for a mode that ran, its configs as
    compile writes them (compile's manifest: files it did not write are kept)."""
    from qosforge.api.compile import CompileRequest, compile_to_folder

    variant = out / f"{row.mode}.yaml"
    variant.write_text(variant_text)
    if row.refused is not None:
        return row
    folder = out / row.mode
    compile_to_folder(CompileRequest(str(variant), str(folder), force=True), reporter)
    return replace(row, out_dir=str(folder))


def _reason(error: QosforgeError, variant: Path) -> str:
    """The refusal in one line, placed in the mode's variant by its field (``classes[0].trim``),
    not by the scratch file's path and line."""
    place = error.place or ""
    if place.startswith(str(variant)):
        place = place.split(": ", 1)[1] if ": " in place else ""
    return QosforgeError(error.message, place=place or None, hint=error.hint).one_line()


@dataclass(frozen=True)
class _SharedInputs:
    traffic: TrafficFile
    duration_s: float | None


def _shared_inputs(request: CompareRequest) -> _SharedInputs:
    """What every mode shares (the traffic file, the window) is the user's input, not a mode's:
    read it once before any mode runs, so an error in it is one line and exit 2, not a refusal
    repeated in every row; every mode runs what is read here."""
    from qosforge.api.scenarios.traffic import existing_traffic_path
    from qosforge.softswitch.traffic.traffic_file import load_traffic
    from qosforge.units import parse_flag, parse_time_s

    duration_s = (
        parse_flag("--duration", parse_time_s, request.duration) if request.duration else None
    )
    return _SharedInputs(load_traffic(existing_traffic_path(request.traffic)), duration_s)


def _is_the_users_input(error: QosforgeError, request: CompareRequest) -> bool:
    """A flag or the traffic file: stop the comparison (a mode's variant: refuse the mode)."""
    place = error.place or ""
    return place.startswith(("--", request.traffic, str(Path(request.traffic))))


def compare(request: CompareRequest, reporter: Reporter) -> CompareResult:
    """Compile and run every mode; a mode the intent cannot express is reported refused, with
    the compiler's one-line reason, and the others still run. ``--out`` gets every mode's
    variant and configs only once all of them ran: an error in a run leaves it as it was."""
    reporter = OnceEachReporter(reporter)
    source = Path(request.intent)
    document = _load_document(source)
    index = roce_class(document, request.class_name)
    class_name = str(document["classes"][index]["name"])
    out = Path(request.out_dir) if request.out_dir is not None else None
    if out is not None:
        from qosforge.files import check_output_folder

        check_output_folder(out, flag="--out")
    shared = _shared_inputs(request)
    results: list[ModeResult] = []
    variants = {mode: _dump(mode_document(document, index, mode)) for mode in request.modes}
    with tempfile.TemporaryDirectory(prefix="qosforge-compare-") as scratch:
        for mode in request.modes:
            intent_path = Path(scratch) / f"{mode}.yaml"
            intent_path.write_text(variants[mode])
            with reporter.progress(f"mode {mode}"):
                try:
                    results.append(_run_mode(request, mode, intent_path, shared, reporter))
                except QosforgeError as error:
                    if _is_the_users_input(error, request):
                        raise
                    reason = _reason(error, intent_path)
                    results.append(ModeResult(mode, MODE_DESCRIPTIONS[mode], refused=reason))
    if out is not None:
        # Only once every mode ran: a bad traffic file or flag found in a later mode leaves
        # --out as it was.
        out.mkdir(parents=True, exist_ok=True)
        results = [_write_mode(row, variants[row.mode], out, reporter) for row in results]
    ran_pfc_only = any(row.mode == "pfc-only" and row.refused is None for row in results)
    notes = (
        "pfc-only models the collective library's admission control as the collectives' step "
        "dependencies; Meta's receiver-driven clear-to-send is not modelled",
    ) if ran_pfc_only and shared.traffic.collectives else ()
    result = CompareResult(request.intent, request.traffic, class_name, tuple(results), notes)
    if out is not None:
        # The folder may hold an earlier comparison's modes (never removed: they may have been
        # edited); compare.json says which modes this one ran, and what each gave.
        from qosforge.files import write_text_atomically

        write_text_atomically(out / "compare.json", json.dumps(result.to_json(), indent=2) + "\n")
    return result


__all__ = [
    "MODES",
    "CompareRequest",
    "CompareResult",
    "ModeResult",
    "compare",
    "free_dscp",
    "mode_document",
    "parse_modes",
    "roce_class",
    "summarise",
]
