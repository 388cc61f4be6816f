"""The simulated switch as a gNMI target (softswitch/device/): Capabilities, Get and Set of /qos,
and Subscribe ONCE, POLL and STREAM (SAMPLE, ON_CHANGE) of its counters over real gRPC on
127.0.0.1, with the official gNMI protos as a client uses them. The served counters are held
against an independent run of the same scenario in one piece (softswitch/simulation.py) and
against physics (line rate, ECN marking at K)."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from qosforge.softswitch.simulation import simulate

from .conftest import DURATION_S, Served, StartServed

STORAGE = "/qos/interfaces/interface[interface-id=Ethernet0]/output/queues/queue[name=storage]/state"


def _path(text: str, origin: str = "", target: str = "") -> Any:
    from qosforge.softswitch.device.paths import parse_path, to_proto

    return to_proto(gnmi_pb2, parse_path(text), origin=origin, target=target)


def _stub(served: Served) -> Any:
    return gnmi_pb2_grpc.gNMIStub(grpc.insecure_channel(served.address))


def _values(notification: Any) -> dict[str, Any]:
    out = {}
    for update in notification.update:
        field = update.val.WhichOneof("value")
        out[update.path.elem[-1].name] = getattr(update.val, field)
    return out


def _once(stub: Any, text: str, origin: str = "", target: str = "") -> tuple[list[Any], Any]:
    request = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        mode=gnmi_pb2.SubscriptionList.ONCE, encoding=gnmi_pb2.JSON_IETF, subscription=[gnmi_pb2.Subscription(path=_path(text, origin, target))]))
    responses = list(stub.Subscribe(iter([request]), timeout=20))
    return [r.update for r in responses if r.HasField("update")], responses[-1]


def _finished(served: Served) -> None:
    assert served.served.live.wait_until(DURATION_S, timeout_s=120)


def test_capabilities_name_the_model_and_json_ietf(start_served: StartServed) -> None:
    from qosforge.backends.openconfig.model import model_revision

    served = start_served()
    response = _stub(served).Capabilities(gnmi_pb2.CapabilityRequest(), timeout=10)
    assert [(m.name, m.version) for m in response.supported_models] == [("openconfig-qos", model_revision().split("@")[1])]
    assert gnmi_pb2.JSON_IETF in response.supported_encodings and response.gNMI_version == "0.8.0"


def test_served_counters_equal_an_independent_run_in_one_piece(start_served: StartServed) -> None:
    served = start_served()
    _finished(served)
    stub = _stub(served)
    notifications, last = _once(stub, STORAGE)
    assert last.sync_response
    values = _values(notifications[0])
    built = served.built
    reference = simulate(built.compiled.config, built.flows, built.run)
    port, q = built.receiver, built.queue
    assert values["transmit-octets"] == int(reference.dequeued_bytes[port, q]) > 0
    assert values["ecn-marked-pkts"] == int(reference.marks[port, q].sum()) > 0
    assert values["dropped-pkts"] == int(reference.drops[port, q].sum())
    assert values["max-queue-len"] == int(reference.queue_max_cells[port, q] * built.compiled.config.asic.cell_bytes)
    assert values["avg-queue-len"] == round(reference.monitors[0].mean_bytes)
    # Physics: the receiver's port never sends faster than its line rate.
    assert values["transmit-octets"] * 8 <= built.compiled.config.ports[port].speed_bps * DURATION_S * 1.0001
    # DCTCP's step marking at K: a queue marks only once it exceeds K (slow start overshoots it).
    threshold = next(w.ect_mark[0].min_bytes for w in built.compiled.config.wreds
                     if w.object_id == built.compiled.config.ports[port].queues[q].wred)
    assert values["max-queue-len"] > threshold
    # The same numbers on sonic-gnmi's virtual path, in its shape: {"Ethernet0:1": {field: "decimal"}}.
    sonic, _ = _once(stub, "/COUNTERS/Ethernet0/Queues", target="COUNTERS_DB")
    assert sonic[0].prefix.target == "COUNTERS_DB"
    queues = json.loads(sonic[0].update[0].val.json_ietf_val)
    assert queues[f"Ethernet0:{q}"]["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] == str(values["ecn-marked-pkts"])
    assert queues[f"Ethernet0:{q}"]["SAI_QUEUE_STAT_PACKETS"] == str(values["transmit-pkts"])


def test_timestamps_are_run_start_plus_simulated_time(start_served: StartServed) -> None:
    served = start_served()
    _finished(served)
    progress = served.served.live.progress()
    notifications, _ = _once(_stub(served), STORAGE)
    assert notifications[0].timestamp == round((progress.start_wall_s + DURATION_S) * 1e9)
    assert notifications[0].timestamp <= time.time_ns()


def _stream(stub: Any, subscription: Any, into: queue.Queue[Any], stop: threading.Event) -> None:
    request = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        mode=gnmi_pb2.SubscriptionList.STREAM, encoding=gnmi_pb2.JSON_IETF, subscription=[subscription]))
    call = stub.Subscribe(iter([request]), timeout=30)
    try:
        for response in call:
            into.put(response)
            if stop.is_set():
                call.cancel()
                return
    except grpc.RpcError:
        # The test took what it needed and stopped the server before the next sample: the
        # stream ends with UNAVAILABLE then, which is no failure (raised, it would land in a
        # later test's captured stderr as an unhandled thread exception).
        if not stop.is_set():
            raise


def _collect(stub: Any, subscription: Any, count: int) -> list[Any]:
    into: queue.Queue[Any] = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=_stream, args=(stub, subscription, into, stop), daemon=True)
    thread.start()
    got: list[Any] = []
    while len(got) < count:
        got.append(into.get(timeout=30))
    stop.set()
    return got


def test_stream_sample_sends_at_the_interval_with_rising_counters(start_served: StartServed) -> None:
    served = start_served(flows=6, duration_s=1.0)
    stub = _stub(served)
    subscription = gnmi_pb2.Subscription(path=_path(f"{STORAGE}/transmit-pkts"), mode=gnmi_pb2.SAMPLE, sample_interval=200_000_000)
    began = time.monotonic()
    responses = _collect(stub, subscription, 5)
    elapsed = time.monotonic() - began
    assert responses[1].sync_response
    updates = [r.update for r in responses if r.HasField("update")]
    counts = [u.update[0].val.uint_val for u in updates]
    stamps = [u.timestamp for u in updates]
    assert counts == sorted(counts) and stamps == sorted(stamps)
    # Four notifications at 200 ms: the first at once, three more 200 ms apart (at least 0.6 s).
    assert elapsed >= 0.55


def test_poll_answers_each_poll(start_served: StartServed) -> None:
    served = start_served()
    stub = _stub(served)
    polls: queue.Queue[Any] = queue.Queue()
    first = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        mode=gnmi_pb2.SubscriptionList.POLL, subscription=[gnmi_pb2.Subscription(path=_path(f"{STORAGE}/transmit-octets"))]))
    polls.put(first)

    def requests() -> Iterator[Any]:
        while (item := polls.get()) is not None:
            yield item

    call = stub.Subscribe(requests(), timeout=30)
    seen = []
    for response in call:
        seen.append(response)
        if response.sync_response:
            if len([s for s in seen if s.sync_response]) == 3:
                polls.put(None)
                break
            _finished(served)
            polls.put(gnmi_pb2.SubscribeRequest(poll=gnmi_pb2.Poll()))
    values = [r.update.update[0].val.uint_val for r in seen if r.HasField("update")]
    assert len(values) == 3 and values[1] == values[2] >= values[0]


def test_on_change_sends_only_what_changed(start_served: StartServed) -> None:
    served = start_served(duration_s=1.0)
    stub = _stub(served)
    subscription = gnmi_pb2.Subscription(path=_path("/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state/transmit-pkts"),
                                         mode=gnmi_pb2.ON_CHANGE)
    responses = _collect(stub, subscription, 4)
    first = responses[0].update
    from qosforge.softswitch.device.serve import queue_names

    named = queue_names(served.served.devices[0].document)  # default, storage, bulk
    assert len(first.update) == len(served.built.compiled.config.ports) * len(named) == 15
    later = [r.update for r in responses[2:] if r.HasField("update")]
    assert later and all(len(n.update) < len(first.update) for n in later)


def test_get_qos_returns_the_rendered_document_and_counters_by_path(start_served: StartServed) -> None:
    served = start_served()
    stub = _stub(served)
    response = stub.Get(gnmi_pb2.GetRequest(path=[_path("/qos")], type=gnmi_pb2.GetRequest.CONFIG, encoding=gnmi_pb2.JSON_IETF), timeout=10)
    document = json.loads(response.notification[0].update[0].val.json_ietf_val)
    assert document == served.served.devices[0].document["openconfig-qos:qos"]
    state = stub.Get(gnmi_pb2.GetRequest(path=[_path(f"{STORAGE}/ecn-marked-pkts")], type=gnmi_pb2.GetRequest.STATE,
                                         encoding=gnmi_pb2.JSON_IETF), timeout=10)
    assert state.notification[0].update[0].path.elem[-1].name == "ecn-marked-pkts"
    with pytest.raises(grpc.RpcError) as missing:
        stub.Get(gnmi_pb2.GetRequest(path=[_path("/qos/nothing-here")], encoding=gnmi_pb2.JSON_IETF), timeout=10)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def _set(stub: Any, qos: dict[str, Any]) -> Any:
    value = gnmi_pb2.TypedValue(json_ietf_val=json.dumps(qos).encode())
    return stub.Set(gnmi_pb2.SetRequest(replace=[gnmi_pb2.Update(path=_path("/qos"), val=value)]), timeout=60)


def test_set_disabling_ecn_restarts_the_run_without_marks(start_served: StartServed) -> None:
    served = start_served()
    _finished(served)
    stub = _stub(served)
    before, _ = _once(stub, STORAGE)
    assert _values(before[0])["ecn-marked-pkts"] > 0
    qos = json.loads(json.dumps(served.served.devices[0].document["openconfig-qos:qos"]))
    for profile in qos["queue-management-profiles"]["queue-management-profile"]:
        profile["wred"]["uniform"]["config"]["enable-ecn"] = False
    _set(stub, qos)
    live = served.served.live
    assert live.wait_until(DURATION_S, timeout_s=120, epoch=1)
    assert live.progress().epoch == 1
    after, _ = _once(stub, STORAGE)
    values = _values(after[0])
    assert values["ecn-marked-pkts"] == 0 and values["transmit-pkts"] > 0
    # DCTCP without marks grows its windows until the queue's buffer limit drops packets.
    assert values["max-queue-len"] > _values(before[0])["max-queue-len"]
    got = stub.Get(gnmi_pb2.GetRequest(path=[_path("/qos")], type=gnmi_pb2.GetRequest.CONFIG, encoding=gnmi_pb2.JSON_IETF), timeout=10)
    assert json.loads(got.notification[0].update[0].val.json_ietf_val) == qos


def test_set_rejects_what_the_model_rejects_and_applies_nothing(start_served: StartServed) -> None:
    served = start_served()
    stub = _stub(served)
    qos = json.loads(json.dumps(served.served.devices[0].document["openconfig-qos:qos"]))
    qos["queue-management-profiles"]["queue-management-profile"][0]["wred"]["uniform"]["config"]["max-drop-probability-percent"] = 250
    with pytest.raises(grpc.RpcError) as rejected:
        _set(stub, qos)
    assert rejected.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert served.served.live.progress().epoch == 0


def test_set_moving_a_dscp_to_another_class_moves_its_traffic(start_served: StartServed) -> None:
    served = start_served()
    stub = _stub(served)
    qos = json.loads(json.dumps(served.served.devices[0].document["openconfig-qos:qos"]))
    for classifier in qos["classifiers"]["classifier"]:
        for term in classifier["terms"]["term"]:
            conditions = term["conditions"].get("ipv4", term["conditions"].get("ipv6"))["config"]
            if term["id"] == "storage":
                conditions["dscp-set"] = [12]
            elif term["id"] == "bulk":
                conditions["dscp-set"] = sorted(conditions["dscp-set"] + [10])
    _set(stub, qos)
    assert served.served.live.wait_until(DURATION_S, timeout_s=120, epoch=1)
    storage, _ = _once(stub, STORAGE)
    bulk, _ = _once(stub, STORAGE.replace("name=storage", "name=bulk"))
    # The incast's DSCP 10 now lands in bulk's queue, which has no WRED: nothing is marked.
    assert _values(storage[0])["transmit-pkts"] == 0
    assert _values(bulk[0])["transmit-pkts"] > 0 and _values(bulk[0])["ecn-marked-pkts"] == 0


def test_credentials_are_required_when_configured(start_served: StartServed) -> None:
    served = start_served(credentials=("netops", "s3cret"))
    stub = _stub(served)
    with pytest.raises(grpc.RpcError) as denied:
        stub.Capabilities(gnmi_pb2.CapabilityRequest(), metadata=(("username", "netops"), ("password", "wrong")), timeout=10)
    assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
    ok = stub.Capabilities(gnmi_pb2.CapabilityRequest(), metadata=(("username", "netops"), ("password", "s3cret")), timeout=10)
    assert ok.gNMI_version == "0.8.0"


def test_unknown_paths_are_not_found(start_served: StartServed) -> None:
    served = start_served()
    request = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
        mode=gnmi_pb2.SubscriptionList.ONCE, subscription=[gnmi_pb2.Subscription(path=_path("/qos/interfaces/interface[interface-id=Ethernet99]"))]))
    with pytest.raises(grpc.RpcError) as missing:
        list(_stub(served).Subscribe(iter([request]), timeout=10))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


QUEUES = "/qos/interfaces/interface[interface-id=Ethernet0]/output/queues/queue/state"


def _leaf_paths(notifications: list[Any]) -> set[str]:
    """``QUEUE/LEAF`` of every update: the queue's name (the omitted key) and the leaf."""
    return {
        f"{dict(u.path.elem[-3].key)['name']}/{u.path.elem[-1].name}"
        for n in notifications
        for u in n.update
    }


def test_an_omitted_list_key_selects_every_entry_in_get_once_poll_and_stream(
    start_served: StartServed,
) -> None:
    # gNMI path conventions (openconfig/reference rpc/gnmi/gnmi-path-conventions.md, wildcards):
    # a list element without its key selects every entry, in Get and Subscribe alike.
    served = start_served()
    _finished(served)
    stub = _stub(served)
    got = stub.Get(
        gnmi_pb2.GetRequest(
            path=[_path(QUEUES)], type=gnmi_pb2.GetRequest.STATE, encoding=gnmi_pb2.JSON_IETF
        ),
        timeout=10,
    )
    from qosforge.softswitch.device.serve import queue_names

    named = set(queue_names(served.served.devices[0].document).values())  # default, storage, bulk
    by_get = _leaf_paths(list(got.notification))
    assert {path.split("/")[0] for path in by_get} == named and len(by_get) > 3 * len(named)
    once, last = _once(stub, QUEUES)
    assert last.sync_response and _leaf_paths(once) == by_get
    # the same leaves as naming every key explicitly
    starred, _ = _once(stub, QUEUES.replace("queue/state", "queue[name=*]/state"))
    assert _leaf_paths(starred) == by_get
    stream = _collect(stub, gnmi_pb2.Subscription(path=_path(QUEUES), mode=gnmi_pb2.SAMPLE), 2)
    assert stream[1].sync_response and _leaf_paths([stream[0].update]) == by_get
    poll = gnmi_pb2.SubscribeRequest(
        subscribe=gnmi_pb2.SubscriptionList(
            mode=gnmi_pb2.SubscriptionList.POLL,
            subscription=[gnmi_pb2.Subscription(path=_path(QUEUES))],
        )
    )
    polled = []
    for response in stub.Subscribe(iter([poll]), timeout=20):
        if response.sync_response:
            break
        polled.append(response.update)
    assert _leaf_paths(polled) == by_get
