"""The target registry: names, approximations and render loop come from the registered targets."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from qosforge import plugins
from qosforge.backends.registry import (
    CapabilityRefusal,
    approximation_names,
    get_target,
    target_names,
)
from qosforge.backends.sonic.capabilities import TLT_WITHOUT_COLOR, inexpressible, sonic_view
from qosforge.compiler.intent import intent_json_schema
from qosforge.ir import SwitchIR


def test_every_target_entry_point_registers_one_target() -> None:
    assert target_names() == plugins.names(plugins.TARGETS) == ("sonic", "sai", "openconfig", "host")
    assert {"tlt-without-color", "tlt-unmarked-red"} <= set(approximation_names())


def test_intent_schema_lists_the_registered_targets() -> None:
    schema = intent_json_schema()
    targets = schema["properties"]["targets"]["items"]
    assert targets["enum"] == list(target_names())
    approximations = schema["properties"]["approximations"]["items"]
    assert approximations["enum"] == list(approximation_names())


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def tlt_switch() -> SwitchIR:
    """The full-fidelity plan of the TLT testbed (TLT §6): red unimportant DSCPs, a red drop curve."""
    from qosforge.compiler.compile import compile_intent
    from qosforge.compiler.loader import load_intent

    intent, source_map = load_intent(EXAMPLES / "tlt-testbed.yaml")
    return compile_intent(intent, source_map, targets=("sai",)).switches[0]


def test_sonic_view_and_renderer_share_one_definition(tlt_switch: SwitchIR) -> None:
    colored = tlt_switch
    plain = dataclasses.replace(colored, maps=dataclasses.replace(
        colored.maps, dscp_to_color=tuple((d, "green") for d, _ in colored.maps.dscp_to_color)),
        wred_profiles=tuple(dataclasses.replace(w, ect_marking=()) for w in colored.wred_profiles))
    assert inexpressible(plain) == ()
    assert sonic_view(plain, frozenset()) is plain
    tlt = next(c.name for c in colored.classes if c.important_dscp)
    found = inexpressible(colored)
    assert found and all(item.class_names == (tlt,) for item in found)
    with pytest.raises(CapabilityRefusal) as caught:
        sonic_view(colored, frozenset())
    assert caught.value.refused[0].intent_block == "tlt"
    approximated = sonic_view(colored, frozenset({TLT_WITHOUT_COLOR}))
    assert inexpressible(approximated) == ()
    assert [g.approximation for g in approximated.gaps if g.target == "sonic"][-1] == TLT_WITHOUT_COLOR
    # what the view leaves is exactly what the renderer accepts
    from qosforge.backends.sonic import render_config_db

    render_config_db(approximated)


def test_render_loop_reads_the_registry(tlt_switch: SwitchIR) -> None:
    switch = sonic_view(tlt_switch, frozenset({TLT_WITHOUT_COLOR}))
    files = list(get_target("sonic").render((switch,)))
    assert [(f.switch, f.file_name) for f in files] == [(switch.name, "config_db.json")]


def test_each_phase_is_owned_by_the_targets_that_declare_it() -> None:
    from qosforge.backends.registry import targets_supporting

    assert targets_supporting("explain") == ("sonic", "host")
    assert targets_supporting("patch") == ("sonic",)
    assert targets_supporting("lint") == ("sonic",)
    assert targets_supporting("delivery") == ("openconfig",)
