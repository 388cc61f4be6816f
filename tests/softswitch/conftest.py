"""Small hand-built switch configurations for unit tests of the software switch."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from qosforge.softswitch.asic import asic_from_profile
from qosforge.softswitch.config import (
    BufferProfileConfig,
    Curve,
    PgConfig,
    PoolConfig,
    PortConfig,
    QueueConfig,
    SchedulerConfig,
    SwitchConfig,
    WredConfig,
)

#: DSCP 8*q -> TC q (TC q -> queue q, PG q): one DSCP per queue.
DSCP_TO_TC = tuple(d // 8 for d in range(64))


def make_switch(
    *,
    ports: int = 4,
    speed_bps: float = 10e9,
    pool_bytes: int = 1_000_000,
    dynamic_th: int | None = 0,
    static_th_bytes: int | None = None,
    wred: WredConfig | None = None,
    schedulers: tuple[SchedulerConfig, ...] = (),
    queue_schedulers: dict[int, str] | None = None,
    pfc_priorities: int = 0,
    pg_profile: BufferProfileConfig | None = None,
    ect_threshold_enable: bool = False,
) -> SwitchConfig:
    """A switch with an egress pool, one queue profile on every queue and WRED on queue 1."""
    asic = asic_from_profile("softswitch")
    egress = PoolConfig("buffer_pool:egress", "egress", pool_bytes, True, 0)
    ingress = PoolConfig("buffer_pool:ingress", "ingress", pool_bytes, True, 0)
    profile = BufferProfileConfig("buffer_profile:queue", egress.object_id, 0, dynamic_th, static_th_bytes if dynamic_th is None else None, 0, 0, 0)
    profiles = [profile] + ([pg_profile] if pg_profile else [])
    scheduler_of = queue_schedulers or {}
    queues = tuple(QueueConfig(q, profile.object_id, wred.object_id if wred and q == 1 else None, scheduler_of.get(q)) for q in range(8))
    pgs = tuple(PgConfig(g, pg_profile.object_id if pg_profile and g == 3 else None) for g in range(8))
    port_list = tuple(
        PortConfig(f"port:E{p}", f"E{p}", speed_bps, 1.0, "host", DSCP_TO_TC, (0,) * 64, tuple(range(8)), tuple(range(8)),
                   tuple(range(8)), tuple(range(8)), pfc_priorities, queues, pgs, 0)
        for p in range(ports)
    )
    return SwitchConfig("unit", asic, ect_threshold_enable, (egress, ingress), tuple(profiles), (wred,) if wred else (), schedulers, port_list)


@pytest.fixture
def switch() -> Callable[..., SwitchConfig]:
    return make_switch


def step_wred(min_bytes: int, max_bytes: int, probability: float, *, mark: bool) -> WredConfig:
    curve = Curve(not mark, min_bytes, max_bytes, probability)
    off = Curve(False, 0, 0, 1.0)
    return WredConfig("wred:unit", 0, (curve, off, off), (mark, False, False), (curve, off, off))


@pytest.fixture
def wred() -> Callable[..., WredConfig]:
    return step_wred


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """roce-pod's rendered host settings document (compile --target host) for its ConnectX-6 Dx
    hosts: classes ``tcp`` (DCTCP, DSCP 0 and 10) and ``rdma`` (DCQCN), tcp_ecn = 1."""
    from qosforge.cli import main

    out = tmp_path_factory.mktemp("hosts") / "out"
    root = Path(__file__).resolve().parents[2]
    with pytest.raises(SystemExit) as exited:
        main(["compile", str(root / "examples" / "roce-pod.yaml"), "--target", "host",
              "-o", str(out), "-q"])
    assert not exited.value.code
    path = out / "hosts" / "nvidia-connectx-6dx-100G" / "host_settings.json"
    document: dict[str, Any] = json.loads(path.read_text())
    return document


__all__ = ["make_switch", "replace", "step_wred"]
