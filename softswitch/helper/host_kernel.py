"""The Linux TCP host of each class, as a host settings document describes it (``simulate
--hosts``): the congestion control its sockets run, whether its connections negotiate ECN, its
minimum RTO and initial window, each with where the value came from (the document's class, its
kernel section, the intent's transport, a flag, or Linux's default).

* Congestion control: the class's own (``classes[].congestion_control``: a socket's
  ``TCP_CONGESTION``, tcp(7), or a route's ``congctl``, ip-route(8)), else the kernel default
  ``net.ipv4.tcp_congestion_control``, else Linux's default, cubic (net/ipv4/Kconfig
  DEFAULT_TCP_CONG). The simulator runs cubic, reno and dctcp as Linux does; a class whose
  congestion control is its intent transport's own (d2tcp, ear, tbtcp) runs that transport's
  host model; any other name is refused.
* ECN (Documentation/networking/ip-sysctl.rst ``tcp_ecn``): 1 requests ECN on outgoing
  connections and accepts it on incoming ones; 2, Linux's default, only accepts it; 0 neither.
  A class whose routes carry ``features ecn`` (``classes[].route_ecn``, ip-route(8)) requests it
  whatever the sysctl says.
  Both ends of a class's connections run the document, so cubic or reno connections are
  ECN-capable with 1 (RFC 3168 §6.1.1: the SYN asks, the SYN-ACK agrees) and not with 2 or 0.
  A congestion control that needs ECN (DCTCP's TCP_CONG_NEEDS_ECN, tcp_dctcp.c) negotiates it
  whatever the sysctl (tcp_output.c tcp_ecn_send_syn, tcp_input.c tcp_ecn_create_request).
* Minimum RTO: the class's route ``rto_min`` (``classes[].rto_min_s``), else the kernel's
  ``net.ipv4.tcp_rto_min_us`` (Linux 6.11), else TCP_RTO_MIN = 200 ms (include/net/tcp.h); a
  ``--rto-min`` flag overrides all three.
* Initial window: the class's route ``initcwnd`` (``classes[].initial_window_segments``), else
  TCP_INIT_CWND = 10 segments (include/net/tcp.h; RFC 6928).

Without a document (:func:`apply_intent_hosts`), each class's hosts run what the intent states
for them (``classes[].hosts``, else the intent's ``hosts``, else Linux's defaults:
compiler/host_tcp.py): the class's transport, its minimum RTO and initial window; ``--rto-min``
still overrides the minimum RTO.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from qosforge.backends.host.document import (
    NEEDS_ECN_CONGESTION_CONTROLS,
    ClassDoc,
    HostSettingsDocument,
)
from qosforge.defaults import LINUX_INITIAL_WINDOW_SEGMENTS, LINUX_RTO_MIN
from qosforge.errors import QosforgeError
from qosforge.ir import ClassIR
from qosforge.softswitch.helper.host_model import HostModel
from qosforge.softswitch.traffic.spec import WINDOW_KINDS, FlowKind, FlowSpec, TransportParams
from qosforge.units import parse_time_s

#: Linux's TCP_RTO_MIN (include/net/tcp.h: HZ/5) and TCP_INIT_CWND (RFC 6928's IW10).
LINUX_RTO_MIN_S = parse_time_s(LINUX_RTO_MIN)


LINUX_INITIAL_WINDOW = LINUX_INITIAL_WINDOW_SEGMENTS


#: How a value read from the host settings document is named in the report's sources.
DOCUMENT = "host document"


#: net.ipv4.tcp_ecn's default (ip-sysctl.rst): accept ECN when the peer asks, never ask.
LINUX_TCP_ECN = 2


#: net.ipv4.tcp_congestion_control's default (net/ipv4/Kconfig DEFAULT_TCP_CONG).
LINUX_CONGESTION_CONTROL = "cubic"


#: The Linux congestion controls the simulator runs as Linux does, by whether ECN was negotiated.
SIMULATED: dict[str, tuple[FlowKind, FlowKind]] = {
    "cubic": ("cubic", "cubic"),
    "reno": ("newreno", "tcp-ecn"),
    "dctcp": ("dctcp", "dctcp"),
}






def _class_of(document: HostSettingsDocument, dscp: int) -> tuple[int, ClassDoc] | None:
    return next(((i, c) for i, c in enumerate(document.classes) if dscp in c.dscp), None)


def host_model(
    document: HostSettingsDocument,
    flow: FlowSpec,
    *,
    transport_flag: bool = False,
    rto_min_flag_s: float | None = None,
) -> HostModel:
    """The host model of a window flow (its class found by its DSCP in the document)."""
    found = _class_of(document, flow.dscp)
    index, cls = found if found is not None else (-1, None)
    name = cls.name if cls is not None else f"DSCP {flow.dscp}"
    where = f"classes[{index}]"
    kernel = document.kernel
    sources: dict[str, str] = {}
    cc: str
    kind: FlowKind
    if transport_flag:
        cc, kind = flow.kind, flow.kind
        sources["congestion_control"] = "--transport"
    else:
        if cls is not None and cls.congestion_control is not None:
            cc, key = cls.congestion_control, f"{where}.congestion_control"
        elif kernel.tcp_congestion_control is not None:
            cc, key = kernel.tcp_congestion_control, "kernel.tcp_congestion_control"
        else:
            cc, key = LINUX_CONGESTION_CONTROL, "Linux default (net.ipv4.tcp_congestion_control)"
        sources["congestion_control"] = key if key.startswith("Linux") else f"{DOCUMENT} {key}"
        kind = flow.kind
        if cc not in SIMULATED:
            own = cls is not None and cls.congestion_control == cc and cc == cls.transport
            if not own:
                raise QosforgeError(
                    f"congestion control {cc!r} of class {name!r} cannot be simulated",
                    place=f"--hosts: {key}",
                    hint=f"the simulated Linux hosts run {', '.join(SIMULATED)} "
                    "(or the class's own transport)",
                )
            sources["congestion_control"] = f"{DOCUMENT} {key} (the intent transport's host model)"
    tcp_ecn = kernel.tcp_ecn if kernel.tcp_ecn is not None else LINUX_TCP_ECN
    if transport_flag:
        ecn, sources["ecn"] = flow.ect, "--transport"
    elif cc in SIMULATED:
        route_ecn = cls is not None and cls.route_ecn
        ecn = cc in NEEDS_ECN_CONGESTION_CONTROLS or tcp_ecn == 1 or route_ecn
        kind = SIMULATED[cc][int(ecn)]
        if cc in NEEDS_ECN_CONGESTION_CONTROLS:
            sources["ecn"] = "TCP_CONG_NEEDS_ECN"
        elif route_ecn:
            sources["ecn"] = f"{DOCUMENT} {where}.route_ecn (route features ecn)"
        elif kernel.tcp_ecn is not None:
            sources["ecn"] = f"{DOCUMENT} kernel.tcp_ecn"
        else:
            sources["ecn"] = "Linux default (net.ipv4.tcp_ecn = 2)"
    else:
        ecn, sources["ecn"] = flow.ect, "the intent transport"
    if rto_min_flag_s is not None:
        rto_min_s, sources["rto_min"] = rto_min_flag_s, "--rto-min"
    elif cls is not None and cls.rto_min_s is not None:
        rto_min_s = cls.rto_min_s
        sources["rto_min"] = f"{DOCUMENT} {where}.rto_min_s (route rto_min)"
    elif kernel.tcp_rto_min_us is not None:
        rto_min_s = kernel.tcp_rto_min_us / 1e6
        sources["rto_min"] = f"{DOCUMENT} kernel.tcp_rto_min_us"
    else:
        rto_min_s, sources["rto_min"] = LINUX_RTO_MIN_S, "Linux default (TCP_RTO_MIN)"
    if cls is not None and cls.initial_window_segments is not None:
        initial, sources["initial_window"] = (
            cls.initial_window_segments,
            f"{DOCUMENT} {where}.initial_window_segments (route initcwnd)",
        )
    else:
        initial, sources["initial_window"] = (
            LINUX_INITIAL_WINDOW,
            "Linux default (TCP_INIT_CWND, RFC 6928)",
        )
    return HostModel(name, cc, kind, ecn, rto_min_s, initial, sources)


def apply_host_kernel(
    document: HostSettingsDocument,
    flows: tuple[FlowSpec, ...],
    *,
    transport_flag: bool = False,
    rto_min_flag_s: float | None = None,
) -> tuple[tuple[FlowSpec, ...], tuple[HostModel, ...]]:
    """The window flows as the document's hosts run them, and each class's host model once."""
    adjusted: list[FlowSpec] = []
    models: dict[str, HostModel] = {}
    for flow in flows:
        if flow.kind not in WINDOW_KINDS:
            adjusted.append(flow)
            continue
        model = host_model(
            document, flow, transport_flag=transport_flag, rto_min_flag_s=rto_min_flag_s
        )
        models.setdefault(model.class_name, model)
        adjusted.append(
            replace(
                flow,
                kind=model.flow_kind,
                ect=model.ecn_capable,
                rto_min_s=model.rto_min_s,
                initial_window=model.initial_window,
            )
        )
    return tuple(adjusted), tuple(models.values())


def intent_host_model(
    entry: ClassIR,
    flow: FlowSpec,
    *,
    transport_flag: bool = False,
    rto_min_flag_s: float | None = None,
) -> HostModel | None:
    """The TCP host of a window flow of class ``entry`` as the intent states it (None for a class
    without a Linux TCP host: RoCE)."""
    tcp = entry.host_tcp
    if tcp is None:
        return None
    sources = {
        "congestion_control": "--transport" if transport_flag else "intent transport",
        "ecn": "--transport" if transport_flag else "intent transport",
        "rto_min": "--rto-min" if rto_min_flag_s is not None else tcp.rto_min_source,
        "initial_window": tcp.initial_window_source,
    }
    rto_min_s = rto_min_flag_s if rto_min_flag_s is not None else tcp.rto_min_s
    return HostModel(entry.name, flow.kind, flow.kind, flow.ect, rto_min_s,
                     tcp.initial_window_segments, sources)


def class_transport_params(entry: ClassIR, rto_min_flag_s: float | None) -> TransportParams:
    """The run's transport parameters for one class's flows: the minimum RTO and initial window
    the intent states for its TCP hosts (compiler/host_tcp.py: the class's ``hosts``, the
    intent's, else Linux's), ``--rto-min`` over the first; a RoCE class keeps the engine's."""
    tcp = entry.host_tcp
    if tcp is None:
        if rto_min_flag_s is None:
            return TransportParams()
        return TransportParams(rto_min_s=rto_min_flag_s)
    rto_min_s = rto_min_flag_s if rto_min_flag_s is not None else tcp.rto_min_s
    return TransportParams(rto_min_s=rto_min_s, initial_window=tcp.initial_window_segments)


def apply_intent_hosts(
    classes: Iterable[ClassIR],
    flows: tuple[FlowSpec, ...],
    *,
    transport_flag: bool = False,
    rto_min_flag_s: float | None = None,
) -> tuple[tuple[FlowSpec, ...], tuple[HostModel, ...]]:
    """The window flows with the minimum RTO and initial window the intent states for their class
    (found by DSCP, important DSCPs included), and each class's host model once. A flow of a DSCP
    no class lists keeps the run's values (and ``--rto-min``)."""
    by_dscp = {d: c for c in classes for d in (*c.dscp, *c.important_dscp)}
    adjusted: list[FlowSpec] = []
    models: dict[str, HostModel] = {}
    for flow in flows:
        entry = by_dscp.get(flow.dscp)
        model = None
        if flow.kind in WINDOW_KINDS and entry is not None:
            model = intent_host_model(entry, flow, transport_flag=transport_flag,
                                      rto_min_flag_s=rto_min_flag_s)
        if model is None:
            adjusted.append(flow)
            continue
        models.setdefault(model.class_name, model)
        adjusted.append(replace(flow, rto_min_s=model.rto_min_s,
                                initial_window=model.initial_window))
    return tuple(adjusted), tuple(models.values())


__all__ = ["HostModel", "apply_host_kernel", "apply_intent_hosts", "class_transport_params",
           "host_model", "intent_host_model"]
