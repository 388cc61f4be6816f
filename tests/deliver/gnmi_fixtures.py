"""Fixtures for tests that talk gNMI: certificates generated per test session (cryptography) and
gNMI targets (gnmi_target.py) on 127.0.0.1. Test modules import them by name."""

from __future__ import annotations

import datetime
import ipaddress
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

sys.path.insert(0, str(Path(__file__).parent))
from gnmi_target import TargetState, serve


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: bytes
    server_key: bytes
    other_ca: Path
    """A CA that did not sign the server certificate."""
    client_cert: Path
    client_key: Path
    """A client certificate signed by ``ca`` (mutual TLS)."""


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _ca(common_name: str) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = _key()
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(_name(common_name)).issuer_name(_name(common_name))
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return key, certificate


def _pem(certificate: x509.Certificate) -> bytes:
    return certificate.public_bytes(serialization.Encoding.PEM)


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def make_pki(folder: Path) -> Pki:
    """A CA, a server certificate for localhost/127.0.0.1 it signs, a client certificate and
    another CA, written to ``folder``."""
    ca_key, ca = _ca("qosforge test CA")
    _, other = _ca("some other CA")
    key = _key()
    now = datetime.datetime.now(datetime.UTC)
    server = (
        x509.CertificateBuilder().subject_name(_name("localhost")).issuer_name(ca.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    client_key = _key()
    client = (
        x509.CertificateBuilder().subject_name(_name("qosforge-client")).issuer_name(ca.subject)
        .public_key(client_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .sign(ca_key, hashes.SHA256())
    )
    (folder / "client.pem").write_bytes(_pem(client))
    (folder / "client.key").write_bytes(client_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    (folder / "ca.pem").write_bytes(_pem(ca))
    (folder / "other-ca.pem").write_bytes(_pem(other))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return Pki(folder / "ca.pem", _pem(server), key_pem, folder / "other-ca.pem", folder / "client.pem", folder / "client.key")


#: Outcome of each distinct document's model check (its JSON text, member order kept): the decoder
#: costs ~2 s per document and is a pure function of it, so a document is decoded once per session.
_MODEL_CHECKS: dict[str, Any] = {}


def _checked_once(validate: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``validate`` run once per distinct document; later calls return its count or raise a copy
    of its exception, so every caller still sees what the model says of that document."""

    def check(document: Any) -> Any:
        key = json.dumps(document)
        if key not in _MODEL_CHECKS:
            try:
                _MODEL_CHECKS[key] = validate(document)
            except Exception as error:  # the model's verdict, replayed to later callers
                _MODEL_CHECKS[key] = error
        outcome = _MODEL_CHECKS[key]
        if isinstance(outcome, Exception):
            raise type(outcome)(*outcome.args)
        return outcome

    return check


@pytest.fixture
def model_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The openconfig-qos model check of ``push --config`` (qosforge) and of the target's Set, each
    decoding a given document once per session instead of once per call."""
    import gnmi_target

    from qosforge.backends import openconfig

    monkeypatch.setattr(openconfig, "validate_openconfig", _checked_once(openconfig.validate_openconfig))
    monkeypatch.setattr(gnmi_target, "validate", _checked_once(gnmi_target.validate))


@dataclass
class RunningTarget:
    state: TargetState
    port: int

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


StartTarget = Callable[..., RunningTarget]


@pytest.fixture
def start_target(pki: Pki, model_checked_once: None) -> Iterator[StartTarget]:
    servers: list[grpc.Server] = []

    def start(*, tls: bool = True, mutual_tls: bool = False, **options: object) -> RunningTarget:
        state = TargetState()
        credentials = grpc.ssl_server_credentials(
            [(pki.server_key, pki.server_cert)], root_certificates=pki.ca.read_bytes() if mutual_tls else None, require_client_auth=mutual_tls,
        ) if tls else None
        server, port = serve(state, server_credentials=credentials, **options)  # type: ignore[arg-type]
        servers.append(server)
        return RunningTarget(state, port)

    yield start
    for server in servers:
        server.stop(grace=None)


SMALL_INTENT = """\
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: gnmi-test}
topology:
  leaf_spine:
    spines: 1
    leaves: 2
    hosts_per_leaf: 1
    host_link: {speed: 100G, cable: 3m}
    fabric_link: {speed: 100G, cable: 10m}
    link_latency: 2us
    leaf_profile: broadcom-tomahawk
classes:
  - {name: storage, transport: dctcp, dscp: [10, 12], weight: 40}
  - {name: bulk, transport: tcp, dscp: [8], weight: 20}
approximations: [pools-out-of-band]
targets: [openconfig]
"""


@pytest.fixture(scope="session")
def small_intent(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A 3-switch fabric with 2 ports per switch: the model's decoder costs ~0.25 s per interface."""
    path = tmp_path_factory.mktemp("intent") / "fabric.yaml"
    path.write_text(SMALL_INTENT)
    return str(path)
