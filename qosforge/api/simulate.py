"""``simulate``: one run of the software switch, as a typed request and its outcome.

The request holds every ``qosforge simulate`` flag as the user gave it (text with units, parsed
here with qosforge.units so an error names the flag), which of them were typed, and the scenario;
:func:`simulate` checks what every scenario shares, refuses a typed flag the scenario does not
read (the registry's table, :mod:`qosforge.api.scenarios`), and runs the scenario's builder. The
outcome is the report (the keys ``--format json`` prints) and what ``--plot`` draws; rendering
it is the CLI's (qosforge/cli/simulate.py). The request and outcome types live in
:mod:`qosforge.api.simulation`, below this module and the scenarios, and are exported here too.
"""

from __future__ import annotations

from pathlib import Path

from qosforge.api.reporting import Reporter
from qosforge.api.scenarios import SCENARIOS, TRAFFIC, refuse_unread
from qosforge.api.simulation import (
    MAX_LINE_RATE_PACKETS,
    MAX_PACKET_BYTES,
    PlotData,
    ScenarioInput,
    SimulateRequest,
    SimulationOutcome,
    assumptions,
    check_work,
)
from qosforge.errors import QosforgeError
from qosforge.softswitch.traffic.spec import MAX_FLOWS, MAX_SEED
from qosforge.units import parse_flag, parse_rto_min_s, parse_size_bytes


def engine_needs_compiling() -> bool:
    """Whether numba still has to compile the engine (no cache for the current sources), so a
    caller can say a first run takes minutes."""
    from qosforge.softswitch import engine

    cache = Path(engine.__file__).parent / "__pycache__"
    try:
        fresh = (cache / "engine.digest").read_text() == engine.engine_digest()
    except (OSError, AttributeError):
        return False  # an engine without this cache layout: nothing to announce
    return not fresh or not any(cache.glob("*.nbi"))


def simulate(request: SimulateRequest, reporter: Reporter) -> SimulationOutcome:
    """Check the request, refuse flags its scenario ignores, and run the scenario."""
    if request.traffic_path is not None:
        if request.scenario is not None:
            raise QosforgeError("the traffic file is the scenario", place="--scenario", hint="drop --scenario, or drop --traffic")
        refuse_unread(TRAFFIC, request.typed)
        serve = request.serve(TRAFFIC.name) if request.serve is not None else None
        # The traffic run parses --rto-min itself, after --duration and --sample, as it always has.
        return TRAFFIC.run(ScenarioInput(request, reporter, 1500.0, None, serve))
    if request.scenario is None:
        names = ", ".join(name for name, scenario in SCENARIOS.items() if scenario.selectable)
        raise QosforgeError("nothing to simulate", place="--scenario", hint=f"give --scenario ({names}) or --traffic FILE")
    scenario = SCENARIOS[request.scenario]
    if request.plot_path is not None:
        from qosforge.files import PLOT_SUFFIXES, check_output_file

        check_output_file(Path(request.plot_path), flag="--plot", suffixes=PLOT_SUFFIXES)
    packet = parse_flag("--packet", parse_size_bytes, request.packet_text or "1500B")
    if packet != int(packet) or not 64 <= packet <= MAX_PACKET_BYTES:
        raise QosforgeError(f"{request.packet_text!r} is not a whole frame of 64 to {MAX_PACKET_BYTES} bytes", place="--packet", hint="e.g. 1500B")
    if request.flows is not None and not 1 <= request.flows <= MAX_FLOWS:
        raise QosforgeError(f"must be 1 to {MAX_FLOWS:,} (got {request.flows:,})", place="--flows",
                            hint=f"the engine keeps ~3 kB per flow; above {MAX_FLOWS:,} flows memory, not the model, is the limit")
    rto_min_s = parse_flag("--rto-min", parse_rto_min_s, request.rto_min)
    refuse_unread(scenario, request.typed)
    serve = request.serve(scenario.name) if request.serve is not None else None
    return scenario.run(ScenarioInput(request, reporter, packet, rto_min_s, serve))


__all__ = [
    "MAX_LINE_RATE_PACKETS",
    "MAX_PACKET_BYTES",
    "MAX_SEED",
    "PlotData",
    "ScenarioInput",
    "SimulateRequest",
    "SimulationOutcome",
    "assumptions",
    "check_work",
    "engine_needs_compiling",
    "simulate",
]
