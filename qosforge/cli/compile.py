"""``qosforge compile``, ``qosforge explain`` and ``qosforge schema`` (DESIGN.md §7).

``compile`` renders every selected switch in memory first; only when the whole fabric compiled
and rendered cleanly are files written, each atomically, so a failed run leaves nothing behind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from qosforge.backends.registry import approximation_names, render_targets, target_names


def _compile(intent_path: str, switches: tuple[str, ...], approximations: tuple[str, ...], targets: tuple[str, ...] = ()) -> Any:
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent

    intent, source_map = load_intent(Path(intent_path))
    return compile_intent(intent, source_map, switches=switches, accepted_approximations=approximations, targets=targets or None)


_APPROXIMATION_OPTION = click.option(
    "--accept-approximation",
    "approximations",
    multiple=True,
    type=click.Choice(approximation_names()),
    help="Accept a named approximation where the target cannot express the intent (see the report).",
)


@click.command("compile")
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "output_dir", default="out", show_default=True, type=click.Path(file_okay=False), help="Folder for <switch>/<target files> (config_db.json; sai.json and sairedis.rec; openconfig.json) and the report.")
@click.option("--target", "targets", multiple=True, type=click.Choice(target_names()), help="Backends to render, repeatable (default: the intent's targets).")
@click.option("--switch", "switches", multiple=True, metavar="NAME", help="Compile only these switches (repeatable).")
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True, help="Report on stdout as a table or JSON.")
@_APPROXIMATION_OPTION
def compile_command(intent: str, output_dir: str, targets: tuple[str, ...], switches: tuple[str, ...], output_format: str, approximations: tuple[str, ...]) -> None:
    """Compile an intent file into per-switch configs (SONiC config_db.json; SAI JSON and a
    sairedis recording) and a fabric report.

    \b
    Example:
      qosforge compile examples/tlt-simulation.yaml -o out/
      qosforge compile examples/tlt-softswitch.yaml --target sai -o out/
    """
    fabric = _compile(intent, switches, approximations, targets)

    from qosforge.backends.report import render_report_table, report_to_json
    from qosforge.files import write_text_atomically

    rendered: dict[Path, str] = {}
    root = Path(output_dir)
    for output in render_targets(fabric.targets, fabric.for_target):
        rendered[root / output.switch / output.file_name] = output.text
    report = report_to_json(fabric)
    rendered[root / "report.json"] = json.dumps(report, indent=2, sort_keys=False) + "\n"
    for path, text in rendered.items():
        write_text_atomically(path, text)
    if output_format == "json":
        click.echo(json.dumps(report, indent=2))
        return
    console = Console(highlight=False, width=max(110, Console().width))
    render_report_table(fabric, console)
    kinds = sorted({path.name for path in rendered if path.name != "report.json"})
    console.print(f"wrote {len(rendered) - 1} file(s) ({', '.join(kinds)}) and report.json to {root}/")


@click.command("explain")
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("--switch", "switch_name", required=True, metavar="NAME", help="The switch whose value to explain.")
@click.option("--path", "value_path", required=True, metavar="TABLE/KEY/FIELD", help="A config_db value, e.g. WRED_PROFILE/bulk_40G/green_max_threshold.")
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True)
@_APPROXIMATION_OPTION
def explain_command(intent: str, switch_name: str, value_path: str, output_format: str, approximations: tuple[str, ...]) -> None:
    """Show how a config_db value was derived: model, formula, inputs, paper section."""
    from qosforge.backends.sonic.explain import explain_value
    from qosforge.provenance import to_jsonable

    fabric = _compile(intent, (switch_name,), approximations, ("sonic",))
    explanation = explain_value(fabric.for_target("sonic")[0], value_path)
    if output_format == "json":
        click.echo(json.dumps(to_jsonable(explanation), indent=2))
        return
    console = Console(highlight=False, width=max(110, Console().width))
    console.print(f"[bold]{value_path}[/bold] on {switch_name} = [bold]{explanation.rendered}[/bold]  ({explanation.value:g} {explanation.unit})")
    console.print(f"model: {explanation.model}; quantity: {explanation.quantity}")
    if explanation.inputs:
        inputs = Table(title="inputs", title_justify="left")
        for column in ("name", "value", "unit"):
            inputs.add_column(column)
        for item in explanation.inputs:
            inputs.add_row(item.name, str(item.value), item.unit)
        console.print(inputs)
    steps = Table(title="derivation", title_justify="left")
    for column in ("quantity", "formula", "source"):
        steps.add_column(column)
    for step in explanation.derivations:
        steps.add_row(step.quantity, step.formula, step.source)
    console.print(steps)


@click.command("schema")
@click.option("-o", "--output", "output_path", default=None, type=click.Path(dir_okay=False), help="Write to a file instead of stdout.")
def schema_command(output_path: str | None) -> None:
    """Print the JSON Schema of the intent file (for editors and CI validation)."""
    from qosforge.compiler.intent import intent_json_schema
    from qosforge.files import write_text_atomically

    text = json.dumps(intent_json_schema(), indent=2) + "\n"
    if output_path is None:
        click.echo(text, nl=False)
    else:
        write_text_atomically(Path(output_path), text)


__all__ = ["compile_command", "explain_command", "schema_command"]
