"""Render one :class:`~qosforge.ir.SwitchIR` as the openconfig-qos ``/qos`` subtree.

Every node is created and every leaf set through the pyangbind bindings of the published model
(:mod:`qosforge.backends.openconfig.model`), so types, ranges, enumerations and identities are the
model's own checks; the JSON shape is the bindings' RFC 7951 encoder's, never written here.
pyangbind builds every container of a list entry eagerly (~0.1 s per classifier term or
``/qos/interfaces`` entry), so classifier terms, queues and forwarding groups are set on one
reused bound entry per kind and encoded by the bindings (:mod:`~qosforge.backends.openconfig.entries`),
and one port per distinct queue binding is built through the bindings, the other ports' entries
being copies of its encoded entry with their own ``interface-id`` (an unconstrained string in the
model). The tests and ``bench/bench_openconfig.py`` load whole documents back through the
bindings' RFC 7951 decoder.

What goes where (openconfig-qos 2026-01-16, ``openconfig-qos-elements``, ``-interfaces``,
``-mem-mgmt``):

- **queues** ``/qos/queues/queue[name]``: one per class, named after it, ``queue-id`` = the queue
  index the compiler planned.
- **forwarding groups**: one per class, ``output-queue`` = its queue.
- **classifiers** ``qosforge-dscp-ipv4`` (type IPV4) and ``qosforge-dscp-ipv6`` (IPV6): one term
  per class (``id`` = class name) matching ``dscp-set`` = every DSCP the plan maps to the class
  (DSCP -> TC -> queue), action ``target-group`` = the class's forwarding group.
- **scheduler policy** ``qosforge``: one STRICT scheduler per strict-priority queue, highest queue
  index first (lower ``sequence`` is served first; SAI and the ASICs the profiles describe serve
  the higher strict queue first), a shaped queue's scheduler typed ONE_RATE_TWO_COLOR with
  ``cir`` in bit/s and ``queuing-behavior SHAPE``; then one scheduler whose inputs are the DWRR
  queues with the intent's weights.
- **queue-management profiles**: one per IR WRED profile, as ``wred/uniform`` (min/max threshold
  in bytes, ``max-drop-probability-percent``, ``enable-ecn`` = the curve marks, ``drop`` = it
  drops); ``weight`` (EWMA) is left to the implementation default, as the IR sets none.
- **buffer-allocation profile** ``qosforge``: per queue ``dedicated-buffer`` (the IR's reserved
  bytes), ``use-shared-buffer``, and the shared limit: DYNAMIC_BASED_ON_SCALING_FACTOR with
  ``dynamic-limit-scaling-factor`` = log2(alpha) (the model's limit is free buffer x 2^factor,
  the same exponent as SAI's SHARED_DYNAMIC_TH), or STATIC with ``static-shared-buffer-limit``.
- **interfaces**: per port the input classifiers (IPV4, IPV6), output buffer-allocation profile,
  scheduler policy and each queue's queue-management profile. ``interface-ref`` is not set: it is
  a leafref into ``/interfaces``, which a ``/qos`` replace does not carry.

The capability contract (:mod:`~qosforge.backends.openconfig.capabilities`): a switch with colors,
or PFC or pools not covered by an accepted approximation, is refused, never silently dropped.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from qosforge.backends.openconfig.capabilities import TARGET_NAME, unapproximated
from qosforge.backends.openconfig.entries import encoded_entry, reused_entry, with_members
from qosforge.backends.openconfig.model import ROOT_KEY, Document, error_text, new_root, to_rfc7951
from qosforge.errors import QosforgeError
from qosforge.ir import BufferProfileIR, Derived, PortIR, SchedulerIR, SwitchIR, WredIR

POLICY = "qosforge"
BUFFER_PROFILE = "qosforge"
CLASSIFIERS = (("IPV4", "qosforge-dscp-ipv4", "ipv4"), ("IPV6", "qosforge-dscp-ipv6", "ipv6"))
_INTEGRAL_TOLERANCE = 1e-9


class _Setter:
    """Sets leaves through the bindings; a value the model rejects names the leaf and the switch."""

    def __init__(self, switch: SwitchIR) -> None:
        self.switch = switch

    def __call__(self, container: Any, leaf: str, value: object, where: str) -> None:
        try:
            setattr(container, leaf.replace("-", "_"), value)
        except (ValueError, TypeError) as error:
            raise QosforgeError(
                f"{where}/{leaf} = {value!r} is not accepted by openconfig-qos: {error_text(error)}",
                place=f"switch {self.switch.name}, target {TARGET_NAME}",
                hint="the value is out of the model's range; check the intent value it comes from (qosforge explain)",
            ) from None

    def whole(self, derived: Derived, what: str) -> int:
        value = derived.value
        if not math.isfinite(value) or abs(value - round(value)) > _INTEGRAL_TOLERANCE:
            raise QosforgeError(f"{what} is {value!r}, but openconfig-qos stores a whole number",
                                place=f"switch {self.switch.name}, target {TARGET_NAME}",
                                hint="the compiler quantises it to what the chip programs")
        return round(value)

    def byte_count(self, derived: Derived, what: str) -> int:
        """Byte counts: rounded to whole bytes (a fraction of a byte has no meaning on a switch)."""
        if not math.isfinite(derived.value) or derived.value < 0:
            raise QosforgeError(f"{what} is {derived.value!r} B", place=f"switch {self.switch.name}, target {TARGET_NAME}",
                                hint="byte sizes and thresholds must be finite and >= 0")
        return math.floor(derived.value + 0.5)


def render_openconfig(switch: SwitchIR) -> Document:
    """The ``{"openconfig-qos:qos": {...}}`` document for ``switch``; refuses what the model cannot carry."""
    _refuse_inexpressible(switch)
    root = new_root()
    qos = root.qos
    put = _Setter(switch)
    class_of_queue = {q.index: q.class_name for port in switch.ports for q in port.queues}
    queues_and_groups = _queues_and_groups(class_of_queue, put)
    terms = _classifiers(qos, switch, class_of_queue, put)
    queue_scheduler = {q.class_name: q.scheduler for port in switch.ports for q in port.queues}
    _scheduler_policy(qos, switch, class_of_queue, queue_scheduler, put)
    for wred in switch.wred_profiles:
        _queue_management_profile(qos, wred, put)
    _buffer_allocation_profile(qos, switch, put)
    representatives = _interfaces(qos, switch, put)
    document = to_rfc7951(root)
    _add_entries(document, qos, queues_and_groups, terms)
    if switch.ports:
        _every_interface(document, switch, representatives)
    return document


def render_fabric(switches: Iterable[SwitchIR]) -> Iterator[tuple[SwitchIR, Document]]:
    """Render every switch; switches whose IR differs only in name and port peers (the compiler's
    shared plans: the document carries neither) are rendered once. The last renderings are kept
    for the process (pyangbind is slow), so ``push``/``diff`` runs in one process reuse them;
    callers must not modify the documents."""
    for switch in switches:
        key = replace(switch, name="", ports=tuple(replace(port, peer=None) for port in switch.ports))
        document = _RENDERED.get(key)
        if document is None:
            document = _RENDERED[key] = render_openconfig(switch)
            while len(_RENDERED) > _KEEP:
                del _RENDERED[next(iter(_RENDERED))]
        yield switch, document


_KEEP = 64
_RENDERED: dict[SwitchIR, Document] = {}


def openconfig_to_json(document: Document) -> str:
    """Stable text form: the bindings' member order, 2-space indent, trailing newline."""
    return json.dumps(document, indent=2) + "\n"


def _refuse_inexpressible(switch: SwitchIR) -> None:
    for item in unapproximated(switch):
        raise QosforgeError(
            f"{item.kind} of class(es) {', '.join(item.class_names)} cannot be expressed in openconfig-qos and no accepted approximation covers it: capability gap of the openconfig target",
            place=f"switch {switch.name}",
            hint="the compiler's openconfig view must apply or refuse it before rendering (backends/openconfig/capabilities.py)",
        )


def _queues_and_groups(class_of_queue: dict[int, str], put: _Setter) -> dict[str, Document]:
    """``/qos`` members ``queues`` and ``forwarding-groups``: one queue and one group per class
    (reused bound entries, entries.py)."""
    queues: list[Document] = []
    groups: list[Document] = []
    for index, name in sorted(class_of_queue.items()):
        queue = reused_entry("queue", lambda qos, key: qos.queues.queue.add(key))
        put(queue.config, "name", name, f"/qos/queues/queue[{name}]/config")
        put(queue.config, "queue-id", index, f"/qos/queues/queue[{name}]/config")
        queues.append(encoded_entry(queue, "name"))
        group = reused_entry("forwarding-group", lambda qos, key: qos.forwarding_groups.forwarding_group.add(key))
        put(group.config, "name", name, f"/qos/forwarding-groups/forwarding-group[{name}]/config")
        put(group.config, "output-queue", name, f"/qos/forwarding-groups/forwarding-group[{name}]/config")
        groups.append(encoded_entry(group, "name"))
    return {"queues": {"queue": queues}, "forwarding-groups": {"forwarding-group": groups}} if queues else {}


def _dscps_by_class(switch: SwitchIR, class_of_queue: dict[int, str]) -> dict[str, list[int]]:
    """DSCP -> TC -> queue -> class, exactly as the plan's maps send packets."""
    queue_of_tc = dict(switch.maps.tc_to_queue)
    by_class: dict[str, list[int]] = {}
    for dscp, tc in sorted(switch.maps.dscp_to_tc):
        queue = queue_of_tc.get(tc)
        if queue in class_of_queue:
            by_class.setdefault(class_of_queue[queue], []).append(dscp)
    return by_class


def _classifiers(qos: Any, switch: SwitchIR, class_of_queue: dict[int, str], put: _Setter) -> dict[str, list[Document]]:
    """The classifiers, bound in ``qos``; returns each one's encoded terms (built on a reused
    bound term per address family, entries.py), which :func:`_add_entries` places."""
    by_class = _dscps_by_class(switch, class_of_queue)
    terms: dict[str, list[Document]] = {}
    for kind, name, family in CLASSIFIERS:
        classifier = qos.classifiers.classifier.add(name)
        where = f"/qos/classifiers/classifier[{name}]"
        put(classifier.config, "name", name, f"{where}/config")
        put(classifier.config, "type", kind, f"{where}/config")
        terms[name] = []
        for class_name, dscps in by_class.items():
            term = reused_entry(f"term-{family}", lambda qos, key: qos.classifiers.classifier.add(key).terms.term.add(key))
            put(term.config, "id", class_name, f"{where}/terms/term[{class_name}]/config")
            conditions = getattr(term.conditions, family).config
            put(conditions, "dscp-set", dscps, f"{where}/terms/term[{class_name}]/conditions/{family}/config")
            put(term.actions.config, "target-group", class_name, f"{where}/terms/term[{class_name}]/actions/config")
            terms[name].append(encoded_entry(term, "id"))
    return terms


def _add_entries(document: Document, qos: Any, qos_members: dict[str, Document], terms: dict[str, list[Document]]) -> None:
    """Place the entries encoded from reused bound entries where the encoder places them."""
    classifiers = document[ROOT_KEY]["classifiers"]["classifier"]
    for position, encoded in enumerate(classifiers):
        if terms[encoded["name"]]:
            classifiers[position] = with_members(encoded, qos.classifiers.classifier[encoded["name"]], {"terms": {"term": terms[encoded["name"]]}})
    document[ROOT_KEY] = with_members(document[ROOT_KEY], qos, qos_members)


def _scheduler_policy(qos: Any, switch: SwitchIR, class_of_queue: dict[int, str], queue_scheduler: dict[str, str], put: _Setter) -> None:
    schedulers = {s.name: s for s in switch.schedulers}
    policy = qos.scheduler_policies.scheduler_policy.add(POLICY)
    where = f"/qos/scheduler-policies/scheduler-policy[{POLICY}]"
    put(policy.config, "name", POLICY, f"{where}/config")
    strict: list[tuple[str, SchedulerIR]] = []
    weighted: list[tuple[str, SchedulerIR]] = []
    for index in sorted(class_of_queue, reverse=True):
        name = class_of_queue[index]
        scheduler = schedulers[queue_scheduler[name]]
        (strict if scheduler.kind == "STRICT" else weighted).append((name, scheduler))
    sequence = 0
    for name, scheduler in strict:
        entry = _scheduler(policy, sequence, where, put)
        put(entry.config, "priority", "STRICT", f"{where}/schedulers/scheduler[{sequence}]/config")
        _input(entry, name, None, f"{where}/schedulers/scheduler[{sequence}]", put)
        if scheduler.max_rate_bytes_per_s is not None:
            _shaper(entry, scheduler.max_rate_bytes_per_s, f"{where}/schedulers/scheduler[{sequence}]", put)
        sequence += 1
    if weighted:
        entry = _scheduler(policy, sequence, where, put)
        for name, scheduler in sorted(weighted):
            _input(entry, name, scheduler.weight or 1, f"{where}/schedulers/scheduler[{sequence}]", put)
            if scheduler.max_rate_bytes_per_s is not None:
                raise QosforgeError(f"queue {name} is DWRR-scheduled and shaped; openconfig-qos shapes a scheduler, not one input of a weighted scheduler",
                                    place=f"switch {switch.name}, target {TARGET_NAME}", hint="make the shaped class strict priority")


def _scheduler(policy: Any, sequence: int, where: str, put: _Setter) -> Any:
    entry = policy.schedulers.scheduler.add(sequence)
    put(entry.config, "sequence", sequence, f"{where}/schedulers/scheduler[{sequence}]/config")
    return entry


def _input(entry: Any, queue: str, weight: int | None, where: str, put: _Setter) -> None:
    item = entry.inputs.input.add(queue)
    put(item.config, "id", queue, f"{where}/inputs/input[{queue}]/config")
    put(item.config, "input-type", "QUEUE", f"{where}/inputs/input[{queue}]/config")
    put(item.config, "queue", queue, f"{where}/inputs/input[{queue}]/config")
    if weight is not None:
        put(item.config, "weight", weight, f"{where}/inputs/input[{queue}]/config")


def _shaper(entry: Any, rate: Derived, where: str, put: _Setter) -> None:
    put(entry.config, "type", "ONE_RATE_TWO_COLOR", f"{where}/config")
    config = entry.one_rate_two_color.config
    put(config, "cir", put.byte_count(replace(rate, value=rate.value * 8.0), "shaper rate (bit/s)"), f"{where}/one-rate-two-color/config")
    put(config, "queuing-behavior", "SHAPE", f"{where}/one-rate-two-color/config")


def _queue_management_profile(qos: Any, wred: WredIR, put: _Setter) -> None:
    (curve,) = wred.curves  # one uniform curve: the capability view removed the others
    profile = qos.queue_management_profiles.queue_management_profile.add(wred.name)
    where = f"/qos/queue-management-profiles/queue-management-profile[{wred.name}]"
    put(profile.config, "name", wred.name, f"{where}/config")
    config = profile.wred.uniform.config
    where += "/wred/uniform/config"
    put(config, "min-threshold", put.byte_count(curve.min_bytes, f"WRED {wred.name} min"), where)
    put(config, "max-threshold", put.byte_count(curve.max_bytes, f"WRED {wred.name} max"), where)
    put(config, "max-drop-probability-percent", put.whole(curve.probability_percent, f"WRED {wred.name} probability"), where)
    put(config, "enable-ecn", curve.mark, where)
    put(config, "drop", curve.drop, where)


def _buffer_allocation_profile(qos: Any, switch: SwitchIR, put: _Setter) -> None:
    profile = qos.buffer_allocation_profiles.buffer_allocation_profile.add(BUFFER_PROFILE)
    where = f"/qos/buffer-allocation-profiles/buffer-allocation-profile[{BUFFER_PROFILE}]"
    put(profile.config, "name", BUFFER_PROFILE, f"{where}/config")
    profiles: dict[str, BufferProfileIR] = {}
    for port in switch.ports:
        for queue in port.queues:
            profiles.setdefault(queue.class_name, switch.profile(queue.buffer_profile))
    for name, buffer in sorted(profiles.items()):
        entry = profile.queues.queue.add(name)
        path = f"{where}/queues/queue[{name}]/config"
        put(entry.config, "name", name, path)
        put(entry.config, "dedicated-buffer", put.byte_count(buffer.reserved_bytes, f"{buffer.name} reserved"), path)
        put(entry.config, "use-shared-buffer", True, path)
        if buffer.dynamic_th is not None:
            put(entry.config, "shared-buffer-limit-type", "DYNAMIC_BASED_ON_SCALING_FACTOR", path)
            put(entry.config, "dynamic-limit-scaling-factor", put.whole(buffer.dynamic_th, f"{buffer.name} dynamic_th"), path)
        elif buffer.static_th_bytes is not None:
            put(entry.config, "shared-buffer-limit-type", "STATIC", path)
            put(entry.config, "static-shared-buffer-limit", put.byte_count(buffer.static_th_bytes, f"{buffer.name} static limit"), path)


def _port_signature(port: PortIR) -> tuple[tuple[int, str, str | None], ...]:
    return tuple(sorted((q.index, q.class_name, q.wred_profile) for q in port.queues))


def _interfaces(qos: Any, switch: SwitchIR, put: _Setter) -> dict[tuple[tuple[int, str, str | None], ...], str]:
    """Bind one port per distinct queue binding through the bindings; returns signature -> that
    port's name (the other ports with the signature are copies of its encoded entry)."""
    representatives: dict[tuple[tuple[int, str, str | None], ...], str] = {}
    for port in switch.ports:
        signature = _port_signature(port)
        if signature in representatives:
            continue
        representatives[signature] = port.name
        interface = qos.interfaces.interface.add(port.name)
        where = f"/qos/interfaces/interface[{port.name}]"
        put(interface.config, "interface-id", port.name, f"{where}/config")
        for kind, name, _family in CLASSIFIERS:
            classifier = interface.input.classifiers.classifier.add(kind)
            put(classifier.config, "type", kind, f"{where}/input/classifiers/classifier[{kind}]/config")
            put(classifier.config, "name", name, f"{where}/input/classifiers/classifier[{kind}]/config")
        output = interface.output
        put(output.config, "buffer-allocation-profile", BUFFER_PROFILE, f"{where}/output/config")
        put(output.scheduler_policy.config, "name", POLICY, f"{where}/output/scheduler-policy/config")
        for queue in sorted(port.queues, key=lambda q: q.index):
            entry = output.queues.queue.add(queue.class_name)
            path = f"{where}/output/queues/queue[{queue.class_name}]/config"
            put(entry.config, "name", queue.class_name, path)
            if queue.wred_profile is not None:
                put(entry.config, "queue-management-profile", queue.wred_profile, path)
    return representatives


def _every_interface(document: Document, switch: SwitchIR, representatives: dict[tuple[tuple[int, str, str | None], ...], str]) -> None:
    """Every port's entry, in port order: the encoded entry of its signature's representative
    with the key (``interface-id``, a plain string in the model) set to the port's name."""
    interfaces = document[ROOT_KEY]["interfaces"]
    encoded = {entry["interface-id"]: entry for entry in interfaces["interface"]}
    entries = []
    for port in switch.ports:
        entry = copy.deepcopy(encoded[representatives[_port_signature(port)]])
        entry["interface-id"] = entry["config"]["interface-id"] = port.name
        entries.append(entry)
    interfaces["interface"] = entries
