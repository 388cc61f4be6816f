"""roce-pod's leaf1 served over gNMI (``simulate --serve-gnmi``'s device) under known traffic,
and what the rollout tests do to it: a tuned config that regresses (ECN off on the DCTCP class)
and a ``diff`` against a compiled folder."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

from qosforge.api.delivery import ConnectionRequest, DeliveryRequest, deliver, plan_delivery

ROOT = Path(__file__).resolve().parents[3]
INTENT = ROOT / "examples" / "roce-pod.yaml"
#: The lossless class's frames (roce-pod's lossless_mtu) and the open-loop rate of each of the
#: two RDMA senders: the served fabric's known load to Ethernet44 is 2 x 20 Gb/s on the wire.
RDMA_FRAME_BYTES = 1024
RDMA_SENDER_BPS = 20e9
RDMA_SENDERS = (9, 10)  # Ethernet36, Ethernet40
RDMA_RECEIVER = 11  # Ethernet44


def serve_leaf1(*, rdma: bool = False, start_s: float = 0.0) -> Any:
    """leaf1 under a DCTCP incast into Ethernet0 (8 long-lived flows from Ethernet4..32; a
    minute of simulated time: still running through every window), and with ``rdma`` two
    constant-bit-rate senders in the lossless class to Ethernet44; every flow starts at
    ``start_s``. Served on a free port."""
    from dataclasses import replace

    from qosforge.softswitch.device.live import Scenario
    from qosforge.softswitch.device.serve import serve_simulation
    from qosforge.softswitch.engine.build import single_switch
    from qosforge.softswitch.helper.intent_incast import intent_incast
    from qosforge.softswitch.traffic.spec import FlowSpec

    built = intent_incast(
        INTENT, "leaf1", "tcp", "Ethernet0", 8, None, None, None, 60.0, 0.0, 1, None, {}
    )
    config = built.compiled.config
    flows = built.flows
    if rdma:
        dscp = built.compiled.traffic_class("rdma").dscp[0]
        rate_pps = RDMA_SENDER_BPS / (8 * RDMA_FRAME_BYTES)
        flows += tuple(
            FlowSpec(kind="cbr", src_port=sender, dst_port=RDMA_RECEIVER, dscp=dscp,
                     packet_bytes=RDMA_FRAME_BYTES, rate_pps=rate_pps, ect=False,
                     ack_delay_s=5e-6)
            for sender in RDMA_SENDERS
        )
    flows = tuple(replace(flow, start_s=start_s) for flow in flows)
    scenario = Scenario((config,), single_switch(len(config.ports)), flows, built.run)
    return serve_simulation(
        scenario, (built.compiled.ir,), "127.0.0.1", 0, server_credentials=None, credentials=None
    )


def connection(served: Any) -> ConnectionRequest:
    return ConnectionRequest(
        address=f"127.0.0.1:{served.endpoints[0].port}", insecure=True, timeout="60s"
    )


def ecn_off(compiled: Path, into: Path) -> Path:
    """A copy of the compiled folder whose leaf1 OpenConfig turns ECN off on the tcp queues."""
    if compiled != into:
        shutil.copytree(compiled, into)
    path = into / "leaf1" / "openconfig.json"
    document = copy.deepcopy(json.loads(path.read_text()))
    qos = document["openconfig-qos:qos"]
    profiles = {
        queue["config"]["queue-management-profile"]
        for interface in qos["interfaces"]["interface"]
        for queue in interface["output"]["queues"]["queue"]
        if queue["name"] == "tcp" and "queue-management-profile" in queue.get("config", {})
    }
    for profile in qos["queue-management-profiles"]["queue-management-profile"]:
        if profile["name"] in profiles:
            profile["wred"]["uniform"]["config"]["enable-ecn"] = False
    path.write_text(json.dumps(document))
    return into


def in_sync(compiled: Path, connection: ConnectionRequest) -> bool | None:
    """Whether leaf1 runs the /qos of the compiled folder (``qosforge diff``)."""
    plan = plan_delivery(
        DeliveryRequest(action="diff", connection=connection, config=compiled, switches=("leaf1",))
    )
    return deliver(plan, "diff", None).outcomes[0].in_sync
