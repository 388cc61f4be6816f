"""A small lossy leaf (Tomahawk, DCTCP storage class with step ECN marking at K) served over gNMI
while an incast runs on it, for the device tests and the gnmi_cli interoperability test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from qosforge.softswitch.device.live import Scenario
from qosforge.softswitch.device.serve import ServedSimulation, serve_simulation
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.helper.intent_incast import IntentIncast, intent_incast

INTENT = """\
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: device-test}
topology:
  leaf_spine:
    spines: 1
    leaves: 2
    hosts_per_leaf: 4
    host_link: {speed: 100G, cable: 3m}
    fabric_link: {speed: 100G, cable: 10m}
    link_latency: 2us
    leaf_profile: broadcom-tomahawk
classes:
  - {name: storage, transport: dctcp, dscp: [10, 12], weight: 40}
  - {name: bulk, transport: tcp, dscp: [8], weight: 20}
approximations: [pools-out-of-band]
targets: [openconfig, sai]
"""
DURATION_S = 3e-3


@dataclass(frozen=True)
class Served:
    built: IntentIncast
    served: ServedSimulation

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.served.endpoints[0].port}"


@pytest.fixture(scope="module")
def intent_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("device") / "device-test.yaml"
    path.write_text(INTENT)
    return path


def build(intent: Path, flows: int = 3, duration_s: float = DURATION_S) -> IntentIncast:
    return intent_incast(intent, "leaf1", "storage", "Ethernet0", flows, None, None, None, duration_s, 0.0, 1, None, {})


StartServed = Callable[..., Served]


@pytest.fixture
def start_served(intent_file: Path) -> Iterator[StartServed]:
    started: list[ServedSimulation] = []

    def start(*, credentials: tuple[str, str] | None = None, server_credentials: object = None, flows: int = 3,
              duration_s: float = DURATION_S) -> Served:
        built = build(intent_file, flows, duration_s)
        config = built.compiled.config
        scenario = Scenario((config,), single_switch(len(config.ports)), built.flows, built.run)
        served = serve_simulation(scenario, (built.compiled.ir,), "127.0.0.1", 0, server_credentials=server_credentials,  # type: ignore[arg-type]
                                  credentials=credentials)
        started.append(served)
        return Served(built, served)

    yield start
    for served in started:
        served.stop()
