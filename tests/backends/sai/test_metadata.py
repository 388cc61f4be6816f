"""The bundled SAI metadata parses into SAI's own definitions."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.backends.sai.metadata import Condition, parse_metadata, sai_metadata

REFERENCE = Path(__file__).resolve().parents[4] / "shared" / "reference" / "sai_metadata_qos.txt"
BUNDLED = Path(__file__).resolve().parents[3] / "backends" / "sai" / "sai_metadata_qos.txt"


def test_counts_flags_and_conditions() -> None:
    metadata = sai_metadata()
    assert metadata.api_version == 11800
    assert len(metadata.attributes_of("SAI_OBJECT_TYPE_WRED")) == 40  # "attrs=40" in the dump
    assert len(metadata.attributes_of("SAI_OBJECT_TYPE_BUFFER_PROFILE")) == 9
    dynamic = metadata.attributes["SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH"]
    assert dynamic.value_type == "INT8" and dynamic.mandatory_on_create
    assert dynamic.conditions == (Condition("SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE", "SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC"),)
    red_min = metadata.attributes["SAI_WRED_ATTR_RED_MIN_THRESHOLD"]
    assert [c.value for c in red_min.valid_only] == ["true", "SAI_ECN_MARK_MODE_RED", "SAI_ECN_MARK_MODE_GREEN_RED", "SAI_ECN_MARK_MODE_YELLOW_RED", "SAI_ECN_MARK_MODE_ALL"]
    queue_port = metadata.attributes["SAI_QUEUE_ATTR_PORT"]
    assert queue_port.is_key and queue_port.create_only and queue_port.object_types == ("SAI_OBJECT_TYPE_PORT",)
    assert metadata.attributes["SAI_QUEUE_ATTR_WRED_PROFILE_ID"].allow_null
    assert metadata.enums["sai_ecn_mark_mode_t"]["SAI_ECN_MARK_MODE_ALL"] == 7
    assert metadata.attributes["SAI_SWITCH_ATTR_PORT_LIST"].read_only  # transcribed supplement


def test_condition_evaluation_matches_sai_metadata_is_condition_met() -> None:
    # backends/sai/sai_metadata_qos.txt tail: the generated functions' answers for these lists.
    condition = Condition("SAI_WRED_ATTR_GREEN_ENABLE", "true")
    assert condition.holds(True) and not condition.holds(False)
    assert Condition("SAI_WRED_ATTR_ECN_MARK_MODE", "SAI_ECN_MARK_MODE_GREEN").holds("SAI_ECN_MARK_MODE_GREEN")


def test_parser_reads_a_fragment() -> None:
    text = """metadata api version: 1
## SAI_OBJECT_TYPE_X (attrs=1)
SAI_X_ATTR_A | id=0x0 | INT32 enum=sai_e_t | flags=MANDATORY_ON_CREATE CREATE_ONLY | default=none | apiver=0

## enum sai_e_t
SAI_E_ONE = 1
"""
    metadata = parse_metadata(text)
    attribute = metadata.attributes["SAI_X_ATTR_A"]
    assert attribute.enum == "sai_e_t" and attribute.create_only and metadata.enums == {"sai_e_t": {"SAI_E_ONE": 1}}


@pytest.mark.skipif(not REFERENCE.is_file(), reason="the shared reference folder is not next to this checkout")
def test_bundled_copy_is_the_reference_dump() -> None:
    assert BUNDLED.read_text() == REFERENCE.read_text()
