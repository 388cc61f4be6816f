"""``qosforge compile``, ``qosforge explain`` and ``qosforge schema``.

``compile`` renders every selected switch in memory first; only when the whole fabric compiled
and rendered cleanly is the output folder updated, in one step (:mod:`qosforge.outputs`), so a
failed run leaves nothing behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from qosforge.api.registry import approximation_names, target_names
from qosforge.cli.options import OutputPath, RegistryChoice, format_option

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
@format_option("table", "json", json_is="the report.json document")
@click.option("-v", "--verbose", is_flag=True, help="Print every switch's tables (classes, headroom, pools, gaps), not just the fabric summary.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success (errors still go to stderr).")
@click.option("--base", "base_path", default=None, type=click.Path(), metavar="PATH", help="A switch's running config_db.json (or a folder of <switch>/config_db.json): also write <switch>/gcu-patch.json for 'config apply-patch' (docs/deploy-sonic.md).")
@click.option("--force", is_flag=True, help="Replace the files of another intent that the output folder holds (refused otherwise).")
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes rendering switches (default: $QOSFORGE_WORKERS, else every core; "
                   "1: this process only). The files are the same for any count.")
@_APPROXIMATION_OPTION
def compile_command(intent: str, output_dir: str, targets: tuple[str, ...], switches: tuple[str, ...], output_format: str,
                    verbose: bool, quiet: bool, approximations: tuple[str, ...],
                    base_path: str | None = None, force: bool = False,
                    workers: int | None = None) -> int:
    """Compile an intent file into per-switch configs (SONiC config_db.json; SAI JSON and a
    sairedis recording) and a fabric report.

    Exit codes: 0 written, 2 bad input (nothing written), 3 with --base: the configs are
    written but no gcu-patch.json for a switch whose change GCU would refuse (stderr says why).

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
    from qosforge.api.compile import (
        CompileRequest,
        CompileUsageError,
        check_report_choice,
        compile_to_folder,
    )
    from qosforge.cli.progress import progress
    from qosforge.cli.reporter import CliReporter

    request = CompileRequest(intent_path=intent, output_dir=output_dir, targets=targets, switches=switches, approximations=approximations,
                             base_path=base_path, force=force, workers=workers)
    try:
        check_report_choice(verbose, quiet)
        outcome = compile_to_folder(request, CliReporter(), lambda total: progress("rendering", total=total, units="files"))
    except CompileUsageError as error:
        raise click.UsageError(error.message) from None
    from qosforge.errors import EXIT_INCOMPLETE, EXIT_OK

    # A --base that wrote no patch for some switch is not a success a script may take for one.
    code = EXIT_INCOMPLETE if outcome.unpatched else EXIT_OK
    if output_format == "json":
        # report.json's text: json.dumps(report, indent=2) and a newline, as printed before.
        click.echo(outcome.report_text, nl=False)
        return code
    if not quiet:
        from qosforge.cli.compile_summary import print_compile_summary

        print_compile_summary(outcome.fabric, outcome.report, verbose=verbose,
                              output_dir=outcome.output_dir, plan=outcome.plan)
    return code


@click.command("explain")
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("--switch", "switch_name", metavar="NAME", help="The switch whose value to explain.")
@click.option("--host", "host_kind", metavar="KIND", help="Instead of --switch: a host kind of compile --target host (e.g. nvidia-connectx-6dx-100G).")
@click.option("--path", "value_path", required=True, metavar="TABLE/KEY/FIELD", help="A config_db value, e.g. WRED_PROFILE/bulk_40G/green_max_threshold; "
              "with --host a host setting's name in host_settings.json, e.g. ecn.roce_rp.rpg_ai_rate.")
@click.option("--target", "target_name", type=RegistryChoice(target_names), default=None,
              help="The target whose value to explain (default: sonic for --switch, host for --host).")
@format_option("table", "json")
@_APPROXIMATION_OPTION
def explain_command(intent: str, switch_name: str | None, value_path: str, output_format: str, approximations: tuple[str, ...],
                    host_kind: str | None = None, target_name: str | None = None) -> None:
    """Show how a config_db value (or, with --host, a host setting) was derived: model, formula, inputs, paper section."""
    from qosforge.api.explain import ExplainRequest, ExplainUsageError, explain
    from qosforge.provenance import to_jsonable

    request = ExplainRequest(intent_path=intent, value_path=value_path, switch=switch_name, host=host_kind, target=target_name,
                             approximations=approximations)
    try:
        result = explain(request)
    except ExplainUsageError as error:
        raise click.UsageError(error.message) from None
    explanation, switch_name = result.explanation, result.subject
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
    quantity = f"{explanation.value:g} {explanation.unit}"
    # The model's quantity after the rendered value, unless the rendering already starts with it
    # (a host setting's "4 ms (ip-route: ...)"): said once.
    suffix = "" if explanation.rendered.startswith(quantity) else f"  ({quantity})"
    console.print(Text.assemble((value_path, "bold"), f" on {switch_name} = ", (explanation.rendered, "bold"), suffix))
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
    from qosforge.api.schema import intent_schema_text
    from qosforge.files import check_output_file, write_text_atomically

    if output_path is not None:  # a missing folder is an error naming the flag, not created
        check_output_file(Path(output_path), flag="-o/--output")
    text = intent_schema_text()
    if output_path is None:
        click.echo(text, nl=False)
    else:
        write_text_atomically(Path(output_path), text)  # a missing folder is an error, not created


__all__ = ["compile_command", "explain_command", "schema_command"]
