"""A what-if calculator declared as data: a model, its inputs as flags with units.

Each calculator is a module exposing ``SPEC: WhatIf``, named in the ``qosforge.calculators``
entry-point group (qosforge/plugins.py). :func:`qosforge.api.whatif.whatif` parses a
request's flag texts with :func:`parse_value` and evaluates ``compute``; the CLI
(qosforge/cli/whatif/_framework.py) makes one click command per spec and renders the outcome, as
:mod:`qosforge.api.scenarios` does for simulator scenarios.

Writing a calculator (see ``buffer.py``)::

    SPEC = WhatIf(
        name="buffer",
        summary="Dynamic-threshold share of a shared buffer per congested port.",
        params=(
            Param("--buffer", "buffer_bytes", "size", "Shared buffer B.", required=True),
            Param("--congested-ports", "congested_ports", "integer", "Congested ports M.", default="1"),
        ),
        compute=lambda values: dynamic_threshold_share(**values),
        headline=("per_port_share_bytes",),
    )

``compute`` receives a dict from argument name to parsed value (float or ndarray; ``str`` for
``choice``/``text``; ``bool`` for ``flag``; ``None`` when an optional flag was not given) and returns
a model result dataclass (see :mod:`qosforge.provenance`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from qosforge.errors import QosforgeError, UnitError
from qosforge.ranges import Range
from qosforge.units import (
    parse_fraction,
    parse_length_m,
    parse_number,
    parse_percent,
    parse_rate_bps,
    parse_size_bytes,
    parse_time_s,
)

ParamKind = Literal[
    "size", "rate", "time", "length", "fraction", "percent", "number", "integer", "choice", "text", "flag"
]


@dataclass(frozen=True)
class Param:
    """One model input exposed as a flag.

    ``packet_size_argument`` names the argument that gives the packet size, allowing ``65pkt``.
    """

    flag: str
    argument: str
    kind: ParamKind
    help: str
    default: str | None = None
    required: bool = False
    choices: tuple[str, ...] = ()
    packet_size_argument: str | None = None
    aliases: tuple[str, ...] = ()
    """Old flag names, accepted but hidden (qosforge.cli.options: one name per concept)."""
    bounds: Range | None = None
    """The intent's range for the same quantity (qosforge/ranges.py): RTTs 1 us..10 ms, cables
    up to 10 km; a value outside is refused at the flag, as the intent refuses it at the field."""

    @property
    def sweepable(self) -> bool:
        return self.kind not in ("choice", "text", "flag")

    @property
    def sweep_name(self) -> str:
        return self.flag.lstrip("-")


@dataclass(frozen=True)
class WhatIf:
    name: str
    summary: str
    params: tuple[Param, ...]
    compute: Callable[[dict[str, Any]], Any]
    headline: tuple[str, ...] = ()
    description: str = ""
    examples: tuple[str, ...] = field(default=())


def parse_value(param: Param, text: str, packet_bytes: float | None) -> Any:
    """Parse one flag value according to its kind, within the intent's range where it has one;
    errors name the flag."""
    return _check_bounds(param, _parse_text(param, text, packet_bytes)) if param.kind not in ("choice", "text", "flag") else \
        _parse_text(param, text, packet_bytes)


def _parse_text(param: Param, text: str, packet_bytes: float | None) -> Any:
    try:
        if param.kind == "size":
            return parse_size_bytes(text, packet_bytes=packet_bytes)
        if param.kind == "rate":
            return parse_rate_bps(text)
        if param.kind == "time":
            return parse_time_s(text, allow_zero=True)
        if param.kind == "length":
            return parse_length_m(text)
        if param.kind == "fraction":
            return parse_fraction(text)
        if param.kind == "percent":
            return parse_percent(text)
        if param.kind == "number":
            return parse_number(text)
        if param.kind == "integer":
            number = parse_number(text, kind="whole number")
            if number != int(number):
                raise UnitError(f"{text!r} is not a whole number", hint=f"use e.g. {round(number)}")
            return float(number)
        if param.kind == "choice":
            if text not in param.choices:
                raise UnitError(
                    f"{text!r} is not one of {', '.join(param.choices)}",
                    hint=f"pick one of {', '.join(param.choices)}",
                )
            return text
        return text
    except QosforgeError as error:
        raise error.with_place(param.flag) from None


def _check_bounds(param: Param, value: Any) -> Any:
    if param.bounds is not None:
        try:
            param.bounds.check(float(value))
        except ValueError as error:
            raise QosforgeError(str(error), place=param.flag, hint=f"e.g. {param.flag} {param.bounds.example}") from None
    return value


#: A value of each kind for hints, where neither the flag's help nor its range gives one.
_KIND_EXAMPLES = {"size": "64kB", "rate": "10G", "time": "100us", "length": "40m", "fraction": "2%", "percent": "1%",
                  "number": "1", "integer": "16"}


def example(param: Param) -> str:
    """A value to show in a hint: the default, the help's "e.g. X", the range's, or the kind's
    (never a literal "...")."""
    if param.default is not None:
        return param.default
    typed = re.search(r"e\.g\. ([^\s,;)]+)", param.help)
    if typed:
        return typed.group(1)
    if param.bounds is not None:
        return param.bounds.example
    return param.choices[0] if param.choices else _KIND_EXAMPLES.get(param.kind, "VALUE")


__all__ = ["Param", "ParamKind", "WhatIf", "example", "parse_value"]
