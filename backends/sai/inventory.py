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
* Both: 32 ports, one per entry of the lane map in file order (``SwitchStateBase.cpp:
  create_ports``, 1396-1486; ``set_port_list`` then publishes them as SAI_SWITCH_ATTR_PORT_LIST).
  Without a lane map file vslib loads ``LaneMap::getDefaultLaneMap`` (``Sai.cpp:255-262``): 32
  ports x 4 lanes (``LaneMap.cpp:108-168``), the Dell Force10-S6000 lanes, port i = ``eth<i>``.
  The lanes are not 4i..4i+3: eth0 has lanes 29-32, eth1 25-28, eth6 5-8. SONiC's virtual switch
  runs the Force10-S6000 SKU, whose ``port_config.ini`` (sonic-buildimage
  ``device/dell/x86_64-dell_s6000_s1220-r0/Force10-S6000/port_config.ini``) names the port with
  the same lanes ``Ethernet<4i>``: SONiC's EthernetN is the port whose first lane slot is N, i.e.
  port list position N / 4 (:mod:`qosforge.backends.sai.port_binding`).

Profiles without a published layout use the one of their vendor family (Broadcom -> BCM56850,
Mellanox/NVIDIA -> MLNX2700) or, for the SONiC virtual switch and Barefoot, BCM56850 (SONiC's
default ``SAI_VS_SWITCH_TYPE``); the program records which layout it assumed in its notes. The
bundled software switch has its own, simplest layout.
"""

from __future__ import annotations

import functools

from qosforge.backends.sai.program import LayoutPort, SchedulerGroupShape, SwitchInventory
from qosforge.vendor_profiles import load_vendor_profile

_VSLIB = "sonic-net/sonic-sairedis vslib @21851c5d"

# vslib LaneMap::getDefaultLaneMap (LaneMap.cpp:116-149): lanes of eth0..eth31, 4 per port.
_VSLIB_DEFAULT_LANES = (
    29, 25, 37, 33, 41, 45, 5, 1, 9, 13, 21, 17, 49, 53, 61, 57,
    65, 69, 77, 73, 105, 109, 117, 113, 121, 125, 85, 81, 89, 93, 97, 101,
)
_VSLIB_PORTS = tuple(LayoutPort(lanes=tuple(range(first, first + 4))) for first in _VSLIB_DEFAULT_LANES)
_VSLIB_PORTS_SOURCE = f"{_VSLIB} LaneMap.cpp:108-168 getDefaultLaneMap (32 ports x 4 lanes), SwitchStateBase.cpp:1396 create_ports"


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
        ports=_VSLIB_PORTS,
        ports_source=_VSLIB_PORTS_SOURCE,
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
        ports=_VSLIB_PORTS,
        ports_source=_VSLIB_PORTS_SOURCE,
    )


@functools.cache
def _softswitch_port_count() -> int:
    # The softswitch models the switch its vendor profile describes (32 x 40G, TLT §4.2).
    groups = load_vendor_profile("softswitch").ports.known("ports")
    return sum(group.count for group in groups)


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
        ports=tuple(LayoutPort() for _ in range(_softswitch_port_count())),
        ports_source="vendor_profiles/softswitch.yaml ports (lanes not modelled)",
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
