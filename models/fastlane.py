"""FastLane drop notifications (Zats et al., "FastLane: An Agile Congestion Signaling Mechanism for
Improving Datacenter Performance", UCB/EECS-2013-113): overhead and the notification queue's caps.

* Overhead (§3.2 Eq. 1-3): with every packet dropped with probability p, data packets of D bytes,
  ACKs of A bytes and notifications of N bytes (a dropped packet truncated at its transport
  header), the share of the load that is notifications is (n_data + n_ack)/(data + ack + n_data
  + n_ack) = (N·p + N·(1−p)·p)/(D + A·(1−p) + N·p + N·(1−p)·p).
  With the paper's D = 1400 B and A = N = 64 B this is Eq. 3, 64p(2−p)/(1464 + 64(1−p)p): under
  4.5 % at p = 1 (Fig. 3), and a 2 % cap is only reached when over 25 % of packets are dropped.
* Caps (§3.2 "a strict 2% cap on the bandwidth that notifications may use"; §5, §5.3.4: bandwidth
  and buffers used by FastLane "capped to 2% and 5% respectively"): notifications get the highest
  priority (§2.3) but at most 2 % of the port's rate and 5 % of its buffer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qosforge.models._checks import (
    as_float_array,
    require_in_range,
    require_positive,
)
from qosforge.provenance import Derivation, Provenance, input_value, quantity

SOURCE_FASTLANE = "Zats et al., 'FastLane', UCB/EECS-2013-113"
SOURCE_OVERHEAD = f"{SOURCE_FASTLANE} §3.2 Eq. 1-3 (Eq. 3 for D=1400 B, A=N=64 B)"
SOURCE_CAPS = (
    f"{SOURCE_FASTLANE} §3.2 (strict 2% bandwidth cap), §5/§5.3.4 (2% bandwidth, 5% buffers)"
)

#: §3.2: "Assuming a data packet size of 1400 B and an acknowledgment size of 64 B".
FASTLANE_DATA_PACKET_BYTES = 1400.0
#: §3.2: acknowledgment size 64 B; Eq. 2 also charges 64 B per notification.
FASTLANE_ACK_BYTES = 64.0
FASTLANE_NOTIFICATION_BYTES = 64.0
#: §3.2 "a strict 2% cap on the bandwidth that notifications may use" (chosen in §5.3.4).
FASTLANE_BANDWIDTH_CAP_FRACTION = 0.02
#: §5: "the network bandwidth and buffer size used by FASTLANE is capped to 2% and 5% respectively".
FASTLANE_BUFFER_CAP_FRACTION = 0.05


def fastlane_overhead(
    drop_probability: Any,
    data_packet_bytes: Any = FASTLANE_DATA_PACKET_BYTES,
    ack_bytes: Any = FASTLANE_ACK_BYTES,
    notification_bytes: Any = FASTLANE_NOTIFICATION_BYTES,
) -> Any:
    """Share of the load that is notifications at drop probability p (§3.2 Eq. 2), vectorised."""
    p = as_float_array(drop_probability)
    require_in_range("drop_probability", p, 0.0, 1.0, hint="a drop probability between 0% and 100%")
    _check_sizes(data_packet_bytes, ack_bytes, notification_bytes)
    return _overhead(p, data_packet_bytes, ack_bytes, notification_bytes)


def _overhead(p: Any, data: Any, ack: Any, notification: Any) -> Any:
    notifications = notification * p + notification * (1.0 - p) * p  # n_data + n_ack
    return notifications / (data + ack * (1.0 - p) + notifications)


def _drop_probability_at(overhead: Any, data: Any, ack: Any, notification: Any) -> Any:
    # Eq. 2 = o rearranged: (1−o)·N·p² − (2(1−o)·N + o·A)·p + o·(D + A) = 0; the smaller root is
    # the one in [0, 1] because the overhead rises monotonically over p in [0, 1].
    a = (1.0 - overhead) * notification
    b = 2.0 * (1.0 - overhead) * notification + overhead * ack
    c = overhead * (data + ack)
    discriminant = np.maximum(b * b - 4.0 * a * c, 0.0)
    # 2c/(b + sqrt(b^2 − 4ac)) is the smaller root without cancellation (b > 0).
    return 2.0 * c / (b + np.sqrt(discriminant))


def _overhead_formula(data: Any, ack: Any, notification: Any) -> str:
    """The overhead formula with the sizes this run used (the paper's 64p(2-p)/(1464+64(1-p)p),
    §3.2, is the case D = 1400 B, A = N = 64 B); a sweep over a size shows the general form."""
    general = "N*p*(2-p)/(D + A*(1-p) + N*p*(2-p))"
    if np.ndim(data) or np.ndim(ack) or np.ndim(notification):
        return general
    d, a, n = (float(np.asarray(v)) for v in (data, ack, notification))
    return f"{general}; = {n:g}p(2-p)/({d:g} + {a:g}(1-p) + {n:g}p(2-p))"


def _check_sizes(data_packet_bytes: Any, ack_bytes: Any, notification_bytes: Any) -> None:
    require_positive(
        "data_packet_bytes", data_packet_bytes, hint="data packet size, 1400B in FastLane §3.2"
    )
    require_positive("ack_bytes", ack_bytes, hint="ACK size, 64B in FastLane §3.2")
    require_positive(
        "notification_bytes", notification_bytes, hint="notification size, 64B in FastLane §3.2"
    )


@dataclass(frozen=True, kw_only=True)
class FastLaneBudget:
    rate_bps: Any = quantity("bps", "port rate C")
    buffer_bytes: Any = quantity("B", "buffer the notification queue draws from")
    drop_probability: Any = quantity("1", "packet drop probability p")
    overhead_fraction: Any = quantity("1", "notification share of the load at p (Eq. 2/3)")
    max_overhead_fraction: Any = quantity("1", "notification share at p = 1 (worst case)")
    capped_overhead_fraction: Any = quantity("1", "notification share after the bandwidth cap")
    notification_demand_bps: Any = quantity("bps", "notification load at line rate, overhead·C")
    notification_rate_cap_bps: Any = quantity("bps", "strict-priority notification rate cap")
    notification_buffer_cap_bytes: Any = quantity("B", "notification queue buffer cap")
    notification_buffer_cap_packets: Any = quantity(
        "packets", "notifications the capped queue holds"
    )
    drop_probability_at_cap: Any = quantity(
        "1", "p where the overhead reaches the cap (1 if never)"
    )
    cap_reachable: Any = quantity("", "whether any p <= 1 reaches the bandwidth cap")
    provenance: Provenance


def fastlane_notification_budget(
    rate_bps: Any,
    buffer_bytes: Any,
    drop_probability: Any,
    bandwidth_cap_fraction: Any = FASTLANE_BANDWIDTH_CAP_FRACTION,
    buffer_cap_fraction: Any = FASTLANE_BUFFER_CAP_FRACTION,
    data_packet_bytes: Any = FASTLANE_DATA_PACKET_BYTES,
    ack_bytes: Any = FASTLANE_ACK_BYTES,
    notification_bytes: Any = FASTLANE_NOTIFICATION_BYTES,
) -> FastLaneBudget:
    """FastLane's notification queue on one port: its caps in bps and bytes, and the overhead."""
    rate_bps = as_float_array(rate_bps)
    buffer_bytes = as_float_array(buffer_bytes)
    p = as_float_array(drop_probability)
    bandwidth_cap = as_float_array(bandwidth_cap_fraction)
    buffer_cap = as_float_array(buffer_cap_fraction)
    data = as_float_array(data_packet_bytes)
    ack = as_float_array(ack_bytes)
    notification = as_float_array(notification_bytes)
    require_positive("rate_bps", rate_bps, hint="the port rate, e.g. 10G")
    require_positive(
        "buffer_bytes",
        buffer_bytes,
        hint="the buffer notifications share, e.g. 128kB per port (FastLane §5)",
    )
    require_in_range("drop_probability", p, 0.0, 1.0, hint="a drop probability between 0% and 100%")
    require_in_range(
        "bandwidth_cap_fraction",
        bandwidth_cap,
        0.0,
        1.0,
        hint="FastLane caps notifications at 2% of bandwidth",
    )
    require_positive(
        "bandwidth_cap_fraction",
        bandwidth_cap,
        hint="FastLane caps notifications at 2% of bandwidth",
    )
    require_in_range(
        "buffer_cap_fraction",
        buffer_cap,
        0.0,
        1.0,
        hint="FastLane caps notifications at 5% of buffer",
    )
    require_positive(
        "buffer_cap_fraction", buffer_cap, hint="FastLane caps notifications at 5% of buffer"
    )
    _check_sizes(data, ack, notification)

    overhead = _overhead(p, data, ack, notification)
    worst = _overhead(1.0, data, ack, notification)
    reachable = np.asarray(bandwidth_cap) <= np.asarray(worst)
    at_cap = np.where(
        reachable,
        _drop_probability_at(np.minimum(bandwidth_cap, worst), data, ack, notification),
        1.0,
    )
    buffer_cap_bytes = buffer_cap * buffer_bytes
    shape_source = (rate_bps, buffer_bytes, p, bandwidth_cap, buffer_cap, data, ack, notification)
    scalar = not any(isinstance(v, np.ndarray) for v in shape_source)
    shape = np.broadcast_shapes(*(np.shape(v) for v in shape_source))

    def out(value: Any) -> Any:
        broadcast = np.broadcast_to(np.asarray(value, dtype=np.float64), shape)
        return float(broadcast.reshape(())) if scalar else np.array(broadcast)

    reachable_out = np.broadcast_to(reachable, shape)
    return FastLaneBudget(
        rate_bps=out(rate_bps),
        buffer_bytes=out(buffer_bytes),
        drop_probability=out(p),
        overhead_fraction=out(overhead),
        max_overhead_fraction=out(worst),
        capped_overhead_fraction=out(np.minimum(overhead, bandwidth_cap)),
        notification_demand_bps=out(overhead * rate_bps),
        notification_rate_cap_bps=out(bandwidth_cap * rate_bps),
        notification_buffer_cap_bytes=out(buffer_cap_bytes),
        notification_buffer_cap_packets=out(np.floor(buffer_cap_bytes / notification)),
        drop_probability_at_cap=out(at_cap),
        cap_reachable=bool(reachable_out.reshape(())) if scalar else np.array(reachable_out),
        provenance=Provenance(
            model="fastlane_notification_budget",
            inputs=(
                input_value("rate_bps", rate_bps, "bps"),
                input_value("buffer_bytes", buffer_bytes, "B"),
                input_value("drop_probability", p, "1"),
                input_value("bandwidth_cap_fraction", bandwidth_cap, "1"),
                input_value("buffer_cap_fraction", buffer_cap, "1"),
                input_value("data_packet_bytes", data, "B"),
                input_value("ack_bytes", ack, "B"),
                input_value("notification_bytes", notification, "B"),
            ),
            derivations=(
                Derivation(
                    "overhead_fraction",
                    _overhead_formula(data, ack, notification),
                    SOURCE_OVERHEAD,
                ),
                Derivation(
                    "max_overhead_fraction",
                    "overhead_fraction at p = 1: N/(D + N)",
                    SOURCE_OVERHEAD,
                ),
                Derivation(
                    "capped_overhead_fraction",
                    "min(overhead_fraction, bandwidth_cap_fraction)",
                    SOURCE_CAPS,
                ),
                Derivation(
                    "notification_demand_bps", "overhead_fraction*rate_bps", SOURCE_OVERHEAD
                ),
                Derivation(
                    "notification_rate_cap_bps", "bandwidth_cap_fraction*rate_bps", SOURCE_CAPS
                ),
                Derivation(
                    "notification_buffer_cap_bytes", "buffer_cap_fraction*buffer_bytes", SOURCE_CAPS
                ),
                Derivation(
                    "notification_buffer_cap_packets",
                    "floor(notification_buffer_cap_bytes/N)",
                    SOURCE_CAPS,
                ),
                Derivation(
                    "drop_probability_at_cap",
                    "root in [0,1] of (1-o)N p^2 - (2(1-o)N + oA) p + o(D+A) = 0, "
                    "o = bandwidth_cap_fraction",
                    SOURCE_OVERHEAD,
                ),
                Derivation(
                    "cap_reachable",
                    "bandwidth_cap_fraction <= max_overhead_fraction",
                    SOURCE_OVERHEAD,
                ),
            ),
        ),
    )


__all__ = [
    "FASTLANE_ACK_BYTES",
    "FASTLANE_BANDWIDTH_CAP_FRACTION",
    "FASTLANE_BUFFER_CAP_FRACTION",
    "FASTLANE_DATA_PACKET_BYTES",
    "FASTLANE_NOTIFICATION_BYTES",
    "FastLaneBudget",
    "fastlane_notification_budget",
    "fastlane_overhead",
]
