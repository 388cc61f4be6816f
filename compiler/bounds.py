"""Datacenter ranges for the intent's durations and lengths that feed ECN thresholds and headroom.

A value outside them is a typo (``10s`` for ``10us``, ``4000km`` for ``40m``) or a link qosforge's
models do not describe, and it would silently turn into a threshold or a headroom no switch can
hold. The intent schema refuses it at the field, with the range and why (the ranges themselves are
in :mod:`qosforge.ranges`, which the calculators read without pydantic; the pydantic validators
that apply them are :mod:`qosforge.fields`):

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

from qosforge.fields import CABLE_RANGE, LINK_LATENCY_RANGE, PHY_DELAY_RANGE, RTT_RANGE
from qosforge.ranges import MAX_CABLE_M, MAX_LINK_LATENCY_S, MAX_PHY_DELAY_S, MAX_RTT_S, MIN_RTT_S

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
