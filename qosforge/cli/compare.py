"""``qosforge compare``: the loss-handling modes of an intent's RoCE class on the same traffic.

The modes, their runs and their numbers are the application layer's (qosforge/api/compare.py);
this module turns flags into its request, prints the table (text or JSON) and draws ``--plot``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from qosforge.cli.options import OutputPath, format_option

DEFAULT_MODES = "lossless-dcqcn,pfc-only,lossy-irn,trimming"


@click.command("compare")
@click.argument("intent", metavar="INTENT")
@click.option(
    "--traffic",
    "traffic",
    required=True,
    metavar="FILE",
    help="The traffic file every mode runs (YAML or CSV, as simulate --traffic).",
)
@click.option(
    "--modes",
    "modes",
    default=DEFAULT_MODES,
    show_default=True,
    metavar="LIST",
    help="Comma-separated modes: lossless-dcqcn, pfc-only, lossy-irn, trimming.",
)
@click.option(
    "--class",
    "class_name",
    metavar="NAME",
    help="The RoCE class the modes change (default: the intent's first dcqcn or irn class).",
)
@click.option(
    "--out",
    "out_dir",
    type=OutputPath("compare-out", file_okay=False),
    metavar="DIR",
    help="Write each mode's intent (DIR/<mode>.yaml) and its compiled config (DIR/<mode>/).",
)
@click.option(
    "--plot",
    "plot_path",
    type=OutputPath("compare.png", dir_okay=False),
    metavar="FILE",
    help="Draw JCT (or FCT p99), PFC pause and PFC victim flows per mode (.png, .svg or .pdf).",
)
@click.option(
    "--measure",
    "measure",
    metavar="START:END",
    help="The window every statistic covers (as simulate --measure).",
)
@click.option(
    "--duration",
    "duration",
    metavar="TIME",
    help="Run length (default: the traffic file's, else 10ms).",
)
@click.option(
    "--seed",
    "seed",
    type=int,
    default=1,
    show_default=True,
    help="Seed of every mode's run (the same for all).",
)
@click.option(
    "--assume",
    "assumptions",
    multiple=True,
    metavar="FIELD=VALUE",
    help="A value the vendor profile leaves unknown, e.g. red.steps=1024 (as simulate --assume).",
)
@click.option(
    "--fail-links",
    "fail_links",
    type=click.IntRange(0, 2),
    default=1,
    show_default=True,
    help="Link failures the deadlock exposure (check deadlock) sweeps.",
)
@format_option("text", "json")
def compare_command(
    intent: str,
    traffic: str,
    modes: str,
    class_name: str | None,
    out_dir: str | None,
    plot_path: str | None,
    measure: str | None,
    duration: str | None,
    seed: int,
    assumptions: tuple[str, ...],
    fail_links: int,
    output_format: str,
) -> None:
    """Run an intent's RoCE class as each loss-handling mode on the same traffic.

    Each mode is a compiled variant of INTENT: lossless-dcqcn (PFC + DCQCN), pfc-only (PFC, the
    NICs' DCQCN off), lossy-irn (no PFC, IRN selective repeat), trimming (lossy-irn with packet
    trimming; refused where the switch profile cannot trim). Reports JCT, FCT p50/p99, lossless
    drops, timeouts, PFC pause and its spread (victim flows), and each mode's deadlock exposure.

    \b
    Examples:
      qosforge compare examples/trim-pod.yaml --traffic examples/allreduce.traffic.yaml \\
          --assume red.steps=1024 --assume red.step_offset=0 --plot compare.png
    """
    from qosforge.api.compare import CompareRequest, compare, parse_modes
    from qosforge.cli.reporter import CliReporter
    from qosforge.files import PLOT_SUFFIXES, check_output_file

    if plot_path is not None:
        check_output_file(Path(plot_path), flag="--plot", suffixes=PLOT_SUFFIXES)
    request = CompareRequest(
        intent=intent,
        traffic=traffic,
        modes=parse_modes(modes),
        class_name=class_name,
        out_dir=out_dir,
        measure=measure,
        duration=duration,
        seed=seed,
        assumptions=assumptions,
        fail_links=fail_links,
    )
    result = compare(request, CliReporter())
    if plot_path is not None:
        _plot(Path(plot_path), result)
    if output_format == "json":
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(render_table(result))


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1e3:.3f}"


def _victims(row: Any) -> str:
    """Victim flows, their share of the flows, and the flows paused at all."""
    share = row.victim_share
    percent = "-" if share is None else f"{share:.0%}"
    return f"{row.victim_flows} ({percent}) of {row.paused_flows} paused"


def render_table(result: Any) -> str:
    """The modes side by side, one line each; refused modes with their reason below."""
    header = (
        "mode",
        "JCT ms",
        "FCT p50 ms",
        "FCT p99 ms",
        "unfinished",
        "lossless drops",
        "drops",
        "timeouts",
        "trimmed",
        "PFC pause ms",
        "paused queues",
        "victim flows",
        "deadlock",
    )
    rows = [header]
    for row in result.modes:
        if row.refused is not None:
            rows.append((row.mode, "refused", *[""] * (len(header) - 2)))
            continue
        rows.append(
            (
                row.mode,
                _ms(row.jct_s),
                _ms(row.fct_p50_s),
                _ms(row.fct_p99_s),
                f"{row.unfinished_flows} of {row.flows}",
                str(row.lossless_drops),
                str(row.drops),
                str(row.timeouts),
                str(row.trimmed_packets),
                _ms(row.pfc_pause_s),
                f"{row.paused_queues}/{row.queues}",
                _victims(row),
                row.deadlock_verdict or "-",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = [f"{result.intent}: class {result.class_name}, traffic {result.traffic}"]
    lines += ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows]
    lines += [f"{row.mode}: {row.refused}" for row in result.modes if row.refused is not None]
    lines += [
        f"{row.mode}: {row.deadlock_verdict}: {row.deadlock_detail}"
        for row in result.modes
        if row.deadlock_verdict not in (None, "deadlock_free") and row.deadlock_detail
    ]
    lines += [f"note: {note}" for note in result.notes]
    lines.append(
        "note: a victim flow was paused by PFC at some hop, yet its own path crosses no queue "
        "that backed up unpaused past its ECN threshold (DCQCN SIGCOMM 2015 §2)"
    )
    return "\n".join(lines)


def _plot(path: Path, result: Any) -> None:
    """Three panels: each mode's JCT (FCT p99 without a collective), its PFC pause and its PFC
    victim flows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from qosforge.files import write_atomically

    ran = [row for row in result.modes if row.refused is None]
    use_jct = any(row.jct_s is not None for row in ran)
    names = [row.mode for row in ran]
    times = [((row.jct_s if use_jct else row.fct_p99_s) or 0.0) * 1e3 for row in ran]
    pauses = [row.pfc_pause_s * 1e3 for row in ran]
    victims = [row.victim_flows for row in ran]
    figure, (upper, lower, bottom) = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
    upper.bar(names, times, color="tab:blue")
    upper.set_ylabel("JCT (ms)" if use_jct else "FCT p99 (ms)")
    upper.set_title(f"{Path(result.intent).name}: class {result.class_name}")
    lower.bar(names, pauses, color="tab:red")
    lower.set_ylabel("PFC pause (ms, all queues)")
    bottom.bar(names, victims, color="tab:purple")
    bottom.set_ylabel("PFC victim flows")
    figure.tight_layout()
    write_atomically(path, lambda temporary: figure.savefig(temporary, dpi=120))
    plt.close(figure)


__all__ = ["compare_command", "render_table"]
