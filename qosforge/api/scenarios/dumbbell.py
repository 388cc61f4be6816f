"""``--scenario dumbbell``: N flows over one bottleneck, configured by flags only so its numbers
can be compared with other simulators (softswitch/helper/single_switch.py ``dumbbell``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qosforge.api.scenarios._framework import Scenario
from qosforge.api.scenarios._single import prepare, run_single
from qosforge.api.scenarios.flags import TRANSPORTS
from qosforge.api.simulation import ScenarioInput, SimulationOutcome
from qosforge.errors import QosforgeError
from qosforge.units import parse_flag, parse_percent, parse_rate_bps, parse_size_bytes, parse_time_s

if TYPE_CHECKING:
    from qosforge.softswitch.traffic.spec import FlowSpec, TransportParams


def _percent_as_fraction(percent: float | None) -> float | None:
    """The engine's RED takes P_max as a probability; the flag and the JSON show it in percent."""
    return None if percent is None else percent / 100.0


def _host_tcp(flows: tuple[FlowSpec, ...], transport: TransportParams, *,
              rto_min_flag: bool) -> list[dict[str, object]]:
    """What the dumbbell's TCP senders ran (the report's ``host_tcp``, as the fabric scenarios
    give it): no intent states their hosts, so the flags and the engine's defaults do."""
    from qosforge.softswitch.helper.host_model import HostModel
    from qosforge.softswitch.traffic.spec import WINDOW_KINDS

    window = [flow for flow in flows if flow.kind in WINDOW_KINDS]
    if not window:
        return []
    flow = window[0]
    sources = {
        "congestion_control": "--transport",
        "ecn": "--transport",
        "rto_min": "--rto-min" if rto_min_flag else (
            "the dumbbell's default: one jiffy at HZ=250, Linux's lowest (TLT §2.1); "
            "--rto-min to change"),
        "initial_window": "TCP_INIT_CWND (include/net/tcp.h; RFC 6928)",
    }
    rto_min_s = transport.rto_min_s if flow.rto_min_s is None else flow.rto_min_s
    initial = transport.initial_window if flow.initial_window is None else flow.initial_window
    return [HostModel("dumbbell", flow.kind, flow.kind, flow.ect, rto_min_s, initial,
                      sources).as_json()]


def run(inp: ScenarioInput) -> SimulationOutcome:
    request = inp.request
    single = prepare(inp)
    packet = inp.packet_bytes
    transport = request.transport
    if request.intent is not None:
        raise QosforgeError("the dumbbell is configured by flags only", place="INTENT", hint="drop the intent file, or use --scenario incast")
    if transport is None:
        raise QosforgeError("the dumbbell needs a transport", place="--transport", hint="e.g. --transport dctcp")
    if transport != "tbtcp":
        # RAI's beta and QCD's r are TBTCP's host parameters (TBTCP §4.3, §6.2); no other transport reads them.
        for parameter, flag in (("beta", "--beta"), ("window_r", "--r")):
            if parameter in request.typed:
                raise QosforgeError(f"applies to --transport tbtcp, not {transport}", place=flag, hint=f"drop {flag}, or use --transport tbtcp")
    if transport in ("dctcp", "tcp-ecn", "tbtcp", "dcqcn") and request.ecn_threshold is None and request.red_min is None and request.red_max is None:
        # Without a marking threshold the queue never marks and the run is loss-based TCP.
        raise QosforgeError(f"{transport} reacts to ECN marks, but the bottleneck marks nothing", place="--ecn-threshold",
                            hint="give --ecn-threshold K (e.g. 65pkt, DCTCP §3.4) or a RED curve with --red-min/--red-max/--red-pmax")
    from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell

    spec = DumbbellSpec(
        flows=single.flows, transport=TRANSPORTS[transport],
        bandwidth_bps=parse_flag("--speed", parse_rate_bps, request.bandwidth), rtt_s=parse_flag("--rtt", parse_time_s, request.rtt),
        buffer_bytes=parse_flag("--queue-limit", parse_size_bytes, request.buffer_text, packet_bytes=packet), packet_bytes=int(packet),
        ecn_threshold_bytes=parse_flag("--ecn-threshold", parse_size_bytes, request.ecn_threshold, packet_bytes=packet),
        red_min_bytes=parse_flag("--red-min", parse_size_bytes, request.red_min, packet_bytes=packet, allow_zero=True),
        red_max_bytes=parse_flag("--red-max", parse_size_bytes, request.red_max, packet_bytes=packet),
        red_pmax=_percent_as_fraction(parse_flag("--red-pmax", parse_percent, request.red_pmax)), duration_s=single.duration_s,
        warmup_s=single.warmup_s, seed=request.seed, tbtcp_beta=request.beta, tbtcp_r=request.window_r, rto_min_s=inp.rto_min_s,
    )
    config, flow_specs, run_spec = dumbbell(spec)
    if single.flow_size_bytes is not None:
        from dataclasses import replace

        from qosforge.softswitch.traffic.spec import HEADER_BYTES, packets_for_payload

        size_packets, last_bytes = packets_for_payload(single.flow_size_bytes, int(packet), HEADER_BYTES[spec.transport])
        flow_specs = tuple(replace(f, size_packets=size_packets, last_packet_bytes=last_bytes) for f in flow_specs)
    red = None if spec.red_min_bytes is None else {"min_bytes": spec.red_min_bytes, "max_bytes": spec.red_max_bytes,
                                                   "pmax_percent": 100.0 * spec.red_pmax if spec.red_pmax is not None else None}
    header: dict[str, Any] = {"scenario": "dumbbell", "flows": single.flows, "transport": TRANSPORTS[transport], "bandwidth_bps": spec.bandwidth_bps,
                              "rtt_s": spec.rtt_s, "buffer_bytes": spec.buffer_bytes, "ecn_threshold_bytes": spec.ecn_threshold_bytes,
                              "red": red, "approximations": [],
                              "host_tcp": _host_tcp(flow_specs, run_spec.transport,
                                                    rto_min_flag=inp.rto_min_s is not None)}
    return run_single(inp, single, config, flow_specs, run_spec, header, spec.bandwidth_bps, int(packet), None)


SCENARIO = Scenario(
    name="dumbbell",
    summary="`--flows` senders through one bottleneck link of `--speed`, `--rtt` and `--queue-limit`, marking at `--ecn-threshold` or a "
            "`--red-min`/`--red-max`/`--red-pmax` curve; no intent (flags only)",
    defaults="10 flows, 10G, 100us, 1000pkt, 0.3 s with a 0.1 s warm-up; `--transport` required",
    reads={"warmup": "a third of --duration, at most 0.1s", "transport": "required", "packet_text": "1500B", "flows": "10",
           "bandwidth": "10G", "rtt": "100us", "buffer_text": "1000pkt", "ecn_threshold": "none", "red_min": "none", "red_max": "none",
           "red_pmax": "none", "flow_size": "long-lived", "beta": "0.1 (tbtcp)", "window_r": "4 (tbtcp)"},
    run=run,
    not_served=("the dumbbell is configured by flags, not a compiled switch a target can serve",
                "serve an intent's switch: e.g. qosforge simulate examples/openconfig-fabric.yaml --scenario incast --serve-gnmi 127.0.0.1:50051 --insecure"),
    order=10,
    compiles_intent=False,
)
