"""Benchmark: the OpenConfig target on the 1,000-switch benchmark fabric, and gNMI push round trips.

1. Render + model validation: the fabric of ``bench_compile.py`` (1,000 switches: a three-tier
   Clos of 32 pods x (20 leaves + 10 spines) + 40 super-spines, 64-port leaves; DCTCP, D2TCP,
   TCP) compiled for the openconfig target, every switch's
   ``openconfig.json`` rendered through the pyangbind bindings (one rendering per switch kind)
   and written, then every distinct document validated through the bindings' RFC 7951 decoder
   (each distinct interface entry decoded once, ``validate_openconfig``). Target: < 30 s.
2. Push round trip: ``qosforge push --config`` of a benchmark leaf (64 interfaces) to the test gNMI
   target (tests/deliver/gnmi_target.py) on 127.0.0.1 over TLS, N times: Capabilities, Get
   (backup), Set replace of /qos, Get and compare. Reported with and without the target's own
   model validation of the Set (the target decodes the whole document with pyangbind).

Usage: ``python bench/bench_openconfig.py [--switches 1000] [--pushes 5]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "deliver"))

from bench_compile import bench_intent  # noqa: E402


def render_and_validate(switches: int, folder: Path) -> dict[str, float]:
    from qosforge.backends.openconfig import validate_openconfig
    from qosforge.backends.registry import get_target
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent
    from qosforge.files import write_text_atomically

    intent_path = folder / "intent.yaml"
    intent_path.write_text(bench_intent(switches) + "approximations: [pools-out-of-band]\n")
    start = time.perf_counter()
    intent, source_map = load_intent(intent_path)
    fabric = compile_intent(intent, source_map, targets=("openconfig",))
    compiled = time.perf_counter()
    texts: dict[str, str] = {}
    for output in get_target("openconfig").render(fabric.for_target("openconfig")):
        write_text_atomically(folder / "out" / output.switch / output.file_name, output.text, create_parents=True)
        texts.setdefault(output.text, output.switch)
    rendered = time.perf_counter()
    decoded = sum(validate_openconfig(json.loads(text)) for text in texts)
    validated = time.perf_counter()
    return {
        "switches": switches,
        "distinct_documents": len(texts),
        "interface_entries_decoded": decoded,
        "compile_s": round(compiled - start, 2),
        "render_and_write_s": round(rendered - compiled, 2),
        "validate_s": round(validated - rendered, 2),
        "total_s": round(validated - start, 2),
    }


def push_round_trips(config: Path, pushes: int, folder: Path, validate: bool) -> dict[str, float]:
    import datetime

    import gnmi_target
    import grpc
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    from gnmi_target import TargetState, serve

    from qosforge.cli import main

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(now + datetime.timedelta(hours=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False).sign(key, hashes.SHA256()))
    pem = certificate.public_bytes(serialization.Encoding.PEM)
    (folder / "ca.pem").write_bytes(pem)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    original = gnmi_target.validate
    validation_s: list[float] = []

    def timed(members: object) -> None:
        start = time.perf_counter()
        original(members)
        validation_s.append(time.perf_counter() - start)

    gnmi_target.validate = timed if validate else (lambda members: None)
    state = TargetState()
    server, port = serve(state, server_credentials=grpc.ssl_server_credentials([(key_pem, pem)]))
    times = []
    try:
        for _ in range(pushes):
            start = time.perf_counter()
            try:
                main(["push", "--config", str(config), "--address", f"localhost:{port}", "--tls-ca", str(folder / "ca.pem"),
                      "--backup", str(folder / "backup.json"), "--timeout", "600s"])
            except SystemExit as exited:
                assert exited.code == 0, exited.code
            times.append(time.perf_counter() - start)
    finally:
        server.stop(grace=None)
        gnmi_target.validate = original
    return {"target_validates": validate, "pushes": pushes, "median_s": round(statistics.median(times), 3),
            "min_s": round(min(times), 3), "max_s": round(max(times), 3),
            "target_validation_median_s": round(statistics.median(validation_s), 3) if validation_s else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--switches", type=int, default=1000)
    parser.add_argument("--pushes", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        print(json.dumps(render_and_validate(args.switches, folder)))
        leaf = min((folder / "out").glob("*leaf*/openconfig.json"))  # a 64-port leaf
        for validate in (False, True):
            print(json.dumps(push_round_trips(leaf, args.pushes, folder, validate)))


if __name__ == "__main__":
    main()
