"""``compile``: an intent file compiled, rendered for its targets and written to a folder.

:func:`compile_fabric` loads and compiles an intent in memory (what ``explain`` and ``simulate
INTENT`` start from); :func:`compile_to_folder` also renders every selected switch for every
target, patches running configs (``--base``) where a target owns that phase, and only when all of
it succeeded updates the output folder in one step (:mod:`qosforge.outputs`), so a failed run
leaves nothing behind. Its outcome holds the fabric, the report (the document ``--format json``
prints and report.json holds) and the folder's plan; the tables are the CLI's
(qosforge/cli/compile_summary.py). Warnings for the person running it (a hand-edited file
replaced, what ``--base`` could not deliver, a class's compile warnings) go to the reporter.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qosforge.api.reporting import Reporter
from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from rich.console import Console

    from qosforge.compiler.intent import Intent
    from qosforge.compiler.loader import SourceMap
    from qosforge.ir.model import FabricIR
    from qosforge.outputs import OutputPlan, OutputSpool, SpooledFile


class CompileUsageError(QosforgeError):
    """Request fields that cannot go together (the CLI reports it as a usage error, exit 2)."""


@dataclass(frozen=True)
class CompileRequest:
    """Every ``qosforge compile`` flag that shapes what is written (not how it is shown).

    ``targets``/``switches`` empty: the intent's targets, every switch. ``base_path``: a running
    config_db.json (or a folder of ``<switch>/config_db.json``) to patch against. ``force``:
    replace another intent's files in ``output_dir``."""

    intent_path: str
    output_dir: str = "out"
    targets: tuple[str, ...] = ()
    switches: tuple[str, ...] = ()
    approximations: tuple[str, ...] = ()
    base_path: str | None = None
    force: bool = False
    workers: int | None = None
    """Processes rendering switches (``--workers``); ``None``: ``QOSFORGE_WORKERS``, else every
    usable core (qosforge/api/render_pool.py). Any count writes the same bytes."""


@dataclass(frozen=True)
class CompiledIntent:
    """An intent compiled in memory, with the intent and its source map (where render errors point)."""

    fabric: FabricIR
    intent: Intent
    source_map: SourceMap


@dataclass(frozen=True)
class CompileOutcome:
    """``report``: the report.json document (floats presentable), ``report_text`` its text as the
    file holds it (``--format json`` prints it: encoding 100 MB of report again cost seconds);
    ``plan``: what the folder got."""

    fabric: FabricIR
    report: dict[str, Any]
    plan: OutputPlan
    output_dir: Path
    report_text: str
    """report.json's text (``--format json`` prints it as written)."""
    unpatched: tuple[str, ...] = ()
    """Switches ``--base`` wrote no patch for (GCU would refuse it; the notes say so): the run is
    incomplete (exit :data:`~qosforge.errors.EXIT_INCOMPLETE`)."""


#: Given the number of files to render, a context yielding ``advance()`` (the CLI's progress bar).
RenderingProgress = Callable[[int], AbstractContextManager[Callable[[], None]]]


def _no_progress(total: int) -> AbstractContextManager[Callable[[], None]]:
    return nullcontext(lambda: None)


def check_report_choice(verbose: bool, quiet: bool) -> None:
    """``--verbose`` and ``--quiet`` ask for opposite reports: refuse both."""
    if verbose and quiet:
        raise CompileUsageError("give either --verbose or --quiet, not both")


def compile_fabric(intent_path: str, switches: tuple[str, ...] = (), approximations: tuple[str, ...] = (),
                   targets: tuple[str, ...] = (),
                   check_switches: Callable[[tuple[str, ...]], None] | None = None) -> CompiledIntent:
    """Load and compile the intent at ``intent_path`` (for ``targets``, default the intent's).

    ``check_switches`` is given the intent's switch names before anything is compiled (a caller
    whose switch names come from elsewhere, such as an inventory, refuses unknown ones there)."""
    from qosforge.backends.registry import approximation_names
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent

    known = approximation_names()
    for name in approximations:
        if name not in known:
            raise QosforgeError(f"{name!r} is not an approximation any target offers", place="--accept-approximation", hint=f"one of: {', '.join(known)}")
    intent, source_map = load_intent(Path(intent_path))
    if check_switches is not None:
        from qosforge.compiler.topology import resolve_topology

        check_switches(tuple(switch.name for switch in resolve_topology(intent, source_map).switches))
    fabric = compile_intent(intent, source_map, switches=switches, accepted_approximations=approximations, targets=targets or None)
    return CompiledIntent(fabric, intent, source_map)


def compile_to_folder(request: CompileRequest, reporter: Reporter, rendering: RenderingProgress = _no_progress) -> CompileOutcome:
    """Compile, render and (with ``base_path``) patch every selected switch, then write the folder."""
    from qosforge.api.render_pool import resolve_workers
    from qosforge.files import check_output_folder
    from qosforge.outputs import OutputSpool

    root = Path(request.output_dir)
    check_output_folder(root, flag="-o/--output")
    workers = resolve_workers(request.workers)  # bad input refused before the compile
    with reporter.progress(f"compiling {request.intent_path}"):
        compiled = compile_fabric(request.intent_path, request.switches, request.approximations, request.targets)
    with OutputSpool(root) as spool:
        texts_kept = request.base_path is not None  # --base patches read the rendered texts
        chosen = None if texts_kept else spool
        return _render_and_write(request, reporter, rendering, compiled, chosen, workers)


def _render_and_write(request: CompileRequest, reporter: Reporter, rendering: RenderingProgress,
                      compiled: CompiledIntent, spool: OutputSpool | None,
                      workers: int = 1) -> CompileOutcome:
    """Render every file (into ``spool`` as it comes, when given: --base patches need the texts;
    with ``workers`` > 1 by a process pool into it), patch, and write the folder."""
    from qosforge.backends.registry import get_target
    from qosforge.backends.report import report_to_json
    from qosforge.compiler.rendering import render_fabric_targets
    from qosforge.outputs import RenderedFile, RunRequest, intent_key, sha256_text, write_outputs
    from qosforge.presentation import tidy

    root = Path(request.output_dir)
    fabric = compiled.fabric
    patchers = _patchers(fabric.targets) if request.base_path is not None else ()
    rendered: list[RenderedFile | SpooledFile] = []
    work = len(fabric.switches) * sum(len(get_target(name).file_names) for name in fabric.targets)
    reports: list[tuple[dict[str, Any], str]] = []

    def build_report() -> None:
        """report.json (its document and text): the fabric's alone, so the parent builds it while
        the workers render (a tenth to a quarter of a large compile's CPU)."""
        if not reports:
            document: dict[str, Any] = tidy(report_to_json(fabric))
            reports.append((document, json.dumps(document, indent=2, sort_keys=False) + "\n"))

    with rendering(work) as advance:
        pooled = None
        if spool is not None and workers > 1:
            from qosforge.api.render_pool import render_in_pool

            pooled = render_in_pool(fabric, spool, workers, advance, meanwhile=build_report)
        rendered.extend(pooled or ())
        serial = () if pooled is not None else render_fabric_targets(fabric, compiled.intent,
                                                                     compiled.source_map)
        for target_name, output in serial:
            path = f"{output.switch}/{output.file_name}"
            item = RenderedFile(path, output.switch, target_name, output.text)
            rendered.append(item if spool is None else spool.keep(item))
            advance()
    notes: list[str] = []
    unpatched: list[str] = []
    if request.base_path is not None:
        from qosforge.backends.phases import RenderedText

        for target_name in patchers:
            patcher = get_target(target_name).patch
            assert patcher is not None  # _patchers keeps only the targets that own the phase
            own = tuple(RenderedText(item.switch, item.path.rsplit("/", 1)[-1], item.text)
                        for item in rendered
                        if isinstance(item, RenderedFile) and item.target == target_name)
            for result in patcher.patch(Path(request.base_path), own, fabric.for_target(target_name), root):
                rendered.extend(RenderedFile(f"{result.switch}/{name}", result.switch, target_name, text) for name, text in result.files)
                notes.extend(result.notes)
                if not result.patched:
                    unpatched.append(result.switch)
    build_report()
    report, report_text = reports[0]
    rendered.append(RenderedFile("report.json", None, None, report_text))
    intent_text = Path(request.intent_path).read_bytes().decode("utf-8", errors="replace")
    run = RunRequest(intent=intent_key(Path(request.intent_path), root), intent_sha256=sha256_text(intent_text),
                     switches=tuple(request.switches) or None, targets=tuple(fabric.targets), replace_other_intents=request.force)
    plan = write_outputs(root, tuple(rendered), run, frozenset(switch.name for switch in fabric.switches))
    for path in plan.replaced_modified:  # said whatever the report's form: an edit was lost
        reporter.note(f"warning: replaced {root / path}, which was changed by hand since qosforge wrote it")
    notes.extend(f"warning: {text}" for text in dict.fromkeys(text for switch in fabric.switches for cls in switch.classes for text in cls.warnings))
    for note in notes:  # said whatever the report's form: what --base could not deliver
        reporter.note(note)
    return CompileOutcome(fabric=fabric, report=report, plan=plan, output_dir=root,
                          report_text=report_text, unpatched=tuple(unpatched))


def print_report_tables(fabric: FabricIR, console: Console) -> None:
    """``compile --verbose``: every switch's tables (classes, headroom, pools, gaps) on ``console``."""
    from qosforge.backends.report import render_report_table

    render_report_table(fabric, console)


def _patchers(targets: tuple[str, ...]) -> tuple[str, ...]:
    """The selected targets that patch a running config (``--base``); refused when none does."""
    from qosforge.backends.registry import get_target, targets_supporting

    chosen = tuple(name for name in targets if get_target(name).patch is not None)
    if not chosen:
        supporting = targets_supporting("patch")
        reasons = "; ".join(f"{p.summary}" for p in (get_target(name).patch for name in supporting) if p is not None)
        raise CompileUsageError(f"--base needs the {' or '.join(supporting)} target ({reasons})")
    return chosen


__all__ = ["CompileOutcome", "CompileRequest", "CompileUsageError", "CompiledIntent", "RenderingProgress", "check_report_choice",
           "compile_fabric", "compile_to_folder", "print_report_tables"]
