"""``qosforge simulate INTENT --traffic FILE``: rendering the traffic run's report (the run itself
is qosforge/api/scenarios/traffic.py): per-group throughput and the busiest queues as tables, or
the report as JSON (docs/softswitch-reports.md "A traffic file's run")."""

from __future__ import annotations

from typing import Any

import click

#: Queues drawn in the queue panel of --plot (the deepest ones); all of them are in --timeseries.
PLOTTED_QUEUES = 8


def emit_traffic(report: dict[str, Any], output_format: str) -> None:
    if output_format == "json":
        import json

        from qosforge.presentation import tidy

        click.echo(json.dumps(tidy(report), indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    from qosforge.presentation import output_width

    console = Console(highlight=False, markup=False, width=output_width(100))
    window = (f"{report['measure_start_s']:g} s .. {report['measure_end_s']:g} s "
              f"({report['window_from']})")
    groups = Table(title=f"groups over {window} (payload throughput)")
    for column in ("group", "flows", "mean", "min", "max", "total", "Jain"):
        groups.add_column(column, justify="left" if column == "group" else "right")
    for group in report["groups"]:
        groups.add_row(group["name"], str(group["flows"]), *(_rate(group[k]) for k in ("mean_throughput_bps", "min_throughput_bps", "max_throughput_bps", "total_throughput_bps")),
                       # None: nothing delivered, Jain's index undefined (flow_metrics.jain_index)
                       "—" if group["jain_index"] is None else f"{group['jain_index']:.4f}")
    console.print(groups)
    ports = Table(title="queues (sampled every " + f"{report['sample_s'] * 1e6:g} us)")
    for column in ("switch:port", "queue", "class", "mean", "max", "mean delay", "PFC paused"):
        # A port's name is what the row is about: never cut it, fold it (a pipe is 80 columns).
        ports.add_column(column, justify="left" if column in ("switch:port", "class") else "right",
                         no_wrap=column == "switch:port")
    busy = sorted(report["ports"], key=lambda p: -p["mean_queue_bytes"])
    for port in busy[:PLOTTED_QUEUES * 2]:
        ports.add_row(f"{port['switch']}:{port['port']}", str(port["queue"]), port["class"], _bytes(port["mean_queue_bytes"]), _bytes(port["max_queue_bytes"]),
                      f"{port['mean_queue_delay_s'] * 1e6:.1f} us", f"{port['paused_s'] * 1e3:.3f} ms")
    console.print(ports)
    if len(busy) > PLOTTED_QUEUES * 2:
        click.echo(f"({len(busy) - PLOTTED_QUEUES * 2} quieter queues and every flow: --format json)")
    finished = [f for f in report["flows"] if f["fct_s"] is not None]
    retransmissions = sum(f["retransmissions"] for f in report["flows"])
    click.echo(f"{report['flows_count']} flows; {len(finished)} sized flows finished"
               + (f" (mean FCT {sum(f['fct_s'] for f in finished) / len(finished) * 1e3:.3f} ms)" if finished else "")
               + f"; {retransmissions} retransmissions; drops {report['drops']}, marks {report['marks']}, "
               f"PFC XOFF sent {report['pfc_xoff_sent']}")
    # Every drop by class and cause; a lossless class's losses say so.
    for name, entry in report.get("drops_by_class", {}).items():
        if entry["drops"]:
            causes = ", ".join(f"{cause} {count}" for cause, count in entry.items()
                               if cause not in ("lossless", "drops"))
            kind = " (a lossless class: lossless losses)" if entry["lossless"] else ""
            click.echo(f"  drops in {name}{kind}: {causes}")
    from qosforge.cli.host_tcp_text import host_tcp_lines

    for line in host_tcp_lines(report["host_tcp"]):
        click.echo(f"TCP hosts: {line}")
    effective = report.get("seed_effective", True)
    seeds = f"seed {report['seed']}" + ("" if effective else " (no effect on this run)")
    if report.get("traffic_seed") is not None:
        seeds += f"; the file's seed {report['traffic_seed']} draws its random start times"
    click.echo(seeds)


def _rate(bps: float) -> str:
    from qosforge.units import format_rate

    return format_rate(bps)


def _bytes(value: float) -> str:
    from qosforge.units import format_bytes

    return format_bytes(value)


__all__ = ["emit_traffic"]
