"""Packet trimming as a compile target of FastLane's notification model.

A trimmed class's queue profile discards by trimming (SONiC ``BUFFER_PROFILE.packet_discard_action:
trim``, sonic-buildimage src/sonic-yang-models/yang-models/sonic-buffer-profile.yang; SAI
``SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION`` = ``..._DROP_AND_TRIM``, SAI
inc/saibuffer.h, "applicable only when attached to a queue"): a packet the queue cannot admit is
cut to the switch's trim size and sent on the trim queue, so its receiver learns of the loss within
one RTT (NDP, Handley et al., SIGCOMM 2017, §3.1). That is FastLane's drop notification carried by
the forward path (Zats et al., UCB/EECS-2013-113, §3). The trim queue:

* shares the port by DWRR with the weight of the class it reports on, not by strict priority and
  not shaped. A trimmed header's worth is its delay: every NACK waits for the headers queued
  before it, so a queue shaped to FastLane's 2 % (FastLane §3.2, §5.3.4) drains 2,580 headers of
  256 B in 26 ms at 10G, past a NIC's transport timer (docs/trimming.md "Measured"). FastLane's
  2 % is a cap it expects never to reach, and beyond it FastLane drops notifications and lets the
  sources time out (§3.2); it does not queue them behind a shaper. Unshaped strict priority lets
  headers starve the data they report on when many senders overflow one port (congestion
  collapse, which NDP avoids by weighted round robin between its header and data queues, NDP,
  Handley et al., SIGCOMM 2017, §3.1). NVIDIA's deployed trimming profile does the same: it trims
  traffic classes 1, 2 and 3 (DWRR 8, 18 and 22 %) and sends trimmed packets to traffic class 4 at
  DWRR 22 %, the largest trimmed class's weight (NVIDIA Cumulus Linux 5.14+ User Guide, "RDMA over
  Converged Ethernet", "Lossy Multi TC Profile", and "Packet Trimming", default profile). One
  scheduler serves every port speed.
* has its own egress profile whose dynamic threshold lets one congested trim queue hold at most
  5 % of the shared buffer (FastLane §5): with Choudhury and Hahne's dynamic threshold a lone
  congested queue settles at alpha/(1+alpha) of the free buffer, so alpha is the largest power of
  two with alpha/(1+alpha) <= 5 % (2^-5: 3.0 %). This bounds what headers can hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from qosforge.compiler.buffers import EGRESS_LOSSY_POOL, EGRESS_LOSSY_PROFILE, BufferPlan
from qosforge.compiler.dynamic_th import dynamic_th_range
from qosforge.compiler.intent import TrimSpec
from qosforge.compiler.plan import TRIM_CLASS_NAME, TRIM_TC
from qosforge.errors import InfeasibleDesignError
from qosforge.ir import BufferProfileIR, Derived, SchedulerIR, TrimmingIR, derived_constant
from qosforge.models.fastlane import FASTLANE_BUFFER_CAP_FRACTION, SOURCE_CAPS
from qosforge.provenance import Derivation, Provenance, input_value
from qosforge.vendor_profiles.schema import VendorProfile

#: The trimmed classes' queue profile: the lossy one, discarding by trimming.
EGRESS_LOSSY_TRIM_PROFILE = "egress_lossy_trim_profile"
#: The trim queue's profile: FastLane's 5 % buffer cap as a dynamic threshold.
EGRESS_TRIM_PROFILE = "egress_trim_profile"
SOURCE_TRIMMING = (
    "SONiC SWITCH_TRIMMING|GLOBAL (sonic-buildimage "
    "src/sonic-yang-models/yang-models/sonic-trimming.yang); "
    "SAI SAI_SWITCH_ATTR_PACKET_TRIM_* (SAI inc/saiswitch.h)"
)
SOURCE_DT_SHARE = (
    "Choudhury & Hahne, dynamic thresholds: one congested queue settles at alpha/(1+alpha) of "
    "the buffer"
)


@dataclass(frozen=True)
class TrimPlan:
    profiles: tuple[BufferProfileIR, ...]
    schedulers: tuple[SchedulerIR, ...]
    trimming: TrimmingIR


#: The trim queue's one DWRR scheduler (every port speed: a weight is not a rate).
TRIM_SCHEDULER_NAME = f"scheduler_{TRIM_CLASS_NAME}"


def plan_trimming(
    trim: TrimSpec, buffers: BufferPlan, profile: VendorProfile, weight: int
) -> TrimPlan:
    """The trimmed classes' profile, the trim queue's profile and scheduler (DWRR at ``weight``,
    the trimmed classes' largest), and the switch setting."""
    lossy = next(p for p in buffers.profiles if p.name == EGRESS_LOSSY_PROFILE)
    trimmed = BufferProfileIR(
        EGRESS_LOSSY_TRIM_PROFILE,
        lossy.pool,
        lossy.reserved_bytes,
        dynamic_th=lossy.dynamic_th,
        discard_action="trim",
    )
    queue_profile = BufferProfileIR(
        EGRESS_TRIM_PROFILE,
        EGRESS_LOSSY_POOL,
        lossy.reserved_bytes,
        dynamic_th=_trim_queue_dynamic_th(profile, buffers),
    )
    schedulers = (SchedulerIR(TRIM_SCHEDULER_NAME, "DWRR", weight=weight),)
    assert isinstance(trim.dscp, int)  # from-tc is refused when the class plan is made
    size = derived_constant(
        trim.size,
        "B",
        quantity="trim_size_bytes",
        formula="intent classes[].trim.size",
        source=f"operator-given; {profile.name} accepts {profile.packet_trim_size.source}",
    )
    trimming = TrimmingIR(
        size_bytes=size,
        dscp=trim.dscp,
        tc=None,
        queue=TRIM_TC if trim.queue == "static" else None,
        trim_queue=TRIM_TC,
        source=SOURCE_TRIMMING,
    )
    return TrimPlan((trimmed, queue_profile), schedulers, trimming)


def _trim_queue_dynamic_th(profile: VendorProfile, buffers: BufferPlan) -> Derived:
    cap = FASTLANE_BUFFER_CAP_FRACTION
    # alpha/(1+alpha) <= cap  <=>  alpha <= cap/(1-cap); the largest such power of two.
    exponent = math.floor(math.log2(cap / (1.0 - cap)))
    allowed = dynamic_th_range(profile)
    if not allowed.low <= exponent <= allowed.high or exponent in allowed.special:
        raise InfeasibleDesignError(
            f"the trim queue's dynamic_th {exponent} (FastLane's {cap:.0%} buffer cap) is "
            f"outside what {profile.name} accepts",
            place="classes.trim",
            hint="use a vendor profile whose dynamic_th range includes it",
        )
    alpha = 2.0**exponent
    return Derived(
        value=float(exponent),
        unit="1",
        quantity="dynamic_th",
        provenance=Provenance(
            model="trim_queue_buffer_cap",
            inputs=(
                input_value("buffer_cap_fraction", cap, "1"),
                input_value("mmu_shared_bytes", buffers.mmu_shared_bytes.value, "B"),
            ),
            derivations=(
                Derivation("buffer_cap_fraction", f"{cap:g}", SOURCE_CAPS),
                Derivation(
                    "dynamic_th",
                    f"floor(log2(cap/(1-cap))) = {exponent}: alpha = {alpha:g}, "
                    "one congested trim queue holds alpha/(1+alpha) = "
                    f"{alpha / (1 + alpha):.2%} <= {cap:.0%}",
                    f"{SOURCE_CAPS}; {SOURCE_DT_SHARE}",
                ),
            ),
        ),
    )


__all__ = [
    "EGRESS_LOSSY_TRIM_PROFILE",
    "EGRESS_TRIM_PROFILE",
    "TRIM_SCHEDULER_NAME",
    "TrimPlan",
    "plan_trimming",
]
