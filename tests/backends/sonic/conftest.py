"""A small, realistic SwitchIR for the SONiC backend tests.

Two 100G ports (5 m and 40 m cables) and four classes:
- ``default``: everything unlisted, lossy, TC/queue 0, no WRED;
- ``web``: DCTCP, lossy, TC/queue 1, step ECN marking at K (green marks, min = max = K);
- ``tlt``: TCP with TLT, TC/queue 2, color drop at K approximated without colors (a
  CapabilityGap with an accepted approximation, as the compiler records it for SONiC);
- ``rdma``: DCQCN, lossless, TC/queue/PG 3, PFC priority 3, RED marking K_min/K_max/P_max.
Lossless headroom uses SONiC's own Spectrum-2 Lua outputs for 100G/5m and 100G/40m
(sonic-swss cfgmgr/buffer_headroom_mellanox.lua table), so the numbers are ones SONiC itself produces.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from qosforge.ir import (
    BufferProfileIR,
    CapabilityGap,
    ClassIR,
    ColorCurveIR,
    Derived,
    FabricIR,
    PfcWatchdogIR,
    PoolIR,
    PortIR,
    PriorityGroupIR,
    QosMapsIR,
    QueueIR,
    SchedulerIR,
    SwitchIR,
    WredIR,
)
from qosforge.provenance import Derivation, InputValue, Provenance

HEADROOM_SOURCE = "SONiC buffer_headroom_mellanox.lua, Spectrum-2 (sonic-swss cfgmgr/buffer_headroom_mellanox.lua)"


def derived(value: float, unit: str, quantity: str, formula: str = "given", source: str = "fixture") -> Derived:
    provenance = Provenance(
        model=f"fixture.{quantity}",
        inputs=(InputValue("value", value, unit),),
        derivations=(Derivation(quantity, formula, source),),
    )
    return Derived(value=value, unit=unit, provenance=provenance, quantity=quantity)


def _bytes(value: float, quantity: str, formula: str = "given", source: str = "fixture") -> Derived:
    return derived(value, "B", quantity, formula, source)


def _lossless_profile(name: str, xon: int, xoff: int, size: int) -> BufferProfileIR:
    return BufferProfileIR(
        name=name, pool="ingress_pool",
        reserved_bytes=_bytes(size, "size_bytes", "xon + xoff", HEADROOM_SOURCE),
        dynamic_th=derived(0, "1", "dynamic_th", "log2(alpha)", "Choudhury-Hahne; alpha = 1"),
        xon_bytes=_bytes(xon, "xon_bytes", "ceil1024(pipeline_latency)", HEADROOM_SOURCE),
        xoff_bytes=_bytes(xoff, "xoff_bytes", "ceil1024(mtu + propagation*cell_occupancy)", HEADROOM_SOURCE),
    )


def _port(name: str, cable_m: float, lossless_profile: str) -> PortIR:
    return PortIR(
        name=name, speed_bps=100e9, cable_m=cable_m, peer=f"host-{name}",
        priority_groups=(
            PriorityGroupIR(index=0, buffer_profile="ingress_lossy", lossless=False),
            PriorityGroupIR(index=3, buffer_profile=lossless_profile, lossless=True),
        ),
        queues=(
            QueueIR(0, "default", "sched_lossy", "egress_lossy", None, False),
            QueueIR(1, "web", "sched_lossy", "egress_lossy", "dctcp_ecn", False),
            QueueIR(2, "tlt", "sched_lossy", "egress_lossy", "tlt_drop", False),
            QueueIR(3, "rdma", "sched_lossless", "egress_lossless", "dcqcn_ecn", True),
        ),
        pfc_priorities=(3,),
    )


def _dscp_to_tc() -> tuple[tuple[int, int], ...]:
    special = {10: 1, 18: 2, 20: 2, 26: 3}
    return tuple((dscp, special.get(dscp, 0)) for dscp in range(64))


def make_switch() -> SwitchIR:
    k_dctcp = _bytes(97500, "k_bytes", "K = 65 packets x 1500 B", "DCTCP §3.4 (K=65 pkts at 10G)")
    k_tlt = _bytes(400000, "tlt_threshold_bytes", "K >= BDP", "TLT §4.2")
    kmin = _bytes(5000, "kmin_bytes", "DCQCN default K_min", "DCQCN §5")
    kmax = _bytes(200000, "kmax_bytes", "DCQCN default K_max", "DCQCN §5")
    pmax = derived(1, "%", "pmax_percent", "DCQCN default P_max", "DCQCN §5")
    hundred = derived(100, "%", "probability_percent", "step marking", "DCTCP §3.1")
    classes = (
        ClassIR("default", "tcp", 0, 0, 0, False, tuple(d for d in range(64) if d not in (10, 18, 20, 26)), (),
                derived(20e-6, "s", "rtt_s"), _bytes(250000, "bdp_bytes", "rate*rtt/8"), ()),
        ClassIR("web", "dctcp", 1, 1, 0, False, (10,), (), derived(20e-6, "s", "rtt_s"),
                _bytes(250000, "bdp_bytes", "rate*rtt/8"), (k_dctcp,)),
        ClassIR("tlt", "tcp", 2, 2, 0, False, (18, 20), (20,), derived(20e-6, "s", "rtt_s"),
                _bytes(250000, "bdp_bytes", "rate*rtt/8"), (),
                tlt_threshold_bytes=k_tlt,
                tlt_flows_without_important_loss=derived(203, "flows", "flows_per_port",
                                                         "floor(headroom/packet)", "TLT §4.2")),
        ClassIR("rdma", "dcqcn", 3, 3, 3, True, (26,), (), derived(20e-6, "s", "rtt_s"),
                _bytes(250000, "bdp_bytes", "rate*rtt/8"), (kmin, kmax, pmax)),
    )
    return SwitchIR(
        name="leaf1",
        vendor_profile="spectrum2",
        buffer_bytes=_bytes(42e6, "buffer_bytes", "datasheet", "vendor profile spectrum2"),
        pools=(
            PoolIR("ingress_pool", "ingress", "dynamic", _bytes(30e6, "size_bytes", "buffer - reserved"),
                   _bytes(2e6, "shared_headroom_bytes", "sum(xoff)/oversubscription")),
            PoolIR("egress_lossy_pool", "egress", "dynamic", _bytes(30e6, "size_bytes", "buffer - reserved")),
            PoolIR("egress_lossless_pool", "egress", "static", _bytes(42e6, "size_bytes", "whole buffer")),
        ),
        buffer_profiles=(
            BufferProfileIR("ingress_lossy", "ingress_pool", _bytes(0, "size_bytes"),
                            dynamic_th=derived(3, "1", "dynamic_th", "log2(alpha)", "alpha = 8")),
            _lossless_profile("lossless_100g_5m", 19456, 48128, 67584),
            _lossless_profile("lossless_100g_40m", 19456, 53248, 72704),
            BufferProfileIR("egress_lossy", "egress_lossy_pool", _bytes(1518, "size_bytes", "one MTU"),
                            dynamic_th=derived(0, "1", "dynamic_th", "log2(alpha)", "alpha = 1")),
            BufferProfileIR("egress_lossless", "egress_lossless_pool", _bytes(0, "size_bytes"),
                            static_th_bytes=_bytes(42e6, "static_th_bytes", "whole buffer")),
        ),
        wred_profiles=(
            WredIR("dctcp_ecn", (ColorCurveIR("green", False, True, k_dctcp, k_dctcp, hundred),)),
            WredIR("tlt_drop", (ColorCurveIR("green", True, False, k_tlt, k_tlt, hundred),)),
            WredIR("dcqcn_ecn", (ColorCurveIR("green", False, True, kmin, kmax, pmax),)),
        ),
        schedulers=(SchedulerIR("sched_lossy", "DWRR", 14), SchedulerIR("sched_lossless", "DWRR", 15)),
        maps=QosMapsIR(
            dscp_to_tc=_dscp_to_tc(),
            dscp_to_color=(),
            tc_to_queue=((0, 0), (1, 1), (2, 2), (3, 3)),
            tc_to_priority_group=((0, 0), (1, 0), (2, 0), (3, 3)),
            pfc_priority_to_priority_group=((3, 3),),
            pfc_priority_to_queue=((3, 3),),
        ),
        ports=(_port("Ethernet0", 5, "lossless_100g_5m"), _port("Ethernet4", 40, "lossless_100g_40m")),
        classes=classes,
        pfc_watchdog=PfcWatchdogIR(200, 200, 200, "drop", "pfcwd start_default (sonic-swss orchagent/pfcwdorch.cpp)"),
        gaps=(CapabilityGap(
            target="sonic", class_name="tlt", feature="dscp-to-color",
            detail="config_db has no DSCP_TO_COLOR table; important and unimportant packets share green",
            alternatives=("sai target", "drop all packets at K"),
            approximation="uncolored-threshold"),),
    )


@pytest.fixture
def switch() -> SwitchIR:
    return make_switch()


@pytest.fixture
def fabric() -> FabricIR:
    return FabricIR(name="lab", source_file="lab.yaml", switches=(make_switch(),), targets=("sonic",))


@pytest.fixture
def derive() -> Callable[..., Derived]:
    """The fixture's Derived builder: derive(value, unit, quantity, formula=..., source=...)."""
    return derived
