"""The SAI contract: attribute metadata as the SAI headers define it.

``sai_metadata_qos.txt`` (package data) is the dump of SAI's generated metadata
(``meta/parse.pl`` over ``inc/*.h`` of opencomputeproject/SAI 91e6b860, API version 11800) for
the QoS object types, made for backends/sai/sai_metadata_qos.txt; it lists every attribute's type,
flags, default, ``@objects``, ``@condition`` and ``@validonly``, and the QoS enums. We parse it
rather than retyping it so the backend and the checks use SAI's own definitions.

A few attributes a recording needs are outside that QoS dump (switch creation, port discovery,
and the switch's packet trimming attributes with their enums); they are transcribed below from
the headers with their line numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from typing import Literal

ValueType = Literal[
    "BOOL", "UINT8", "INT8", "UINT16", "UINT32", "INT32", "UINT64", "OBJECT_ID", "OBJECT_LIST",
    "QOS_MAP_LIST", "MAP_LIST", "UINT32_LIST", "UINT32_RANGE", "POINTER", "CHARDATA",
]

#: Integer ranges of the SAI scalar types (saitypes.h typedefs).
INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "UINT8": (0, 2**8 - 1),
    "INT8": (-(2**7), 2**7 - 1),
    "UINT16": (0, 2**16 - 1),
    "UINT32": (0, 2**32 - 1),
    "INT32": (-(2**31), 2**31 - 1),
    "UINT64": (0, 2**64 - 1),
}


@dataclass(frozen=True)
class Condition:
    """``attribute == value`` (all conditions in the QoS headers are EQ comparisons)."""

    attribute: str
    value: str

    def holds(self, actual: object) -> bool:
        if isinstance(actual, bool):
            return ("true" if actual else "false") == self.value
        return str(actual) == self.value


@dataclass(frozen=True)
class AttributeMetadata:
    name: str
    object_type: str
    value_type: str
    enum: str | None
    flags: frozenset[str]
    default: str
    allow_null: bool
    object_types: tuple[str, ...]
    conditions: tuple[Condition, ...]
    """``@condition`` (OR): the attribute is mandatory when one holds and forbidden otherwise."""
    valid_only: tuple[Condition, ...]
    """``@validonly`` (OR): the attribute has an effect only when one holds."""

    @property
    def mandatory_on_create(self) -> bool:
        return "MANDATORY_ON_CREATE" in self.flags

    @property
    def create_only(self) -> bool:
        return "CREATE_ONLY" in self.flags

    @property
    def read_only(self) -> bool:
        return "READ_ONLY" in self.flags

    @property
    def is_key(self) -> bool:
        return "KEY" in self.flags


@dataclass(frozen=True)
class SaiMetadata:
    api_version: int
    attributes: dict[str, AttributeMetadata]
    enums: dict[str, dict[str, int]]

    def attribute(self, name: str) -> AttributeMetadata | None:
        return self.attributes.get(name)

    @cached_property
    def _by_object_type(self) -> dict[str, tuple[AttributeMetadata, ...]]:
        grouped: dict[str, list[AttributeMetadata]] = {}
        for attribute in self.attributes.values():
            grouped.setdefault(attribute.object_type, []).append(attribute)
        return {object_type: tuple(attributes) for object_type, attributes in grouped.items()}

    def attributes_of(self, object_type: str) -> tuple[AttributeMetadata, ...]:
        return self._by_object_type.get(object_type, ())

    def object_types(self) -> frozenset[str]:
        return frozenset(self._by_object_type)


#: Attributes outside the QoS dump, from opencomputeproject/SAI 91e6b860 headers.
_SUPPLEMENT = (
    # inc/saiswitch.h:736 "Number of active(created) ports", READ_ONLY
    "SAI_OBJECT_TYPE_SWITCH|SAI_SWITCH_ATTR_NUMBER_OF_ACTIVE_PORTS | id=0x0 | UINT32 | flags=READ_ONLY | default=none",
    # inc/saiswitch.h:749-757 "Get the port list", READ_ONLY, @objects SAI_OBJECT_TYPE_PORT
    "SAI_OBJECT_TYPE_SWITCH|SAI_SWITCH_ATTR_PORT_LIST | id=0x2 | OBJECT_LIST | flags=READ_ONLY | default=internal | objects=SAI_OBJECT_TYPE_PORT",
    # inc/saiswitch.h:1908-1914 "Set to switch initialization or connect to NPU/SDK"
    "SAI_OBJECT_TYPE_SWITCH|SAI_SWITCH_ATTR_INIT_SWITCH | id=0x0 | BOOL | flags=MANDATORY_ON_CREATE CREATE_ONLY | default=none",
    # inc/saiport.h:1146-1155 "Speed in Mbps"
    "SAI_OBJECT_TYPE_PORT|SAI_PORT_ATTR_SPEED | id=0x0 | UINT32 | flags=MANDATORY_ON_CREATE CREATE_AND_SET | default=none",
    # Packet trimming, inc/saiswitch.h (ids: positions in sai_switch_attr_t).
    # :3233-3240 "Trim packets to this size to reduce bandwidth", sai_uint32_t, @default 128
    "SAI_OBJECT_TYPE_SWITCH|SAI_SWITCH_ATTR_PACKET_TRIM_SIZE | id=0xf1 | UINT32 | flags=CREATE_AND_SET | default=128",
    # :3242-3250 "New packet trim DSCP value", sai_uint8_t, @default 0, @validonly DSCP_RESOLUTION_MODE == DSCP_VALUE
    "SAI_OBJECT_TYPE_SWITCH|SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_VALUE | id=0xf2 | UINT8 | flags=CREATE_AND_SET | default=0"
    " | validonly(OR): SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_RESOLUTION_MODE==SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_DSCP_VALUE",
    # :3252-3259 "Queue mapping mode for a trimmed packet", @default STATIC
    "SAI_OBJECT_TYPE_SWITCH|SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE | id=0xf3 | INT32 enum=sai_packet_trim_queue_resolution_mode_t"
    " | flags=CREATE_AND_SET | default=SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_STATIC",
    # :3261-3269 "New packet trim queue index", sai_uint8_t, @default 0, @validonly QUEUE_RESOLUTION_MODE == STATIC
    "SAI_OBJECT_TYPE_SWITCH|SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_INDEX | id=0xf4 | UINT8 | flags=CREATE_AND_SET | default=0"
    " | validonly(OR): SAI_SWITCH_ATTR_PACKET_TRIM_QUEUE_RESOLUTION_MODE==SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_STATIC",
    # :3357-3365 "New packet trim TC value", sai_uint8_t, @default 0, @validonly DSCP_RESOLUTION_MODE == FROM_TC
    "SAI_OBJECT_TYPE_SWITCH|SAI_SWITCH_ATTR_PACKET_TRIM_TC_VALUE | id=0xfd | UINT8 | flags=CREATE_AND_SET | default=0"
    " | validonly(OR): SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_RESOLUTION_MODE==SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_FROM_TC",
    # :3367-3374 "DSCP mapping mode for a trimmed packet", @default DSCP_VALUE
    "SAI_OBJECT_TYPE_SWITCH|SAI_SWITCH_ATTR_PACKET_TRIM_DSCP_RESOLUTION_MODE | id=0xfe | INT32 enum=sai_packet_trim_dscp_resolution_mode_t"
    " | flags=CREATE_AND_SET | default=SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_DSCP_VALUE",
)

#: Enums outside the QoS dump, from the same headers.
_SUPPLEMENT_ENUMS: dict[str, dict[str, int]] = {
    # inc/saiswitch.h:651-670
    "sai_packet_trim_queue_resolution_mode_t": {
        "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_STATIC": 0, "SAI_PACKET_TRIM_QUEUE_RESOLUTION_MODE_DYNAMIC": 1,
    },
    # inc/saiswitch.h:672-689
    "sai_packet_trim_dscp_resolution_mode_t": {
        "SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_DSCP_VALUE": 0, "SAI_PACKET_TRIM_DSCP_RESOLUTION_MODE_FROM_TC": 1,
    },
}

_SECTION = re.compile(r"^## (SAI_OBJECT_TYPE_\w+)")
_ENUM_SECTION = re.compile(r"^## enum (\w+)")
_ENUM_VALUE = re.compile(r"^(SAI_\w+) = (-?\d+)$")
_TYPE = re.compile(r"^(\w+)(?: enum=(\w+))?$")
_CONDITION = re.compile(r"(SAI_\w+)==(\S+)")


def _conditions_after(line: str, marker: str) -> tuple[Condition, ...]:
    clause = line.split(marker, 1)[1].split(" | apiver", 1)[0]
    return tuple(Condition(attribute, value) for attribute, value in _CONDITION.findall(clause))


def _parse_attribute(object_type: str, line: str) -> AttributeMetadata:
    fields = [part.strip() for part in line.split(" | ")]
    name, type_text = fields[0], fields[2]
    match = _TYPE.match(type_text)
    if match is None:
        raise ValueError(f"unparsable SAI metadata type {type_text!r} in {line!r}")
    flags: frozenset[str] = frozenset()
    default = "none"
    allow_null = False
    objects: tuple[str, ...] = ()
    conditions: tuple[Condition, ...] = ()
    valid_only: tuple[Condition, ...] = ()
    for part in fields[3:]:
        if part.startswith("flags="):
            flags = frozenset(part.removeprefix("flags=").split())
        elif part.startswith("default="):
            default = part.removeprefix("default=")
        elif part == "allownull":
            allow_null = True
        elif part.startswith("objects="):
            objects = tuple(part.removeprefix("objects=").split(","))
    # "condition: A==x" and "validonly(OR): A==x | A==y | ..." span several " | " fields.
    if " condition: " in line:
        conditions = _conditions_after(line, " condition: ")
    if " validonly(OR): " in line:
        valid_only = _conditions_after(line, " validonly(OR): ")
    return AttributeMetadata(
        name=name,
        object_type=object_type,
        value_type=match.group(1),
        enum=match.group(2),
        flags=flags,
        default=default,
        allow_null=allow_null,
        object_types=objects,
        conditions=conditions,
        valid_only=valid_only,
    )


def parse_metadata(text: str) -> SaiMetadata:
    """Parse the metadata dump (one attribute per line, grouped by object type, then enums)."""
    api_version = 0
    attributes: dict[str, AttributeMetadata] = {}
    enums: dict[str, dict[str, int]] = {}
    object_type: str | None = None
    enum_name: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("metadata api version:"):
            api_version = int(line.split(":", 1)[1])
        elif (section := _SECTION.match(line)) is not None:
            object_type, enum_name = section.group(1), None
        elif (enum_section := _ENUM_SECTION.match(line)) is not None:
            object_type, enum_name = None, enum_section.group(1)
            enums[enum_name] = {}
        elif enum_name is not None and (value := _ENUM_VALUE.match(line)) is not None:
            enums[enum_name][value.group(1)] = int(value.group(2))
        elif object_type is not None and line.startswith("SAI_") and " | id=" in line:
            attribute = _parse_attribute(object_type, line)
            # The dump repeats some PORT/SWITCH attributes in several sections; they are identical.
            attributes.setdefault(attribute.name, attribute)
    for entry in _SUPPLEMENT:
        object_type_name, line = entry.split("|", 1)
        attribute = _parse_attribute(object_type_name, line)
        attributes.setdefault(attribute.name, attribute)
    for enum, values in _SUPPLEMENT_ENUMS.items():
        enums.setdefault(enum, dict(values))
    return SaiMetadata(api_version=api_version, attributes=attributes, enums=enums)


@cache
def sai_metadata() -> SaiMetadata:
    """The bundled SAI metadata, parsed once."""
    text = resources.files("qosforge.backends.sai").joinpath("sai_metadata_qos.txt").read_text(encoding="utf-8")
    return parse_metadata(text)


__all__ = ["INTEGER_RANGES", "AttributeMetadata", "Condition", "SaiMetadata", "parse_metadata", "sai_metadata"]
