"""A gNMI target that publishes counters, for the watch tests (a test fixture, not part of qosforge).

Built from the official gNMI protos (pygnmi's generated modules) and grpcio only, and written
independently of qosforge's counter catalogue: the SONiC values are the JSON objects the test
writes by hand in sonic-gnmi's shapes (``{"Ethernet0:3": {"SAI_QUEUE_STAT_PACKETS": "5"}}`` under
prefix target ``COUNTERS_DB``), the OpenConfig values are leaves at the paths the test names.
Serves Get (name maps) and Subscribe ONCE and STREAM (SAMPLE every sample_interval, as a
sequence of states the test gives); rejects what it does not serve with NOT_FOUND, as
sonic-gnmi does for an unknown path.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

OcLeaf = tuple[tuple[tuple[str, dict[str, str]], ...], int]
"""((element name, keys), ...), value."""


@dataclass
class CounterState:
    """What the target publishes: SONiC virtual path (tuple of names) -> JSON object, and
    OpenConfig leaves. ``frames``: for STREAM, successive states served one per sample interval
    (the last one repeats)."""

    sonic: dict[tuple[str, ...], dict[str, Any]] = field(default_factory=dict)
    openconfig: list[OcLeaf] = field(default_factory=list)
    queue_ids: dict[str, int] = field(default_factory=dict)
    pg_name_map: dict[str, str] = field(default_factory=dict)
    frames: list[tuple[dict[tuple[str, ...], dict[str, Any]], list[OcLeaf]]] = field(default_factory=list)
    serve_sonic: bool = True
    serve_openconfig: bool = True
    time_ns: int = 1_700_000_000_000_000_000
    step_ns: int = 100_000_000
    calls: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _names(path: Any) -> tuple[str, ...]:
    return tuple(e.name for e in path.elem)


def _oc_path(elements: tuple[tuple[str, dict[str, str]], ...]) -> Any:
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n, key=k) for n, k in elements])


def _matches(pattern: tuple[str, ...], served: tuple[str, ...]) -> bool:
    return len(pattern) == len(served) and all(p == s or (p == "Ethernet*" and s.startswith("Ethernet")) for p, s in zip(pattern, served, strict=True))


class CounterTarget(gnmi_pb2_grpc.gNMIServicer):  # type: ignore[misc]
    def __init__(self, state: CounterState) -> None:
        self.state = state

    def Capabilities(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.state.calls.append("Capabilities")
        return gnmi_pb2.CapabilityResponse(supported_models=[gnmi_pb2.ModelData(name="openconfig-qos", version="2026-01-16")],
                                           supported_encodings=[gnmi_pb2.JSON_IETF], gNMI_version="0.8.0")

    def Get(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.state.calls.append("Get")
        updates = []
        for path in request.path:
            names = _names(path)
            if request.prefix.target == "COUNTERS_DB" and names == ("COUNTERS_PG_NAME_MAP",) and self.state.serve_sonic:
                value = json.dumps(self.state.pg_name_map).encode()
                updates.append(gnmi_pb2.Update(path=path, val=gnmi_pb2.TypedValue(json_ietf_val=value)))
            elif names[:2] == ("qos", "queues") and self.state.serve_openconfig:
                for name, qid in self.state.queue_ids.items():
                    leaf = gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="qos"), gnmi_pb2.PathElem(name="queues"),
                                               gnmi_pb2.PathElem(name="queue", key={"name": name}), gnmi_pb2.PathElem(name="state"),
                                               gnmi_pb2.PathElem(name="queue-id")])
                    updates.append(gnmi_pb2.Update(path=leaf, val=gnmi_pb2.TypedValue(uint_val=qid)))
            else:
                context.abort(grpc.StatusCode.NOT_FOUND, f"path {'/'.join(names)} not served")
        return gnmi_pb2.GetResponse(notification=[gnmi_pb2.Notification(timestamp=self.state.time_ns, prefix=request.prefix, update=updates)])

    def _notifications(self, request: Any, sonic: dict[tuple[str, ...], dict[str, Any]], leaves: list[OcLeaf], stamp: int) -> list[Any]:
        prefix = request.prefix
        out = []
        for subscription in request.subscription:
            names = _names(subscription.path)
            if prefix.target == "COUNTERS_DB":
                served = [(p, v) for p, v in sonic.items() if _matches(names, p) or p == names]
                for path, value in served:
                    update = gnmi_pb2.Update(path=gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n) for n in path]),
                                             val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(value).encode()))
                    out.append(gnmi_pb2.Notification(timestamp=stamp, prefix=gnmi_pb2.Path(target="COUNTERS_DB"), update=[update]))
            else:
                for elements, value in leaves:
                    if tuple(n for n, _ in elements[:len(names)]) == names:
                        update = gnmi_pb2.Update(path=_oc_path(elements), val=gnmi_pb2.TypedValue(uint_val=value))
                        out.append(gnmi_pb2.Notification(timestamp=stamp, update=[update]))
        return out

    def Subscribe(self, requests: Any, context: grpc.ServicerContext) -> Any:
        self.state.calls.append("Subscribe")
        request = next(iter(requests)).subscribe
        family_served = self.state.serve_sonic if request.prefix.target == "COUNTERS_DB" else self.state.serve_openconfig
        if not family_served:
            context.abort(grpc.StatusCode.NOT_FOUND, "no such paths")
        if request.mode == gnmi_pb2.SubscriptionList.ONCE:
            for notification in self._notifications(request, self.state.sonic, self.state.openconfig, self.state.time_ns):
                yield gnmi_pb2.SubscribeResponse(update=notification)
            yield gnmi_pb2.SubscribeResponse(sync_response=True)
            return
        interval_s = max(min((s.sample_interval for s in request.subscription if s.sample_interval), default=100_000_000), 1) / 1e9
        frames = self.state.frames or [(self.state.sonic, self.state.openconfig)]
        index = 0
        while context.is_active():
            sonic, leaves = frames[min(index, len(frames) - 1)]
            stamp = self.state.time_ns + index * self.state.step_ns
            for notification in self._notifications(request, sonic, leaves, stamp):
                yield gnmi_pb2.SubscribeResponse(update=notification)
            if index == 0:
                yield gnmi_pb2.SubscribeResponse(sync_response=True)
            index += 1
            time.sleep(interval_s)


def serve_counters(state: CounterState) -> tuple[grpc.Server, int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    gnmi_pb2_grpc.add_gNMIServicer_to_server(CounterTarget(state), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port
