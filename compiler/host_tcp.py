"""A TCP class's Linux hosts from the intent: the minimum RTO and initial window its connections
run, each with where it came from.

The class's own ``hosts`` comes first, then the intent's top-level ``hosts`` (one value for every
TCP class), then Linux's defaults: TCP_RTO_MIN = 200 ms and TCP_INIT_CWND = 10 segments
(include/net/tcp.h; RFC 6928 for IW10). Datacenter hosts lower the minimum RTO to a few
milliseconds (TLT §2.1: Linux's lowest is one jiffy, "4 ms by default"; §2.2: operators "configure
minimum RTO to several milliseconds for intra-DC traffic"), which the intent states. A class whose
congestion control runs in a RoCE NIC (dcqcn, irn) has no Linux TCP host: None.
"""

from __future__ import annotations

from qosforge.compiler.intent import Intent
from qosforge.defaults import LINUX_INITIAL_WINDOW_SEGMENTS, LINUX_RTO_MIN
from qosforge.ir import HostTcpIR
from qosforge.transports import transport
from qosforge.units import parse_time_s

SOURCE_LINUX_RTO_MIN = "Linux default (TCP_RTO_MIN, include/net/tcp.h)"
SOURCE_LINUX_INITIAL_WINDOW = "Linux default (TCP_INIT_CWND, RFC 6928)"


def host_tcp(intent: Intent, class_index: int) -> HostTcpIR | None:
    """The Linux TCP hosts of ``intent.classes[class_index]``."""
    spec = intent.classes[class_index]
    if transport(spec.transport).host.nic_dcqcn:
        return None
    stated = [(f"intent classes[{class_index}].hosts", spec.hosts), ("intent hosts", intent.hosts)]
    rto = [(block.rto_min, f"{where}.rto_min") for where, block in stated
           if block is not None and block.rto_min is not None]
    window = [(block.initial_window_segments, f"{where}.initial_window_segments")
              for where, block in stated
              if block is not None and block.initial_window_segments is not None]
    rto_min_s, rto_source = rto[0] if rto else (parse_time_s(LINUX_RTO_MIN), SOURCE_LINUX_RTO_MIN)
    segments, window_source = window[0] if window else (LINUX_INITIAL_WINDOW_SEGMENTS,
                                                        SOURCE_LINUX_INITIAL_WINDOW)
    return HostTcpIR(rto_min_s, rto_source, bool(rto), segments, window_source, bool(window))


__all__ = ["SOURCE_LINUX_INITIAL_WINDOW", "SOURCE_LINUX_RTO_MIN", "host_tcp"]
