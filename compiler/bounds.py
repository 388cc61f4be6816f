"""Datacenter ranges for the intent's durations and lengths that feed ECN thresholds and headroom.

A value outside them is a typo (``10s`` for ``10us``, ``4000km`` for ``40m``) or a link qosforge's
models do not describe, and it would silently turn into a threshold or a headroom no switch can
hold. The intent schema refuses it at the field, with the range and why:

* cable length <= 10 km: the longest-reach optics of a datacenter fabric (IEEE 802.3 Clause 88,
  100GBASE-LR4, 10 km). PFC headroom grows with 2 x cable delay x rate (IEEE 802.1Qbb, the headroom
  of sonic-swss cfgmgr/buffer_headroom_mellanox.lua): at 10 km and 100G it is already ~1.2 MB per
  lossless PG; SONiC's default tables stop at 300 m (pg_profile_lookup.ini).
* one-way link latency <= 1 ms: fiber carries light at about 5 ns/m, so 10 km is 50 us; 1 ms
  (200 km) leaves room for PHY, FEC and switch latency with a 20x margin. K = C·RTT/7
  (DCTCP §3.4) grows with it linearly.
* PHY delay (gearbox, retimer, FEC) <= 10 us: such a stage adds hundreds of nanoseconds (SONiC
  models it as the gearbox's PERIPHERAL_TABLE ``gearbox_delay``, sonic-swss
  cfgmgr/buffer_headroom_mellanox.lua); 10 us is a 20x margin over the worst FEC latency of a
  datacenter PHY.
* RTT 1 us .. 10 ms: "the RTT of a light-loaded DCN is less than 250us" (TBTCP §1, after DCTCP);
  TBTCP's testbed measured 150 us (§7). 10 ms is 40x the first; a zero RTT has no BDP to size a
  threshold from.

"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import AfterValidator

from qosforge.units import format_time

#: IEEE 802.3 Clause 88 (100GBASE-LR4): the longest datacenter optics, 10 km.
MAX_CABLE_M = 10_000.0
#: Fiber at ~5 ns/m: 10 km is 50 us one way; 1 ms leaves a 20x margin for PHY/FEC/switching.
MAX_LINK_LATENCY_S = 1e-3
#: TBTCP §1 (after DCTCP): a light-loaded datacenter RTT is under 250 us; 10 ms is 40x that.
MAX_RTT_S = 10e-3
#: A gearbox/retimer/FEC stage adds hundreds of ns; 10 us is a wide margin.
MAX_PHY_DELAY_S = 10e-6
MIN_RTT_S = 1e-6


def _length_text(value_m: float) -> str:
    return f"{value_m / 1000:g} km" if value_m >= 1000 else f"{value_m:g} m"


def _within(low: float, high: float, text: Callable[[float], str], what: str) -> Any:
    def validate(value: float) -> float:
        if not low <= value <= high:
            raise ValueError(f"{text(value)} is outside {text(low)}..{text(high)}, {what}")
        return value

    return AfterValidator(validate)


CABLE_RANGE = _within(0.0, MAX_CABLE_M, _length_text,
                      "the datacenter range (10 km: 100GBASE-LR4, IEEE 802.3 Clause 88); PFC headroom grows "
                      "with 2 x cable delay x rate; write the length in m, e.g. 5m or 300m")
LINK_LATENCY_RANGE = _within(0.0, MAX_LINK_LATENCY_S, format_time,
                             "a datacenter link's one-way latency (fiber ~5 ns/m: 10 km is 50 us); ECN K and PFC "
                             "headroom grow with it; write e.g. 1us or 10us")
PHY_DELAY_RANGE = _within(0.0, MAX_PHY_DELAY_S, format_time,
                          "a PHY stage's one-way delay (gearbox, retimer, FEC: hundreds of ns); PFC headroom counts it "
                          "both ways; write e.g. 300ns")
RTT_RANGE = _within(MIN_RTT_S, MAX_RTT_S, format_time,
                    "the datacenter range (a light-loaded DCN RTT is under 250 us, TBTCP §1); thresholds are sized from the BDP "
                    "rate x RTT; write e.g. 80us or 150us")

__all__ = [
    "CABLE_RANGE",
    "LINK_LATENCY_RANGE",
    "MAX_CABLE_M",
    "MAX_LINK_LATENCY_S",
    "MAX_PHY_DELAY_S",
    "MAX_RTT_S",
    "MIN_RTT_S",
    "PHY_DELAY_RANGE",
    "RTT_RANGE",
]
