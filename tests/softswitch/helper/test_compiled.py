"""A compiled intent on the software switch (softswitch/helper/compiled.py): the default class is
the one the operator declared first, not the one that took the lowest TC."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.errors import QosforgeError
from qosforge.softswitch.helper.compiled import (
    CompiledSwitch,
    class_chosen_by,
    compile_for_softswitch,
)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
ASSUME = {"red.steps": "8", "red.step_offset": "0.5"}


@pytest.fixture(scope="module")
def roce() -> CompiledSwitch:
    return compile_for_softswitch(EXAMPLES / "roce-pod.yaml", None, assume=ASSUME)


def test_the_default_class_is_the_intents_first_declared_class(roce: CompiledSwitch) -> None:
    # roce-pod declares rdma (lossless, TC 3) before tcp (lossy, TC 1): the IR's TC order starts with tcp.
    assert next(c.name for c in roce.ir.classes if c.name != "default") == "tcp"
    assert roce.declared_classes == ("rdma", "tcp")
    assert roce.traffic_class(None).name == "rdma"
    assert roce.traffic_class(None, lossless=True).name == "rdma"
    assert roce.traffic_class("tcp").name == "tcp"
    assert roce.class_names == ["rdma", "tcp"]


def test_the_first_lossless_class_follows_the_declaration_order_too(roce: CompiledSwitch) -> None:
    from dataclasses import replace

    # Declared lossy first: the plain default is tcp, the lossless default is still rdma.
    swapped = replace(roce, declared_classes=("tcp", "rdma"))
    assert swapped.traffic_class(None).name == "tcp"
    assert swapped.traffic_class(None, lossless=True).name == "rdma"


def test_without_the_intents_order_the_lowest_tc_class_is_the_default(roce: CompiledSwitch) -> None:
    from dataclasses import replace

    assert replace(roce, declared_classes=()).traffic_class(None).name == "tcp"


def test_an_unknown_class_names_the_declared_ones_in_order(roce: CompiledSwitch) -> None:
    with pytest.raises(QosforgeError, match="classes: rdma, tcp"):
        roce.traffic_class("web")


def test_the_report_says_how_the_class_was_chosen() -> None:
    assert class_chosen_by("tcp") == "--class"
    assert "first class" in class_chosen_by(None) and "first lossless class" in class_chosen_by(None, lossless=True)
