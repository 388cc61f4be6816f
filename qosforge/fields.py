"""Pydantic field types for the intent's quantities: written with explicit units (``40G``,
``12MB``, ``80us``, ``5m``, ``2%``), parsed by :mod:`qosforge.units`, held as SI numbers.

They sit in the shared base (no layer) because both the intent (compiler/intent.py) and each
transport's parameter block (transports/, below the backends) declare fields with them; the
datacenter ranges they check are :mod:`qosforge.ranges`, why each bound is what it is:
compiler/bounds.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from qosforge.errors import UnitError
from qosforge.ranges import CABLE, LINK_LATENCY, PHY_DELAY, RTT, Range
from qosforge.units import (
    parse_fraction,
    parse_length_m,
    parse_percent,
    parse_rate_bps,
    parse_size_bytes,
    parse_time_s,
)


def unit_parser(parse: Any, example: str) -> Any:
    """A pydantic validator that reads a quantity with its unit, refusing bare numbers."""

    def validate(value: Any) -> float:
        if isinstance(value, bool):
            raise ValueError(f"expected a quantity like {example}, got a boolean")
        if isinstance(value, (int, float)):
            raise ValueError(f"{value!r} has no unit; write it like {example}")
        if not isinstance(value, str):
            raise ValueError(f"expected a quantity like {example}")
        try:
            return float(parse(value))
        except UnitError as error:
            raise ValueError(error.one_line()) from None

    return BeforeValidator(validate)


def range_validator(bounds: Range) -> Any:
    """A pydantic validator that refuses a value outside a datacenter range (qosforge/ranges.py)."""

    def validate(value: float) -> float:
        bounds.check(value)
        return value

    return AfterValidator(validate)


CABLE_RANGE = range_validator(CABLE)
LINK_LATENCY_RANGE = range_validator(LINK_LATENCY)
PHY_DELAY_RANGE = range_validator(PHY_DELAY)
RTT_RANGE = range_validator(RTT)

RateBps = Annotated[float, unit_parser(parse_rate_bps, "40G or 100Gbps"), Field(json_schema_extra={"type": "string", "examples": ["40G", "100Gbps"]})]
SizeBytes = Annotated[float, unit_parser(parse_size_bytes, "12MB, 12MiB or 1500B"), Field(json_schema_extra={"type": "string", "examples": ["12MB", "400kB", "1500B"]})]
TimeS = Annotated[float, unit_parser(lambda text: parse_time_s(text, allow_zero=True), "80us"), Field(json_schema_extra={"type": "string", "examples": ["10us", "80us"]})]
LengthM = Annotated[float, unit_parser(parse_length_m, "5m"), Field(json_schema_extra={"type": "string", "examples": ["5m", "300m"]})]
Fraction = Annotated[float, unit_parser(parse_fraction, "2%"), Field(json_schema_extra={"type": "string", "examples": ["2%"]})]
#: Durations and lengths that size ECN thresholds and PFC headroom, within datacenter ranges (compiler/bounds.py).
CableM = Annotated[LengthM, CABLE_RANGE]
LinkLatencyS = Annotated[TimeS, LINK_LATENCY_RANGE]
PhyDelayS = Annotated[TimeS, PHY_DELAY_RANGE]
RttS = Annotated[TimeS, RTT_RANGE]
#: A percentage written with its sign (``1%``), held in percent: P_max, which every output shows in
#: percent; a bare number (fraction or percent?) is refused.
Percent = Annotated[float, unit_parser(parse_percent, "1%"), Field(json_schema_extra={"type": "string", "examples": ["1%"]})]

__all__ = ["CABLE_RANGE", "LINK_LATENCY_RANGE", "PHY_DELAY_RANGE", "RTT_RANGE", "CableM", "Fraction", "LengthM", "LinkLatencyS", "Percent",
           "PhyDelayS", "RateBps", "RttS", "SizeBytes", "TimeS", "range_validator", "unit_parser"]
