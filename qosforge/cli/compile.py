"""``qosforge compile``, ``qosforge explain`` and ``qosforge schema``.

``compile`` renders every selected switch in memory first; only when the whole fabric compiled
and rendered cleanly is the output folder updated, in one step (:mod:`qosforge.outputs`), so a
failed run leaves nothing behind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from qosforge.backends.registry import approximation_names, target_names
from qosforge.cli.options import OutputPath
from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.backends.sonic.base_config import BasePatch


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
@click.option("-o", "--output", "output_dir", default="out", show_default=True, type=OutputPath("out", file_okay=False), help="Folder for <switch>/<target files> (config_db.json; sai.json and sairedis.rec; openconfig.json) and the report.")
@click.option("--target", "targets", multiple=True, type=click.Choice(target_names()), help="Backends to render, repeatable (default: the intent's targets).")
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
        fabric = _compile(intent, switches, approximations, targets)

    from qosforge.backends.registry import get_target
    from qosforge.backends.report import report_to_json

    rendered: list[RenderedFile] = []
    work = len(fabric.switches) * sum(len(get_target(name).file_names) for name in fabric.targets)
    from qosforge.backends.sai.port_binding import PortCapacityError
    from qosforge.backends.sonic.render import ConfigDbViolationError

    try:
        with progress("rendering", total=work, units="files") as advance:
            for target_name in fabric.targets:
                for output in get_target(target_name).render(fabric.for_target(target_name)):
                    rendered.append(RenderedFile(f"{output.switch}/{output.file_name}", output.switch, target_name, output.text))
                    advance()
    except PortCapacityError as error:  # point at the intent line that gives the switch its ports
        from qosforge.compiler.compile import switch_ports_place
        from qosforge.compiler.loader import load_intent

        loaded, source_map = load_intent(Path(intent))
        raise error.with_place(switch_ports_place(loaded, source_map, error.switch)) from None
    except ConfigDbViolationError as error:  # a value computed from an input no check bounds: bad input
        from qosforge.compiler.loader import load_intent
        from qosforge.compiler.rendered_inputs import rendered_value_error

        loaded, source_map = load_intent(Path(intent))
        mapped = rendered_value_error(error.switch, error.violations, loaded, source_map)
        if mapped is None:
            raise  # a structural violation: the renderer's bug (exit 70)
        raise mapped from None
    notes: list[str] = []
    if base_path is not None:
        if "sonic" not in fabric.targets:
            raise click.UsageError("--base needs the sonic target (a GCU patch moves a SONiC config_db)")
        from qosforge.backends.sonic.base_config import base_patches
        from qosforge.vendor_profiles import load_vendor_profile

        configs = {item.switch: json.loads(item.text) for item in rendered if item.target == "sonic" and item.switch is not None}
        sonic_switches = fabric.for_target("sonic")
        speeds = {switch.name: {port.name: port.speed_bps for port in switch.ports} for switch in sonic_switches}
        profiles = {switch.name: load_vendor_profile(switch.vendor_profile) for switch in sonic_switches}
        for patch in base_patches(Path(base_path), configs, profiles, speeds):
            if patch.text is not None:
                rendered.append(RenderedFile(f"{patch.switch}/gcu-patch.json", patch.switch, "sonic", patch.text))
            notes.extend(base_patch_notes(patch, root))
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


def base_patch_notes(patch: BasePatch, root: Path) -> list[str]:
    """stderr lines for one switch's ``--base`` result: the ports whose QoS the change removes,
    and, where GCU would refuse the patch, why and the way to deploy instead
    (docs/deploy-sonic.md: ``config qos clear`` + ``config load`` merges the compiled tables)."""
    notes = []
    if patch.ports_losing_qos:
        shown = ", ".join(patch.ports_losing_qos[:8]) + (f" and {len(patch.ports_losing_qos) - 8} more" if len(patch.ports_losing_qos) > 8 else "")
        notes.append(f"warning: {patch.switch}: the change removes the QoS of {len(patch.ports_losing_qos)} port(s) the intent does not list: "
                     f"{shown} (their PORT_QOS_MAP, QUEUE, BUFFER_PG, ... entries); list them in the intent to keep them configured")
    if patch.refusals:
        shown = "; ".join(refusal.text() for refusal in patch.refusals[:3]) + (f"; and {len(patch.refusals) - 3} more" if len(patch.refusals) > 3 else "")
        fragment = root / patch.switch / "config_db.json"
        notes.append(f"note: {patch.switch}: no gcu-patch.json: 'config apply-patch' would refuse {len(patch.refusals)} of its changes "
                     f"(sonic-utilities generic_config_updater field-operation validators): {shown}. Deploy {fragment} instead with "
                     f"'sudo config qos clear && sudo config load {fragment} -y' (merges the compiled QoS tables; PFC_WD is updated in place), "
                     "or a 'config reload' of the saved config with these tables replaced (docs/deploy-sonic.md ways 2 and 3)")
    return notes


@click.command("explain")
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("--switch", "switch_name", metavar="NAME", help="The switch whose value to explain.")
@click.option("--host", "host_kind", metavar="KIND", help="Instead of --switch: a host kind of compile --target host (e.g. nvidia-connectx-6dx-100G).")
@click.option("--path", "value_path", required=True, metavar="TABLE/KEY/FIELD", help="A config_db value, e.g. WRED_PROFILE/bulk_40G/green_max_threshold; "
              "with --host a host setting's name in host_settings.json, e.g. ecn.roce_rp.rpg_ai_rate.")
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True)
@_APPROXIMATION_OPTION
def explain_command(intent: str, switch_name: str | None, value_path: str, output_format: str, approximations: tuple[str, ...],
                    host_kind: str | None = None) -> None:
    """Show how a config_db value (or, with --host, a host setting) was derived: model, formula, inputs, paper section."""
    from qosforge.provenance import to_jsonable

    if (switch_name is None) == (host_kind is None):
        raise click.UsageError("give --switch NAME (a config_db value) or --host KIND (a host setting)")
    if host_kind is not None:
        from qosforge.backends.host.explain import explain_host_value
        from qosforge.backends.host.settings import host_kinds

        fabric = _compile(intent, (), approximations, ("host",))
        explanation = explain_host_value(host_kinds(fabric.for_target("host")), host_kind, value_path)
        switch_name = host_kind
    else:
        from qosforge.backends.sonic.explain import explain_value

        assert switch_name is not None  # one of --switch / --host, checked above
        fabric = _compile(intent, (switch_name,), approximations, ("sonic",))
        explanation = explain_value(fabric.for_target("sonic")[0], value_path)
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
