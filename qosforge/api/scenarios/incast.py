"""``--scenario incast``: one switch of a compiled intent (intent -> SAI program -> switch),
``--flows`` senders into one port (softswitch/helper/intent_incast.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qosforge.api.scenarios._fabric import announce_approximations
from qosforge.api.scenarios._framework import Scenario
from qosforge.api.scenarios._single import prepare, run_single
from qosforge.api.scenarios.flags import COMPILED_INSTEAD, TRANSPORTS
from qosforge.api.simulation import ScenarioInput, SimulationOutcome, assumptions
from qosforge.errors import QosforgeError


def run(inp: ScenarioInput) -> SimulationOutcome:
    request = inp.request
    single = prepare(inp)
    if request.intent is None:
        raise QosforgeError("incast runs on a compiled intent", place="INTENT", hint="e.g. qosforge simulate examples/tlt-softswitch.yaml --scenario incast")
    from qosforge.softswitch.helper.compiled import class_chosen_by
    from qosforge.softswitch.helper.intent_incast import intent_incast

    intent = Path(request.intent)
    built = intent_incast(intent, single.switch_name, request.class_name, request.port_name, single.flows,
                          TRANSPORTS[request.transport] if request.transport else None,
                          single.flow_size_bytes, inp.packet_given, single.duration_s, single.warmup_s, request.seed, inp.rto_min_s,
                          assumptions(request.assumptions))
    compiled, config = built.compiled, built.compiled.config
    header: dict[str, Any] = {
        "scenario": "incast", "intent": str(intent), "switch": compiled.ir.name, "class": built.entry.name,
        "class_chosen_by": class_chosen_by(request.class_name), "transport": built.kind,
        "receiver_port": config.ports[built.receiver].name, "queue": built.queue, "flows": single.flows, "packet_bytes": built.packet_bytes,
        "flow_size_bytes": single.flow_size_bytes, "vendor_profile": config.asic.name,
        "approximations": announce_approximations(inp.reporter, (compiled.ir,), (config.asic,))}
    flow_specs, run_spec = built.flows, built.run
    if request.hosts_path is not None:
        from dataclasses import replace

        from qosforge.backends.host.document import load_host_document
        from qosforge.softswitch.helper.hosts import apply_host_settings

        document = load_host_document(Path(request.hosts_path))
        flow_specs, transport_params, hosts, tcp_hosts = apply_host_settings(
            document, config, flow_specs, run_spec.transport, transport_flag=request.transport is not None,
            rto_min_flag_s=inp.rto_min_s)
        run_spec = replace(run_spec, transport=transport_params, hosts=hosts)
        header["hosts"] = {"file": request.hosts_path, "host_kind": document.host_kind,
                           "host_priorities": sorted({f.host_priority for f in flow_specs
                                                      if f.host_priority is not None}),
                           "trust": hosts.nic.trust,
                           "pfc_priorities": sorted(hosts.nic.pfc_priorities),
                           # One class, one priority: every flow has the same DCQCN points.
                           **({"dcqcn_reaction_point": flow_specs[0].dcqcn_reaction_point,
                               "dcqcn_notification_point": flow_specs[0].dcqcn_notification_point}
                              if flow_specs and flow_specs[0].kind == "dcqcn" else {}),
                           # Each TCP class's Linux host and where each value came from.
                           **({"tcp": [model.as_json() for model in tcp_hosts]} if tcp_hosts else {})}
        if flow_specs:
            header["transport"] = flow_specs[0].kind
    else:
        from qosforge.softswitch.helper.host_kernel import apply_intent_hosts

        # The hosts the intent states (classes[].hosts, hosts, else Linux's), with sources.
        flow_specs, tcp_hosts = apply_intent_hosts(
            compiled.ir.classes, flow_specs, transport_flag=request.transport is not None,
            rto_min_flag_s=inp.rto_min_s)
        if tcp_hosts:
            header["hosts"] = {"tcp": [model.as_json() for model in tcp_hosts]}
    return run_single(inp, single, config, flow_specs, run_spec, header, config.ports[built.receiver].speed_bps, int(header["packet_bytes"]), compiled.ir)


SCENARIO = Scenario(
    name="incast",
    summary="`--flows` senders on one switch of INTENT (`--switch`) into one port (`--port`), in the class `--class`",
    defaults="10 flows, the first switch, class and port, 0.3 s with a 0.1 s warm-up",
    reads={"switch_names": "the first switch", "warmup": "a third of --duration, at most 0.1s", "transport": "the class's", "packet_text": "the class's frame",
           "class_name": "the first class", "port_name": "the first port", "flows": "10", "flow_size": "long-lived", "assumptions": "none",
           "hosts_path": "none"},
    run=run,
    order=20,
    instead=COMPILED_INSTEAD,
)
