"""What the one-switch scenarios (dumbbell, incast) share: the run's length, the flows' size, and
running the built switch and reporting it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qosforge.api.simulation import (
    PlotData,
    ScenarioInput,
    SimulationOutcome,
    check_work,
)
from qosforge.errors import QosforgeError
from qosforge.units import format_value, parse_flag, parse_size_bytes, parse_time_s

if TYPE_CHECKING:
    from qosforge.ir import SwitchIR
    from qosforge.softswitch.config import SwitchConfig
    from qosforge.softswitch.traffic.spec import FlowSpec, RunSpec


@dataclass(frozen=True)
class SingleRun:
    duration_s: float
    warmup_s: float
    flows: int
    switch_name: str | None
    flow_size_bytes: int | None


def prepare(inp: ScenarioInput) -> SingleRun:
    request = inp.request
    duration_s = parse_flag("--duration", parse_time_s, request.duration or "0.3s")
    # The default warm-up is a third of the run, at most 0.1 s (0.1 s of the default 0.3 s): a
    # short --duration no longer fails on a warm-up the user never typed.
    warmup_s = parse_flag("--warmup", parse_time_s, request.warmup, allow_zero=True) if request.warmup is not None else min(0.1, duration_s / 3.0)
    flows = 10 if request.flows is None else request.flows
    if len(request.switch_names) > 1:
        raise QosforgeError(f"{request.scenario} runs on one switch (got {len(request.switch_names)})", place="--switch",
                            hint="name one switch, or use a fabric scenario")
    # A flow's size is its payload, as in the fabric scenarios: whole packets, then the remainder
    # in a shorter last one (softswitch/traffic/spec.py packets_for_payload).
    flow_size_bytes = None if request.flow_size is None else max(1, int(parse_flag("--flow-size", parse_size_bytes, request.flow_size,
                                                                                      packet_bytes=inp.packet_bytes)))
    from qosforge.models.tbtcp import BETA_MAX

    if not 0 < request.beta < BETA_MAX or request.window_r < 1:
        raise QosforgeError(f"beta must be in (0, {BETA_MAX:g}) and r >= 1", place="--r" if 0 < request.beta < BETA_MAX else "--beta",
                            hint="TBTCP uses beta 0.1 (RAI per RTT, beta = 1/m < 0.5, TBTCP §3.2, §5) and r 4")
    return SingleRun(duration_s, warmup_s, flows, request.switch_names[0] if request.switch_names else None, flow_size_bytes)


def without_boundary_packet(wire_gbps: float, line_rate_bps: float, packet_bytes: int, measured_s: float) -> float:
    """The receiver's wire rate, never above its link's: a packet delivered just after the warm-up
    began serialising before it, so counting it whole can exceed the line rate by up to one
    packet per measured window (10.00002 Gbps on a 10G link); that excess is the boundary packet's
    part from before the measurement, not traffic. ``wire_gbps`` counts line time, so one packet
    is its frame's line time (models/ethernet.py wire_bytes)."""
    from qosforge.models.ethernet import wire_bytes

    excess_bps = wire_gbps * 1e9 - line_rate_bps
    boundary_bps = wire_bytes(packet_bytes, True) * 8.0 / measured_s
    return line_rate_bps / 1e9 if 0.0 < excess_bps <= boundary_bps else wire_gbps


def run_single(inp: ScenarioInput, single: SingleRun, config: SwitchConfig, flow_specs: tuple[FlowSpec, ...], run: RunSpec,
               header: dict[str, Any], line_rate_bps: float, packet: int, switch_ir: SwitchIR | None) -> SimulationOutcome:
    """Simulate the built switch (or serve it over gNMI while it runs) and report it."""
    from qosforge.softswitch.metrics import summary
    from qosforge.softswitch.randomness import seed_matters
    from qosforge.softswitch.simulation import simulate

    request, reporter = inp.request, inp.reporter
    check_work(single.duration_s, line_rate_bps, packet)
    if not (seed_effective := seed_matters(config, flow_specs)) and "seed" in request.operator_typed:
        reporter.note("note: --seed has no effect on this run: it has no RED/ECN ramp and no Poisson source, so every seed gives the same result")
    reporter.engine_starting()
    if inp.serve is not None:
        from qosforge.softswitch.device.live import Scenario
        from qosforge.softswitch.engine.build import single_switch

        # The dumbbell (no compiled switch) declares itself not served (Scenario.not_served),
        # so serve_settings refused --serve-gnmi before the run was built.
        if switch_ir is None:
            raise AssertionError("a run without a compiled switch reached --serve-gnmi")
        result = inp.serve.run(Scenario((config,), single_switch(len(config.ports)), flow_specs, run), (switch_ir,))
    else:
        with reporter.progress(f"simulating {format_value(single.duration_s, 's')} of {header['scenario']}"):
            result = simulate(config, flow_specs, run)
    report = {**header, "duration_s": single.duration_s, "warmup_s": single.warmup_s, "seed": request.seed, "seed_effective": seed_effective,
              **summary(result)}
    report["wire_gbps"] = without_boundary_packet(report["wire_gbps"], line_rate_bps, packet, single.duration_s - single.warmup_s)
    from qosforge.softswitch.helper.class_report import flow_ect, switch_class_drops

    if switch_ir is not None:
        report["drops_by_class"] = switch_class_drops(result, switch_ir, config, 0)
    report["flow_ect"] = flow_ect(flow_specs)
    plot = PlotData(f"{header['scenario']}: {header['transport']}, {single.flows} flows", tuple(config.ports[port].name for port, _ in run.monitors))
    return SimulationOutcome(report, result, plot)


__all__ = ["SingleRun", "prepare", "run_single", "without_boundary_packet"]
