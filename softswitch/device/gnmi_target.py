"""The simulated switch as a gNMI target: Capabilities, Get, Set of ``/qos`` and Subscribe to its
counters, over grpcio with the official gNMI protos (the generated ``gnmi.proto`` modules the
``pygnmi`` package ships, ``pygnmi.spec.v080``), as qosforge's client (deliver/gnmi.py) uses them.

One server per switch (a fabric run serves each switch on its own port), because a real fabric is
one gNMI target per switch and because SONiC telemetry uses the path ``target`` for the database
name (``COUNTERS_DB``), so it cannot also name the switch.

- **Capabilities**: ``openconfig-qos`` at the bindings' revision, JSON_IETF and JSON, gNMI 0.8.0.
- **Get**: ``/qos`` configuration as JSON_IETF (what ``push``/``diff`` read), and the published
  counters (:mod:`~qosforge.softswitch.device.publish`) as scalar values, one update per leaf.
- **Set**: one ``replace`` (or ``update``) of ``/qos`` as JSON_IETF. It is decoded through the
  openconfig-qos pyangbind bindings (a model violation rejects the whole Set: INVALID_ARGUMENT,
  nothing applied), applied to the switch's configuration
  (:mod:`~qosforge.softswitch.device.openconfig_set`) and the run restarts with it
  (softswitch/device/live.py).
- **Subscribe**: ONCE, POLL, and STREAM with SAMPLE (at the requested interval; 0 or
  TARGET_DEFINED is 1 s), ON_CHANGE (a leaf is sent when a snapshot changes it, looked for every
  ``ON_CHANGE_CHECK_S``) and
  ``updates_only``, ``suppress_redundant`` and ``heartbeat_interval`` on SAMPLE. Notifications
  carry the snapshot's timestamp (live.py: run start wall time + simulated time).

Authentication as qosforge's client sends it: ``username``/``password`` call metadata (the gNMI
specification's ``gnmi-authentication.md``) when the target was given credentials; TLS with the
server certificate the caller configures (:func:`serve`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc

from qosforge.backends.sonic.telemetry import GNMI_TARGET
from qosforge.softswitch.device.live import LiveSimulation
from qosforge.softswitch.device.paths import Elem, Json, Leaf, LeafIndex, Request, select, to_proto
from qosforge.softswitch.device.paths import request as request_path
from qosforge.softswitch.device.publish import FAMILIES, OPENCONFIG, SONIC, Publisher

QOS_MODULE = "openconfig-qos"
#: Seconds between SAMPLE updates when a subscription asks for 0 or TARGET_DEFINED.
DEFAULT_SAMPLE_S = 1.0
#: Shortest SAMPLE interval honoured (the run publishes at most every ~50 ms of wall time).
MIN_SAMPLE_S = 0.01
#: How often an ON_CHANGE subscription looks for changed values: a real switch's counters change
#: only when its counter polling reads them (SONiC's flex counters: the PFC watchdog group every
#: 200 ms by default, sonic-swss orchagent/pfcwdorch.cpp), and each look here builds the published
#: values in the simulation's process.
ON_CHANGE_CHECK_S = 0.1


def protos() -> tuple[Any, Any]:
    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

    return gnmi_pb2, gnmi_pb2_grpc


FAMILY_NAMES = frozenset(FAMILIES)


def families_of(paths: list[Request]) -> frozenset[str]:
    """The counter families requests can select: sonic-gnmi's when the target is COUNTERS_DB."""
    return frozenset(SONIC if path.target == GNMI_TARGET else OPENCONFIG for path in paths)


class SetRejected(Exception):
    """A Set the switch refuses; nothing was applied. The message goes to the client."""


@dataclass
class SwitchDevice:
    """What a target serves for one switch of a live simulation."""

    switch: str
    live: LiveSimulation
    publishers: Mapping[str, Publisher]
    """Per family, the leaves a counters snapshot publishes (publish.py)."""
    document: dict[str, Any]
    """The ``/qos`` configuration now applied, ``{"openconfig-qos:qos": {...}}``."""
    apply: Callable[[dict[str, Any], dict[str, Any]], Any]
    """(current document, new document) -> the switch's new SwitchConfig; raises SetRejected."""
    model_version: str
    lock: threading.Lock = field(default_factory=threading.Lock)
    _leaves_lock: threading.Lock = field(default_factory=threading.Lock)
    _cache: dict[frozenset[str], tuple[int, LeafIndex, int]] = field(default_factory=dict)

    def current_index(self, families: frozenset[str] = FAMILY_NAMES) -> tuple[LeafIndex, int]:
        """The latest snapshot's leaves of ``families``, indexed by path, and its timestamp:
        built once per snapshot, whoever asks, and only when asked (a snapshot nobody reads is
        never encoded)."""
        with self._leaves_lock:
            counters, stamp, generation = self.live.snapshot(self.switch)
            cached = self._cache.get(families)
            if cached is not None and cached[0] == generation:
                return cached[1], cached[2]
            indexes = []
            for family in sorted(families):
                own = self._cache.get(frozenset((family,)))
                if own is None or own[0] != generation:
                    own = (generation, self.publishers[family].index(counters), stamp)
                    self._cache[frozenset((family,))] = own
                indexes.append(own[1])
            index = indexes[0] if len(indexes) == 1 else LeafIndex([leaf for one in indexes for leaf in one.leaves])
            self._cache[families] = (generation, index, stamp)
            return index, stamp

    def current_leaves(self, families: frozenset[str] = FAMILY_NAMES) -> tuple[list[Leaf], int]:
        """The latest snapshot's leaves of ``families`` and its timestamp."""
        index, stamp = self.current_index(families)
        return index.leaves, stamp


def _typed_value(gnmi_pb2: Any, value: object, encoding: int) -> Any:
    if isinstance(value, Json):
        return gnmi_pb2.TypedValue(json_val=value.encode()) if encoding == gnmi_pb2.JSON else gnmi_pb2.TypedValue(json_ietf_val=value.encode())
    if isinstance(value, bool):
        return gnmi_pb2.TypedValue(bool_val=value)
    if isinstance(value, int):
        return gnmi_pb2.TypedValue(uint_val=value) if value >= 0 else gnmi_pb2.TypedValue(int_val=value)
    if isinstance(value, float):
        return gnmi_pb2.TypedValue(double_val=value)
    return gnmi_pb2.TypedValue(string_val=str(value))


def _is_qos_config(wanted: Request) -> bool:
    elems: tuple[Elem, ...] = wanted.elems
    return (wanted.origin in ("", "openconfig") and not wanted.target and len(elems) == 1
            and elems[0][0] in ("qos", f"{QOS_MODULE}:qos") and not elems[0][1])


class GnmiTarget:  # a gNMIServicer (registered by serve(); the generated base adds nothing)
    def __init__(self, device: SwitchDevice, credentials: tuple[str, str] | None) -> None:
        self.device = device
        self.credentials = credentials
        self.gnmi_pb2, _ = protos()
        self._paths: dict[tuple[Elem, ...], Any] = {}
        """gnmi.Path of each published leaf path (its elements), built on first use."""

    def _authorise(self, context: grpc.ServicerContext) -> None:
        if self.credentials is None:
            return
        metadata = dict(context.invocation_metadata())
        if (metadata.get("username"), metadata.get("password")) != self.credentials:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "bad username or password")

    def _check_running(self, context: grpc.ServicerContext) -> None:
        if self.device.live.error is not None:
            context.abort(grpc.StatusCode.INTERNAL, f"the simulation stopped: {self.device.live.error}")

    # --- Capabilities ----------------------------------------------------------------------
    def Capabilities(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._authorise(context)
        g = self.gnmi_pb2
        models = [g.ModelData(name=QOS_MODULE, organization="OpenConfig working group", version=self.device.model_version)]
        return g.CapabilityResponse(supported_models=models, supported_encodings=[g.JSON, g.JSON_IETF], gNMI_version="0.8.0")

    # --- Get -----------------------------------------------------------------------------
    def Get(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._authorise(context)
        self._check_running(context)
        g = self.gnmi_pb2
        if request.encoding not in (g.JSON, g.JSON_IETF, g.PROTO):
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "this target encodes JSON, JSON_IETF and PROTO (scalar counters)")
        prefix = request.prefix if request.HasField("prefix") else None
        paths = [request_path(prefix, path) for path in request.path or [g.Path()]]
        leaves, stamp = self.device.current_leaves(families_of(paths))
        notifications = []
        for path, wanted in zip(request.path or [g.Path()], paths, strict=True):
            if request.type != g.GetRequest.STATE and _is_qos_config(wanted):
                with self.device.lock:
                    # RFC 7951 §4: the value of /qos is the container's object.
                    encoded = json.dumps(self.device.document.get(f"{QOS_MODULE}:qos", {})).encode()
                val = g.TypedValue(json_ietf_val=encoded) if request.encoding != g.JSON else g.TypedValue(json_val=encoded)
                notifications.append(g.Notification(timestamp=time.time_ns(), update=[g.Update(path=path, val=val)]))
                continue
            if request.type == g.GetRequest.CONFIG:
                context.abort(grpc.StatusCode.NOT_FOUND, f"no configuration at {wanted.text()}: this target's configuration is /qos")
            chosen = list(select(leaves, wanted))
            if not chosen:
                context.abort(grpc.StatusCode.NOT_FOUND, f"nothing is published at {wanted.text()}")
            notifications.append(self._notification(chosen, stamp, request.encoding))
        return g.GetResponse(notification=notifications)

    def _notification(self, leaves: list[Leaf], stamp: int, encoding: int) -> Any:
        """One notification for leaves of one origin and target (the prefix carries them)."""
        g = self.gnmi_pb2
        first = leaves[0]
        prefix = g.Path(origin=first.origin, target=first.target) if first.origin or first.target else None
        paths = self._paths
        updates = []
        for leaf in leaves:
            path = paths.get(leaf.elems)
            if path is None:
                # A published path is the same message in every notification: built once.
                path = paths[leaf.elems] = to_proto(g, leaf.elems)
            updates.append(g.Update(path=path, val=_typed_value(g, leaf.value, encoding)))
        return g.Notification(timestamp=stamp, prefix=prefix, update=updates)

    # --- Set -----------------------------------------------------------------------------
    def Set(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._authorise(context)
        self._check_running(context)
        g = self.gnmi_pb2
        operations = list(request.replace) + list(request.update)
        prefix = request.prefix if request.HasField("prefix") else None
        if request.delete or len(operations) != 1:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "this target accepts one replace (or update) of /qos")
        operation = operations[0]
        wanted = request_path(prefix, operation.path)
        if not _is_qos_config(wanted):
            context.abort(grpc.StatusCode.UNIMPLEMENTED, f"this target configures /qos only, not {wanted.text()}")
        raw = operation.val.json_ietf_val or operation.val.json_val
        try:
            members = json.loads(raw)
            if not isinstance(members, dict):
                raise SetRejected("the value of /qos must be a JSON object")
            inner = members.get(f"{QOS_MODULE}:qos", members.get("qos", members))
            document = {f"{QOS_MODULE}:qos": inner}
            with self.device.lock:
                config = self.device.apply(self.device.document, document)
                self.device.live.reconfigure(self.device.switch, config)
                self.device.document = document
        except SetRejected as error:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        except ValueError as error:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"the value is not JSON: {error}")
        kind = g.UpdateResult.REPLACE if request.replace else g.UpdateResult.UPDATE
        return g.SetResponse(response=[g.UpdateResult(path=operation.path, op=kind)], timestamp=time.time_ns())

    # --- Subscribe -------------------------------------------------------------------------
    def Subscribe(self, request_iterator: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
        self._authorise(context)
        self._check_running(context)
        g = self.gnmi_pb2
        first = next(request_iterator, None)
        if first is None or not first.HasField("subscribe"):
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first SubscribeRequest must carry a SubscriptionList")
            return
        subscriptions = first.subscribe
        if subscriptions.encoding not in (g.JSON, g.JSON_IETF, g.PROTO):
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "this target encodes JSON, JSON_IETF and PROTO")
        prefix = subscriptions.prefix if subscriptions.HasField("prefix") else None
        wanted = [(request_path(prefix, s.path), s) for s in subscriptions.subscription] or [(request_path(prefix, None), None)]
        families = families_of([path for path, _ in wanted])
        index, stamp = self.device.current_index(families)
        if not any(index.positions(path) or any(select(index.leaves, path)) for path, _ in wanted):
            # A path among others that selects nothing is quietly empty (a counter this switch
            # does not publish); a request of which nothing exists is an error.
            context.abort(grpc.StatusCode.NOT_FOUND, f"nothing is published at {', '.join(path.text() for path, _ in wanted)}")
        encoding = subscriptions.encoding

        def notifications(leaf_index: LeafIndex, at: int, which: list[tuple[Request, Any]]) -> Iterator[Any]:
            """One notification per origin and target of every leaf ``which`` selects."""
            chosen: set[int] = set()
            for path, _ in which:
                chosen.update(leaf_index.positions(path))
            groups: dict[tuple[str, str], list[Leaf]] = {}
            for position in sorted(chosen):
                leaf = leaf_index.leaves[position]
                groups.setdefault((leaf.origin, leaf.target), []).append(leaf)
            for group in groups.values():
                yield g.SubscribeResponse(update=self._notification(group, at, encoding))

        sync = g.SubscribeResponse(sync_response=True)
        mode = subscriptions.mode
        if mode == g.SubscriptionList.ONCE:
            yield from notifications(index, stamp, wanted)
            yield sync
            return
        if mode == g.SubscriptionList.POLL:
            yield from notifications(index, stamp, wanted)
            yield sync
            for request in request_iterator:
                if request.HasField("poll"):
                    index, stamp = self.device.current_index(families)
                    yield from notifications(index, stamp, wanted)
                    yield sync
            return
        yield from self._stream(wanted, families, subscriptions.updates_only, notifications, index, stamp, context)

    def _stream(self, wanted: list[Any], families: frozenset[str], updates_only: bool, notifications: Callable[..., Iterator[Any]],
                index: LeafIndex, stamp: int, context: grpc.ServicerContext) -> Iterator[Any]:
        g = self.gnmi_pb2
        live = self.device.live
        on_change = [w for w in wanted if w[1] is not None and w[1].mode == g.ON_CHANGE]
        sampled = [w for w in wanted if w not in on_change]
        intervals = [_interval_s(w[1]) for w in sampled]
        heartbeats = [w[1].heartbeat_interval / 1e9 if w[1] is not None and w[1].heartbeat_interval else 0.0 for w in sampled]
        suppress = [bool(w[1] is not None and w[1].suppress_redundant) for w in sampled]
        if not updates_only:
            yield from notifications(index, stamp, wanted)
        yield g.SubscribeResponse(sync_response=True)
        tracking = bool(on_change) or any(suppress)
        last_values: dict[tuple[str, str, tuple[Elem, ...]], object] = {_key(leaf): leaf.value for leaf in index.leaves} if tracking else {}
        sent_values = [dict(last_values) if suppress[i] else {} for i in range(len(sampled))]
        now = time.monotonic()
        due = [now + interval for interval in intervals]
        last_sent = [now] * len(sampled)
        generation = live.progress().generation
        next_check = now
        while context.is_active():
            next_due = min(due, default=now + 1.0)
            if on_change:
                # Changes are looked for at most every ON_CHANGE_CHECK_S, not at every snapshot
                # the run publishes (each look builds the published values, in the run's process).
                pause = min(next_check, next_due) - time.monotonic()
                if pause > 0:
                    time.sleep(min(pause, 1.0))
                generation = live.wait_for(generation, max(0.0, min(next_due - time.monotonic(), 1.0)))
                next_check = time.monotonic() + ON_CHANGE_CHECK_S
            else:
                time.sleep(max(0.0, min(next_due - time.monotonic(), 1.0)))
            if live.error is not None:
                context.abort(grpc.StatusCode.INTERNAL, f"the simulation stopped: {live.error}")
            now = time.monotonic()
            if not on_change and now < next_due:
                continue
            index, stamp = self.device.current_index(families)
            current = {_key(leaf): leaf for leaf in index.leaves} if tracking else {}
            if on_change:
                changed = [leaf for key, leaf in current.items() if last_values.get(key, object()) != leaf.value]
                if changed:
                    yield from notifications(LeafIndex(changed), stamp, on_change)
                last_values = {key: leaf.value for key, leaf in current.items()}
            now = time.monotonic()
            plain: list[Any] = []  # SAMPLE subscriptions due now: sent together, one notification per origin and target
            for i, subscription in enumerate(sampled):
                if now < due[i]:
                    continue
                due[i] = max(due[i] + intervals[i], now)
                if not suppress[i]:
                    last_sent[i] = now
                    plain.append(subscription)
                    continue
                selection = [leaf for key, leaf in current.items() if sent_values[i].get(key, object()) != leaf.value]
                if not selection and heartbeats[i] and now - last_sent[i] >= heartbeats[i]:
                    selection = list(index.leaves)
                if selection:
                    last_sent[i] = now
                    for leaf in selection:
                        sent_values[i][_key(leaf)] = leaf.value
                    yield from notifications(LeafIndex(selection), stamp, [subscription])
            if plain:
                yield from notifications(index, stamp, plain)


def _key(leaf: Leaf) -> tuple[str, str, tuple[Elem, ...]]:
    return leaf.origin, leaf.target, leaf.elems


def _interval_s(subscription: Any) -> float:
    if subscription is None or not subscription.sample_interval:
        return DEFAULT_SAMPLE_S
    return max(MIN_SAMPLE_S, float(subscription.sample_interval) / 1e9)


def serve(device: SwitchDevice, address: str, *, server_credentials: grpc.ServerCredentials | None,
          credentials: tuple[str, str] | None = None, workers: int = 8) -> tuple[grpc.Server, int]:
    """Start a gNMI server for ``device`` on ``address`` (``HOST:PORT``; port 0 picks a free
    one); returns the server and its port. Plaintext when ``server_credentials`` is None."""
    _, gnmi_pb2_grpc = protos()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers))
    servicer = type("SimulatedSwitch", (GnmiTarget, gnmi_pb2_grpc.gNMIServicer), {})(device, credentials)
    gnmi_pb2_grpc.add_gNMIServicer_to_server(servicer, server)
    port = server.add_secure_port(address, server_credentials) if server_credentials else server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    server.start()
    return server, port


__all__ = ["DEFAULT_SAMPLE_S", "GnmiTarget", "SetRejected", "SwitchDevice", "serve"]
