"""A lossless incast that fills priority groups to XOFF and uses their headroom, on one switch of
a compiled intent (the served device's headroom check, docs/telemetry.md "Headroom").

PFC headroom is sized for the bytes that still arrive after a priority group sends XOFF
(IEEE 802.1Qbb; the terms of models/pfc_headroom.py and of SONiC's
sonic-swss cfgmgr/buffer_headroom_mellanox.lua): the sender keeps transmitting at line rate until
the PAUSE has been serialised, has crossed the cable and the sender has reacted (IEEE 802.3
Annex 31B.3.7 pause quanta), the frames on the wire and the one it is sending complete, and the
PFC frame itself first waits for the frame the switch port is sending towards the sender
(MAC Control frames do not pre-empt, IEEE 802.3 Clause 31). That last wait is up to one
port-MTU frame: the ``port_mtu`` term of SONiC's headroom formula.

So the scenario has two parts:

- ``senders`` hosts send the lossless class into ``receiver`` at their line rate, open loop (a
  sender that does not slow down before PFC stops it, the case headroom exists for: RoCE
  without congestion control, or a synchronised burst in the RTTs before DCQCN reacts;
  DCQCN itself keeps this switch's 33 MB queue far below XOFF, docs/telemetry.md), in frames of
  the intent's lossless MTU, ECT as RoCEv2 senders under DCQCN are;
- each of those senders also receives a long-lived flow of the first lossy class from another
  host, in port-MTU frames, so the switch port towards the sender is busy when XOFF is sent.

With the compiled headroom no lossless frame is lost; with the headroom cut the priority groups
of the senders' ports drop (tests/validation/test_pfc_headroom_in_flight.py checks the headroom
watermark against the in-flight bytes computed by hand).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from qosforge.errors import QosforgeError
from qosforge.ir.model import ClassIR
from qosforge.models.ethernet import wire_bytes
from qosforge.softswitch.helper.compiled import CompiledSwitch
from qosforge.softswitch.traffic.spec import LOSS_BASED_KINDS, FlowSpec, RunSpec

DEFAULT_SENDERS = 8


@dataclass(frozen=True)
class HeadroomIncast:
    compiled: CompiledSwitch
    entry: ClassIR
    """The lossless class."""
    flows: tuple[FlowSpec, ...]
    run: RunSpec
    receiver: int
    senders: tuple[int, ...]
    """Switch ports of the lossless senders (the priority groups that reach XOFF)."""
    reverse_sources: tuple[int, ...]
    lossless_mtu_bytes: int
    reverse_frame_bytes: int


def headroom_incast(intent: Path, switch_name: str | None, class_name: str | None, port_name: str | None, senders: int = DEFAULT_SENDERS,
                    duration_s: float = 2e-3, seed: int = 1, assume: dict[str, str] | None = None) -> HeadroomIncast:
    """``senders`` line-rate lossless senders into ``port_name`` (default: the first port), each
    receiving port-MTU frames of the first lossy class from one more host."""
    from qosforge.softswitch.helper.compiled import compile_for_softswitch, host_transport

    if not intent.is_file():
        raise QosforgeError(f"no such file: {intent}", place="INTENT", hint="give an intent YAML with a lossless class, e.g. examples/roce-pod.yaml")
    compiled = compile_for_softswitch(intent, switch_name, assume=assume or {})
    entry = compiled.traffic_class(class_name, lossless=True)
    if not entry.lossless:
        raise QosforgeError(f"class {entry.name!r} is not lossless: it has no PFC headroom to fill", place="--class",
                            hint="name a class with lossless: true")
    lossy = next((c for c in compiled.ir.classes if not c.lossless), None)
    if lossy is None:
        raise QosforgeError(f"switch {compiled.ir.name} has no lossy class to carry the port-MTU frames towards the senders",
                            place="classes", hint="add a lossy class (e.g. tcp) to the intent")
    config = compiled.config
    receiver = compiled.port_index(port_name)
    others = [p for p in range(len(config.ports)) if p != receiver]
    if senders < 1 or 2 * senders > len(others):
        raise QosforgeError(f"{senders} senders need {2 * senders + 1} ports (a receiver, the senders and one host sending to each); "
                            f"switch {compiled.ir.name} has {len(config.ports)}", place="--flows",
                            hint=f"use 1 to {len(others) // 2} senders")
    lossless_mtu_bytes = int(compiled.design.lossless_mtu_bytes)
    reverse_frame = int(compiled.design.port_mtu_bytes)
    sending, reverse = tuple(others[:senders]), tuple(others[senders:2 * senders])
    flows = [FlowSpec(kind="cbr", src_port=s, dst_port=receiver, dscp=entry.dscp[0], packet_bytes=lossless_mtu_bytes,
                      rate_pps=config.ports[s].speed_bps / 8.0 / wire_bytes(lossless_mtu_bytes))
             for s in sending]
    kind = host_transport(lossy)
    for source, sender in zip(reverse, sending, strict=True):
        forward = 2 * config.ports[sender].cable_delay_s
        # As the incast scenario: what the one switch does not carry of the class's RTT is the ACK path.
        flows.append(FlowSpec(kind=kind, src_port=source, dst_port=sender, dscp=lossy.dscp[0], packet_bytes=reverse_frame,
                              ect=kind not in LOSS_BASED_KINDS, ack_delay_s=max(lossy.rtt_s.value - forward, forward)))
    queue = config.ports[receiver].tc_to_queue[entry.traffic_class]
    run = RunSpec(duration_s=duration_s, seed=seed, monitors=((receiver, queue),), pfc_watchdog=True)
    return HeadroomIncast(compiled, entry, tuple(flows), run, receiver, sending, reverse, lossless_mtu_bytes, reverse_frame)


__all__ = ["DEFAULT_SENDERS", "HeadroomIncast", "headroom_incast"]
