"""``qosforge lint FILE...``: lint SONiC config_db files in CI (issue 7; docs/architecture.md §7).

Exit codes: 0 clean (nothing at or above ``--fail-on``), 1 findings at or above it, 2 unusable
input (an unreadable / non-JSON / oversized file, an unknown profile, a bad intent). With several
files every file is linted and the worst code wins. Rules and the JSON/SARIF shapes are documented
in docs/rules.md, generated from the rule registry.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from qosforge.backends.registry import target_names
from qosforge.cli.options import OutputPath, RegistryChoice
from qosforge.errors import EXIT_BAD_INPUT

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

#: Reading from stdin is bounded like files (qosforge.lint.load.MAX_CONFIG_BYTES).
STDIN = "-"


def _robust_output() -> None:
    """Never fail on printing: keys can hold any Unicode, terminals may not."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a detached or closed stream: leave it
                pass


def merge_groups(files: tuple[str, ...], *, by_folder: bool) -> list[list[Path]]:
    """The configs ``--merge`` lints: a FILE written ``A+B`` (whose parts exist) is one config; with
    ``by_folder`` the other FILEs form one config per folder, else one config together (the
    sonic-cfggen merge of every file, as before). Order inside a config is the order given."""
    groups: list[list[Path]] = []
    plain: dict[str, list[Path]] = {}
    for name in files:
        parts = name.split("+")
        if len(parts) > 1 and not Path(name).exists() and all(Path(part).exists() for part in parts):
            groups.append([Path(part) for part in parts])
            continue
        folder = str(Path(name).parent) if by_folder else ""
        plain.setdefault(folder, []).append(Path(name))
    return [*plain.values(), *groups]


def _list_rules(output_format: str) -> None:
    from qosforge.lint.docs import rules_json, rules_text

    if output_format == "json":
        click.echo(json.dumps(rules_json(), indent=2))
    else:
        click.echo(rules_text(), nl=False)


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
@click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif", "github"]),
              default="text", show_default=True, help="Output on stdout.")
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
    if target_name is not None:  # refused before any file is read when the target has no lint phase
        from qosforge.backends.registry import require_phase

        require_phase(target_name, "lint")
    if list_rules:
        _list_rules(output_format)
        return 0
    if not files:
        raise click.UsageError("give at least one FILE (or - for stdin)")
    if (output or in_place) and not fix:
        raise click.UsageError("-o/--output and --in-place only apply with --fix")
    if output and in_place:
        raise click.UsageError("give either -o/--output or --in-place, not both")
    if output and len(files) != 1:
        raise click.UsageError("-o/--output takes one FILE; with several, each is written to FILE.fixed.json")
    if fix and STDIN in files and not output:
        raise click.UsageError("--fix on stdin needs -o/--output")
    if merge_folders and not merge:
        raise click.UsageError("--merge-folders groups the files of --merge: give --merge too")
    groups = merge_groups(files, by_folder=merge_folders) if merge else []
    # A folder holding one file of the fabric is linted as that file (its switch rendered only one).
    if merge and (fix or STDIN in files or not groups or (len(groups) == 1 and len(groups[0]) < 2)):
        raise click.UsageError("--merge takes two or more files (not stdin; A+B for one config, --merge-folders for "
                               "one config per folder) and does not combine with --fix")

    from qosforge.files import write_text_atomically
    from qosforge.lint.baseline import baseline_text, fingerprint, read_baseline
    from qosforge.lint.engine import FileReport, Linter
    from qosforge.lint.findings import Severity, sort_key
    from qosforge.lint.formats import Report, github, sarif, text
    from qosforge.lint.formats import json as json_format
    from qosforge.lint.load import MAX_CONFIG_BYTES
    from qosforge.lint.project import load_settings
    from qosforge.lint.rules import REGISTRY

    settings = load_settings(Path.cwd(), frozenset(REGISTRY))
    disabled = frozenset(rule.strip() for item in disable for rule in item.split(",") if rule.strip())
    known = read_baseline(Path(baseline)) if baseline is not None else frozenset()
    linter = Linter(profile=profile, intent=Path(intent) if intent is not None else None, switch=switch,
                    disable=disabled, settings=settings, hosts=Path(hosts) if hosts is not None else None,
                    target=target_name or "sonic")
    reports: list[FileReport] = []
    from qosforge.cli.progress import progress
    from qosforge.lint.parallel import FileTask, default_jobs, lint_files

    with progress("linting", total=len(groups), units="configs", minimum=20) as advance:
        for group in groups:  # one process: the CLI's start-up is paid once for a whole fabric
            reports.append(linter.lint_merged(group))
            advance()
    with progress("linting", total=0 if merge else len(files), units="files", minimum=20) as advance:
        tasks = [FileTask(Path(name), Path(output) if output else (Path(name) if in_place else None))
                 for name in (() if merge else files)]
        if STDIN in files:  # one process, in the order given
            for task in tasks:
                if task.path == Path(STDIN):
                    data = sys.stdin.buffer.read(MAX_CONFIG_BYTES + 1)
                    reports.append(linter.lint_bytes(data, "<stdin>", fix=fix, fixed_path=task.fixed_path))
                else:
                    reports.append(linter.lint_path(task.path, fix=fix, fixed_path=task.fixed_path))
                advance()
        else:
            reports.extend(lint_files(linter, tasks, jobs=jobs or default_jobs(), fix=fix, advance=advance))

    fixed: dict[str, int] = {}
    for report in reports:
        if report.fixed_text is not None and report.fixed_path is not None:
            write_text_atomically(Path(report.fixed_path), report.fixed_text)
            fixed[report.fixed_path] = len(report.fixes)
        elif fix and report.unusable is None:
            # lint_path writes no copy when nothing is mechanical; say so instead of silence.
            click.echo(f"note: {report.file}: nothing to fix, no file written", err=True)
    unusable = [r.unusable for r in reports if r.unusable is not None]
    for item in unusable:
        click.echo(f"error: {' '.join(item.message.split())}", err=True)
    findings = sorted((f for r in reports for f in r.findings), key=sort_key)
    if write_baseline is not None and not unusable:
        write_text_atomically(Path(write_baseline), baseline_text(findings))
        click.echo(f"note: {len(findings)} finding(s) recorded in baseline {write_baseline}", err=True)
    baselined = [f for f in findings if fingerprint(f) in known]
    if baselined:
        findings = [f for f in findings if fingerprint(f) not in known]
        click.echo(f"note: {len(baselined)} finding(s) in baseline {baseline} not shown", err=True)
    severity = Severity(fail_on)
    run = Report(
        findings=findings, files=[r.file for r in reports], unusable=unusable, skipped=linter.skipped,
        fail_on=severity, profile=", ".join(sorted(linter.profiles_used)) or None,
        intent=intent, fixed=fixed,
    )
    renderer = {"text": text.render, "json": json_format.render, "sarif": sarif.render, "github": github.render}
    click.echo(renderer[output_format](run), nl=False)
    if unusable:
        return EXIT_BAD_INPUT
    from qosforge.lint.findings import exit_code

    if write_baseline is not None:
        return 0  # recording today's findings is the job asked for; --baseline fails on new ones later
    return exit_code(findings, severity, 0)


__all__ = ["lint_command", "merge_groups"]
