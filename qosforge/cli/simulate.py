"""``qosforge simulate``: run a scenario on the bundled software switch.

Two scenarios: ``dumbbell``, configured by flags only so its numbers can be compared with other
simulators, and ``incast`` on a compiled intent (intent -> SAI program -> switch). Output is a
table or stable JSON (docs/softswitch.md); ``--plot`` draws the queue over time. Nothing is
written unless the run succeeded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from qosforge.cli.options import OutputPath, Rename, renamed_options
from qosforge.cli.serve_gnmi import ServeOptions, serve_options, serve_settings
from qosforge.cli.simulate_fabric import FABRIC_SCENARIOS, announce_approximations
from qosforge.cli.typed import CampaignPoint, typed_by_operator
from qosforge.defaults import DEFAULT_TBTCP_R
from qosforge.errors import QosforgeError, UnitError
from qosforge.softswitch.traffic.spec import FLOW_KIND_NAMES, MAX_FLOWS, MAX_SEED, FlowKind
from qosforge.units import (
    format_value,
    parse_fraction,
    parse_percent,
    parse_rate_bps,
    parse_size_bytes,
    parse_time_s,
)

#: Packets a run may carry at line rate on the bottleneck (duration × rate / packet): at the
#: engine's ~1.5 M events/s (bench/bench_softswitch.py) and a few events per packet, 100 M packets
#: are several minutes of wall time, beyond which a run is a batch job, not a command.
MAX_LINE_RATE_PACKETS = 100_000_000
#: Largest frame the engine models (jumbo frames, 9216 B on most datacenter ASICs).
MAX_PACKET_BYTES = 9216


class SeedType(click.IntRange):
    """``--seed``: a whole number 0..2**32-1, refused (naming the flag and the range) otherwise.
    An ``IntRange`` so a sweep (campaigns/flags.py) checks every ``--seed a,b,c`` value with it."""

    name = "seed"

    def __init__(self) -> None:
        super().__init__(0, MAX_SEED)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.INT.convert(value, param, ctx)
        if not 0 <= number <= MAX_SEED:
            self.fail(f"{number} is not a seed of 0 to {MAX_SEED} (the engine's generator takes 32 bits), e.g. --seed 1", param, ctx)
        return number


#: ``tcp-ecn``: NewReno with RFC 3168 ECN (ECT packets, one halving per window on ECN-Echo).
_TRANSPORTS: dict[str, FlowKind] = FLOW_KIND_NAMES


_RENAMES = (Rename("--bandwidth", "--speed", "bandwidth"), Rename("--buffer", "--queue-limit", "buffer_text"))


def _parse(flag: str, parser: Any, text: str | None, **kwargs: Any) -> Any:
    if text is None:
        return None
    try:
        return parser(text, **kwargs)
    except UnitError as error:
        raise error.with_place(flag) from None


def _percent_as_fraction(percent: float | None) -> float | None:
    """The engine's RED takes P_max as a probability; the flag and the JSON show it in percent."""
    return None if percent is None else percent / 100.0


def _assumptions(items: tuple[str, ...]) -> dict[str, str]:
    result = {}
    for item in items:
        if "=" not in item:
            raise QosforgeError(f"{item!r} is not FIELD=VALUE", place="--assume", hint="e.g. --assume red.steps=8")
        key, value = item.split("=", 1)
        result[key.strip()] = value.strip()
    return result


def _without_boundary_packet(wire_gbps: float, line_rate_bps: float, packet_bytes: int, measured_s: float) -> float:
    """The receiver's wire rate, never above its link's: a packet delivered just after the warm-up
    began serialising before it, so counting it whole can exceed the line rate by up to one
    packet per measured window (10.00002 Gbps on a 10G link); that excess is the boundary packet's
    part from before the measurement, not traffic."""
    excess_bps = wire_gbps * 1e9 - line_rate_bps
    return line_rate_bps / 1e9 if 0.0 < excess_bps <= packet_bytes * 8.0 / measured_s else wire_gbps


def _plot(path: Path, result: Any, title: str, labels: tuple[str, ...], throughput: dict[str, Any] | None = None) -> None:
    """``labels``: one per monitored queue, the port's name as the text output gives it
    (``Ethernet0``; ``switch:port`` in a fabric), never the engine's port index. ``throughput``:
    the deadlock scenario's ``throughput_timeline``, drawn in a second panel under the queue."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from qosforge.files import write_atomically
    from qosforge.plotting import legend_beside, plain_ticks

    if throughput is None:
        figure, axis = plt.subplots(figsize=(8, 3.5))
    else:
        figure, (axis, lower) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        gbps = throughput["gbps"]
        ends_ms = [(i + 1) * throughput["interval_s"] * 1e3 for i in range(len(gbps))]
        lower.step(ends_ms, gbps, where="pre", linewidth=0.8)
        lower.set_ylabel("delivered (Gb/s)")
        lower.set_xlabel("time (ms)")
        plain_ticks(lower)
    for index, depth in enumerate(result.monitors):
        axis.plot(depth.trace_time_s * 1e3, depth.trace_packets, linewidth=0.8, label=f"{labels[index]} queue {depth.queue}")
    if throughput is None:
        axis.set_xlabel("time (ms)")
    axis.set_ylabel("queue (packets)")
    axis.set_title(title)
    plain_ticks(axis)
    # Beside the axes, not on them: a pause storm's queues fill the upper right for the whole run.
    legend_beside(axis)
    figure.tight_layout()
    write_atomically(path, lambda temporary: figure.savefig(temporary, dpi=120))
    plt.close(figure)


@click.command("simulate")
@renamed_options(*_RENAMES)
@click.argument("intent", required=False, type=click.Path(dir_okay=False))
@click.option("--scenario", type=click.Choice(["dumbbell", "incast", *FABRIC_SCENARIOS]),
              help="dumbbell (flags only), incast (one switch of INTENT), or a fabric scenario on INTENT's switches (or --traffic).")
@click.option("--traffic", "traffic_path", metavar="FILE", help="Your own flows on INTENT's switches (YAML, or .csv): instead of --scenario (docs/softswitch.md 'Your own traffic').")
@click.option("--measure", "measure_text", metavar="START:END", help="--traffic: the window every statistic covers, e.g. 4s:5s; the run ends at END (default 0s:--duration).")
@click.option("--sample", "sample_text", metavar="TIME", help="--traffic: queue sampling interval of the time series and the per-port means (default 100us).")
@click.option("--timeseries", "timeseries_path", type=OutputPath("queues.csv", dir_okay=False), help="--traffic: write the sampled queues and PFC pauses (.csv or .parquet).")
@click.option("--switch", "switch_names", metavar="NAME", multiple=True,
              help="incast: the switch of INTENT (default: the first); fabric scenarios: repeat to simulate only these switches and their links.")
@click.option("--class", "class_name", metavar="NAME", help="incast, fabric: the traffic class (default: the intent's first class, e.g. rdma on roce-pod; pause-storm: its first lossless class). The report names it (class, class_chosen_by).")
@click.option("--port", "port_name", metavar="NAME", help="incast: the receiver's port (default: the first port); fabric-incast/pause-storm: the receiving/stalled host as SWITCH:PORT (default: the last leaf's first host).")
@click.option("--flows", type=int, help=f"Number of flows (1 to {MAX_FLOWS:,}; default 10; pause-storm: per sending host, default 1; "
                                          "deadlock: per leaf pair of the routes that close the cycle, default 8).")
@click.option("--load", "load_text", metavar="PERCENT", help="all-to-all: offered load of every host link (default 60%).")
@click.option("--flow-size-dist", metavar="NAME|FILE",
              help="all-to-all: flow sizes, web-search (default) or data-mining (or a CDF file of 'bytes probability' lines).")
@click.option("--fail-link", "fail_links", metavar="A-B|SWITCH:PORT", multiple=True,
              help="deadlock: a link to fail (repeat for several), by its two switches or one end; routes go around it.")
@click.option("--no-watchdog", "no_watchdog", is_flag=True, help="deadlock: run without the PFC watchdog the intent configures (the deadlock then stays).")
@click.option("--stall", "stall_text", metavar="TIME", help="pause-storm: how long the stalled host stops draining (default 2ms).")
@click.option("--transport", type=click.Choice(sorted(_TRANSPORTS)), help="dumbbell: required; incast and fabric scenarios: overrides the class's transport.")
@click.option("--speed", "bandwidth", metavar="RATE", default="10G", show_default=True, help="dumbbell: bottleneck link rate.")
@click.option("--rtt", metavar="TIME", default="100us", show_default=True, help="dumbbell: base round-trip time.")
@click.option("--queue-limit", "buffer_text", metavar="SIZE", default="1000pkt", show_default=True, help="dumbbell: bottleneck queue limit.")
@click.option("--ecn-threshold", metavar="SIZE", help="dumbbell: DCTCP step marking at K (RED min = max = K, 100%).")
@click.option("--red-min", metavar="SIZE", help="dumbbell: RED minimum threshold.")
@click.option("--red-max", metavar="SIZE", help="dumbbell: RED maximum threshold.")
@click.option("--red-pmax", metavar="PERCENT", help="dumbbell: RED probability P_max at the maximum, a percentage with its % sign, e.g. 10%.")
@click.option("--packet", "packet_text", metavar="SIZE", help="Packet (MSS-sized frame) size; also the unit of 'pkt' (default 1500B; in a lossless class the intent's lossless MTU, the frame its PFC headroom is sized for).")
@click.option("--flow-size", metavar="SIZE", help="Bytes per flow (default: long-lived).")
@click.option("--beta", type=float, default=0.1, show_default=True, help="TBTCP RAI beta (TBTCP §4.3).")
@click.option("--r", "window_r", type=float, default=float(DEFAULT_TBTCP_R), show_default=True, help="TBTCP QCD window reduction r (TBTCP §6.2).")
@click.option("--rto-min", metavar="TIME", help="Minimum retransmission timeout (default 4ms, TLT §2.1).")
@click.option("--duration", metavar="TIME", help="Simulated time (default 0.3s; fabric-incast 20ms, all-to-all 3ms, pause-storm 1ms + stall + 1ms).")
@click.option("--warmup", metavar="TIME", help="Statistics start after this (default a third of --duration, at most 0.1s; fabric-incast 10ms, other fabric scenarios 0).")
@click.option("--seed", type=SeedType(), default=1, show_default=True, help=f"Random seed, 0 to {MAX_SEED} (2**32-1).")
@click.option("--assume", "assumptions", multiple=True, metavar="FIELD=VALUE", help="incast and fabric scenarios (every scenario that compiles INTENT): a vendor-profile value the profile leaves unknown (e.g. red.steps=8).")
@click.option("--hosts", "hosts_path", metavar="FILE", type=click.Path(dir_okay=False),
              help="incast: run the hosts as a host settings document configures them (host_settings.json from compile --target host): "
                   "each flow's NIC priority, the CNPs' priority and DCQCN's parameters.")
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--plot", "plot_path", type=OutputPath("queue.png", dir_okay=False), help="Draw the queue over time to this PNG.")
@serve_options
def simulate_command(intent: str | None, scenario: str | None, traffic_path: str | None, measure_text: str | None, sample_text: str | None,
                     timeseries_path: str | None, switch_names: tuple[str, ...], class_name: str | None, port_name: str | None,
                     flows: int | None, load_text: str | None, flow_size_dist: str | None, fail_links: tuple[str, ...], no_watchdog: bool,
                     stall_text: str | None, transport: str | None, bandwidth: str, rtt: str, buffer_text: str, ecn_threshold: str | None, red_min: str | None,
                     red_max: str | None, red_pmax: str | None, packet_text: str | None, flow_size: str | None, beta: float, window_r: float,
                     rto_min: str | None, duration: str | None, warmup: str | None, seed: int, assumptions: tuple[str, ...], output_format: str,
                     plot_path: str | None, hosts_path: str | None = None, **serve_params: Any) -> None:
    """Run a scenario on the bundled software switch and report queue, goodput, marks and drops.

    \b
    Examples:
      qosforge simulate --scenario dumbbell --flows 10 --transport dctcp --speed 10G \\
          --rtt 100us --ecn-threshold 65pkt --queue-limit 1000pkt --duration 0.3s --warmup 0.1s --format json
      qosforge simulate examples/tlt-softswitch.yaml --scenario incast --flows 500 --duration 20ms --warmup 0s
      qosforge simulate examples/roce-pod.yaml --scenario pause-storm --assume red.steps=1024 --assume red.step_offset=0
      qosforge simulate examples/roce-pod.yaml --scenario deadlock --fail-link leaf1-spine1 --fail-link leaf2-spine2 --no-watchdog
    """
    from qosforge.softswitch.metrics import summary
    from qosforge.softswitch.simulation import simulate

    if traffic_path is not None:
        if scenario is not None:
            raise QosforgeError("the traffic file is the scenario", place="--scenario", hint="drop --scenario, or drop --traffic")
        _refuse_flags_the_scenario_ignores("traffic")
        serve_settings(serve_params, "traffic")
        from qosforge.cli.simulate_traffic import TrafficOptions, emit_traffic, run_traffic

        options = TrafficOptions(intent=intent, traffic=traffic_path, switches=switch_names, measure=measure_text,
                                 duration_s=_parse("--duration", parse_time_s, duration), sample_s=_parse("--sample", parse_time_s, sample_text),
                                 seed=seed, rto_min_s=_parse("--rto-min", parse_time_s, rto_min), assume=_assumptions(assumptions),
                                 timeseries=timeseries_path, plot=plot_path)
        emit_traffic(run_traffic(options), output_format)
        return
    if scenario is None:
        raise QosforgeError("nothing to simulate", place="--scenario", hint="give --scenario (dumbbell, incast, fabric-incast, all-to-all, pause-storm, deadlock) or --traffic FILE")
    if plot_path is not None:
        from qosforge.files import PLOT_SUFFIXES, check_output_file

        check_output_file(Path(plot_path), flag="--plot", suffixes=PLOT_SUFFIXES)
    packet = _parse("--packet", parse_size_bytes, packet_text or "1500B")
    if packet != int(packet) or not 64 <= packet <= MAX_PACKET_BYTES:
        raise QosforgeError(f"{packet_text!r} is not a whole frame of 64 to {MAX_PACKET_BYTES} bytes", place="--packet", hint="e.g. 1500B")
    if flows is not None and not 1 <= flows <= MAX_FLOWS:
        raise QosforgeError(f"must be 1 to {MAX_FLOWS:,} (got {flows:,})", place="--flows",
                            hint=f"the engine keeps ~3 kB per flow; above {MAX_FLOWS:,} flows memory, not the model, is the limit")
    rto_min_s = _parse("--rto-min", parse_time_s, rto_min)
    _refuse_flags_the_scenario_ignores(scenario)
    serve = serve_settings(serve_params, scenario)
    if scenario in FABRIC_SCENARIOS:
        _fabric_command(intent, scenario, switch_names, class_name, port_name, flows, transport, int(packet) if packet_text else None, flow_size, load_text, flow_size_dist,
                        stall_text, duration, warmup, seed, rto_min_s, _assumptions(assumptions), output_format, plot_path, serve,
                        fail_links=fail_links, watchdog=not no_watchdog)
        return
    duration_s = _parse("--duration", parse_time_s, duration or "0.3s")
    # The default warm-up is a third of the run, at most 0.1 s (0.1 s of the default 0.3 s): a
    # short --duration no longer fails on a warm-up the user never typed.
    warmup_s = _parse("--warmup", parse_time_s, warmup, allow_zero=True) if warmup is not None else min(0.1, duration_s / 3.0)
    flows = 10 if flows is None else flows
    if len(switch_names) > 1:
        raise QosforgeError(f"{scenario} runs on one switch (got {len(switch_names)})", place="--switch", hint="name one switch, or use a fabric scenario")
    switch_name = switch_names[0] if switch_names else None
    # A flow's size is its payload, as in the fabric scenarios: whole packets, then the remainder
    # in a shorter last one (softswitch/traffic/spec.py packets_for_payload).
    flow_size_bytes = None if flow_size is None else max(1, int(_parse("--flow-size", parse_size_bytes, flow_size, packet_bytes=packet)))
    from qosforge.models.tbtcp import BETA_MAX

    if not 0 < beta < BETA_MAX or window_r < 1:
        raise QosforgeError(f"beta must be in (0, {BETA_MAX:g}) and r >= 1", place="--r" if 0 < beta < BETA_MAX else "--beta",
                            hint="TBTCP uses beta 0.1 (RAI per RTT, beta = 1/m < 0.5, TBTCP §3.2, §5) and r 4")
    if scenario == "dumbbell":
        if intent is not None:
            raise QosforgeError("the dumbbell is configured by flags only", place="INTENT", hint="drop the intent file, or use --scenario incast")
        if transport is None:
            raise QosforgeError("the dumbbell needs a transport", place="--transport", hint="e.g. --transport dctcp")
        if transport != "tbtcp":
            # RAI's beta and QCD's r are TBTCP's host parameters (TBTCP §4.3, §6.2); no other transport reads them.
            for parameter, flag in (("beta", "--beta"), ("window_r", "--r")):
                if _typed(click.get_current_context(), parameter):
                    raise QosforgeError(f"applies to --transport tbtcp, not {transport}", place=flag, hint=f"drop {flag}, or use --transport tbtcp")
        if transport in ("dctcp", "tcp-ecn", "tbtcp", "dcqcn") and ecn_threshold is None and red_min is None and red_max is None:
            # Without a marking threshold the queue never marks and the run is loss-based TCP.
            raise QosforgeError(f"{transport} reacts to ECN marks, but the bottleneck marks nothing", place="--ecn-threshold",
                                hint="give --ecn-threshold K (e.g. 65pkt, DCTCP §3.4) or a RED curve with --red-min/--red-max/--red-pmax")
        from qosforge.softswitch.scenarios import DumbbellSpec, dumbbell

        spec = DumbbellSpec(
            flows=flows, transport=_TRANSPORTS[transport],
            bandwidth_bps=_parse("--speed", parse_rate_bps, bandwidth), rtt_s=_parse("--rtt", parse_time_s, rtt),
            buffer_bytes=_parse("--queue-limit", parse_size_bytes, buffer_text, packet_bytes=packet), packet_bytes=int(packet),
            ecn_threshold_bytes=_parse("--ecn-threshold", parse_size_bytes, ecn_threshold, packet_bytes=packet),
            red_min_bytes=_parse("--red-min", parse_size_bytes, red_min, packet_bytes=packet, allow_zero=True),
            red_max_bytes=_parse("--red-max", parse_size_bytes, red_max, packet_bytes=packet),
            red_pmax=_percent_as_fraction(_parse("--red-pmax", parse_percent, red_pmax)), duration_s=duration_s, warmup_s=warmup_s, seed=seed,
            tbtcp_beta=beta, tbtcp_r=window_r, rto_min_s=rto_min_s,
        )
        line_rate_bps = spec.bandwidth_bps
        config, flow_specs, run = dumbbell(spec)
        if flow_size_bytes is not None:
            from dataclasses import replace

            from qosforge.softswitch.traffic.spec import HEADER_BYTES, packets_for_payload

            size_packets, last_bytes = packets_for_payload(flow_size_bytes, int(packet), HEADER_BYTES[spec.transport])
            flow_specs = tuple(replace(f, size_packets=size_packets, last_packet_bytes=last_bytes) for f in flow_specs)
        header: dict[str, Any] = {"scenario": "dumbbell", "flows": flows, "transport": _TRANSPORTS[transport], "bandwidth_bps": spec.bandwidth_bps,
                                  "rtt_s": spec.rtt_s, "buffer_bytes": spec.buffer_bytes, "ecn_threshold_bytes": spec.ecn_threshold_bytes,
                                  "red": None if spec.red_min_bytes is None else {"min_bytes": spec.red_min_bytes, "max_bytes": spec.red_max_bytes,
                                                                                   "pmax_percent": 100.0 * spec.red_pmax if spec.red_pmax is not None else None},
                                  "approximations": []}
    else:
        if intent is None:
            raise QosforgeError("incast runs on a compiled intent", place="INTENT", hint="e.g. qosforge simulate examples/tlt-softswitch.yaml --scenario incast")
        config, flow_specs, run, header, line_rate_bps, switch_ir = _incast(Path(intent), switch_name, class_name, port_name, flows, transport, flow_size_bytes,
                                                                            int(packet) if packet_text else None, duration_s, warmup_s, seed, rto_min_s,
                                                                            _assumptions(assumptions))
        if hosts_path is not None:
            from dataclasses import replace as _replace

            from qosforge.backends.host.document import load_host_document
            from qosforge.softswitch.helper.hosts import apply_host_settings

            document = load_host_document(Path(hosts_path))
            flow_specs, transport_params = apply_host_settings(document, config, flow_specs, run.transport)
            run = _replace(run, transport=transport_params)
            header["hosts"] = {"file": hosts_path, "host_kind": document.host_kind,
                               "host_priorities": sorted({f.host_priority for f in flow_specs if f.host_priority is not None})}
        packet = header["packet_bytes"]
    check_work(duration_s, line_rate_bps, int(packet))
    from qosforge.softswitch.randomness import seed_matters

    if not (seed_effective := seed_matters(config, flow_specs)) and typed_by_operator("seed"):
        click.echo("note: --seed has no effect on this run: it has no RED/ECN ramp and no Poisson source, so every seed gives the same result", err=True)
    from qosforge.cli.progress import announce, progress

    if _kernel_needs_compiling():
        announce("compiling the software switch's kernel once (numba; about 1-2 minutes on 2 cores, cached for later runs)")
    if serve is not None:
        from qosforge.softswitch.device.live import Scenario
        from qosforge.softswitch.engine.build import single_switch

        result = serve.run(Scenario((config,), single_switch(len(config.ports)), flow_specs, run), (switch_ir,))
    else:
        with progress(f"simulating {format_value(duration_s, 's')} of {header['scenario']}", total=None):
            result = simulate(config, flow_specs, run)
    report = {**header, "duration_s": duration_s, "warmup_s": warmup_s, "seed": seed, "seed_effective": seed_effective, **summary(result)}
    report["wire_gbps"] = _without_boundary_packet(report["wire_gbps"], line_rate_bps, int(packet), duration_s - warmup_s)
    if plot_path is not None:
        _plot(Path(plot_path), result, f"{header['scenario']}: {header['transport']}, {flows} flows",
              labels=tuple(config.ports[port].name for port, _ in run.monitors))
    _emit(report, output_format)


_ALL = ("dumbbell", "incast", *FABRIC_SCENARIOS)
_COMPILED = ("incast", *FABRIC_SCENARIOS)
#: ``--traffic``: the file says what each flow is, so only these flags (and INTENT) apply.
_TRAFFIC = ("traffic",)
_DUMBBELL = ("dumbbell",)
#: Which scenarios read each flag (click parameter name -> flag, scenarios): the one table a typed
#: flag is checked against, so a flag a scenario would ignore is refused (README "A flag the
#: scenario would ignore is refused") and the hint names only scenarios that really read it. The
#: incast and fabric scenarios take link rates, RTTs, queues, WRED/ECN and TBTCP's beta/r from the
#: compiled intent, so the dumbbell's flags for them are refused there.
_FLAG_SCENARIOS: dict[str, tuple[str, tuple[str, ...]]] = {
    "switch_names": ("--switch", (*_COMPILED, *_TRAFFIC)),
    "measure_text": ("--measure", _TRAFFIC),
    "sample_text": ("--sample", _TRAFFIC),
    "timeseries_path": ("--timeseries", _TRAFFIC),
    "warmup": ("--warmup", _ALL),
    "transport": ("--transport", _ALL),
    "packet_text": ("--packet", _ALL),
    "class_name": ("--class", _COMPILED),
    "port_name": ("--port", ("incast", "fabric-incast", "pause-storm")),
    "flows": ("--flows", ("dumbbell", "incast", "fabric-incast", "pause-storm", "deadlock")),
    "fail_links": ("--fail-link", ("deadlock",)),
    "no_watchdog": ("--no-watchdog", ("deadlock",)),
    "load_text": ("--load", ("all-to-all",)),
    "flow_size_dist": ("--flow-size-dist", ("all-to-all",)),
    "stall_text": ("--stall", ("pause-storm",)),
    "bandwidth": ("--speed", _DUMBBELL),
    "rtt": ("--rtt", _DUMBBELL),
    "buffer_text": ("--queue-limit", _DUMBBELL),
    "ecn_threshold": ("--ecn-threshold", _DUMBBELL),
    "red_min": ("--red-min", _DUMBBELL),
    "red_max": ("--red-max", _DUMBBELL),
    "red_pmax": ("--red-pmax", _DUMBBELL),
    "flow_size": ("--flow-size", ("dumbbell", "incast", "fabric-incast", "pause-storm")),
    "beta": ("--beta", _DUMBBELL),
    "window_r": ("--r", _DUMBBELL),
    "assumptions": ("--assume", (*_COMPILED, *_TRAFFIC)),
    "hosts_path": ("--hosts", ("incast",)),
}
#: Why a flag is not read, where the table alone would not say what to do instead.
_INSTEAD = {
    ("warmup", "traffic"): "statistics cover --measure START:END",
    ("transport", "traffic"): "give transport: per entry of the traffic file",
    ("packet_text", "traffic"): "a flow's frames are its class's: the intent's lossless MTU, else 1500 B",
    ("flows", "traffic"): "the traffic file lists the flows (count:, pairing:)",
    ("flow_size", "traffic"): "give size: per entry of the traffic file",
    ("class_name", "traffic"): "give class: per entry of the traffic file",
    ("port_name", "traffic"): "give src: and dst: per entry of the traffic file",
    ("flows", "all-to-all"): "all-to-all's flows arrive at --load",
    ("flow_size", "all-to-all"): "all-to-all draws sizes from --flow-size-dist",
    **{(name, scenario): "the compiled intent sets it" for name in ("bandwidth", "rtt", "buffer_text", "ecn_threshold", "red_min", "red_max",
                                                                    "red_pmax", "beta", "window_r") for scenario in _COMPILED},
}


def _typed(context: click.Context, parameter: str) -> bool:
    """Typed on the command line (or its old name was). A sweep point carries every default on its
    argv (campaigns/flags.py), so there only a value other than the default counts as typed."""
    names = [parameter, *(rename.alias_dest for rename in _RENAMES if rename.dest == parameter)]
    for name in names:
        if context.get_parameter_source(name) != ParameterSource.COMMANDLINE:
            continue
        if not isinstance(context.find_root().obj, CampaignPoint):
            return True
        option = next(p for p in context.command.params if p.name == parameter)
        value = context.params.get(name)
        if value not in (option.default, () if option.multiple else None):
            return True
    return False


def _refuse_flags_the_scenario_ignores(scenario: str) -> None:
    """Refuse a flag the user typed (not its ``--help`` default) that ``scenario`` does not read."""
    context = click.get_current_context()
    for parameter, (flag, scenarios) in _FLAG_SCENARIOS.items():
        if scenario not in scenarios and _typed(context, parameter):
            instead = _INSTEAD.get((parameter, scenario))
            raise QosforgeError(f"applies to {', '.join(scenarios)}, not {scenario}", place=flag,
                                hint=f"drop {flag}" + (f" ({instead})" if instead else ""))


def _fabric_command(intent: str | None, scenario: str, switch_names: tuple[str, ...], class_name: str | None, port_name: str | None,
                    flows: int | None, transport: str | None, packet: int | None, flow_size: str | None, load_text: str | None, flow_size_dist: str | None,
                    stall_text: str | None, duration: str | None, warmup: str | None, seed: int, rto_min_s: float | None,
                    assume: dict[str, str], output_format: str, plot_path: str | None, serve: ServeOptions | None, *,
                    fail_links: tuple[str, ...] = (), watchdog: bool = True) -> None:
    from qosforge.cli.simulate_fabric import FabricOptions, run_fabric
    from qosforge.softswitch.metrics import summary

    size = _parse("--flow-size", parse_size_bytes, flow_size, packet_bytes=packet or 1500)
    options = FabricOptions(
        intent=intent, scenario=scenario, switches=switch_names, class_name=class_name, port_name=port_name, flows=flows,
        transport=_TRANSPORTS[transport] if transport else None, packet_bytes=packet, flow_size_bytes=None if size is None else max(1, int(size)),
        load=_parse("--load", parse_fraction, load_text), flow_size_dist=flow_size_dist or "web-search", stall_s=_parse("--stall", parse_time_s, stall_text),
        duration_s=_parse("--duration", parse_time_s, duration), warmup_s=_parse("--warmup", parse_time_s, warmup, allow_zero=True), seed=seed,
        rto_min_s=rto_min_s, assume=assume, serve=serve, fail_links=fail_links, watchdog=watchdog,
    )
    result, fabric_keys, header, duration_s, warmup_s = run_fabric(options)
    seed_effective = bool(fabric_keys.pop("seed_effective"))
    if not seed_effective and typed_by_operator("seed"):
        click.echo("note: --seed has no effect on this run: it has no ECMP choice, no RED/ECN ramp and no Poisson arrivals, "
                   "so every seed gives the same result", err=True)
    report = {**header, "duration_s": duration_s, "warmup_s": warmup_s, "seed": seed, "seed_effective": seed_effective,
              **summary(result), **fabric_keys}
    if plot_path is not None:
        _plot(Path(plot_path), result, f"{scenario}: {header['transport']}, {header['flows']} flows", labels=(header["monitored_port"],),
              throughput=report.get("throughput_timeline"))
    _emit(report, output_format)


def _emit(report: dict[str, Any], output_format: str) -> None:
    if output_format == "json":
        from qosforge.presentation import tidy

        click.echo(json.dumps(tidy(report), indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"qosforge simulate {report['scenario']}", show_header=True)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in report.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            text = f"{len(value)} entries (per switch and port: --format json)"
        elif key == "waiting_buffers" and len(value) > 3:
            text = f"{len(value)}: {', '.join(value[:3])}, ... (--format json)"
        elif key == "throughput_timeline":
            text = f"{len(value['gbps'])} points, one every {format_value(value['interval_s'], 's')} (--format json)"
        elif key == "notes":
            continue  # printed in full under the table
        else:
            text = f"{value:.6g}" if isinstance(value, float) else json.dumps(value) if isinstance(value, (dict, list)) else str(value)
        table.add_row(key, text)
    Console(highlight=False, markup=False).print(table)
    for note in report.get("notes", ()):
        click.echo(f"note: {note}")


def _incast(intent: Path, switch_name: str | None, class_name: str | None, port_name: str | None, flows: int, transport: str | None,
            flow_size_bytes: int | None, packet_bytes: int | None, duration_s: float, warmup_s: float, seed: int, rto_min_s: float | None,
            assume: dict[str, str]) -> tuple[Any, Any, Any, dict[str, Any], float, Any]:
    """One switch of the intent, ``flows`` flows into one port (softswitch/helper/intent_incast.py)."""
    from qosforge.softswitch.helper.compiled import class_chosen_by
    from qosforge.softswitch.helper.intent_incast import intent_incast

    built = intent_incast(intent, switch_name, class_name, port_name, flows, _TRANSPORTS[transport] if transport else None, flow_size_bytes,
                          packet_bytes, duration_s, warmup_s, seed, rto_min_s, assume)
    compiled, config = built.compiled, built.compiled.config
    header = {"scenario": "incast", "intent": str(intent), "switch": compiled.ir.name, "class": built.entry.name,
              "class_chosen_by": class_chosen_by(class_name), "transport": built.kind,
              "receiver_port": config.ports[built.receiver].name, "queue": built.queue, "flows": flows, "packet_bytes": built.packet_bytes,
              "flow_size_bytes": flow_size_bytes, "vendor_profile": config.asic.name,
              "approximations": announce_approximations((compiled.ir,), (config.asic,))}
    return config, built.flows, built.run, header, config.ports[built.receiver].speed_bps, compiled.ir


def check_work(duration_s: float, line_rate_bps: float, packet_bytes: int) -> None:
    """Refuse runs that would not finish in reasonable time (the bound is stated in the error)."""
    packets = duration_s * line_rate_bps / (8 * packet_bytes)
    if packets > MAX_LINE_RATE_PACKETS:
        longest = MAX_LINE_RATE_PACKETS * 8 * packet_bytes / line_rate_bps
        raise QosforgeError(
            f"{format_value(duration_s, 's')} at {format_value(line_rate_bps, 'bps')} is {packets:,.0f} packets of {packet_bytes} B, "
            f"more than the {MAX_LINE_RATE_PACKETS:,} a run may simulate",
            place="--duration",
            hint=f"simulate at most {format_value(longest, 's')} at this rate; steady state is usually reached within a few hundred RTTs",
        )


def _kernel_needs_compiling() -> bool:
    """Whether numba still has to compile the engine (no cache for the current sources)."""
    from qosforge.softswitch import engine

    cache = Path(engine.__file__).parent / "__pycache__"
    try:
        fresh = (cache / "engine.digest").read_text() == engine.engine_digest()
    except (OSError, AttributeError):
        return False  # an engine without this cache layout: nothing to announce
    return not fresh or not any(cache.glob("*.nbi"))


__all__ = ["simulate_command"]
