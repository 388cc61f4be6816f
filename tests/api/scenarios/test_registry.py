"""The registry: every scenario module found, each scenario's flags known, and the flag ×
scenario table the refusals follow unchanged from the table qosforge/cli/simulate.py used to
spell out by hand."""

from __future__ import annotations

import pkgutil

import pytest

import qosforge.api.scenarios as package
from qosforge.api.scenarios import SCENARIOS, all_flags, fabric_plans, refuse_unread
from qosforge.errors import QosforgeError

_COMPILED = ("incast", "fabric-incast", "all-to-all", "pause-storm", "deadlock")
_ALL = ("dumbbell", *_COMPILED)
#: Which scenarios read each flag, as the hand-written table (before the registry) had it.
HISTORIC = {
    "switch_names": (*_COMPILED, "traffic"), "measure_text": ("traffic",), "sample_text": ("traffic",), "timeseries_path": ("traffic",),
    "warmup": _ALL, "transport": _ALL, "packet_text": _ALL, "class_name": _COMPILED, "port_name": ("incast", "fabric-incast", "pause-storm"),
    "flows": ("dumbbell", "incast", "fabric-incast", "pause-storm", "deadlock"), "fail_links": ("deadlock",), "no_watchdog": ("deadlock",),
    "load_text": ("all-to-all",), "flow_size_dist": ("all-to-all",), "stall_text": ("pause-storm",),
    **{name: ("dumbbell",) for name in ("bandwidth", "rtt", "buffer_text", "ecn_threshold", "red_min", "red_max", "red_pmax", "beta", "window_r")},
    "flow_size": ("dumbbell", "incast", "fabric-incast", "pause-storm"), "assumptions": (*_COMPILED, "traffic"), "hosts_path": ("incast",),
}


def test_every_scenario_module_is_registered() -> None:
    modules = [m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_") and m.name != "flags"]
    assert sorted(s.run.__module__.rsplit(".", 1)[1] for s in SCENARIOS.values()) == sorted(modules)
    # The built-ins keep their order; a scenario added later (headroom) takes the place its
    # ``order`` gives it.
    assert [name for name in SCENARIOS if name in (*_ALL, "traffic")] == [*_ALL, "traffic"]
    assert sorted(fabric_plans()) == sorted(_COMPILED[1:])


def test_the_flag_table_is_the_historic_one() -> None:
    checked = {spec.name for spec in all_flags() if spec.checked}
    assert checked == set(HISTORIC)
    for name, readers in HISTORIC.items():
        assert tuple(s.name for s in SCENARIOS.values() if name in s.reads and s.name in (*_ALL, "traffic")) == readers, name


def test_reads_and_instead_name_known_flags() -> None:
    known = {spec.name for spec in all_flags()}
    for scenario in SCENARIOS.values():
        assert set(scenario.reads) <= known, scenario.name
        assert not set(scenario.instead) & set(scenario.reads), f"{scenario.name} says what to do instead of a flag it reads"


@pytest.mark.parametrize(("scenario", "typed", "message"), [
    ("incast", {"bandwidth"}, "--speed: applies to dumbbell, not incast (hint: drop --speed (the compiled intent sets it))"),
    ("traffic", {"flows", "warmup"}, "--warmup: applies to dumbbell, incast, headroom, fabric-incast, all-to-all, pause-storm, deadlock, not traffic "
                                     "(hint: drop --warmup (statistics cover --measure START:END))"),
    ("all-to-all", {"flow_size"}, "--flow-size: applies to dumbbell, incast, fabric-incast, pause-storm, not all-to-all "
                                  "(hint: drop --flow-size (all-to-all draws sizes from --flow-size-dist))"),
    ("dumbbell", {"hosts_path", "switch_names"}, "--switch: applies to incast, headroom, fabric-incast, all-to-all, pause-storm, deadlock, traffic, not dumbbell "
                                                 "(hint: drop --switch)"),
])
def test_refusals_name_the_readers_and_what_to_do(scenario: str, typed: set[str], message: str) -> None:
    with pytest.raises(QosforgeError) as refused:
        refuse_unread(SCENARIOS[scenario], frozenset(typed))
    assert refused.value.one_line() == message


def test_a_flag_the_scenario_reads_passes() -> None:
    refuse_unread(SCENARIOS["all-to-all"], frozenset({"load_text", "flow_size_dist", "seed", "duration"}))
