"""IntentCatalogue: which switch a config file is, and the RTTs the compiler derives."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent
from qosforge.errors import QosforgeError
from qosforge.lint.intent import IntentCatalogue

CONFIGS = Path(__file__).parent / "configs"
EXAMPLES = Path(__file__).parents[2] / "examples"


def test_switch_from_the_folder_option_or_single_profile(tmp_path: Path) -> None:
    catalogue = IntentCatalogue(EXAMPLES / "mixed-fabric.yaml")
    assert catalogue.switch_for(tmp_path / "spine1" / "config_db.json", None) == "spine1"
    assert catalogue.switch_for(tmp_path / "config_db.json", "leaf2") == "leaf2"
    # a folder that is not a switch of the intent is bad input, never a guess
    with pytest.raises(QosforgeError, match="is not a switch of"):
        catalogue.switch_for(tmp_path / "leaf7" / "config_db.json", None)
    with pytest.raises(QosforgeError, match="no switch named 'leaf9'"):
        catalogue.switch_for(tmp_path / "config_db.json", "leaf9")


def test_rtts_are_the_compilers() -> None:
    catalogue = IntentCatalogue(EXAMPLES / "mixed-fabric.yaml")
    switch = catalogue.for_switch("leaf1")
    intent, source_map = load_intent(EXAMPLES / "mixed-fabric.yaml")
    [compiled] = compile_intent(intent=intent, source_map=source_map, switches=("leaf1",)).switches
    assert {c.name: c.rtt_s for c in switch.classes} == {
        c.name: c.rtt_s.value for c in compiled.classes
    }
    assert switch.profile == "mellanox-spectrum-2" and switch.port_cables_m["Ethernet64"] == 100.0
    assert catalogue.for_switch("leaf2") is not catalogue.for_switch("leaf1")
    assert {c.name for c in catalogue.for_switch("leaf2").classes} == {
        c.name for c in switch.classes
    }


def test_tlt_classes_compile_for_lint_and_carry_their_important_dscps() -> None:
    switch = IntentCatalogue(CONFIGS / "broadcom_fabric.yaml").for_switch("tor1")
    web = next(c for c in switch.classes if c.name == "web")
    assert web.dscps == (16, 18) and web.rtt_s == pytest.approx(40e-6)
