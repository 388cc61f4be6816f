"""``qosforge watch``'s gNMI client: read a device's counters as typed samples.

Both counter families of the catalogue (docs/telemetry.md): OpenConfig (origin ``openconfig``,
:mod:`qosforge.backends.openconfig.telemetry`) and SONiC's ``COUNTERS_DB`` virtual paths (prefix
target ``COUNTERS_DB``, :mod:`qosforge.backends.sonic.telemetry`). Each family is its own Subscribe
(its own prefix), so a target that does not serve one still serves the other: a family it rejects
(NOT_FOUND, INVALID_ARGUMENT, UNIMPLEMENTED) is reported as unavailable, never guessed.

- :func:`snapshot`: Subscribe ONCE per family, until ``sync_response`` (gNMI specification
  §3.5.1.5.1): one value of every counter.
- :func:`stream`: Subscribe STREAM per family, SAMPLE every ``interval_s`` (the watchdog's state
  ON_CHANGE where the target accepts it, else SAMPLE too), until ``stop`` is set.

Before subscribing, two Gets resolve names: OpenConfig queue names to queue indices
(``/qos/queues/queue/state/queue-id``) and SONiC priority groups to the object ids their drop
counters are kept under (``COUNTERS_PG_NAME_MAP``). Samples carry the notification timestamps.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from qosforge.backends.counters import Sample
from qosforge.backends.openconfig import telemetry as oc
from qosforge.backends.sonic import telemetry as sonic
from qosforge.deliver.gnmi import DeviceError, GnmiSession, protos

OPENCONFIG = "openconfig"
SONIC = "sonic"
FAMILIES = (SONIC, OPENCONFIG)

#: A family the target does not serve: gNMI specification §3.5.1.3 status codes for a path it
#: does not know or a mode it does not support.
_NOT_SERVED = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNIMPLEMENTED)


@dataclass
class FamilyState:
    """What a family needs to decode updates, and whether the target serves it."""

    name: str
    queue_index: dict[str, int] = field(default_factory=dict)
    pg_names: dict[str, str] = field(default_factory=dict)
    unavailable: str | None = None


def _sonic_path(elements: Sequence[str]) -> Any:
    gnmi_pb2, _ = protos()
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=name) for name in elements])


def _oc_path(elements: Sequence[oc.Elem]) -> Any:
    gnmi_pb2, _ = protos()
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=e.name, key=dict(e.keys)) for e in elements])


def _prefix(family: str) -> Any:
    gnmi_pb2, _ = protos()
    return gnmi_pb2.Path(target=sonic.GNMI_TARGET) if family == SONIC else gnmi_pb2.Path(origin=OPENCONFIG)


def _value(typed: Any) -> Any:
    kind = typed.WhichOneof("value")
    if kind in ("json_ietf_val", "json_val"):
        return json.loads(getattr(typed, kind))
    if kind is None:
        return None
    return getattr(typed, kind)


def _elements(prefix: Any, path: Any) -> list[oc.Elem]:
    return [oc.Elem(e.name, tuple(sorted(e.key.items()))) for e in (*prefix.elem, *path.elem)]


def decode_notification(notification: Any, state: FamilyState) -> Iterator[Sample]:
    """Samples of one gNMI Notification of ``state``'s family."""
    stamp = int(notification.timestamp)
    for update in notification.update:
        elements = _elements(notification.prefix, update.path)
        value = _value(update.val)
        if state.name == SONIC:
            yield from sonic.decode([e.name for e in elements], value, stamp, state.pg_names)
        else:
            yield from oc.decode(elements, value, stamp, state.queue_index)


def _resolve_names(session: GnmiSession, state: FamilyState) -> bool:
    """Fill the family's name maps with one Get; a target that does not serve the family's name
    map marks the family (or, for SONiC PG drops, only the PG object ids) unavailable, and the
    answer is True (the Get was refused)."""
    gnmi_pb2, _ = protos()
    if state.name == OPENCONFIG:
        request = gnmi_pb2.GetRequest(prefix=_prefix(OPENCONFIG), path=[_oc_path(oc.QUEUE_IDS)], encoding=gnmi_pb2.JSON_IETF)
    else:
        request = gnmi_pb2.GetRequest(prefix=_prefix(SONIC), path=[_sonic_path((sonic.PG_NAME_MAP,))], encoding=gnmi_pb2.JSON_IETF)
    try:
        response = session.get(request)
    except DeviceError as error:
        if any(code.name in error.message for code in _NOT_SERVED):
            if state.name == OPENCONFIG:
                state.unavailable = f"no /qos/queues/queue/state/queue-id: {error.message}"
            return True
        raise
    for notification in response.notification:
        for update in notification.update:
            value = _value(update.val)
            elements = _elements(notification.prefix, update.path)
            if state.name == SONIC:
                if isinstance(value, dict):
                    state.pg_names.update({str(oid): str(name) for name, oid in value.items()})
                continue
            keys = {k: v for e in elements for k, v in e.keys}
            if isinstance(value, dict):  # a container or list value: walk its queue entries
                state.queue_index.update(_queue_ids(value))
            elif "name" in keys and value is not None and str(value).isdigit():
                state.queue_index[keys["name"]] = int(value)
    return False


def _queue_ids(value: Any) -> dict[str, int]:
    found: dict[str, int] = {}
    if isinstance(value, dict):
        name, qid = value.get("name"), value.get("queue-id", value.get("openconfig-qos:queue-id"))
        if name is not None and qid is not None and str(qid).isdigit():
            found[str(name)] = int(qid)
        for child in value.values():
            found.update(_queue_ids(child))
    elif isinstance(value, list):
        for child in value:
            found.update(_queue_ids(child))
    return found


def _subscriptions(state: FamilyState, mode: str, interval_ns: int, on_change: bool) -> list[Any]:
    gnmi_pb2, _ = protos()
    sample, changes = gnmi_pb2.SubscriptionMode.Value("SAMPLE"), gnmi_pb2.SubscriptionMode.Value("ON_CHANGE")
    out = []
    if state.name == SONIC:
        paths = [(p, changes if on_change and p == sonic.PFCWD else sample) for p in sonic.SUBSCRIPTIONS]
        paths += [(("COUNTERS", oid), sample) for oid in sorted(state.pg_names)]
        for elements, sub_mode in paths:
            out.append(gnmi_pb2.Subscription(path=_sonic_path(elements), mode=sub_mode,
                                             sample_interval=interval_ns if mode == "STREAM" and sub_mode == sample else 0))
    else:
        for container in oc.SUBSCRIPTIONS:
            out.append(gnmi_pb2.Subscription(path=_oc_path(container), mode=sample, sample_interval=interval_ns if mode == "STREAM" else 0))
    return out


def subscribe_request(state: FamilyState, mode: str, interval_s: float, on_change: bool = False) -> Any:
    """The SubscribeRequest of one family: ``mode`` ONCE or STREAM."""
    gnmi_pb2, _ = protos()
    subscription_list = gnmi_pb2.SubscriptionList(
        prefix=_prefix(state.name), subscription=_subscriptions(state, mode, int(interval_s * 1e9), on_change),
        mode=gnmi_pb2.SubscriptionList.Mode.Value(mode), encoding=gnmi_pb2.JSON_IETF)
    return gnmi_pb2.SubscribeRequest(subscribe=subscription_list)


_NO_SECOND_CALL = (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE,
                   grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)


def families(session: GnmiSession, wanted: Iterable[str] = FAMILIES) -> list[FamilyState]:
    """Each family's name maps. A Get that failed or was refused is first checked against the
    endpoint itself: an HTTP/2 or gRPC service that is no gNMI server refuses every path too, and
    its error says so instead of calling the switch's counters unavailable."""
    states = [FamilyState(name) for name in wanted]
    try:
        refused = [_resolve_names(session, state) for state in states]
    except DeviceError as failed:
        # A peer that timed out, could not be reached or refused the credentials would do the
        # same to Capabilities: asking it again only doubles --timeout.
        if failed.status not in _NO_SECOND_CALL:
            session.require_gnmi_server()
        raise
    if any(refused):
        session.require_gnmi_server()
    return states


def snapshot(session: GnmiSession, states: Sequence[FamilyState]) -> list[Sample]:
    """One value of every counter each family serves (Subscribe ONCE, until sync_response)."""
    samples: list[Sample] = []
    for state in states:
        if state.unavailable is not None:
            continue
        try:
            for response in session.subscribe(subscribe_request(state, "ONCE", 0.0), session.device.connection.timeout_s):
                if response.HasField("update"):
                    samples.extend(decode_notification(response.update, state))
                elif response.sync_response:
                    break
        except grpc.RpcError as error:
            if error.code() in _NOT_SERVED:
                state.unavailable = f"Subscribe: {error.code().name}: {' '.join(str(error.details()).split())}"
                continue
            raise session.device_error("Subscribe", error) from None
    return samples


def stream(session: GnmiSession, states: Sequence[FamilyState], interval_s: float,
           deliver: Callable[[list[Sample]], None], stop: threading.Event, on_change: bool = True) -> None:
    """Subscribe STREAM on every family in its own thread and hand each notification's samples to
    ``deliver`` on this thread, until ``stop`` is set. A family the target rejects is marked
    unavailable (a watchdog subscription ON_CHANGE it rejects is retried as SAMPLE first)."""
    inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
    calls: list[Any] = []
    lock = threading.Lock()

    def run(state: FamilyState) -> None:
        changes = on_change and state.name == SONIC
        while not stop.is_set():
            call = session.subscribe(subscribe_request(state, "STREAM", interval_s, changes), None)
            with lock:
                calls.append(call)
            try:
                for response in call:
                    if response.HasField("update"):
                        inbox.put(("samples", list(decode_notification(response.update, state))))
                return
            except grpc.RpcError as error:
                if stop.is_set() or error.code() == grpc.StatusCode.CANCELLED:
                    return
                if error.code() in _NOT_SERVED and changes:
                    changes = False  # no ON_CHANGE for the watchdog here: sample it too
                    continue
                if error.code() in _NOT_SERVED:
                    state.unavailable = f"Subscribe: {error.code().name}: {' '.join(str(error.details()).split())}"
                    return
                inbox.put(("error", session.device_error("Subscribe", error)))
                return

    threads = [threading.Thread(target=run, args=(s,), daemon=True) for s in states if s.unavailable is None]
    for thread in threads:
        thread.start()
    try:
        while (not stop.is_set() and any(t.is_alive() for t in threads)) or not inbox.empty():
            try:
                kind, item = inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            if kind == "error":
                raise item
            deliver(item)
    finally:
        stop.set()
        with lock:
            for call in calls:
                call.cancel()


__all__ = ["FAMILIES", "OPENCONFIG", "SONIC", "FamilyState", "decode_notification", "families", "snapshot", "stream", "subscribe_request"]
