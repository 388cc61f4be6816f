"""gNMI over gRPC with the official gNMI protobuf definitions (the generated ``gnmi.proto``
modules the ``pygnmi`` package ships, ``pygnmi.spec.v080``) and grpcio.

pygnmi's own client is not used: without a CA file it downloads the device's certificate and
trusts it (no verification), and it maps errors to its own exception with the gRPC status mixed
into text. Here TLS verifies the server against ``--tls-ca`` (or the system roots) unless
``--skip-verify`` is given; credentials go in the ``username``/``password`` call metadata (the
gNMI specification's authentication, ``gnmi-authentication.md``); every RPC has a deadline; every
gRPC failure becomes one :class:`DeviceError` naming the device and the cause.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from qosforge.deliver.devices import Device
from qosforge.errors import QosforgeError

QOS_MODULE = "openconfig-qos"
QOS_ROOT = f"{QOS_MODULE}:qos"

T = TypeVar("T")


def protos() -> tuple[Any, Any]:
    """(gnmi_pb2, gnmi_pb2_grpc): the official gNMI messages and service stubs."""
    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

    return gnmi_pb2, gnmi_pb2_grpc


class DeviceError(QosforgeError):
    """The device could not be used: unreachable, TLS or authentication failure, timeout, missing
    capability, or a Set it rejected (nothing applied). Exit code 2."""

    #: The gRPC status of the failed call and its details, where a call failed (None and "" for
    #: other failures).
    status: grpc.StatusCode | None = None
    details: str = ""


_CAUSES = {
    grpc.StatusCode.UNAVAILABLE: "unreachable or TLS handshake failed",
    grpc.StatusCode.UNAUTHENTICATED: "authentication failed",
    grpc.StatusCode.PERMISSION_DENIED: "permission denied",
    grpc.StatusCode.DEADLINE_EXCEEDED: "timed out",
    grpc.StatusCode.UNIMPLEMENTED: "RPC not implemented by the device",
}


#: How a peer that is no gNMI server answers gNMI's Capabilities (:meth:`GnmiSession.capabilities`).
_NOT_GNMI = (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)
#: What grpc-core reports when the peer's first bytes are not an HTTP/2 SETTINGS frame.
_NOT_HTTP2 = "Failed parsing HTTP/2"
NOT_HTTP2_HINT = ("check the address and port: they must be the switch's gNMI server, not a web "
                  "server; a gNMI server that uses TLS is reached without --insecure")
NOT_GNMI_HINT = ("check the address and port: they must be the switch's gNMI server (on SONiC "
                 "its gnmi or telemetry container's port), not another HTTP/2 or gRPC service")


def qos_path() -> Any:
    gnmi_pb2, _ = protos()
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="qos")])


def set_request(document: dict[str, Any]) -> Any:
    """One SetRequest replacing ``/qos`` with the document (JSON_IETF): the device applies all or
    nothing (gNMI specification §3.4.3, transactional Set)."""
    gnmi_pb2, _ = protos()
    members = document.get(QOS_ROOT, document.get("qos", {}))
    # RFC 7951 §4: the value of /qos is the container's object; its members are qualified with
    # the module name, as at the top of a document.
    value = {f"{QOS_MODULE}:{name}" if ":" not in name else name: member for name, member in members.items()}
    update = gnmi_pb2.Update(path=qos_path(), val=gnmi_pb2.TypedValue(json_ietf_val=json.dumps(value, separators=(",", ":")).encode()))
    return gnmi_pb2.SetRequest(replace=[update])


def request_text(request: Any) -> str:
    """The SetRequest for a reader: the message in protobuf text form, each JSON value replaced by
    a marker and printed after it as indented JSON (as sent it is one escaped line, ~40 kB for
    a fabric's /qos)."""
    from google.protobuf import text_format

    shown = type(request)()
    shown.CopyFrom(request)
    values: list[tuple[str, Any]] = []
    for kind in ("replace", "update"):
        for index, update in enumerate(getattr(shown, kind)):
            if update.val.json_ietf_val:
                values.append((f"{kind}[{index}]", json.loads(update.val.json_ietf_val)))
                size = len(update.val.json_ietf_val)
                update.val.json_ietf_val = f"<{size:,} bytes of JSON: {kind}[{index}] below>".encode()
    lines = [str(text_format.MessageToString(shown, as_utf8=True)).rstrip("\n")]
    for name, value in values:
        lines += [f"# {name} json_ietf_val, indented:", json.dumps(value, indent=2)]
    return "\n".join(lines)


@dataclass(frozen=True)
class Capabilities:
    models: dict[str, str]
    """Model name -> version the device reports."""
    encodings: tuple[str, ...]
    gnmi_version: str


class GnmiSession:
    """One device: a channel and the RPCs qosforge uses."""

    def __init__(self, device: Device, password: str | None) -> None:
        self.device = device
        connection = device.connection
        self._metadata: Sequence[tuple[str, str]] = (
            (("username", connection.username), ("password", password or "")) if connection.username else ()
        )
        self._channel = self._open()
        _, gnmi_pb2_grpc = protos()
        self._stub = gnmi_pb2_grpc.gNMIStub(self._channel)

    def _open(self) -> grpc.Channel:
        device, connection = self.device, self.device.connection
        if connection.insecure:
            return grpc.insecure_channel(device.address)
        options: list[tuple[str, Any]] = []
        from qosforge.deliver.tls import check_connection_files

        check_connection_files(
            False, connection.tls_ca, connection.tls_cert, connection.tls_key, self._place()
        )
        root = self._read(connection.tls_ca, "--tls-ca") if connection.tls_ca else None
        if connection.skip_verify:
            root, name = self._server_certificate()
            options.append(("grpc.ssl_target_name_override", name))
        if (connection.tls_cert is None) != (connection.tls_key is None):
            raise DeviceError("a client certificate needs both --tls-cert and --tls-key", place=self._place(), hint="give both, or neither")
        credentials = grpc.ssl_channel_credentials(
            root_certificates=root,
            private_key=self._read(connection.tls_key, "--tls-key") if connection.tls_key else None,
            certificate_chain=self._read(connection.tls_cert, "--tls-cert") if connection.tls_cert else None,
        )
        return grpc.secure_channel(device.address, credentials, options=options)

    def _read(self, path: Any, what: str) -> bytes:
        try:
            data: bytes = path.read_bytes()
        except OSError as error:
            raise DeviceError(f"cannot read {what} {path}: {error.strerror}", place=self._place(), hint="give a readable PEM file") from None
        return data

    def _server_certificate(self) -> tuple[bytes, str]:
        """--skip-verify: take the certificate the server presents, trust it and its name."""
        from cryptography import x509

        try:
            pem = ssl.get_server_certificate((self.device.host, self.device.port), timeout=self.device.connection.timeout_s)
        except (OSError, ssl.SSLError) as error:
            raise DeviceError(f"unreachable or not speaking TLS: {error}", place=self._place(), hint="check the address, or --insecure for a plaintext target") from None
        certificate = x509.load_pem_x509_certificate(pem.encode())
        names: list[str] = [str(a.value) for a in certificate.subject.get_attributes_for_oid(x509.oid.NameOID.COMMON_NAME)]
        try:
            san = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            names = [str(v) for v in san.get_values_for_type(x509.DNSName)] + [str(v) for v in san.get_values_for_type(x509.IPAddress)] + names
        except x509.ExtensionNotFound:
            pass
        return pem.encode(), str(names[0]) if names else ""

    def _place(self) -> str:
        return f"{self.device.name} ({self.device.address})"

    def _call(self, what: str, rpc: Callable[..., T], request: Any) -> T:
        try:
            return rpc(request, timeout=self.device.connection.timeout_s, metadata=self._metadata)
        except grpc.RpcError as error:
            raise self.device_error(what, error) from None

    def capabilities(self) -> Capabilities:
        """The Capabilities RPC, which every gNMI target serves (gNMI specification §3.2). A peer
        that fails it as no gNMI server does is named as such: an HTTP/2 server without gRPC
        answers with an HTTP status, which gRPC maps to UNIMPLEMENTED (404) or INTERNAL (400),
        or with no grpc-status at all (UNKNOWN); a gRPC server without the gNMI service answers
        UNIMPLEMENTED (gRPC doc/http-grpc-status-mapping.md, doc/statuscodes.md)."""
        gnmi_pb2, _ = protos()
        try:
            response = self._call("Capabilities", self._stub.Capabilities, gnmi_pb2.CapabilityRequest())
        except DeviceError as failed:
            if failed.status not in _NOT_GNMI:
                raise
            assert failed.status is not None
            raise DeviceError("the endpoint did not answer as a gNMI server "
                              f"(Capabilities: {failed.status.name}: {failed.details})",
                              place=self._place(), hint=NOT_GNMI_HINT) from None
        return Capabilities(
            models={m.name: m.version for m in response.supported_models},
            encodings=tuple(gnmi_pb2.Encoding.Name(e) for e in response.supported_encodings),
            gnmi_version=response.gNMI_version,
        )

    def require_gnmi_server(self) -> None:
        """Raise a :class:`DeviceError` when the endpoint does not answer as a gNMI server
        (:meth:`capabilities`); a gNMI server's answer is not needed."""
        self.capabilities()

    def get_qos(self) -> dict[str, Any]:
        """The device's ``/qos`` configuration as ``{"openconfig-qos:qos": {...}}`` (empty when unset)."""
        gnmi_pb2, _ = protos()
        request = gnmi_pb2.GetRequest(path=[qos_path()], type=gnmi_pb2.GetRequest.CONFIG, encoding=gnmi_pb2.JSON_IETF)
        response = self._call("Get", self._stub.Get, request)
        members: dict[str, Any] = {}
        for notification in response.notification:
            for update in notification.update:
                if update.val.WhichOneof("value") != "json_ietf_val":
                    raise DeviceError(f"Get returned {update.val.WhichOneof('value')}, not JSON_IETF", place=self._place(), hint="the device must support JSON_IETF")
                try:
                    value = json.loads(update.val.json_ietf_val)
                except ValueError as error:
                    raise DeviceError(f"Get returned JSON that does not parse: {error}", place=self._place(), hint="a device bug") from None
                inner = value.get(QOS_ROOT, value.get("qos", value)) if isinstance(value, dict) else None
                if isinstance(inner, dict):
                    members.update(inner)
        return {QOS_ROOT: members}

    def set_qos(self, document: dict[str, Any]) -> None:
        self._call("Set", self._stub.Set, set_request(document))

    def get(self, request: Any) -> Any:
        """A raw GetRequest (``qosforge watch``'s name maps); gRPC errors become DeviceError."""
        return self._call("Get", self._stub.Get, request)

    def subscribe(self, request: Any, timeout_s: float | None) -> Any:
        """A Subscribe stream for one SubscribeRequest: an iterator of SubscribeResponses (gRPC
        errors surface while iterating; :func:`device_error` turns them into DeviceError).
        ``timeout_s`` None: no deadline (a STREAM subscription runs until cancelled)."""
        return self._stub.Subscribe(iter([request]), timeout=timeout_s, metadata=self._metadata)

    def device_error(self, what: str, error: grpc.RpcError) -> DeviceError:
        code = error.code() if hasattr(error, "code") else None
        details = " ".join(str(error.details() if hasattr(error, "details") else error).split())
        if code == grpc.StatusCode.UNAVAILABLE and _NOT_HTTP2 in details:
            # gRPC runs over HTTP/2 (gRPC's PROTOCOL-HTTP2.md); a peer whose first bytes are no
            # HTTP/2 SETTINGS frame is no gNMI server: a web server speaking HTTP/1.x, or a TLS
            # server reached in plaintext.
            failed = DeviceError(f"{what}: the endpoint did not answer in HTTP/2, so it is no "
                                 f"gNMI server: {details}", place=self._place(), hint=NOT_HTTP2_HINT)
        else:
            plaintext = self.device.connection.insecure
            unreachable = plaintext and code == grpc.StatusCode.UNAVAILABLE
            cause = "unreachable" if unreachable else _CAUSES.get(code, "failed")
            if what == "Set" and code not in (grpc.StatusCode.UNAVAILABLE,
                                              grpc.StatusCode.UNAUTHENTICATED,
                                              grpc.StatusCode.DEADLINE_EXCEEDED):
                cause = "rejected the Set (nothing applied)"
            failed = DeviceError(f"{what}: {cause}: {code.name if code else 'error'}: {details}",
                                 place=self._place(), hint=_hint(code, plaintext))
        failed.status, failed.details = code, details
        return failed

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> GnmiSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _hint(code: grpc.StatusCode | None, plaintext: bool = False) -> str:
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return "check --username and QOSFORGE_GNMI_PASSWORD"
    if code == grpc.StatusCode.UNAVAILABLE and plaintext:
        # No TLS was tried (--insecure): neither a handshake nor --insecure can be the fix.
        return "check the address and port, and that the device's gNMI server is running"
    if code == grpc.StatusCode.UNAVAILABLE:
        return "check the address and port, the CA (--tls-ca) or --skip-verify, or --insecure for a plaintext target"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return "raise --timeout or check the device"
    return "see the device's message"


def check_capabilities(capabilities: Capabilities, revision: str, place: str) -> str | None:
    """Error when openconfig-qos or JSON_IETF is missing; a warning text when the device reports
    another openconfig-qos version than the bindings' revision."""
    missing = [what for what, present in (
        (f"model {QOS_MODULE}", QOS_MODULE in capabilities.models),
        ("encoding JSON_IETF", "JSON_IETF" in capabilities.encodings),
    ) if not present]
    if missing:
        raise DeviceError(f"Capabilities: the device does not support {' and '.join(missing)}", place=place,
                          hint="qosforge push sends openconfig-qos as JSON_IETF; use the sonic target for a SONiC device without it")
    version = capabilities.models[QOS_MODULE]
    expected = revision.split("@", 1)[1]
    if version != expected:
        return f"{place}: the device reports {QOS_MODULE} version {version or '(none)'}, the rendering uses {revision}"
    return None
