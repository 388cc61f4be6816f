"""The objects a switch creates per port at boot, which a SAI program discovers and then sets.

saiplayer matches every recorded ``G`` object list to the live switch element by element and
refuses a different length ("get response list count not match recording",
sonic-sairedis saiplayer/), so a recording must use the target's real per-port counts. The only
published, machine-checked layouts are sonic-sairedis' virtual-switch models (vslib, commit
21851c5d), which mirror the vendor SAIs SONiC runs on:

* ``SwitchBCM56850`` (Broadcom Trident 2): 10 unicast + 10 multicast queues per port
  (``SwitchBCM56850.h:59-60``), 13 scheduler groups: group 0 -> groups 1, 2; group 1 -> groups
  3..10; group 2 -> groups 11, 12; groups 3..12 each hold unicast queue i and multicast queue
  i + 10 (``create_scheduler_group_tree``, "brcm default").
* ``SwitchMLNX2700`` (Mellanox Spectrum): 8 + 8 queues (``SwitchMLNX2700.h:63-64``), 16 scheduler
  groups: group 0 -> groups 8..15, groups 1..7 empty, groups 8..15 each hold queues i and i + 8.
* Both: 8 ingress priority groups per port (``SwitchStateBase.cpp:1588``, "mlnx and brcm is 8").

Profiles without a published layout use the one of their vendor family (Broadcom -> BCM56850,
Mellanox/NVIDIA -> MLNX2700) or, for the SONiC virtual switch and Barefoot, BCM56850 (SONiC's
default ``SAI_VS_SWITCH_TYPE``); the program records which layout it assumed in its notes. The
bundled software switch has its own, simplest layout.
"""

from __future__ import annotations

from qosforge.backends.sai.program import SchedulerGroupShape, SwitchInventory

_VSLIB = "sonic-net/sonic-sairedis vslib @21851c5d"


def _bcm56850() -> SwitchInventory:
    groups = [SchedulerGroupShape(level=0, child_groups=(1, 2))]
    groups.append(SchedulerGroupShape(level=1, child_groups=tuple(range(3, 11))))
    groups.append(SchedulerGroupShape(level=1, child_groups=(11, 12)))
    groups += [SchedulerGroupShape(level=2, child_queues=(i, i + 10)) for i in range(10)]
    return SwitchInventory(
        name="BCM56850",
        source=f"{_VSLIB} SwitchBCM56850.{{h:59-60,cpp create_scheduler_group_tree}}, SwitchStateBase.cpp:1588",
        unicast_queues=10,
        multicast_queues=10,
        ingress_priority_groups=8,
        scheduler_groups=tuple(groups),
    )


def _mlnx2700() -> SwitchInventory:
    groups = [SchedulerGroupShape(level=0, child_groups=tuple(range(8, 16)))]
    groups += [SchedulerGroupShape(level=1) for _ in range(1, 8)]
    groups += [SchedulerGroupShape(level=1, child_queues=(i, i + 8)) for i in range(8)]
    return SwitchInventory(
        name="MLNX2700",
        source=f"{_VSLIB} SwitchMLNX2700.{{h:63-64,cpp create_scheduler_group_tree}}, SwitchStateBase.cpp:1588",
        unicast_queues=8,
        multicast_queues=8,
        ingress_priority_groups=8,
        scheduler_groups=tuple(groups),
    )


def _softswitch() -> SwitchInventory:
    # qosforge's own virtual ASIC (softswitch/): one root group, one leaf group per queue.
    groups = [SchedulerGroupShape(level=0, child_groups=tuple(range(1, 9)))]
    groups += [SchedulerGroupShape(level=1, child_queues=(i,)) for i in range(8)]
    return SwitchInventory(
        name="qosforge-softswitch",
        source="qosforge softswitch (softswitch/): 8 unicast queues, 8 PGs, one scheduler group per queue",
        unicast_queues=8,
        multicast_queues=0,
        ingress_priority_groups=8,
        scheduler_groups=tuple(groups),
    )


def inventory_for_profile(profile_name: str) -> tuple[SwitchInventory, str | None]:
    """The layout for a vendor profile, and a note when it is borrowed from a related switch."""
    if profile_name == "softswitch":
        return _softswitch(), None
    if profile_name == "broadcom-trident2":
        return _bcm56850(), None
    if profile_name == "mellanox-spectrum":
        return _mlnx2700(), None
    if profile_name.startswith(("mellanox-", "nvidia-")):
        layout = _mlnx2700()
        return layout, f"{profile_name}: per-port queue/PG/scheduler-group counts assumed from the Mellanox Spectrum layout ({layout.source}); no published layout for this ASIC"
    layout = _bcm56850()
    return layout, f"{profile_name}: per-port queue/PG/scheduler-group counts assumed from the Broadcom Trident 2 layout ({layout.source}), the SONiC virtual switch's default; no published layout for this ASIC"


__all__ = ["inventory_for_profile"]
