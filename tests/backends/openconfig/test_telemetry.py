"""The OpenConfig counter catalogue names leaves the published model has, and decodes both leaf
updates (Subscribe) and container values (Get)."""

from __future__ import annotations

import oc_config_validate.models.interfaces as interface_bindings
import pytest

from qosforge.backends.counters import Counter, CounterKey, Sample, paths_of
from qosforge.backends.openconfig import telemetry
from qosforge.backends.openconfig.model import new_root


def _python(name: str) -> str:
    return name.replace("-", "_")


@pytest.mark.parametrize("spec", telemetry.PATHS, ids=lambda s: s.leaf)
def test_every_leaf_is_in_the_model(spec: telemetry.OpenConfigCounterPath) -> None:
    """Walk the pyangbind bindings generated from openconfig/public: each container and leaf of
    the catalogue must exist there (an independent check of the paths)."""
    if spec.container[0].name == "qos":
        node = new_root().qos.interfaces.interface.add("Ethernet0").output.queues.queue.add("q").state
    else:
        interface = interface_bindings.openconfig_interfaces().interfaces.interface.add("Ethernet0")
        node = interface.ethernet.state.counters if spec.container[2].name == "ethernet" else interface.state.counters
    assert _python(spec.leaf) in node._pyangbind_elements


def test_leaf_update_and_container_value_decode_alike() -> None:
    sample = Sample(Counter.QUEUE_ECN_MARKED_PACKETS, CounterKey("Ethernet4", 3), 41, 5, "")
    encoded = telemetry.encode_leaf(sample, "rdma")
    assert encoded is not None
    path, value = encoded
    assert "/".join(e.text() for e in path) == "qos/interfaces/interface[interface-id=Ethernet4]/output/queues/queue[name=rdma]/state/ecn-marked-pkts"
    leaf = list(telemetry.decode(path, value, 5, {"rdma": 3}))
    container = list(telemetry.decode(path[:-1], {"openconfig-qos:ecn-marked-pkts": "41", "name": "rdma"}, 5, {"rdma": 3}))
    assert [(s.counter, s.key, s.value) for s in leaf] == [(s.counter, s.key, s.value) for s in container] == [
        (Counter.QUEUE_ECN_MARKED_PACKETS, CounterKey("Ethernet4", 3), 41)]


def test_queue_without_known_index_is_skipped() -> None:
    sample = Sample(Counter.QUEUE_TRANSMIT_PACKETS, CounterKey("Ethernet4", 3), 1, 5, "")
    encoded = telemetry.encode_leaf(sample, "mystery")
    assert encoded is not None
    assert list(telemetry.decode(encoded[0], encoded[1], 5, {"rdma": 3})) == []


def test_interface_counters() -> None:
    path = (*telemetry.ETHERNET_COUNTERS[:1], telemetry.Elem("interface", (("name", "Ethernet8"),)), *telemetry.ETHERNET_COUNTERS[2:])
    samples = list(telemetry.decode(path, {"in-mac-pause-frames": "3", "in-crc-errors": "0"}, 5, {}))
    assert [(s.counter, s.key, s.value) for s in samples] == [(Counter.PORT_IN_PAUSE_FRAMES, CounterKey("Ethernet8"), 3)]


def test_openconfig_has_no_pfc_or_priority_groups() -> None:
    for counter in (Counter.PFC_RX_PACKETS, Counter.PG_HEADROOM_WATERMARK_BYTES, Counter.PFCWD_STATUS, Counter.PG_DROPPED_PACKETS):
        assert paths_of(telemetry.PATHS, counter) == ()
