"""The datacenter ranges of durations and lengths that size thresholds and headroom, defined once
for the intent schema (compiler/bounds.py, as pydantic validators) and the ``whatif``
calculators (their --rtt and --cable flags), without importing pydantic; why each bound is what
it is: compiler/bounds.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Range:
    low: float
    high: float
    text: Callable[[float], str]
    what: str
    example: str

    def check(self, value: float) -> None:
        """Raise ValueError naming the value, the range and why, when ``value`` lies outside."""
        if not self.low <= value <= self.high:
            raise ValueError(f"{self.text(value)} is outside {self.text(self.low)}..{self.text(self.high)}, {self.what}")


CABLE = Range(0.0, MAX_CABLE_M, _length_text,
              "the datacenter range (10 km: 100GBASE-LR4, IEEE 802.3 Clause 88); PFC headroom grows "
              "with 2 x cable delay x rate; write the length in m, e.g. 5m or 300m", "300m")
LINK_LATENCY = Range(0.0, MAX_LINK_LATENCY_S, format_time,
                     "a datacenter link's one-way latency (fiber ~5 ns/m: 10 km is 50 us); ECN K and PFC "
                     "headroom grow with it; write e.g. 1us or 10us", "10us")
PHY_DELAY = Range(0.0, MAX_PHY_DELAY_S, format_time,
                  "a PHY stage's one-way delay (gearbox, retimer, FEC: hundreds of ns); PFC headroom counts it "
                  "both ways; write e.g. 300ns", "300ns")
RTT = Range(MIN_RTT_S, MAX_RTT_S, format_time,
            "the datacenter range (a light-loaded DCN RTT is under 250 us, TBTCP §1); thresholds are sized from the BDP "
            "rate x RTT; write e.g. 80us or 150us", "80us")

__all__ = ["CABLE", "LINK_LATENCY", "MAX_CABLE_M", "MAX_LINK_LATENCY_S", "MAX_PHY_DELAY_S", "MAX_RTT_S", "MIN_RTT_S", "PHY_DELAY", "RTT",
           "Range"]
