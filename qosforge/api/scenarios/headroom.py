"""``--scenario headroom``: does a lossless class's PFC headroom hold what arrives after XOFF?

``--flows`` hosts send the lossless class into one port at line rate while each of them receives
port-MTU frames of the first lossy class, so every sender's priority group crosses XOFF and the
PAUSE waits behind a jumbo frame: the worst case SONiC's headroom formula sizes for
(softswitch/helper/headroom_incast.py). The report gives each sender's headroom watermark next to
its compiled xoff; with the compiled headroom no lossless frame is lost, and a headroom cut short
(a hand-edited profile pushed with ``--serve-gnmi``, or an intent with a smaller cable) drops.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from qosforge.api.scenarios._fabric import announce_approximations
from qosforge.api.scenarios._framework import Scenario
from qosforge.api.scenarios._single import prepare, run_single
from qosforge.api.scenarios.flags import COMPILED_INSTEAD
from qosforge.api.simulation import ScenarioInput, SimulationOutcome, assumptions
from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    from qosforge.softswitch.helper.headroom_incast import HeadroomIncast
    from qosforge.softswitch.metrics import SimulationResult


def run(inp: ScenarioInput) -> SimulationOutcome:
    request = inp.request
    if request.intent is None:
        raise QosforgeError("headroom runs on a compiled intent with a lossless class", place="INTENT",
                            hint="e.g. qosforge simulate examples/roce-pod.yaml --scenario headroom")
    from qosforge.softswitch.helper.headroom_incast import DEFAULT_SENDERS, headroom_incast

    single = prepare(inp)
    senders = DEFAULT_SENDERS if request.flows is None else request.flows
    built = headroom_incast(Path(request.intent), single.switch_name, request.class_name, request.port_name, senders,
                            duration_s=single.duration_s, seed=request.seed, assume=assumptions(request.assumptions))
    compiled, config = built.compiled, built.compiled.config
    header: dict[str, Any] = {
        "scenario": "headroom", "intent": request.intent, "switch": compiled.ir.name, "class": built.entry.name,
        "transport": "cbr (line rate, no congestion control)", "receiver_port": config.ports[built.receiver].name,
        "sender_ports": [config.ports[s].name for s in built.senders], "flows": senders,
        "packet_bytes": built.lossless_mtu_bytes, "reverse_frame_bytes": built.reverse_frame_bytes,
        "vendor_profile": config.asic.name,
        "approximations": announce_approximations(inp.reporter, (compiled.ir,), (config.asic,))}
    outcome = run_single(inp, single, config, built.flows, built.run, header, config.ports[built.receiver].speed_bps,
                         built.lossless_mtu_bytes, compiled.ir)
    from qosforge.softswitch.metrics import SimulationResult

    if isinstance(outcome.result, SimulationResult):
        # wire_gbps and goodput_gbps count every host, the port-MTU flows towards the senders too.
        from qosforge.models.ethernet import wire_bytes

        receiver, queue = built.run.monitors[0]  # the lossless class's queue at the receiver (headroom_incast)
        # On the wire: the queue holds the lossless datagrams only, each a frame with its preamble
        # and gap (models/ethernet.py), so a receiver link full of them is at its line rate.
        frame = built.lossless_mtu_bytes
        datagram_bytes = float(outcome.result.dequeued_bytes[receiver, queue])
        line_bytes = datagram_bytes * wire_bytes(frame) / frame
        received_bps = line_bytes * 8.0 / outcome.result.measured_s
        outcome.report["receiver_lossless_gbps"] = received_bps / 1e9
        outcome.report["headroom"] = _headroom_rows(built, outcome.result)
    return outcome


def _headroom_rows(built: HeadroomIncast, result: SimulationResult) -> list[dict[str, Any]]:
    """Per sender: the PG's peak headroom use (cells x cell size) against its profile's xoff."""
    config = built.compiled.config
    pg = built.entry.priority_group
    profiles = {p.object_id: p for p in config.profiles}
    rows = []
    for sender in built.senders:
        port = config.ports[sender]
        profile = profiles.get(port.pgs[pg].buffer_profile or "") if pg is not None else None
        used = int(result.pg_max_cells[sender, pg, 1] * config.asic.cell_bytes) if pg is not None else 0
        xoff = int(profile.xoff_bytes) if profile is not None else None
        rows.append({"port": port.name, "priority_group": pg, "headroom_watermark_bytes": used, "xoff_bytes": xoff,
                     "within_xoff": xoff is not None and used <= xoff})
    return rows


SCENARIO = Scenario(
    name="headroom",
    summary="`--flows` line-rate lossless senders on one switch of INTENT into one port (`--port`), each receiving port-MTU "
            "frames of the first lossy class, so every sender's PG crosses XOFF; reports each PG's headroom watermark "
            "against its xoff",
    defaults="8 senders, the first switch, lossless class and port, 0.3 s with a 0.1 s warm-up",
    reads={"switch_names": "the first switch", "warmup": "a third of --duration, at most 0.1s", "class_name": "the first lossless class",
           "port_name": "the first port", "flows": "8", "assumptions": "none"},
    run=run,
    order=25,
    instead=COMPILED_INSTEAD,
)
