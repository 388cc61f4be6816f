"""``qosforge compile``, ``qosforge explain`` and ``qosforge schema``.

``compile`` renders every selected switch in memory first; only when the whole fabric compiled
and rendered cleanly is the output folder updated, in one step (:mod:`qosforge.outputs`), so a
failed run leaves nothing behind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from qosforge.backends.registry import approximation_names, target_names
from qosforge.cli.options import OutputPath, RegistryChoice
from qosforge.errors import QosforgeError


def _load_and_compile(intent_path: str, switches: tuple[str, ...], approximations: tuple[str, ...], targets: tuple[str, ...] = ()) -> tuple[Any, Any, Any]:
    """The compiled fabric, with the intent and its source map (where render errors point)."""
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent

    intent, source_map = load_intent(Path(intent_path))
    fabric = compile_intent(intent, source_map, switches=switches, accepted_approximations=approximations, targets=targets or None)
    return fabric, intent, source_map


def _compile(intent_path: str, switches: tuple[str, ...], approximations: tuple[str, ...], targets: tuple[str, ...] = ()) -> Any:
    return _load_and_compile(intent_path, switches, approximations, targets)[0]


_APPROXIMATION_OPTION = click.option(
    "--accept-approximation",
    "approximations",
    multiple=True,
    type=RegistryChoice(approximation_names),
    help="Accept a named approximation where the target cannot express the intent (see the report).",
)


@click.command("compile")
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "output_dir", default="out", show_default=True, type=OutputPath("out", file_okay=False), help="Folder for <switch>/<target files> (config_db.json; sai.json and sairedis.rec; openconfig.json) and the report.")
@click.option("--target", "targets", multiple=True, type=RegistryChoice(target_names), help="Backends to render, repeatable (default: the intent's targets).")
@click.option("--switch", "switches", multiple=True, metavar="NAME", help="Compile only these switches (repeatable).")
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True, help="Report on stdout as tables or JSON (the report.json document).")
@click.option("-v", "--verbose", is_flag=True, help="Print every switch's tables (classes, headroom, pools, gaps), not just the fabric summary.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success (errors still go to stderr).")
@click.option("--base", "base_path", default=None, type=click.Path(), metavar="PATH", help="A switch's running config_db.json (or a folder of <switch>/config_db.json): also write <switch>/gcu-patch.json for 'config apply-patch' (docs/deploy-sonic.md).")
@click.option("--force", is_flag=True, help="Replace the files of another intent that the output folder holds (refused otherwise).")
@_APPROXIMATION_OPTION
def compile_command(intent: str, output_dir: str, targets: tuple[str, ...], switches: tuple[str, ...], output_format: str,
                    verbose: bool, quiet: bool, approximations: tuple[str, ...], base_path: str | None = None, force: bool = False) -> None:
    """Compile an intent file into per-switch configs (SONiC config_db.json; SAI JSON and a
    sairedis recording) and a fabric report.

    The output folder is updated as one step: complete, or untouched when anything fails. A
    manifest (.qosforge-manifest.json) lists what qosforge wrote; a run replaces its own earlier
    files for the switches and targets it compiles, removes folders of switches that left the
    fabric, and never touches files it did not write. A folder holding another intent's output is
    refused unless --force (which replaces that intent's files).

    \b
    Example:
      qosforge compile examples/tlt-simulation.yaml -o out/
      qosforge compile examples/tlt-softswitch.yaml --target sai -o out/ --verbose
    """
    if verbose and quiet:
        raise click.UsageError("give either --verbose or --quiet, not both")
    from qosforge.cli.progress import progress
    from qosforge.outputs import RenderedFile, RunRequest, intent_key, sha256_text, write_outputs

    root = Path(output_dir)
    if root.exists() and not root.is_dir():
        raise QosforgeError(f"{output_dir!r} is a file, not a folder", place="-o/--output", hint="choose a folder path")
    with progress(f"compiling {intent}", total=None):
        fabric, loaded, source_map = _load_and_compile(intent, switches, approximations, targets)
    patchers = _patchers(fabric.targets) if base_path is not None else ()

    from qosforge.backends.registry import get_target
    from qosforge.backends.report import report_to_json
    from qosforge.compiler.rendering import render_fabric_targets

    rendered: list[RenderedFile] = []
    work = len(fabric.switches) * sum(len(get_target(name).file_names) for name in fabric.targets)
    with progress("rendering", total=work, units="files") as advance:
        for target_name, output in render_fabric_targets(fabric, loaded, source_map):
            rendered.append(RenderedFile(f"{output.switch}/{output.file_name}", output.switch, target_name, output.text))
            advance()
    notes: list[str] = []
    if base_path is not None:
        from qosforge.backends.phases import RenderedText

        for target_name in patchers:
            patcher = get_target(target_name).patch
            assert patcher is not None  # _patchers keeps only the targets that own the phase
            own = tuple(RenderedText(item.switch, item.path.rsplit("/", 1)[-1], item.text) for item in rendered if item.target == target_name)
            for result in patcher.patch(Path(base_path), own, fabric.for_target(target_name), root):
                rendered.extend(RenderedFile(f"{result.switch}/{name}", result.switch, target_name, text) for name, text in result.files)
                notes.extend(result.notes)
    from qosforge.presentation import tidy

    report = tidy(report_to_json(fabric))
    rendered.append(RenderedFile("report.json", None, None, json.dumps(report, indent=2, sort_keys=False) + "\n"))
    intent_text = Path(intent).read_bytes().decode("utf-8", errors="replace")
    request = RunRequest(intent=intent_key(Path(intent), root), intent_sha256=sha256_text(intent_text),
                         switches=tuple(switches) or None, targets=tuple(fabric.targets), replace_other_intents=force)
    plan = write_outputs(root, tuple(rendered), request, frozenset(switch.name for switch in fabric.switches))
    for path in plan.replaced_modified:  # said even with --quiet or --format json: an edit was lost
        click.echo(f"warning: replaced {root / path}, which was changed by hand since qosforge wrote it", err=True)
    notes.extend(f"warning: {text}" for text in dict.fromkeys(text for switch in fabric.switches for cls in switch.classes for text in cls.warnings))
    for note in notes:  # said even with --quiet or --format json: what --base could not deliver
        click.echo(note, err=True)
    if output_format == "json":
        click.echo(json.dumps(report, indent=2))
        return
    if quiet:
        return
    from qosforge.cli.compile_summary import print_compile_summary

    print_compile_summary(fabric, report, verbose=verbose, output_dir=root, plan=plan)


def _patchers(targets: tuple[str, ...]) -> tuple[str, ...]:
    """The selected targets that patch a running config (``--base``); refused when none does."""
    from qosforge.backends.registry import get_target, targets_supporting

    chosen = tuple(name for name in targets if get_target(name).patch is not None)
    if not chosen:
        supporting = targets_supporting("patch")
        reasons = "; ".join(f"{p.summary}" for p in (get_target(name).patch for name in supporting) if p is not None)
        raise click.UsageError(f"--base needs the {' or '.join(supporting)} target ({reasons})")
    return chosen


@click.command("explain")
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("--switch", "switch_name", metavar="NAME", help="The switch whose value to explain.")
@click.option("--host", "host_kind", metavar="KIND", help="Instead of --switch: a host kind of compile --target host (e.g. nvidia-connectx-6dx-100G).")
@click.option("--path", "value_path", required=True, metavar="TABLE/KEY/FIELD", help="A config_db value, e.g. WRED_PROFILE/bulk_40G/green_max_threshold; "
              "with --host a host setting's name in host_settings.json, e.g. ecn.roce_rp.rpg_ai_rate.")
@click.option("--target", "target_name", type=RegistryChoice(target_names), default=None,
              help="The target whose value to explain (default: sonic for --switch, host for --host).")
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True)
@_APPROXIMATION_OPTION
def explain_command(intent: str, switch_name: str | None, value_path: str, output_format: str, approximations: tuple[str, ...],
                    host_kind: str | None = None, target_name: str | None = None) -> None:
    """Show how a config_db value (or, with --host, a host setting) was derived: model, formula, inputs, paper section."""
    from qosforge.backends.registry import get_target, require_phase, targets_supporting
    from qosforge.provenance import to_jsonable

    if (switch_name is None) == (host_kind is None):
        raise click.UsageError("give --switch NAME (a config_db value) or --host KIND (a host setting)")
    subject_kind = "host" if host_kind is not None else "switch"
    subject = host_kind if host_kind is not None else switch_name
    assert subject is not None  # one of --switch / --host, checked above
    if target_name is None:  # the first target that explains this kind of subject
        target_name = next(name for name in targets_supporting("explain") if (e := get_target(name).explain) is not None and e.subject == subject_kind)
    explainer = require_phase(target_name, "explain").explain
    assert explainer is not None  # require_phase refuses a target without the phase
    if explainer.subject != subject_kind:
        raise click.UsageError(f"target '{target_name}' explains a {explainer.subject}'s values: give --{explainer.subject}, not --{subject_kind}")
    fabric = _compile(intent, (subject,) if subject_kind == "switch" else (), approximations, (target_name,))
    explanation = explainer.explain(fabric.for_target(target_name), subject, value_path)
    switch_name = subject
    if output_format == "json":
        from qosforge.presentation import tidy

        click.echo(json.dumps(tidy(to_jsonable(explanation)), indent=2))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from qosforge.presentation import as_text, output_width

    # markup=False: sources such as "[Alizadeh10 §3.3]" or "[dctcp]" are text, not rich tags.
    console = Console(highlight=False, markup=False, width=output_width(110))
    console.print(Text.assemble((value_path, "bold"), f" on {switch_name} = ", (explanation.rendered, "bold"),
                                f"  ({explanation.value:g} {explanation.unit})"))
    console.print(f"model: {explanation.model}; quantity: {explanation.quantity}")
    if explanation.inputs:
        inputs = Table(title="inputs", title_justify="left")
        for column in ("name", "value", "unit"):
            # fold, never ellipsize: a source path or formula cut short is a wrong citation.
            inputs.add_column(column, overflow="fold")
        for item in explanation.inputs:
            inputs.add_row(item.name, as_text(item.value), item.unit)
        console.print(inputs)
    steps = Table(title="derivation", title_justify="left")
    for column in ("quantity", "formula", "source"):
        steps.add_column(column, overflow="fold")
    for step in explanation.derivations:
        steps.add_row(step.quantity, step.formula, step.source)
    console.print(steps)


@click.command("schema")
@click.option("-o", "--output", "output_path", default=None, type=OutputPath("intent.schema.json", dir_okay=False), help="Write to a file instead of stdout.")
def schema_command(output_path: str | None) -> None:
    """Print the JSON Schema of the intent file (for editors and CI validation)."""
    from qosforge.compiler.intent import intent_json_schema
    from qosforge.files import write_text_atomically

    text = json.dumps(intent_json_schema(), indent=2) + "\n"
    if output_path is None:
        click.echo(text, nl=False)
    else:
        write_text_atomically(Path(output_path), text)  # a missing folder is an error, not created


__all__ = ["compile_command", "explain_command", "schema_command"]
