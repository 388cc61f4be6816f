"""Interoperability: openconfig's reference gNMI client, ``gnmi_cli`` (github.com/openconfig/gnmi
cmd/gnmi_cli v0.14.1, built from the Go module proxy), reads the simulated switch: Capabilities,
Subscribe ONCE and STREAM of OpenConfig and SONiC paths, plaintext and TLS, and sees exactly the
values and timestamps qosforge's own client reads.

``.ci/run`` installs gnmi_cli and sets ``QOSFORGE_REQUIRE_GNMI_CLI=1``, so in CI a missing client
fails the test; elsewhere it is skipped with the command that installs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import grpc
import pytest
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from .conftest import DURATION_S, StartServed

INSTALL = "go install github.com/openconfig/gnmi/cmd/gnmi_cli@v0.14.1"
STATE = "/qos/interfaces/interface[interface-id=Ethernet0]/output/queues/queue[name=storage]/state"


def _gnmi_cli() -> str:
    found = shutil.which("gnmi_cli")
    if found is None:
        gopath = os.environ.get("GOPATH") or str(Path.home() / "go")
        candidate = Path(gopath) / "bin" / "gnmi_cli"
        found = str(candidate) if candidate.is_file() else None
    if found is None:
        if os.environ.get("QOSFORGE_REQUIRE_GNMI_CLI"):
            pytest.fail(f"gnmi_cli is not installed, and QOSFORGE_REQUIRE_GNMI_CLI is set (.ci/run installs it: {INSTALL})")
        pytest.skip(f"gnmi_cli (openconfig's reference gNMI client) is not installed: {INSTALL}")
    return found


def _run(*args: str, until_deadline: bool = False) -> str:
    """gnmi_cli's output; ``until_deadline``: a stream it ends after ``-sd`` (it then exits 1
    with the context's DeadlineExceeded, its only way to end a stream)."""
    done = subprocess.run([_gnmi_cli(), *args], capture_output=True, text=True, timeout=60, check=False)
    if until_deadline:
        assert done.returncode == 1 and "DeadlineExceeded" in done.stdout + done.stderr, done.stdout + done.stderr
    else:
        assert done.returncode == 0, f"gnmi_cli {' '.join(args)} failed ({done.returncode}): {done.stdout} {done.stderr}"
    return done.stdout


def _lines(output: str) -> dict[str, tuple[int, str]]:
    """``-dt s -ts raw`` output, one ``PATH, VALUE, TIMESTAMP`` per line -> path: (ns, value)."""
    values = {}
    for line in output.splitlines():
        parts = [p.strip() for p in line.rsplit(",", 2)]
        if len(parts) == 3 and parts[2].isdigit():
            values[parts[0]] = (int(parts[2]), parts[1])
    return values


def _ours(address: str, text: str, target: str = "", credentials: Any = None) -> tuple[int, dict[str, str]]:
    from qosforge.softswitch.device.paths import parse_path, to_proto

    channel = grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
    stub = gnmi_pb2_grpc.gNMIStub(channel)
    request = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        mode=gnmi_pb2.SubscriptionList.ONCE, subscription=[gnmi_pb2.Subscription(path=to_proto(gnmi_pb2, parse_path(text), target=target))]))
    notification = next(r.update for r in stub.Subscribe(iter([request]), timeout=20) if r.HasField("update"))
    values = {u.path.elem[-1].name: str(getattr(u.val, u.val.WhichOneof("value"))) for u in notification.update}
    return notification.timestamp, values


def test_gnmi_cli_reads_the_values_and_timestamps_our_client_reads(start_served: StartServed) -> None:
    _gnmi_cli()
    served = start_served()
    assert served.served.live.wait_until(DURATION_S, timeout_s=120)
    stamp, ours = _ours(served.address, STATE)
    seen = _lines(_run("-a", served.address, "-insecure", "-qt", "o", "-dt", "s", "-ts", "raw", "-q", STATE))
    theirs = {path.rsplit("/", 1)[-1]: value for path, (_, value) in seen.items()}
    assert theirs == ours and int(ours["ecn-marked-pkts"]) > 0
    assert {ns for ns, _ in seen.values()} == {stamp}
    # SONiC's COUNTERS_DB paths with the database as the target, as sonic-gnmi serves them.
    sonic = "/COUNTERS/Ethernet0/Queues"
    output = _run("-a", served.address, "-insecure", "-qt", "o", "-dt", "s", "-ts", "raw", "-t", "COUNTERS_DB", "-q", sonic)
    # gnmi_cli prints a JSON value as a Go map: ... Ethernet0:1:map[SAI_QUEUE_STAT_BYTES:36102000 ...] ...
    queue = re.search(rf"Ethernet0:{served.built.queue}:map\[([^\]]*)\]", output)
    assert queue is not None, output
    fields = dict(item.split(":", 1) for item in queue.group(1).split())
    assert fields["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] == ours["ecn-marked-pkts"]
    assert fields["SAI_QUEUE_STAT_PACKETS"] == ours["transmit-pkts"]


# A 3.5 s stream against the live run (~2 CPU s): the slow tier (pyproject.toml); the default
# tier has gnmi_cli read values and a once subscription above and below.
@pytest.mark.slow
def test_gnmi_cli_capabilities_and_a_stream_over_tls(start_served: StartServed, tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deliver"))
    from gnmi_fixtures import make_pki

    pki = make_pki(tmp_path)
    served = start_served(server_credentials=grpc.ssl_server_credentials([(pki.server_key, pki.server_cert)]), duration_s=1.0)
    tls = ["-ca_crt", str(pki.ca), "-server_name", "localhost"]
    capabilities = _run("-a", served.address, *tls, "-capabilities")
    assert "openconfig-qos" in capabilities and "JSON_IETF" in capabilities
    # A stream of the queue's transmitted packets (gnmi_cli asks for no interval: the target's 1 s)
    # while the run goes on: an update at once, then one a second, rising, stamped in order.
    output = _run("-a", served.address, *tls, "-qt", "s", "-dt", "s", "-ts", "raw", "-sd", "3500ms", "-q", f"{STATE}/transmit-pkts",
                  until_deadline=True)
    rows = [[part.strip() for part in line.rsplit(",", 2)] for line in output.splitlines() if "/qos/" in line.split(",")[0]]
    counts, stamps = [int(r[1]) for r in rows], [int(r[2]) for r in rows]
    assert 3 <= len(counts) <= 5 and counts == sorted(counts) and stamps == sorted(stamps) and counts[-1] > counts[0]


def test_gnmi_cli_subscribe_once_with_an_omitted_key_gets_every_queue(
    start_served: StartServed,
) -> None:
    # The gNMI path conventions' wildcards (openconfig/reference rpc/gnmi/gnmi-path-conventions.md):
    # queue without [name=...] is every queue, in Subscribe as in Get.
    _gnmi_cli()
    served = start_served()
    assert served.served.live.wait_until(DURATION_S, timeout_s=120)
    every = "/qos/interfaces/interface[interface-id=Ethernet0]/output/queues/queue/state"
    seen = _lines(
        _run("-a", served.address, "-insecure", "-qt", "o", "-dt", "s", "-ts", "raw", "-q", every)
    )
    from qosforge.softswitch.device.serve import queue_names

    named = set(queue_names(served.served.devices[0].document).values())
    # gnmi_cli prints a key's value as a path element: .../queues/queue/storage/state/transmit-pkts
    by_queue: dict[str, dict[str, str]] = {}
    for path, (_, value) in seen.items():
        found = re.search(r"/queues/queue/([^/]+)/state/([^/]+)$", path)
        assert found is not None, path
        by_queue.setdefault(found.group(1), {})[found.group(2)] = value
    assert set(by_queue) == named  # default, storage and bulk: before, only the sync response came
    _, ours = _ours(served.address, STATE)
    assert by_queue["storage"] == ours and int(ours["transmit-pkts"]) > 0
