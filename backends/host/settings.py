"""The hosts' side of the compiled plan: what every host must set so it agrees with its switch.

Per host port of a switch (PortIR.host_nic) the host needs the switch's view of each DSCP: the
priority the switch pauses (PFC priority = the class's TC, compiler/plan.py), the lossless
priorities, the CNP DSCP and the queue it lands in, and the congestion control each class's
senders run. Host ports with identical settings form one host *kind*, rendered once.

Every value carries where it comes from (:class:`HostValue`): the intent's plan (the switch's maps),
a transport model (models/dcqcn_host.py), and the public documentation of the knob that sets it.
A knob whose command or unit is not public is kept with form ``manual``: its value is listed for
the operator, never written into a command.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from qosforge.backends.host.document import NEEDS_ECN_CONGESTION_CONTROLS
from qosforge.ir import (
    ClassIR,
    Derived,
    HostTcpIR,
    PortIR,
    SwitchIR,
    derived_constant,
    derived_from,
)
from qosforge.models.dcqcn_host import DcqcnHost, dcqcn_host
from qosforge.transports import transport
from qosforge.vendor_profiles.host_nics import HostNicProfile, load_host_nic

Form = Literal["sysctl", "mlnx_qos", "sysfs", "configfs", "ip-route", "manual"]

# The congestion control each transport's senders run, whether they must react to ECN and whether
# it runs in a RoCE NIC are its TransportSpec's host settings (transports/, e.g. dctcp: Linux
# tcp_dctcp, Documentation/networking/dctcp.rst; d2tcp, tbtcp, ear: no mainline Linux module,
# listed for manual installation; dcqcn / irn: the RoCE NIC's reaction point, DCQCN §3.1).
#: Congestion controls a mainline Linux kernel ships (net/ipv4/tcp_*.c) that the sysctl can name.
LINUX_CONGESTION_CONTROLS = frozenset({"dctcp", "cubic", "reno", "bbr"})
#: What a Linux kernel runs unless told otherwise (net/ipv4/Kconfig DEFAULT_TCP_CONG).
LINUX_DEFAULT_CONGESTION_CONTROL = "cubic"

SRC_IP_SYSCTL = "Linux Documentation/networking/ip-sysctl.rst"
SRC_DCTCP_DOC = "Linux Documentation/networking/dctcp.rst ('sysctl -w net.ipv4.tcp_congestion_control=dctcp')"
SRC_RFC8257 = "RFC 8257 (DCTCP) §3.2-§3.3 (receiver echoes CE, sender reacts to the fraction of marks), §5 (both ends and the switches must run it)"
SRC_MLNX_QOS = "NVIDIA MLNX_OFED documentation, Quality of Service: mlnx_qos (--trust, --pfc, --dscp2prio)"
SRC_MLNX_ECN = ("NVIDIA MLNX_OFED documentation v24.10, Explicit Congestion Notification (ECN): "
                "/sys/class/net/<interface>/ecn/<roce_rp|roce_np>/enable/<priority>")
SRC_MLNX_ECN_ATTRS = ("mlx5 ECN sysfs attributes (Mellanox mlnx-ofa_kernel drivers/net/ethernet/mellanox/mlx5/core/en_sysfs.c: "
                      "ecn/roce_np/{cnp_dscp,cnp_802p_prio,min_time_between_cnps}, ecn/roce_rp/{rpg_*,dce_tcp_rtt})")
SRC_DCQCN_PARAMS = ("NVIDIA DOCA documentation, DCQCN CC Parameters (ConnectX-4 and later; rpg_min_rate Mb/s, dce_tcp_rtt µs); "
                    "units of the rpg_* reaction-point fields as Linux include/uapi/linux/dcbnl.h struct ieee_qcn documents them "
                    "(rpg_time_reset µs, rpg_threshold stages, rpg_ai_rate and rpg_hai_rate Mbit/s)")
SRC_CNP_INTERVAL_UNIT = "mstflint register layout (min_time_between_cnps: 'Minimum time between sending cnps from the port, in microseconds')"
SRC_CONFIGFS = "Linux Documentation/ABI/testing/configfs-rdma_cm (default_roce_mode, default_roce_tos: 'RoCE TOS values are 0-255')"
SRC_TOS = "RFC 2474 §3: the DSCP is the upper six bits of the IPv4 TOS / IPv6 Traffic Class octet (TOS = DSCP·4); the low two bits are ECN (RFC 3168 §5)"
SRC_PLAN = "qosforge plan (compiler/plan.py): PFC priority = the class's traffic class; the switch's DSCP_TO_TC map"
SRC_DEFAULT_MAP = "mlnx_qos default DSCP-to-priority mapping: priority = DSCP >> 3 (the eight DSCPs 8p..8p+7 on priority p)"
SRC_ECT = (
    "RFC 3168 §5 (ECT(0) is ECN field 10), §6.1.1.1 (a router marks CE only on ECN-capable packets "
    "and drops the others "
    "it would mark); §6.1.2 likewise for the IPv6 Traffic Class"
)
SRC_CABLE_LEN = (
    "Linux drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c (xoff from cable_len, speed "
    "and MTU), "
    "en_dcbnl.c (cable length set through dcbnl, MLX5E_MAX_CABLE_LENGTH 1000 m); mlnx_qos "
    "--cable_len"
)
SRC_IP_ROUTE = (
    "ip-route(8) (rto_min TIME: the minimum RTO to this destination, Linux 2.6.23; initcwnd "
    "NUMBER: the initial congestion window, Linux 2.6.33; congctl NAME: its congestion control, "
    "Linux 4.0); iproute2 ip/iproute.c locks rto_min and takes it in ms, and Linux applies a "
    "route's rto_min only when locked (include/net/tcp.h tcp_rto_min)"
)
SRC_RTO_MIN_SYSCTL = (
    f"{SRC_IP_SYSCTL} tcp_rto_min_us (Linux 6.11; per network namespace; default 200000; a "
    "route's rto_min takes precedence)"
)
SRC_TCP_CONG_MODULE = (
    "Linux net/ipv4/tcp_cong.c tcp_set_default_congestion_control -> tcp_ca_find_autoload: "
    'request_module("tcp_%s") for a caller with CAP_NET_ADMIN when the algorithm is not loaded'
)
#: The low two bits of a TOS octet that mark the packet ECN-capable, ECT(0) (RFC 3168 §5).
ECT0 = 0b10
#: The longest cable the mlx5 driver sizes headroom for (en_dcbnl.c MLX5E_MAX_CABLE_LENGTH).
MLX5_MAX_CABLE_M = 1000
#: Congestion controls a mainline kernel usually builds in (CONFIG_TCP_CONG_CUBIC=y is the default;
#: reno is always there); the others are modules tcp_<name>.
BUILT_IN_CONGESTION_CONTROLS = frozenset({"cubic", "reno"})


@dataclass(frozen=True)
class HostValue:
    """One setting of a host: its stable name, value and unit, how it is applied, and why."""

    name: str
    value: float | str
    unit: str
    form: Form
    apply: str
    """The line or command that applies it (empty for ``manual``)."""
    knob_source: str
    """Where the command, path and unit are documented."""
    derived: Derived
    """The value's derivation (model, inputs, formula, source), as in the switch report."""
    note: str = ""


@dataclass(frozen=True)
class HostClass:
    name: str
    transport: str
    dscp: tuple[int, ...]
    priority: int
    lossless: bool
    congestion_control: str | None
    ecn: bool
    rto_min_s: float | None = None
    """The minimum RTO the intent states for the class's connections; None: Linux's."""
    initial_window_segments: int | None = None
    """The initial window the intent states; None: Linux's."""
    rto_min_source: str = ""
    """Where the intent states the minimum RTO (e.g. ``intent hosts.rto_min``)."""
    initial_window_source: str = ""


@dataclass(frozen=True)
class HostKind:
    """The settings of every host with one NIC, speed and switch plan."""

    name: str
    nic: HostNicProfile
    speed_bps: float
    attachments: tuple[tuple[str, str], ...]
    trust: str
    dscp_to_priority: tuple[tuple[int, int], ...]
    pfc_priorities: tuple[int, ...]
    cnp_dscp: int | None
    cnp_priority: int | None
    classes: tuple[HostClass, ...]
    tcp_congestion_control: str | None
    tcp_ecn: int | None
    tcp_rto_min_us: int | None
    """net.ipv4.tcp_rto_min_us where every TCP class states one minimum RTO; None otherwise."""
    rp_priorities: tuple[int, ...]
    np_priorities: tuple[int, ...]
    dcqcn: DcqcnHost | None
    values: tuple[HostValue, ...]

    def value(self, name: str) -> HostValue | None:
        return next((v for v in self.values if v.name == name), None)


def _classes_at(switch: SwitchIR, speed_bps: float) -> tuple[ClassIR, ...]:
    """One ClassIR per class: the one for the host port's speed (a switch has one per speed)."""
    chosen: dict[str, ClassIR] = {}
    for entry in switch.classes:
        if entry.name not in chosen or abs(entry.rate_bps - speed_bps) < 1.0:
            chosen[entry.name] = entry
    return tuple(chosen.values())


def _plan_value(value: float, unit: str, quantity: str, formula: str, source: str = SRC_PLAN) -> Derived:
    return derived_constant(value, unit, quantity=quantity, formula=formula, source=source, model="host_plan")


def _host_classes(switch: SwitchIR, classes: Iterable[ClassIR]) -> tuple[HostClass, ...]:
    tc_of = dict(switch.maps.dscp_to_tc)
    return tuple(HostClass(c.name, c.transport, c.dscp + c.important_dscp, tc_of.get(c.dscp[0], c.traffic_class), c.lossless,
                           transport(c.transport).host.congestion_control,
                           transport(c.transport).host.ecn, *_stated_tcp(c.host_tcp))
                 for c in classes)


def _stated_tcp(tcp: HostTcpIR | None) -> tuple[float | None, int | None, str, str]:
    """The minimum RTO and initial window the intent states, and where (a Linux default needs
    no command)."""
    if tcp is None:
        return None, None, "", ""
    return (tcp.rto_min_s if tcp.rto_min_stated else None,
            tcp.initial_window_segments if tcp.initial_window_stated else None,
            tcp.rto_min_source, tcp.initial_window_source)


def _one_rto_min_us(classes: tuple[HostClass, ...]) -> int | None:
    """The minimum RTO in µs when every Linux TCP class of the host states the same one: then
    net.ipv4.tcp_rto_min_us sets it once; otherwise None (per route only)."""
    tcp = [c for c in classes if not _rdma(c)]
    values = {c.rto_min_s for c in tcp}
    if not tcp or len(values) != 1 or None in values:
        return None
    return round(next(iter(v for v in values if v is not None)) * 1e6)


def derive_host_kind(name: str, switch: SwitchIR, port: PortIR, attachments: tuple[tuple[str, str], ...]) -> HostKind:
    """The settings of the hosts on ``port`` of ``switch`` (``attachments`` share them)."""
    nic = load_host_nic(port.host_nic or "linux-kernel")
    classes = _classes_at(switch, port.speed_bps)
    host_classes = _host_classes(switch, classes)
    tc_of = dict(switch.maps.dscp_to_tc)
    cnp = next((c for c in switch.control_classes if c.name == "cnp"), None)
    cnp_dscp = cnp.dscp[0] if cnp is not None else None
    cnp_priority = tc_of.get(cnp_dscp, cnp.traffic_class) if cnp is not None and cnp_dscp is not None else None
    # Every DSCP, not only the classes': with trust dscp the NIC puts a DSCP no class uses on its
    # default priority DSCP >> 3 (24..31 on 3, a lossless priority here), where the switch sends
    # it to the TC its DSCP_TO_TC map gives (qos_config.j2's AZURE map: TC 0 for unlisted DSCPs).
    dscp_to_priority = tuple((d, tc_of.get(d, 0)) for d in range(64))
    rdma = [c for c in host_classes if _rdma(c)]
    rp_priorities = tuple(sorted({c.priority for c in rdma}))
    tcp_cc = _kernel_cc(host_classes)
    if tcp_cc is not None:
        # A class that leaves its congestion control to the kernel (plain TCP) would run the
        # default written for the ECN classes (dctcp): name Linux's own default for it, which
        # its routes then set (congctl cubic; net/ipv4/Kconfig DEFAULT_TCP_CONG).
        host_classes = tuple(
            replace(c, congestion_control=LINUX_DEFAULT_CONGESTION_CONTROL)
            if c.congestion_control is None and not _rdma(c) else c
            for c in host_classes
        )
    # ECN is asked for per class, on its routes (features ecn), not host-wide: net.ipv4.tcp_ecn = 1
    # would make every other class's connections on the host ECN-capable too (a legacy CUBIC
    # class the intent keeps on drops), and DCTCP negotiates ECN without it (TCP_CONG_NEEDS_ECN).
    tcp_rto_min_us = _one_rto_min_us(host_classes)
    model = dcqcn_host(port.speed_bps) if rdma else None
    values = _values(nic, port, host_classes, dscp_to_priority, cnp_dscp, cnp_priority, rp_priorities, tcp_cc, model)
    values = (*values, *_route_values(host_classes, tcp_rto_min_us, tcp_cc))
    return HostKind(name=name, nic=nic, speed_bps=port.speed_bps, attachments=attachments, trust="dscp",
                    dscp_to_priority=dscp_to_priority, pfc_priorities=tuple(port.pfc_priorities), cnp_dscp=cnp_dscp,
                    cnp_priority=cnp_priority, classes=host_classes, tcp_congestion_control=tcp_cc, tcp_ecn=None,
                    tcp_rto_min_us=tcp_rto_min_us, rp_priorities=rp_priorities,
                    np_priorities=rp_priorities, dcqcn=model, values=values)


def _rdma(klass: HostClass) -> bool:
    """The class's congestion control runs in a RoCE NIC (DCQCN's reaction point)."""
    return transport(klass.transport).host.nic_dcqcn


def _kernel_cc(classes: tuple[HostClass, ...]) -> str | None:
    """The kernel's default congestion control: the one every ECN-marked TCP class runs, when
    they agree and Linux ships it (dctcp); otherwise None (set per class by hand)."""
    wanted = {c.congestion_control for c in classes if c.ecn and not _rdma(c) and c.congestion_control}
    if len(wanted) == 1:
        only = next(iter(wanted))
        return only if only in LINUX_CONGESTION_CONTROLS else None
    return None


def _values(nic: HostNicProfile, port: PortIR, classes: tuple[HostClass, ...], dscp_to_priority: tuple[tuple[int, int], ...],
            cnp_dscp: int | None, cnp_priority: int | None, rp_priorities: tuple[int, ...], tcp_cc: str | None,
            model: DcqcnHost | None) -> tuple[HostValue, ...]:
    values: list[HostValue] = []
    values += _kernel_values(classes, tcp_cc)
    mlx5 = nic.driver == "mlx5"
    unrendered = f"host NIC {nic.name} has no NIC command set in qosforge; name a host_nic (e.g. nvidia-connectx-6dx) to render it"

    def nic_value(name: str, value: float | str, unit: str, form: Form, apply: str, knob: str, derived: Derived, note: str = "") -> None:
        if mlx5:
            values.append(HostValue(name, value, unit, form, apply, knob, derived, note))
        else:
            values.append(HostValue(name, value, unit, "manual", "", knob, derived, note or unrendered))

    needs_nic = any(c.lossless or _rdma(c) for c in classes)
    if not needs_nic:
        return tuple(values)
    nic_value("mlnx_qos.trust", "dscp", "", "mlnx_qos", 'mlnx_qos -i "$IFACE" --trust dscp', SRC_MLNX_QOS,
              _plan_value(0, "", "trust", "the switches classify by DSCP (DSCP_TO_TC_MAP), so the host NIC must too"))
    bits = ",".join("1" if p in port.pfc_priorities else "0" for p in range(8))
    nic_value("mlnx_qos.pfc", bits, "per priority 0..7", "mlnx_qos", f'mlnx_qos -i "$IFACE" --pfc {bits}', SRC_MLNX_QOS,
              _plan_value(len(port.pfc_priorities), "priorities", "pfc_priorities",
                          f"PFC on the switch port's lossless priorities {list(port.pfc_priorities)} (PORT_QOS_MAP pfc_enable)"))
    if port.pfc_priorities:
        cable_m = math.ceil(port.cable_m)
        derived = _plan_value(
            cable_m,
            "m",
            "cable_len",
            f"the intent's host cable of {port.cable_m:g} m, rounded up to whole meters: the NIC "
            "sizes its receive headroom for it (xoff = (301 + 2.16·len[m])·speed[Gb/s] + "
            "2.72·MTU[B])",
            SRC_CABLE_LEN,
        )
        if cable_m <= MLX5_MAX_CABLE_M:
            nic_value(
                "mlnx_qos.cable_len",
                cable_m,
                "m",
                "mlnx_qos",
                f'mlnx_qos -i "$IFACE" --cable_len={cable_m}',
                f"{SRC_MLNX_QOS}; {SRC_CABLE_LEN}",
                derived,
            )
        else:
            values.append(
                HostValue(
                    "mlnx_qos.cable_len",
                    cable_m,
                    "m",
                    "manual",
                    "",
                    SRC_CABLE_LEN,
                    derived,
                    f"the mlx5 driver accepts at most {MLX5_MAX_CABLE_M} m "
                    "(MLX5E_MAX_CABLE_LENGTH): the NIC's headroom "
                    "cannot cover this cable; shorten it or size the NIC's buffers by hand "
                    "(mlnx_qos --buffer_size)",
                )
            )
    for dscp, priority in dscp_to_priority:
        if priority == dscp >> 3:
            continue  # the NIC's default mapping already agrees (only differences are rendered)
        nic_value(f"mlnx_qos.dscp2prio.{dscp}", priority, "priority", "mlnx_qos", f'mlnx_qos -i "$IFACE" --dscp2prio set,{dscp},{priority}',
                  f"{SRC_MLNX_QOS}; {SRC_DEFAULT_MAP}",
                  _plan_value(priority, "priority", "dscp_to_priority", f"the switch maps DSCP {dscp} to TC {priority} (the NIC's default is {dscp >> 3})"))
    rdma = [c for c in classes if _rdma(c)]
    if rdma:
        roce = rdma[0]
        tos = roce.dscp[0] << 2 | ECT0
        nic_value("rdma_cm.default_roce_mode", "RoCE v2", "", "configfs",
                  'mkdir -p /sys/kernel/config/rdma_cm/"$RDMA_DEV" && echo "RoCE v2" > /sys/kernel/config/rdma_cm/"$RDMA_DEV"/ports/1/default_roce_mode',
                  SRC_CONFIGFS, _plan_value(2, "", "roce_mode", "DCQCN runs over RoCEv2 (routable UDP/IP, ECN in the IP header)", "DCQCN §2 (RoCEv2)"))
        nic_value(
            "rdma_cm.default_roce_tos",
            tos,
            "TOS octet",
            "configfs",
            f'echo {tos} > /sys/kernel/config/rdma_cm/"$RDMA_DEV"/ports/1/default_roce_tos',
            f"{SRC_CONFIGFS}; {SRC_TOS}",
            _plan_value(
                tos,
                "TOS octet",
                "roce_tos",
                f"DSCP {roce.dscp[0]} of class '{roce.name}' << 2 | ECT(0) (0b10)",
                f"{SRC_TOS}; {SRC_ECT}",
            ),
            "applies to rdma_cm connections that do not set their TOS (rdma_set_option overrides "
            "it); its ECN bits are ECT(0), "
            "so the switches mark CE instead of dropping whichever way the NIC's firmware treats "
            "them",
        )
        for priority in rp_priorities:
            nic_value(f"ecn.roce_rp.enable.{priority}", 1, "", "sysfs", f'echo 1 > /sys/class/net/"$IFACE"/ecn/roce_rp/enable/{priority}', SRC_MLNX_ECN,
                      _plan_value(priority, "priority", "rp_priority", f"class '{rdma[0].name}' sends on priority {priority}: its senders react to CNPs there"))
            nic_value(f"ecn.roce_np.enable.{priority}", 1, "", "sysfs", f'echo 1 > /sys/class/net/"$IFACE"/ecn/roce_np/enable/{priority}', SRC_MLNX_ECN,
                      _plan_value(priority, "priority", "np_priority", f"CE-marked packets of priority {priority} make the receiver send CNPs"))
        if cnp_dscp is not None and cnp_priority is not None:
            nic_value("ecn.roce_np.cnp_dscp", cnp_dscp, "DSCP", "sysfs", f'echo {cnp_dscp} > /sys/class/net/"$IFACE"/ecn/roce_np/cnp_dscp',
                      SRC_MLNX_ECN_ATTRS, _plan_value(cnp_dscp, "DSCP", "cnp_dscp", "design.cnp_dscp: the DSCP the switches put on their strict-priority CNP queue"))
            nic_value("ecn.roce_np.cnp_802p_prio", cnp_priority, "priority", "sysfs",
                      f'echo {cnp_priority} > /sys/class/net/"$IFACE"/ecn/roce_np/cnp_802p_prio', SRC_MLNX_ECN_ATTRS,
                      _plan_value(cnp_priority, "priority", "cnp_priority", f"the switch maps the CNP DSCP {cnp_dscp} to TC {cnp_priority}"))
        if model is not None:
            values += _dcqcn_values(model, mlx5, unrendered)
    return tuple(values)


def route_requests_ecn(klass: HostClass) -> bool:
    """The class's routes ask for ECN (ip-route(8) ``features ecn``): an ECN-marked TCP class
    whose congestion control does not negotiate ECN itself. Linux's SYN asks for ECN with
    net.ipv4.tcp_ecn = 1, a congestion control with TCP_CONG_NEEDS_ECN (tcp_dctcp.c), or a route
    with RTAX_FEATURE_ECN (tcp_ecn_send_syn, net/ipv4/tcp_output.c); a listener accepts with
    tcp_ecn 1 or Linux's default 2 (tcp_ecn_create_request, net/ipv4/tcp_input.c)."""
    return (klass.ecn and not _rdma(klass)
            and klass.congestion_control not in NEEDS_ECN_CONGESTION_CONTROLS)


def _kernel_values(classes: tuple[HostClass, ...], tcp_cc: str | None) -> list[HostValue]:
    values: list[HostValue] = []
    ecn_tcp = [c for c in classes if c.ecn and not _rdma(c)]
    if tcp_cc is not None:
        values.append(
            HostValue(
                "net.ipv4.tcp_congestion_control",
                tcp_cc,
                "",
                "sysctl",
                f"net.ipv4.tcp_congestion_control = {tcp_cc}",
                f"{SRC_IP_SYSCTL} tcp_congestion_control; {SRC_DCTCP_DOC}",
                _plan_value(
                    0,
                    "",
                    "tcp_congestion_control",
                    f"every ECN-marked TCP class runs {tcp_cc}",
                    SRC_RFC8257,
                ),
                "the default for new connections: other TCP traffic on the host runs it too unless "
                "its application sets "
                "TCP_CONGESTION (tcp(7)) or its route sets congctl (ip-route(8))"
                + _module_note(tcp_cc),
            )
        )
    for c in ecn_tcp:
        if c.congestion_control is not None and c.congestion_control != tcp_cc:
            source = SRC_RFC8257 if c.congestion_control in LINUX_CONGESTION_CONTROLS else transport(c.transport).paper
            why = (f"the host's ECN-marked TCP classes need different congestion controls, so no one default is written: select "
                   f"{c.congestion_control} for this class's connections" if c.congestion_control in LINUX_CONGESTION_CONTROLS else
                   f"no mainline Linux congestion control module implements {c.congestion_control}: install the authors' implementation and "
                   "select it")
            values.append(HostValue(f"class.{c.name}.congestion_control", c.congestion_control, "", "manual", "", source,
                                    _plan_value(0, "", "congestion_control", f"class '{c.name}' runs {c.transport}", source),
                                    f"{why} per socket (TCP_CONGESTION, tcp(7)) or per route (congctl, ip-route(8))"))
    return values


def _route_values(
    classes: tuple[HostClass, ...], tcp_rto_min_us: int | None, tcp_cc: str | None
) -> list[HostValue]:
    """The minimum RTO and initial window the intent states: once as net.ipv4.tcp_rto_min_us where
    every TCP class has the same minimum RTO, and per class as route attributes (ip-route(8)), the
    form every kernel since 2.6.33 takes and which wins over the sysctl."""
    values: list[HostValue] = []
    if tcp_rto_min_us is not None:
        stated = sorted({c.rto_min_source for c in classes if not _rdma(c)})
        values.append(HostValue(
            "net.ipv4.tcp_rto_min_us", tcp_rto_min_us, "us", "sysctl",
            f"net.ipv4.tcp_rto_min_us = {tcp_rto_min_us}", SRC_RTO_MIN_SYSCTL,
            _plan_value(tcp_rto_min_us, "us", "tcp_rto_min_us",
                        "the minimum RTO the intent's hosts state for every TCP class",
                        "; ".join(stated)),
            "Linux 6.11 or later (an older kernel has no such key: tcp-routes.sh sets the same per "
            "route); every TCP connection of the host's namespace gets it unless its route says "
            "otherwise"))
    for c in classes:
        other_cc = (tcp_cc is not None and c.congestion_control != tcp_cc
                    and c.congestion_control in LINUX_CONGESTION_CONTROLS)
        asks_ecn = route_requests_ecn(c)
        if _rdma(c) or (c.rto_min_s is None and c.initial_window_segments is None and not other_cc
                        and not asks_ecn):
            continue
        route = route_attributes(c)
        if other_cc and c.congestion_control is not None:
            values.append(HostValue(
                f"class.{c.name}.congctl", c.congestion_control, "", "ip-route",
                f'ip route replace "$DESTINATION" "$@" {route}', SRC_IP_ROUTE,
                _plan_value(0, "", "congctl", f"class '{c.name}' runs {c.congestion_control}, "
                            f"not the host's default {tcp_cc}", SRC_IP_ROUTE),
                f"net.ipv4.tcp_congestion_control = {tcp_cc} is every other connection's "
                "default: this class's routes select its own"))
        if c.rto_min_s is not None:
            ms = round(c.rto_min_s * 1e3)
            values.append(HostValue(
                f"class.{c.name}.rto_min", ms, "ms", "ip-route",
                f'ip route replace "$DESTINATION" "$@" {route}', SRC_IP_ROUTE,
                _plan_value(ms, "ms", "rto_min", f"the intent's minimum RTO for class '{c.name}'",
                            c.rto_min_source)))
        if c.initial_window_segments is not None:
            values.append(HostValue(
                f"class.{c.name}.initcwnd", c.initial_window_segments, "segments", "ip-route",
                f'ip route replace "$DESTINATION" "$@" {route}', SRC_IP_ROUTE,
                _plan_value(c.initial_window_segments, "segments", "initcwnd",
                            f"the intent's initial window for class '{c.name}'",
                            f"{c.initial_window_source}; RFC 6928 (Linux's default, 10)")))
        if asks_ecn:
            values.append(HostValue(
                f"class.{c.name}.features", "ecn", "", "ip-route",
                f'ip route replace "$DESTINATION" "$@" {route}', SRC_IP_ROUTE,
                _plan_value(0, "", "features", f"class '{c.name}' is ECN-marked by the switches "
                            f"and {c.congestion_control or 'its congestion control'} does not ask "
                            "for ECN itself: its connections must (RFC 3168 §6.1.1)",
                            "RFC 3168 §6.1.1; " + SRC_IP_ROUTE),
                "per route, so that the host's other classes keep Linux's default "
                "(net.ipv4.tcp_ecn = 2: accept ECN, never ask for it)"))
    return values


def route_attributes(klass: HostClass) -> str:
    """The ip-route(8) attributes of a class's routes: ``rto_min Xms initcwnd N congctl NAME
    features ecn`` (congctl where the class runs a congestion control a mainline kernel ships;
    features ecn where :func:`route_requests_ecn`)."""
    parts = []
    if klass.rto_min_s is not None:
        parts.append(f"rto_min {round(klass.rto_min_s * 1e3)}ms")
    if klass.initial_window_segments is not None:
        parts.append(f"initcwnd {klass.initial_window_segments}")
    if klass.congestion_control in LINUX_CONGESTION_CONTROLS:
        parts.append(f"congctl {klass.congestion_control}")
    if route_requests_ecn(klass):
        parts.append("features ecn")
    return " ".join(parts)


def _module_note(congestion_control: str) -> str:
    """Where the algorithm comes from: a module the sysctl loads, which the kernel must have."""
    if congestion_control in BUILT_IN_CONGESTION_CONTROLS:
        return ""
    module = f"tcp_{congestion_control}"
    return (
        f"; {congestion_control} is the kernel module {module}: setting the sysctl as root loads "
        f"it ({SRC_TCP_CONG_MODULE}), "
        "and fails with 'No such file or directory' where the kernel lacks it. Check first: "
        f"modprobe {module} && grep -w "
        f"{congestion_control} /proc/sys/net/ipv4/tcp_available_congestion_control; to load it at "
        "boot before sysctl runs: "
        f"echo {module} > /etc/modules-load.d/qosforge.conf"
    )


def _dcqcn_values(model: DcqcnHost, mlx5: bool, unrendered: str) -> list[HostValue]:
    rp = '/sys/class/net/"$IFACE"/ecn/roce_rp'
    rows: list[tuple[str, str, float, str, str]] = [
        # (sysfs attribute, model quantity, value in the knob's unit, unit, knob source)
        ("rpg_ai_rate", "rai_bps", model.rai_bps / 1e6, "Mbit/s", SRC_DCQCN_PARAMS),
        ("rpg_hai_rate", "rhai_bps", model.rhai_bps / 1e6, "Mbit/s", SRC_DCQCN_PARAMS),
        ("rpg_time_reset", "timer_s", model.timer_s * 1e6, "us", SRC_DCQCN_PARAMS),
        ("dce_tcp_rtt", "timer_s", model.timer_s * 1e6, "us", SRC_DCQCN_PARAMS),
        ("rpg_threshold", "fast_recovery_stages", model.fast_recovery_stages, "stages", SRC_DCQCN_PARAMS),
        ("rpg_min_rate", "min_rate_bps", model.min_rate_bps / 1e6, "Mbit/s", SRC_DCQCN_PARAMS),
    ]
    values: list[HostValue] = []
    for attribute, quantity_name, value, unit, knob in rows:
        derived = derived_from(model, quantity_name)
        rounded = round(value)
        if mlx5 and abs(rounded - value) < 1e-9:
            values.append(HostValue(f"ecn.roce_rp.{attribute}", rounded, unit, "sysfs", f"echo {rounded} > {rp}/{attribute}", knob, derived))
        else:
            note = unrendered if not mlx5 else f"{value:g} {unit} is not a whole number of the knob's unit: set the nearest value by hand"
            values.append(HostValue(f"ecn.roce_rp.{attribute}", value, unit, "manual", "", knob, derived, note))
    np_value = model.cnp_interval_s * 1e6
    if mlx5:
        values.append(HostValue("ecn.roce_np.min_time_between_cnps", round(np_value), "us", "sysfs",
                                f'echo {round(np_value)} > /sys/class/net/"$IFACE"/ecn/roce_np/min_time_between_cnps',
                                f"{SRC_MLNX_ECN_ATTRS}; {SRC_CNP_INTERVAL_UNIT}", derived_from(model, "cnp_interval_s")))
    else:
        values.append(HostValue("ecn.roce_np.min_time_between_cnps", np_value, "us", "manual", "", SRC_CNP_INTERVAL_UNIT,
                                derived_from(model, "cnp_interval_s"), unrendered))
    values.append(HostValue("ecn.roce_rp.dce_tcp_g", model.g, "1", "manual", "", SRC_DCQCN_PARAMS, derived_from(model, "g"),
                            "ConnectX encodes g as a 10-bit fixed-point dce_tcp_g (default 1019); NVIDIA's public pages state the alpha "
                            "update both as alpha = (1 - G/1024)·alpha + G/1024 and with G/1024 as the weight of the old alpha, so the "
                            "encoding of g = 1/256 is left to the operator"))
    values.append(HostValue("ecn.roce_rp.rpg_byte_reset", model.byte_counter_bytes, "B", "manual", "", SRC_DCQCN_PARAMS,
                            derived_from(model, "byte_counter_bytes"),
                            "rpg_byte_reset is given in bytes (include/uapi/linux/dcbnl.h), but ConnectX's accepted range is not public "
                            "(firmware default 32767); set B = 10 MB or the largest value the firmware accepts"))
    return values


def host_kinds(switches: tuple[SwitchIR, ...]) -> tuple[HostKind, ...]:
    """Every host port of ``switches`` grouped into kinds with identical settings, named
    ``<nic>-<speed>`` (``-2``, ``-3`` where one NIC and speed need different settings)."""
    groups: dict[tuple[object, ...], list[tuple[SwitchIR, PortIR]]] = {}
    for switch in switches:
        classes_key = None
        for port in switch.ports:
            if port.host_nic is None:
                continue
            if classes_key is None:
                classes_key = (switch.maps, switch.control_classes,
                               tuple((c.name, c.transport, c.dscp, c.important_dscp, c.lossless,
                                      c.host_tcp) for c in switch.classes))
            cable_m = math.ceil(port.cable_m) if port.pfc_priorities else None
            key = (port.host_nic, port.speed_bps, port.pfc_priorities, cable_m, classes_key)
            groups.setdefault(key, []).append((switch, port))
    kinds: list[HostKind] = []
    used: dict[str, int] = {}
    for members in groups.values():
        switch, port = members[0]
        base = f"{port.host_nic}-{port.speed_bps / 1e9:g}G"
        used[base] = used.get(base, 0) + 1
        name = base if used[base] == 1 else f"{base}-{used[base]}"
        kinds.append(derive_host_kind(name, switch, port, tuple((s.name, p.name) for s, p in members)))
    return tuple(kinds)


__all__ = ["HostClass", "HostKind", "HostValue", "derive_host_kind", "host_kinds",
           "route_attributes", "route_requests_ecn"]
