"""Serve a running simulation over gNMI: one target per switch (gnmi_target.py), each on its own
port, all reading the one background run (live.py).

What each switch serves as its ``/qos``: its compiled IR rendered by the OpenConfig backend with
every named approximation accepted (docs/openconfig.md), since openconfig-qos cannot carry
colors, PFC or pools; those stay as the switch's SAI program configured them, and a Set changes
only what the document can say (openconfig_set.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import grpc

from qosforge.ir import SwitchIR
from qosforge.softswitch.device.gnmi_target import SetRejected, SwitchDevice, serve
from qosforge.softswitch.device.live import LiveSimulation, Scenario
from qosforge.softswitch.device.openconfig_set import apply_openconfig
from qosforge.softswitch.device.publish import FAMILIES, Publisher


@dataclass(frozen=True)
class Endpoint:
    switch: str
    port: int
    server: grpc.Server


@dataclass
class ServedSimulation:
    live: LiveSimulation
    endpoints: tuple[Endpoint, ...]
    devices: tuple[SwitchDevice, ...]

    def stop(self) -> None:
        for endpoint in self.endpoints:
            endpoint.server.stop(grace=0.5).wait()
        self.live.stop()


def openconfig_document(switch: SwitchIR) -> dict[str, Any]:
    """The switch's ``/qos`` as the OpenConfig backend renders it, approximations accepted.
    Rendered through ``render_fabric``, whose process-wide cache the compile of the same switch
    (or a served switch with the same plan) already filled: pyangbind takes ~0.1 CPU s a switch.
    The document is the device's own copy (a JSON round trip), as gNMI Set replaces it."""
    from qosforge.backends.openconfig.capabilities import APPROXIMATIONS, openconfig_view
    from qosforge.backends.openconfig.render import openconfig_to_json, render_fabric

    view = openconfig_view(switch, frozenset(a.name for a in APPROXIMATIONS))
    [(_view, rendered)] = render_fabric((view,))
    document: dict[str, Any] = json.loads(openconfig_to_json(rendered))
    return document


def queue_names(document: dict[str, Any]) -> dict[int, str]:
    """Queue index -> the name ``/qos/queues`` gives it."""
    qos = document.get("openconfig-qos:qos", {})
    return {int(q["config"]["queue-id"]): str(q["name"]) for q in qos.get("queues", {}).get("queue", []) if "queue-id" in q.get("config", {})}


def _validated(document: dict[str, Any]) -> None:
    from qosforge.backends.openconfig.model import ModelViolation, validate_openconfig

    try:
        validate_openconfig(document)
    except ModelViolation as violation:
        raise SetRejected(f"invalid openconfig-qos: {violation}") from None


def device_for(live: LiveSimulation, switch: SwitchIR) -> SwitchDevice:
    from qosforge.backends.openconfig.model import model_revision

    document = openconfig_document(switch)
    names = queue_names(document)
    name = switch.name

    def apply(current: dict[str, Any], new: dict[str, Any]) -> Any:
        _validated(new)
        return apply_openconfig(live.config(name), current, new)

    revision = model_revision()
    return SwitchDevice(switch=name, live=live, publishers={family: Publisher(family, names) for family in FAMILIES}, document=document,
                        apply=apply, model_version=revision.split("@", 1)[-1])


def serve_simulation(scenario: Scenario, switches: tuple[SwitchIR, ...], host: str, first_port: int, *,
                     server_credentials: grpc.ServerCredentials | None, credentials: tuple[str, str] | None) -> ServedSimulation:
    """Start the run and one gNMI server per switch: switch i on ``first_port + i`` (or, with
    ``first_port`` 0, on free ports). The run starts before the servers, so the first
    request finds counters."""
    live = LiveSimulation(scenario)
    devices = tuple(device_for(live, ir) for ir in switches)
    live.start()
    endpoints: list[Endpoint] = []
    try:
        for index, device in enumerate(devices):
            address = f"[{host}]:{first_port + index if first_port else 0}" if ":" in host else f"{host}:{first_port + index if first_port else 0}"
            server, port = serve(device, address, server_credentials=server_credentials, credentials=credentials)
            endpoints.append(Endpoint(device.switch, port, server))
    except BaseException:
        for endpoint in endpoints:
            endpoint.server.stop(None)
        live.stop()
        raise
    return ServedSimulation(live, tuple(endpoints), devices)


__all__ = ["Endpoint", "ServedSimulation", "device_for", "openconfig_document", "queue_names", "serve_simulation"]
