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
    assert attribute.enum == "sai_e_t" and attribute.create_only and metadata.enums["sai_e_t"] == {"SAI_E_ONE": 1}


def test_packet_trimming_attributes_are_the_headers() -> None:
    # SAI inc/saiswitch.h: the ids are positions in sai_switch_attr_t (QOS_DEFAULT_TC is 0x68 in
    # the dump and the same count gives 0xf1..0xf4, 0xfd, 0xfe); @validonly on the mode attributes.
    metadata = sai_metadata()
    size = metadata.attributes["SAI_SWITCH_ATTR_PACKET_TRIM_SIZE"]
    assert (size.value_type, size.default, size.object_type) == ("UINT32", "128", "SAI_OBJECT_TYPE_SWITCH")
    dscp = metadata.attributes["SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_VALUE"]
    assert dscp.value_type == "UINT8" and [(c.attribute, c.value) for c in dscp.valid_only] == [
        ("SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_RESOLUTION_MODE", "SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_DSCP_VALUE")]
    index = metadata.attributes["SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX"]
    assert [(c.attribute, c.value) for c in index.valid_only] == [
        ("SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE", "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_STATIC")]
    assert metadata.enums["sai_packet_trim_queue_resolution_mode_t"] == {
        "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_STATIC": 0, "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_DYNAMIC": 1}
    action = metadata.attributes["SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION"]
    assert "SAI_BUFFER_PROFILE_PACKET_ADMISSION_FAIL_ACTION_DROP_AND_TRIM" in metadata.enums[action.enum or ""]


@pytest.mark.skipif(not REFERENCE.is_file(), reason="the shared reference folder is not next to this checkout")
def test_bundled_copy_is_the_reference_dump() -> None:
    assert BUNDLED.read_text() == REFERENCE.read_text()
