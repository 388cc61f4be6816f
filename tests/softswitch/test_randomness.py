"""seed_matters: only RED/ECN ramps and Poisson sources make a run depend on its seed."""

from __future__ import annotations

from dataclasses import replace

from qosforge.softswitch.engine.build import HOST, Topology
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from qosforge.softswitch.randomness import fabric_seed_matters, seed_matters

PKT = 1500


def _dumbbell(**marking: float) -> tuple[object, tuple[object, ...]]:
    config, flows, _ = dumbbell(DumbbellSpec(flows=2, transport="dctcp", bandwidth_bps=10e9, rtt_s=100e-6, buffer_bytes=200 * PKT,
                                             **marking))  # type: ignore[arg-type]
    return config, flows


def test_a_step_at_100_percent_draws_nothing_that_matters() -> None:
    config, flows = _dumbbell(ecn_threshold_bytes=40 * PKT)
    assert not seed_matters(config, flows)  # type: ignore[arg-type]


def test_a_ramp_or_a_poisson_source_makes_the_seed_matter() -> None:
    config, flows = _dumbbell(red_min_bytes=20 * PKT, red_max_bytes=80 * PKT, red_pmax=0.1)
    assert seed_matters(config, flows)  # type: ignore[arg-type]
    step, window_flows = _dumbbell(ecn_threshold_bytes=40 * PKT)
    poisson = (replace(window_flows[0], kind="poisson", rate_pps=1e5),)  # type: ignore[type-var]
    assert seed_matters(step, poisson)  # type: ignore[arg-type]


def test_an_unbound_wred_profile_draws_nothing() -> None:
    config, flows = _dumbbell(red_min_bytes=20 * PKT, red_max_bytes=80 * PKT, red_pmax=0.1)
    unbound = replace(config, ports=tuple(replace(port, queues=tuple(replace(q, wred=None) for q in port.queues))  # type: ignore[attr-defined]
                                          for port in config.ports))  # type: ignore[attr-defined]
    assert not seed_matters(unbound, flows)  # type: ignore[arg-type]


def _one_switch(config: object, group: tuple[int, ...]) -> Topology:
    """The dumbbell's switch as a one-switch fabric whose every route is ``group``."""
    ports = len(config.ports)  # type: ignore[attr-defined]
    return Topology.from_host_routes((ports,), (HOST,) * ports, (tuple(group for _ in range(ports)),))


def test_a_fabric_seed_matters_through_ecmp_or_a_seeded_workload() -> None:
    config, flows = _dumbbell(ecn_threshold_bytes=40 * PKT)
    single = _one_switch(config, (0,))
    assert not fabric_seed_matters([config], single, flows, seeded_workload=False)  # type: ignore[list-item, arg-type]
    # An equal-cost group of two ports: each flow's seeded hash picks one.
    assert fabric_seed_matters([config], _one_switch(config, (0, 1)), flows, seeded_workload=False)  # type: ignore[list-item, arg-type]
    # Arrivals drawn from the seed (all-to-all).
    assert fabric_seed_matters([config], single, flows, seeded_workload=True)  # type: ignore[list-item, arg-type]


def test_a_seed_the_generator_cannot_tell_apart_is_refused() -> None:
    import pytest

    from qosforge.errors import QosforgeError
    from qosforge.softswitch.simulation import simulate
    from qosforge.softswitch.traffic.spec import RunSpec

    config, flows = _dumbbell(red_min_bytes=20 * PKT, red_max_bytes=80 * PKT, red_pmax=0.1)
    with pytest.raises(QosforgeError, match=r"outside 0\.\.4294967295"):
        simulate(config, flows, RunSpec(duration_s=1e-3, seed=2**32))  # type: ignore[arg-type]
