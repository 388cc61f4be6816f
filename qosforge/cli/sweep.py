"""``qosforge sweep``: run simulate, whatif or compile over a grid of parameters on local worker
processes or an existing Dask cluster.

The sweep commands are made from the target commands' own click parameters (campaigns/flags.py),
so a flag added to or renamed in ``simulate`` is a sweep flag at once. Dask and pyarrow are
imported only when a campaign runs, so other commands do not pay for them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from qosforge.cli.options import OutputPath
from qosforge.errors import EXIT_INTERRUPTED

_RESERVED = frozenset({"--workers", "--scheduler", "--out", "--parquet", "--plot", "--dashboard", "--seeds", "--set", "-h", "--help"})


def resolve_command(path: tuple[str, ...]) -> click.Command:
    """The click command at ``path`` under ``qosforge`` (works with lazily registered commands)."""
    from qosforge.cli import cli

    command: click.Command = cli
    for name in path:
        if not isinstance(command, click.Group):
            raise LookupError(f"qosforge {' '.join(path)} is not a command")
        context = click.Context(command, info_name=name)
        found = command.get_command(context, name)
        if found is None:
            raise LookupError(f"qosforge {' '.join(path)} is not a command")
        command = found
    return command


def _campaign_params(has_seed: bool, has_intent: bool) -> list[click.Parameter]:
    params: list[click.Parameter] = []
    if has_intent:
        params.append(click.Option(["--set", "assignments"], multiple=True, metavar="PATH=VALUES",
                                   help="Change an intent field, e.g. design.alpha=1,2,4 or classes.bulk.rtt=20us:80us:4 (repeatable)."))
    if has_seed:
        params.append(click.Option(["--seeds"], type=int, metavar="N", help="Run every point with seeds 1..N."))
    params += [
        click.Option(["--out"], required=True, type=OutputPath("results.jsonl", dir_okay=False), metavar="FILE.jsonl",
                     help="Rows are appended here as points finish; a re-run skips finished points and retries failed ones."),
        click.Option(["--parquet"], type=OutputPath("results.parquet", dir_okay=False), metavar="FILE.parquet", help="Also write all rows as a Parquet table at the end."),
        click.Option(["--plot"], type=OutputPath("sweep.png", dir_okay=False), metavar="FILE.png", help="Draw each numeric output against the first swept parameter."),
        click.Option(["--workers"], type=int, default=None, metavar="N", help="Local worker processes (default: the number of cores)."),
        click.Option(["--scheduler"], metavar="tcp://HOST:PORT", help="Run on an existing Dask cluster instead (see docs/campaigns.md)."),
        click.Option(["--dashboard"], is_flag=True, help="Run the local workers as a Dask cluster and serve its dashboard on 127.0.0.1:8787."),
    ]
    return params


def _sweep_command(path: tuple[str, ...], target: click.Command) -> click.Command:
    from qosforge.campaigns.flags import forwarded_flags

    flags = forwarded_flags(target, _RESERVED)
    intent = next((p for p in target.params if isinstance(p, click.Argument) and p.name == "intent"), None)
    has_seed = any(flag.key == "seed" for flag in flags)
    params: list[click.Parameter] = []
    if intent is not None:
        params.append(click.Argument(["intents"], nargs=-1, required=intent.required, metavar="INTENT..." if intent.required else "[INTENT]..."))
    params += [flag.sweep_option() for flag in flags]
    params += _campaign_params(has_seed, intent is not None)

    def run(**options: Any) -> None:
        _run(path, flags, options)

    summary = f"Run 'qosforge {' '.join(path)}' over a grid: any flag takes a,b,c; numeric flags also START:STOP:N."
    help_text = (summary + "\n\nThe grid is the product of every list"
                 + (", --set and --seeds" if intent is not None and has_seed else ", --set" if intent is not None else ", --seeds" if has_seed else "")
                 + ". One JSON row per point goes to --out as it finishes; see docs/campaigns.md.")
    return click.Command(path[-1], params=params, callback=run, help=help_text, short_help=summary)


def _run(path: tuple[str, ...], flags: list[Any], options: dict[str, Any]) -> None:
    from qosforge.campaigns.build import CampaignRequest, build_campaign
    from qosforge.campaigns.intents import parse_assignment, read_intent
    from qosforge.campaigns.runner import ClusterChoice
    from qosforge.campaigns.session import Outputs, run_campaign
    from qosforge.errors import QosforgeError

    if options["scheduler"] is not None and options["workers"] is not None:
        raise QosforgeError("sets local workers, and --scheduler uses a cluster's", place="--workers", hint="give one of --workers or --scheduler")
    request = CampaignRequest(
        command=path, flags=flags, options=options,
        intents=tuple(read_intent(name) for name in options.get("intents", ())),
        assignments=tuple(parse_assignment(text) for text in options.get("assignments", ())),
        seeds=options.get("seeds"),
    )
    campaign = build_campaign(request)
    outputs = Outputs(out=Path(options["out"]), parquet=Path(options["parquet"]) if options["parquet"] else None,
                      plot=Path(options["plot"]) if options["plot"] else None)
    workers = options["workers"] if options["workers"] is not None else os.cpu_count() or 1
    cluster = ClusterChoice(workers=workers, scheduler=options["scheduler"], dashboard=options["dashboard"])
    try:
        report = run_campaign(campaign, outputs, cluster)
    except KeyboardInterrupt:
        click.echo(f"sweep: interrupted; finished rows are in {outputs.out}, re-run the same command to resume", err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    from qosforge.campaigns.seeds import seed_lines

    for line in [*report.lines(outputs.out), *seed_lines(campaign.points, report.rows, seed_typed=options.get("target_seed") is not None,
                                                          seeds_count=options.get("seeds"))]:
        click.echo(line, err=True)
    if report.failed:
        raise click.exceptions.Exit(1)


class _TargetGroup(click.Group):
    """Sweep commands made on demand from a group of target commands (``qosforge <path> ...``)."""

    def __init__(self, name: str, path: tuple[str, ...], help_text: str) -> None:
        super().__init__(name, help=help_text)
        self.path = path

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and not ctx.resilient_parsing:  # `qosforge sweep` alone: its help, as other groups
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        return super().parse_args(ctx, args)

    def _target(self, ctx: click.Context) -> click.Group:
        target = resolve_command(self.path)
        assert isinstance(target, click.Group)
        return target

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = ["simulate", "whatif", "compile"] if not self.path else self._target(ctx).list_commands(ctx)
        return names

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if not self.path and name == "whatif":
            return _TargetGroup("whatif", ("whatif",), "Run a what-if model over a grid (qosforge sweep whatif MODEL --help).")
        if not self.path and name not in ("simulate", "compile"):
            return None
        try:
            target = resolve_command((*self.path, name))
        except LookupError:
            return None
        return _sweep_command((*self.path, name), target)


sweep_group = _TargetGroup(
    "sweep", (),
    "Run simulate, whatif or compile over a grid of parameters on local worker processes (--workers) or an existing "
    "Dask cluster (--scheduler). Rows go to --out as points finish; a re-run resumes. See docs/campaigns.md.",
)

__all__ = ["resolve_command", "sweep_group"]
