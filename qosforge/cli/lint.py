"""``qosforge lint FILE...``: lint SONiC config_db files in CI (docs/architecture.md §7).

Exit codes: 0 clean (nothing at or above ``--fail-on``), 1 findings at or above it, 2 unusable
input (an unreadable / non-JSON / oversized file, an unknown profile, a bad intent). With several
files every file is linted and the worst code wins. Rules and the JSON/SARIF shapes are documented
in docs/rules.md, generated from the rule registry. The run itself (option checks, linting,
fixed copies, baseline) is the application layer's (qosforge/api/lint.py); this module turns
flags into its request and renders the report in the format asked for.
"""

from __future__ import annotations

import sys
from typing import cast

import click

from qosforge.api.registry import target_names
from qosforge.cli.options import OutputPath, RegistryChoice, format_option

_EPILOG = """\b
Exit codes: 0 clean, 1 findings at or above --fail-on, 2 unusable input.
Rules: docs/rules.md (or qosforge lint --list-rules).
\b
Examples:
  qosforge lint out/leaf1/config_db.json
  qosforge lint configs/*.json --profile mellanox-spectrum-2 --format sarif > lint.sarif
  qosforge lint out/*/config_db.json --intent fabric.yaml --format github
  qosforge lint config_db.json --fix            # writes config_db.json.fixed.json
  qosforge lint --merge buffers.json qos.json   # one config, as sonic-cfggen merges them
  qosforge lint --merge leaf1/buffers.json+leaf1/qos.json leaf2/buffers.json+leaf2/qos.json
  qosforge lint --merge --merge-folders out/*/buffers.json out/*/qos.json   # one config per folder
  qosforge lint configs/*.json --write-baseline lint-baseline.json
  qosforge lint configs/*.json --baseline lint-baseline.json --disable dscp-map-incomplete
"""

def _robust_output() -> None:
    """Never fail on printing: keys can hold any Unicode, terminals may not."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a detached or closed stream: leave it
                pass


def _list_rules(output_format: str) -> None:
    from qosforge.api.lint import rules_listing

    click.echo(rules_listing("json" if output_format == "json" else "text"), nl=False)


@click.command("lint", epilog=_EPILOG)
@click.argument("files", nargs=-1, metavar="FILE...")
@click.option("--profile", "profile", metavar="ASIC", help="Vendor profile of the switch (qosforge profiles list); "
              "enables the capacity and headroom rules.")
@click.option("--intent", "intent", metavar="INTENT", type=click.Path(dir_okay=False),
              help="Intent file; enables the transport rules (and names the ASIC).")
@click.option("--hosts", "hosts", metavar="FILE", type=click.Path(dir_okay=False),
              help="A host settings document (host_settings.json from compile --target host, or one written for the "
              "hosts as they run); enables the host rules (hosts and switch agree).")
@click.option("--switch", "switch", metavar="NAME", help="Which switch of the intent the files are "
              "(default: the file's folder name, as qosforge compile writes them).")
@format_option("text", "json", "sarif", "github")
@click.option("--fail-on", "fail_on", type=click.Choice(["error", "warning"]), default="error", show_default=True,
              help="Lowest severity that makes the exit code 1.")
@click.option("--fix", "fix", is_flag=True, help="Write a corrected copy (FILE.fixed.json) for mechanical fixes.")
@click.option("-o", "--output", "output", type=OutputPath("fixed.json", dir_okay=False), help="With --fix and one FILE: "
              "where to write the corrected copy.")
@click.option("--in-place", "in_place", is_flag=True, help="With --fix: overwrite FILE (atomically).")
@click.option("--merge", "merge", is_flag=True, help="Lint the FILEs as one config, deep-merged in order as "
              "sonic-cfggen merges buffers.json, qos.json and config_db.json (later files win per field).")
@click.option("--merge-folders", "merge_folders", is_flag=True, help="With --merge: lint many switches in one run, "
              "one merged config per folder (the FILEs of a folder in the order given), e.g. "
              "--merge --merge-folders corpus/*/buffers.json corpus/*/qos.json. A FILE written A+B is merged "
              "as its own config without this flag.")
@click.option("--disable", "disable", metavar="RULE[,RULE]", multiple=True,
              help="Turn rules off (repeatable, comma-separated). Project settings: .qosforge-lint.toml or "
              "[tool.qosforge.lint] in pyproject.toml.")
@click.option("--write-baseline", "write_baseline", type=OutputPath("lint-baseline.json", dir_okay=False), metavar="FILE",
              help="Record today's findings in FILE (use with --baseline later).")
@click.option("--baseline", "baseline", type=click.Path(dir_okay=False), metavar="FILE",
              help="Report and fail only on findings that are not in FILE (from --write-baseline).")
@click.option("--jobs", "-j", "jobs", type=click.IntRange(min=1), metavar="N",
              help="Lint files in N processes (default: the number of cores); output is the same.")
@click.option("--list-rules", "list_rules", is_flag=True, help="Print the rules and exit.")
@click.option("--target", "target_name", type=RegistryChoice(target_names), default=None,
              help="The target whose rendered files these are (default: sonic, the one target lint reads).")
def lint_command(files: tuple[str, ...], profile: str | None, intent: str | None, hosts: str | None, switch: str | None,
                 output_format: str, fail_on: str, fix: bool, output: str | None, in_place: bool,
                 merge: bool, merge_folders: bool, disable: tuple[str, ...], write_baseline: str | None, baseline: str | None,
                 jobs: int | None, list_rules: bool, target_name: str | None = None) -> int:
    """Lint SONiC config_db.json files (whole or fragments): encoding, schema, consistency, and,
    with --profile / --intent, buffer capacity, PFC headroom and ECN thresholds against the models.
    """
    _robust_output()
    from qosforge.api.lint import (
        LintRequest,
        LintUsageError,
        ReportFormat,
        check_lint_target,
        lint,
        render_report,
    )

    check_lint_target(target_name)  # refused before any file is read when the target has no lint phase
    if list_rules:
        _list_rules(output_format)
        return 0
    from qosforge.cli.progress import progress
    from qosforge.cli.reporter import CliReporter

    request = LintRequest(files=files, profile=profile, intent=intent, hosts=hosts, switch=switch,
                          fail_on="warning" if fail_on == "warning" else "error", fix=fix, output=output,
                          in_place=in_place, merge=merge, merge_folders=merge_folders, disable=disable,
                          write_baseline=write_baseline, baseline=baseline, jobs=jobs, target=target_name)
    try:
        outcome = lint(request, CliReporter(), counter=progress)
    except LintUsageError as error:
        raise click.UsageError(error.message) from None
    click.echo(render_report(outcome.report, cast(ReportFormat, output_format)), nl=False)  # one of click.Choice's
    return outcome.exit_code


__all__ = ["lint_command"]
