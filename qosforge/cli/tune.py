"""``qosforge tune INTENT --traffic FILE --out DIR``: search the settings the intent leaves free
for the objectives on the traffic (:mod:`qosforge.api.tune`; docs/tune.md)."""

from __future__ import annotations

import json
from typing import Any

import click

from qosforge.cli._gnmi import ask_password, connection_options, connection_request
from qosforge.cli.options import OutputPath, format_option
from qosforge.cli.reporter import CliReporter
from qosforge.units import format_value

_EPILOG = """\b
Objectives (--objective, one per class; docs/tune.md):
  class=NAME,fct_p99_us<=X,max_kb=N,goodput_percent>=Y,lossless_drops<=0,
  pfc_pause_percent<=Z,queue_delay_p99_us<=W
Without --objective: the intent's objectives:, else the default set (every lossless class:
0 drops, at most 10 % paused; minimise the first class's fct_p99_us).
\b
Exit codes: 0 tuned (or the start kept; with --push, rolled out or planned), 1 --push rolled
the canary back, 2 bad input or a failed push.
\b
Examples:
  qosforge tune examples/roce-pod.yaml --traffic examples/roce-pod-mixed.traffic.yaml --out tuned
  qosforge tune fabric.yaml --traffic flows.yaml --objective 'class=rdma,fct_p99_us<=300' \\
      --objective 'class=tcp,goodput_percent>=30' --minimize rdma.fct_p99_us \\
      --budget 40 --workers 2 --out tuned
  qosforge tune fabric.yaml --from-gnmi leaf1,leaf2 --inventory inventory.yaml --out tuned \\
      --push --switch leaf1 --switch leaf2 --apply
"""


def _connection_options(function: Any) -> Any:
    for option in reversed(connection_options()):
        function = option(function)
    return function


def _seeds(text: str, flag: str) -> tuple[int, ...]:
    from qosforge.api.tune import parse_seeds

    return parse_seeds(text, flag)


@click.command("tune", epilog=_EPILOG)
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option(
    "--traffic",
    "traffic",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help='The traffic to tune for (a YAML traffic file: docs/softswitch.md "Your own traffic").',
)
@click.option(
    "--from-gnmi",
    "from_gnmi",
    metavar="SWITCH[,SWITCH...]",
    help="Instead of --traffic: build the traffic from these switches' counters over gNMI "
    "(--address or --inventory, as for watch; docs/tune.md).",
)
@click.option(
    "--gnmi-window",
    "gnmi_window",
    default="30s",
    show_default=True,
    metavar="TIME",
    help="--from-gnmi: how long apart the two counter snapshots are taken.",
)
@click.option(
    "--flow-sizes",
    "flow_sizes",
    metavar="FILE|NAME",
    help="--from-gnmi: flow-size CDF ('bytes cumulative_probability' per line) or web-search, "
    "data-mining (default web-search, DCTCP SIGCOMM 2010 Fig. 4).",
)
@click.option(
    "--gnmi-duration",
    "gnmi_duration",
    default="3ms",
    show_default=True,
    metavar="TIME",
    help="--from-gnmi: the simulated window of the traffic built from the counters.",
)
@click.option(
    "--max-departure",
    "max_departure",
    default="50%",
    show_default=True,
    metavar="SHARE",
    help="--from-gnmi: how far today's prediction may depart from the counters before "
    "the tune warns that its result is less trustworthy.",
)
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=OutputPath("tuned", file_okay=False),
    metavar="DIR",
    help="Where the tuned overrides, the tuned intent, its configs and tune.json go.",
)
@click.option(
    "--objective",
    "objectives",
    multiple=True,
    metavar="SPEC",
    help="Targets for one class (repeatable; see below).",
)
@click.option(
    "--minimize",
    metavar="CLASS.METRIC",
    help="The metric the search minimises (goodput_percent is maximised).",
)
@click.option(
    "--budget",
    type=int,
    default=24,
    show_default=True,
    help="Trials the search proposes besides the compiled start.",
)
@click.option(
    "--seeds",
    "seeds",
    default="2",
    show_default=True,
    metavar="N|a,b",
    help="Training seeds: N for 1..N, or a list.",
)
@click.option(
    "--holdout",
    "holdout",
    default="101,102,103",
    show_default=True,
    metavar="a,b",
    help="Seeds the result is reported on (never trained on).",
)
@click.option(
    "--measure",
    metavar="START:END",
    help="The measured window (default: the traffic file's, else 0s:10ms).",
)
@click.option(
    "--free",
    "free",
    multiple=True,
    metavar="PATH",
    help="Search a block the intent states, from its stated value: "
    "classes.NAME.dcqcn, classes.NAME.ecn, design.alpha.",
)
@click.option(
    "--workers",
    type=int,
    default=None,
    metavar="N",
    help="Local worker processes (default: the number of cores).",
)
@click.option(
    "--scheduler",
    metavar="tcp://HOST:PORT",
    help="Run the simulations on an existing Dask cluster.",
)
@click.option(
    "--search-seed",
    "search_seed",
    type=int,
    default=None,
    metavar="N",
    help="Seed of the TPE sampler (default fixed: the same tune proposes the same points).",
)
@click.option(
    "--no-robustness", "no_robustness", is_flag=True, help="Skip the runs at 80 % and 120 % load."
)
@format_option("text", "json")
@click.option(
    "--push",
    "push",
    is_flag=True,
    help="Then roll the tuned configs out, canary first (a dry run unless --apply; docs/tune.md).",
)
@click.option("--apply", "apply", is_flag=True, help="--push: push for real (default: plan only).")
@click.option(
    "--switch",
    "switches",
    multiple=True,
    metavar="NAME",
    help="--push: the switches in rollout order; the first is the canary (repeatable).",
)
@click.option(
    "--watch-window",
    "watch_window",
    default="10s",
    show_default=True,
    metavar="TIME",
    help="--push: how long each switch runs on its new config before watch judges it.",
)
@_connection_options
def tune_command(**params: Any) -> None:
    """Find ECN, DCQCN and buffer settings that meet objectives on your traffic, on the simulator.

    The traffic is a file (--traffic) or built from running switches' counters (--from-gnmi,
    which first compares today's prediction with those counters).

    Searches the knobs INTENT leaves free (optuna TPE with successive halving over the training
    seeds), never simulating a point that compile or lint refuses, then reports the best
    point against the compiled start on held-out seeds and at ±20 % load.
    """
    import os

    from qosforge.api.tune import TuneRequest, tune
    from qosforge.errors import QosforgeError

    _check_push(params)
    if params["scheduler"] is not None and params["workers"] is not None:
        raise QosforgeError(
            "sets local workers, and --scheduler uses a cluster's",
            place="--workers",
            hint="give one of --workers or --scheduler",
        )
    workers = params["workers"] if params["workers"] is not None else os.cpu_count() or 1
    source = _gnmi_source(params)
    request = TuneRequest(
        intent_path=params["intent"],
        traffic_path=params["traffic"] or "",
        from_gnmi=source,
        out_dir=params["out_dir"],
        objectives=tuple(params["objectives"]),
        minimize=params["minimize"],
        budget=params["budget"],
        seeds=_seeds(params["seeds"], "--seeds"),
        holdout=_seeds(params["holdout"], "--holdout"),
        measure=params["measure"],
        free=tuple(params["free"]),
        workers=workers,
        scheduler=params["scheduler"],
        robustness=not params["no_robustness"],
        **({"search_seed": params["search_seed"]} if params["search_seed"] is not None else {}),
    )
    result = tune(request, CliReporter())
    if params["output_format"] == "json":
        click.echo(json.dumps(result.document(), indent=2, default=str))
    else:
        for line in render_text(result.document()):
            click.echo(line)
    if params["push"]:
        _rollout(params, result.out_dir)


def _password(params: dict[str, Any]) -> str | None:
    """The gNMI password (asked once: --from-gnmi and the rollout share it), or None without
    --username."""
    if not params["username"]:
        return None
    if params.get("_password") is None:
        params["_password"] = ask_password()
    password: str = params["_password"]
    return password


def _gnmi_source(params: dict[str, Any]) -> Any:
    """``--from-gnmi``'s source, or None with ``--traffic``; exactly one of them."""
    from qosforge.api.tuning.from_gnmi import GnmiSource
    from qosforge.errors import QosforgeError
    from qosforge.units import parse_flag, parse_fraction

    if (params["traffic"] is None) == (params["from_gnmi"] is None):
        raise QosforgeError(
            "give the traffic to tune for: --traffic FILE or --from-gnmi SWITCH[,...]",
            place="--traffic" if params["traffic"] is None else "--from-gnmi",
            hint="one of them, not both",
        )
    if params["from_gnmi"] is None:
        if params["flow_sizes"] is not None:
            raise QosforgeError(
                "is for --from-gnmi (a traffic file states its flows' sizes)",
                place="--flow-sizes",
                hint="drop --flow-sizes, or use --from-gnmi instead of --traffic",
            )
        return None
    if params["address"] is None and params["inventory"] is None:
        raise QosforgeError(
            "--from-gnmi needs where the switches are",
            place="--address",
            hint="give --address HOST:PORT (one switch) or --inventory FILE",
        )
    switches = tuple(s.strip() for s in params["from_gnmi"].split(",") if s.strip())
    return GnmiSource(
        switches=switches,
        connection=connection_request(params),
        window=params["gnmi_window"],
        flow_sizes=params["flow_sizes"],
        duration=params["gnmi_duration"],
        password=_password(params),
        tolerance=parse_flag("--max-departure", parse_fraction, params["max_departure"]),
    )


def _check_push(params: dict[str, Any]) -> None:
    from qosforge.errors import QosforgeError

    given = [flag for flag, key in (("--apply", "apply"), ("--switch", "switches")) if params[key]]
    if not params["push"] and given:
        raise QosforgeError(
            f"{given[0]} is for the rollout", place=given[0], hint="add --push, or drop it"
        )
    if params["push"] and not params["switches"]:
        raise QosforgeError(
            "--push needs the switches in rollout order",
            place="--switch",
            hint="e.g. --switch leaf1 --switch leaf2 (leaf1 is the canary)",
        )
    if params["push"] and params["address"] is None and params["inventory"] is None:
        raise QosforgeError(
            "--push needs where the switches are",
            place="--address",
            hint="give --address HOST:PORT (one switch) or --inventory FILE",
        )
    if params["push"]:
        from qosforge.api.delivery import check_devices

        # The rollout's switches and TLS files are checked before the tune, not after it.
        check_devices(connection_request(params), tuple(params["switches"]))


def _rollout(params: dict[str, Any], out: Any) -> None:
    from pathlib import Path

    from qosforge.api.tuning.rollout import RolloutRequest, rollout

    connection = connection_request(params)
    password = _password(params) if params["apply"] else None
    result = rollout(
        RolloutRequest(
            configs_dir=Path(out) / "configs",
            connection=connection,
            switches=tuple(params["switches"]),
            window=params["watch_window"],
            dry_run=not params["apply"],
            backup_dir=Path(out),
        ),
        password,
        lambda text: click.echo(text, err=True),
    )
    Path(out, "rollout.log").write_text(
        "".join(f"{line}\n" for line in result.log), encoding="utf-8"
    )
    click.echo(f"rollout: {result.status}; steps in {Path(out, 'rollout.log')}", err=True)
    if result.status == "rolled-back":
        raise click.exceptions.Exit(1)
    if result.status == "failed":
        raise click.exceptions.Exit(2)


def _number(value: float | None, std: float | None) -> str:
    if value is None:
        return "not measured"
    return _plain(value, 4) + (f" ± {_plain(std, 2)}" if std else "")


def _plain(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant digits, never in exponent form (3742 ± 610, not
    3742 ± 6.1e+02): a whole number where the digits run out before the decimal point."""
    text = f"{value:.{digits}g}"
    return f"{value:.0f}" if "e+" in text else text


def render_text(document: dict[str, Any]) -> list[str]:
    """The summary a person reads: what changed, by how much, on which seeds, at what cost."""
    lines = [
        f"objectives ({document['objectives']['source']}): "
        + "; ".join(document["objectives"]["targets"])
    ]
    best = document["best"]
    trials = document["trials"]
    refused = sum(1 for t in trials if t["refused"])
    pruned = sum(1 for t in trials if t["pruned"])
    lines.append(
        f"{len(trials) - 1} trials ({refused} refused by compile or lint, {pruned} pruned), "
        f"{document['simulations']} simulations; best: trial {best['trial']}"
    )
    for knob in document["knobs"]:
        # As compile's summary prints a size (64.5 kB, not 6.45e+04 B); tune.json has the values.
        lines.append(
            f"  {knob['name']}: {format_value(knob['start'], knob['unit'], exact=False)} -> "
            f"{format_value(best['values'][knob['name']], knob['unit'], exact=False)}"
        )
    held = document["held_out"]
    lines.append(
        f"score on held-out seeds: {held['score_before']:.3f} -> {held['score_after']:.3f} "
        "(lower is better)"
    )
    for change in held["metrics"]:
        if change["before_mean"] is None and change["after_mean"] is None:
            continue
        lines.append(
            f"  {change['name']}: {_number(change['before_mean'], change['before_std'])} -> "
            f"{_number(change['after_mean'], change['after_std'])}"
        )
    for load, scores in document["robustness"].items():
        lines.append(
            f"at {float(load):.0%} load: score {scores['before']:.3f} -> {scores['after']:.3f}"
        )
    for note in document["notes"]:
        lines.append(f"note: {note}")
    lines.append(
        f"wall {document['wall_seconds']:.1f} s, CPU {document['cpu_seconds']:.1f} s; "
        f"overrides, tuned intent, configs and tune.json in {document['out']}"
    )
    return lines


__all__ = ["render_text", "tune_command"]
