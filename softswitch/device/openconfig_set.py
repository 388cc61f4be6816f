"""Apply a gNMI Set of the openconfig-qos ``/qos`` subtree to a simulated switch's configuration.

The switch was configured from a SAI program; the OpenConfig document it serves is the same
compile rendered by the OpenConfig backend, which cannot carry everything the SAI program does
(colors, PFC, pools: docs/openconfig.md "What openconfig-qos cannot express"). So a Set is applied
as a *change*: what the new document says differently from the document the switch serves now
changes the configuration, and everything else stays as the SAI program set it (out of band,
as on a device configured partly natively). What changes:

- a queue's ``queue-management-profile`` (per interface) or that profile's ``wred/uniform``
  curve: the queue gets one WRED curve for every color: ``min-threshold``/``max-threshold``
  (bytes), ``max-drop-probability-percent``, ``enable-ecn`` (ECT packets are marked on the curve,
  SAI_ECN_MARK_MODE_ALL) and ``drop`` (other packets are dropped on it); no profile, no WRED;
- the DSCPs of an interface's classifier terms: a DSCP whose term now targets a forwarding group
  with another output queue is mapped to that queue's traffic class (the TC the port's TC -> queue
  map sends to it) on that port's ingress; the simulated packets carry a DSCP and no IP version,
  so the IPV4 and IPV6 classifiers must agree;
- a queue's buffer allocation (``dedicated-buffer``, ``DYNAMIC_BASED_ON_SCALING_FACTOR`` with
  ``dynamic-limit-scaling-factor`` = SAI's SHARED_DYNAMIC_TH, or ``STATIC`` with
  ``static-shared-buffer-limit``).

A change anywhere else (queue ids, scheduler policies) is refused, naming the part, rather than accepted and silently not simulated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from qosforge.softswitch.config import Curve, PortConfig, QueueConfig, SwitchConfig, WredConfig
from qosforge.softswitch.device.gnmi_target import SetRejected

ROOT = "openconfig-qos:qos"
#: Parts of /qos this applier maps onto the simulation; a change to any other part is refused.
APPLIED = frozenset({"interfaces", "classifiers", "queue-management-profiles", "buffer-allocation-profiles", "forwarding-groups"})


def _bare(name: str) -> str:
    return name.split(":", 1)[-1]


def _stripped(node: Any) -> Any:
    """Module prefixes removed from member names and identity values (``openconfig-qos-types:IPV4``)."""
    if isinstance(node, dict):
        return {_bare(k): _stripped(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_stripped(v) for v in node]
    if isinstance(node, str) and ":" in node and node.split(":", 1)[0].startswith("openconfig-"):
        return _bare(node)
    return node


def _entries(container: Any, list_name: str) -> list[dict[str, Any]]:
    if not isinstance(container, dict):
        return []
    entries = container.get(list_name, [])
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


@dataclass(frozen=True)
class Uniform:
    min_bytes: int
    max_bytes: int
    probability_percent: int
    ecn: bool
    drop: bool


@dataclass(frozen=True)
class QueueBuffer:
    dedicated_bytes: int
    limit_type: str
    scaling_factor: int | None
    static_bytes: int | None


@dataclass(frozen=True)
class View:
    """What the simulation reads from a document, per port name and queue index."""

    qos: dict[str, Any]
    wred: dict[tuple[str, int], Uniform | None]
    dscp_queue: dict[str, dict[int, int]]
    buffers: dict[tuple[str, int], QueueBuffer]


def view(document: dict[str, Any]) -> View:
    qos = _stripped(document.get(ROOT, document.get("qos", {})))
    if not isinstance(qos, dict):
        raise SetRejected("/qos must be a JSON object")
    queue_ids: dict[str, int] = {}
    for entry in _entries(qos.get("queues"), "queue"):
        queue_ids[str(entry.get("name"))] = int(entry.get("config", {}).get("queue-id", -1))
    groups = {str(e.get("name")): str(e.get("config", {}).get("output-queue")) for e in _entries(qos.get("forwarding-groups"), "forwarding-group")}

    def queue_index(name: str, where: str) -> int:
        if name not in queue_ids or queue_ids[name] < 0:
            raise SetRejected(f"{where}: queue {name!r} is not in /qos/queues with a queue-id")
        return queue_ids[name]

    profiles: dict[str, Uniform] = {}
    for entry in _entries(qos.get("queue-management-profiles"), "queue-management-profile"):
        uniform = entry.get("wred", {}).get("uniform", {}).get("config", {})
        profiles[str(entry.get("name"))] = Uniform(
            int(uniform.get("min-threshold", 0)), int(uniform.get("max-threshold", 0)), int(uniform.get("max-drop-probability-percent", 100)),
            bool(uniform.get("enable-ecn", False)), bool(uniform.get("drop", True)))
    allocations: dict[str, dict[str, QueueBuffer]] = {}
    for entry in _entries(qos.get("buffer-allocation-profiles"), "buffer-allocation-profile"):
        queues = {}
        for queue in _entries(entry.get("queues"), "queue"):
            c = queue.get("config", {})
            queues[str(queue.get("name"))] = QueueBuffer(
                int(c.get("dedicated-buffer", 0)), str(c.get("shared-buffer-limit-type", "DYNAMIC_BASED_ON_SCALING_FACTOR")),
                int(c["dynamic-limit-scaling-factor"]) if "dynamic-limit-scaling-factor" in c else None,
                int(c["static-shared-buffer-limit"]) if "static-shared-buffer-limit" in c else None)
        allocations[str(entry.get("name"))] = queues
    classifiers = {str(e.get("name")): e for e in _entries(qos.get("classifiers"), "classifier")}

    wred: dict[tuple[str, int], Uniform | None] = {}
    dscp_queue: dict[str, dict[int, int]] = {}
    buffers: dict[tuple[str, int], QueueBuffer] = {}
    for interface in _entries(qos.get("interfaces"), "interface"):
        port = str(interface.get("interface-id"))
        where = f"/qos/interfaces/interface[interface-id={port}]"
        for queue in _entries(interface.get("output", {}).get("queues"), "queue"):
            name = str(queue.get("name"))
            profile = queue.get("config", {}).get("queue-management-profile")
            if profile is not None and profile not in profiles:
                raise SetRejected(f"{where}/output/queues/queue[name={name}]: queue-management-profile {profile!r} is not defined")
            wred[(port, queue_index(name, where))] = profiles[profile] if profile is not None else None
        allocation = interface.get("output", {}).get("config", {}).get("buffer-allocation-profile")
        if allocation is not None:
            if allocation not in allocations:
                raise SetRejected(f"{where}/output: buffer-allocation-profile {allocation!r} is not defined")
            for name, buffer in allocations[allocation].items():
                buffers[(port, queue_index(name, f"/qos/buffer-allocation-profiles/buffer-allocation-profile[name={allocation}]"))] = buffer
        mappings: dict[str, dict[int, int]] = {}
        for classifier in _entries(interface.get("input", {}).get("classifiers"), "classifier"):
            kind = str(classifier.get("type"))
            name = str(classifier.get("config", {}).get("name"))
            if name not in classifiers:
                raise SetRejected(f"{where}/input: classifier {name!r} is not defined")
            mapping = mappings.setdefault(kind, {})
            for term in _entries(classifiers[name].get("terms"), "term"):
                group = str(term.get("actions", {}).get("config", {}).get("target-group"))
                if group not in groups:
                    raise SetRejected(f"classifier {name} term {term.get('id')}: forwarding group {group!r} is not defined")
                queue_id = queue_index(groups[group], f"/qos/forwarding-groups/forwarding-group[name={group}]")
                for dscp in term.get("conditions", {}).get(kind.lower(), {}).get("config", {}).get("dscp-set", []):
                    mapping[int(dscp)] = queue_id
        if "IPV6" in mappings and "IPV4" in mappings and mappings["IPV6"] != mappings["IPV4"]:
            # The simulated hosts' packets carry a DSCP, not an IP version: one map classifies them.
            raise SetRejected(f"{where}/input: the IPV4 and IPV6 classifiers map DSCPs differently, and the simulated switch "
                              "classifies by DSCP alone: give both the same terms")
        dscp_queue[port] = mappings.get("IPV4", mappings.get("IPV6", {}))
    return View(qos, wred, dscp_queue, buffers)


def _wred_config(uniform: Uniform, name: str) -> WredConfig:
    curve = Curve(uniform.drop, uniform.min_bytes, uniform.max_bytes, uniform.probability_percent / 100.0)
    marking = Curve(True, uniform.min_bytes, uniform.max_bytes, uniform.probability_percent / 100.0)
    return WredConfig(name, 0, (curve, curve, curve), (uniform.ecn,) * 3, (marking, marking, marking))


def apply_openconfig(config: SwitchConfig, current: dict[str, Any], new: dict[str, Any]) -> SwitchConfig:
    """``config`` with what ``new`` changes relative to ``current`` (the document it serves)."""
    before, after = view(current), view(new)
    for part in sorted(set(before.qos) | set(after.qos)):
        if part not in APPLIED and json.dumps(before.qos.get(part), sort_keys=True) != json.dumps(after.qos.get(part), sort_keys=True):
            raise SetRejected(f"/qos/{part} changed, and the simulated switch applies only {', '.join(sorted(APPLIED))}: nothing applied")
    wreds = {w.object_id: w for w in config.wreds}
    profiles = {p.object_id: p for p in config.profiles}
    ports: list[PortConfig] = []
    names = {p.name for p in config.ports}
    for interface in set(after.dscp_queue) - names:
        raise SetRejected(f"/qos/interfaces/interface[interface-id={interface}]: the switch has no such port (it has {', '.join(sorted(names)[:4])}, ...)")
    for port in config.ports:
        queues = list(port.queues)
        for index, queue in enumerate(queues):
            key = (port.name, queue.index)
            if before.wred.get(key) != after.wred.get(key):
                uniform = after.wred.get(key)
                if uniform is None:
                    queue = replace(queue, wred=None)
                else:
                    name = f"openconfig:{uniform.min_bytes}:{uniform.max_bytes}:{uniform.probability_percent}:{int(uniform.ecn)}:{int(uniform.drop)}"
                    wreds.setdefault(name, _wred_config(uniform, name))
                    queue = replace(queue, wred=name)
            if before.buffers.get(key) != after.buffers.get(key) and key in after.buffers:
                queue = _with_buffer(queue, after.buffers[key], profiles, f"{port.name} queue {queue.index}")
            queues[index] = queue
        dscp_to_tc = list(port.dscp_to_tc)
        old, new_map = before.dscp_queue.get(port.name, {}), after.dscp_queue.get(port.name, {})
        for dscp in sorted(set(old) | set(new_map)):
            if old.get(dscp) == new_map.get(dscp) or dscp not in new_map:
                continue
            target = new_map[dscp]
            classes = [tc for tc, q in enumerate(port.tc_to_queue) if q == target]
            if not classes:
                raise SetRejected(f"{port.name}: DSCP {dscp} -> queue {target}, but no traffic class maps to queue {target} on that port")
            # The TC other DSCPs of that queue already use (the class's own), else the first.
            used = [dscp_to_tc[d] for d, q in new_map.items() if q == target and d != dscp and port.tc_to_queue[dscp_to_tc[d]] == target]
            dscp_to_tc[dscp] = used[0] if used else classes[0]
        ports.append(replace(port, queues=tuple(queues), dscp_to_tc=tuple(dscp_to_tc)))
    return replace(config, ports=tuple(ports), wreds=tuple(wreds.values()), profiles=tuple(profiles.values()))


def _with_buffer(queue: QueueConfig, buffer: QueueBuffer, profiles: dict[str, Any], where: str) -> QueueConfig:
    if queue.buffer_profile is None or queue.buffer_profile not in profiles:
        raise SetRejected(f"{where}: the queue has no buffer profile to change (its pool is configured out of band)")
    old = profiles[queue.buffer_profile]
    dynamic = buffer.limit_type.endswith("DYNAMIC_BASED_ON_SCALING_FACTOR")
    if dynamic and buffer.scaling_factor is None:
        raise SetRejected(f"{where}: DYNAMIC_BASED_ON_SCALING_FACTOR needs dynamic-limit-scaling-factor")
    profile = replace(old, object_id=f"{old.object_id}+openconfig:{buffer.dedicated_bytes}:{buffer.limit_type}:{buffer.scaling_factor}:{buffer.static_bytes}",
                      reserved_bytes=buffer.dedicated_bytes, dynamic_th=buffer.scaling_factor if dynamic else None,
                      static_th_bytes=None if dynamic else (buffer.static_bytes or 0))
    profiles.setdefault(profile.object_id, profile)
    return replace(queue, buffer_profile=profile.object_id)


__all__ = ["View", "apply_openconfig", "view"]
