"""A gNMI target for the tests (a test fixture, not part of qosforge).

Built only from the official gNMI protos (the generated modules the ``pygnmi`` package ships),
grpcio and the openconfig-qos pyangbind bindings (``oc-config-validate``): it serves
Capabilities, Get and Set on ``/qos`` over real gRPC on 127.0.0.1, with TLS and
username/password metadata when configured. Every Set is validated against the model on its own,
independently of qosforge's renderer: the JSON_IETF value is loaded with pyangbind's RFC 7951
decoder into a fresh bindings object, and any error rejects the whole Set (INVALID_ARGUMENT,
nothing applied). Every RPC is counted, so a test can prove that nothing was sent.
"""

from __future__ import annotations

import json
import threading
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
import oc_config_validate.models.qos as qos_bindings
from pyangbind.lib.serialise import pybindJSONDecoder
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

QOS = "openconfig-qos:qos"


@dataclass
class TargetState:
    config: dict[str, Any] = field(default_factory=dict)
    """The stored /qos members (module-qualified names as received)."""
    calls: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def validate(members: dict[str, Any]) -> None:
    """Load the /qos value through the model; raises on any node or value the model rejects."""
    stripped = {name.split(":", 1)[-1]: value for name, value in members.items()}
    pybindJSONDecoder.load_ietf_json({QOS: stripped}, qos_bindings, "openconfig_qos")


def _is_qos(path: Any) -> bool:
    return [e.name for e in path.elem] == ["qos"]


class Target(gnmi_pb2_grpc.gNMIServicer):  # type: ignore[misc]
    def __init__(self, state: TargetState, credentials: tuple[str, str] | None, model_version: str, encodings: tuple[int, ...]) -> None:
        self.state = state
        self.credentials = credentials
        self.model_version = model_version
        self.encodings = encodings

    def _authorise(self, name: str, context: grpc.ServicerContext) -> None:
        self.state.calls.append(name)
        if self.credentials is None:
            return
        metadata = dict(context.invocation_metadata())
        if (metadata.get("username"), metadata.get("password")) != self.credentials:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "bad username or password")

    def Capabilities(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._authorise("Capabilities", context)
        models = [gnmi_pb2.ModelData(name="openconfig-qos", organization="OpenConfig working group", version=self.model_version)] if self.model_version else []
        return gnmi_pb2.CapabilityResponse(supported_models=models, supported_encodings=list(self.encodings), gNMI_version="0.8.0")

    def Get(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._authorise("Get", context)
        if request.encoding != gnmi_pb2.JSON_IETF or not all(_is_qos(p) for p in request.path):
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "this target serves /qos as JSON_IETF only")
        with self.state.lock:
            value = json.dumps(self.state.config).encode()
        updates = [gnmi_pb2.Update(path=p, val=gnmi_pb2.TypedValue(json_ietf_val=value)) for p in request.path]
        return gnmi_pb2.GetResponse(notification=[gnmi_pb2.Notification(timestamp=1, update=updates)])

    def Set(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._authorise("Set", context)
        if request.delete or request.update or len(request.replace) != 1 or not _is_qos(request.replace[0].path):
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "this target accepts one replace of /qos")
        try:
            members = json.loads(request.replace[0].val.json_ietf_val)
            validate(members)
        except Exception as error:  # any decoder error rejects the Set: nothing is applied
            argument = error.args[0] if error.args else error
            message = argument.get("error-string", str(argument)) if isinstance(argument, dict) else str(argument)
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"invalid openconfig-qos: {message}")
        with self.state.lock:
            self.state.config = members
        result = gnmi_pb2.UpdateResult(path=request.replace[0].path, op=gnmi_pb2.UpdateResult.REPLACE)
        return gnmi_pb2.SetResponse(response=[result], timestamp=1)


def serve(
    state: TargetState,
    *,
    server_credentials: grpc.ServerCredentials | None,
    credentials: tuple[str, str] | None = None,
    model_version: str = "2026-01-16",
    encodings: tuple[int, ...] = (gnmi_pb2.JSON, gnmi_pb2.JSON_IETF),
) -> tuple[grpc.Server, int]:
    """Start the target on 127.0.0.1 (an ephemeral port); returns the server and its port."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    gnmi_pb2_grpc.add_gNMIServicer_to_server(Target(state, credentials, model_version, encodings), server)
    address = "127.0.0.1:0"
    port = server.add_secure_port(address, server_credentials) if server_credentials else server.add_insecure_port(address)
    server.start()
    return server, port
