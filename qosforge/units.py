"""Parsing and formatting of quantities with explicit units.

Everything inside qosforge is in SI base units held in names that say so
(``buffer_bytes``, ``rate_bps``, ``delay_s``, ``cable_m``); this module is the only place
strings with units are turned into those numbers. Conventions follow networking usage:

* bandwidth is in **bits** per second: ``40G`` = ``40Gbps`` = 40e9 b/s, ``100Mbps``, ``25G``;
* sizes are in **bytes**: ``kB``/``MB``/``GB`` are 10^3/10^6/10^9 bytes, ``KiB``/``MiB``/``GiB``
  are 2^10/2^20/2^30 bytes, ``B`` is bytes, ``65pkt`` is 65 packets where a packet size is known;
* time: ``ns``, ``us`` (or ``µs``), ``ms``, ``s``; length: ``m`` (also ``cm``, ``km``);
* percent: ``2%`` = 0.02.

Ambiguous spellings are errors with a hint rather than guesses: ``12M`` as a size (MB or MiB?),
``KB`` (JEDEC 1024 or SI 1000?), ``Mb`` as a size (megabits), ``40GB`` as a bandwidth (bytes/s?).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from qosforge.errors import UnitError

_NUMBER = r"(?P<number>[+-]?(?:\d+(?:_\d+)*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
_QUANTITY = re.compile(rf"^\s*{_NUMBER}\s*(?P<unit>[A-Za-zµ%/]*)\s*$")

_RATE_UNITS: dict[str, float] = {
    "bps": 1.0,
    "K": 1e3, "k": 1e3, "Kbps": 1e3, "kbps": 1e3, "Kb/s": 1e3, "kb/s": 1e3,
    "M": 1e6, "Mbps": 1e6, "Mb/s": 1e6,
    "G": 1e9, "Gbps": 1e9, "Gb/s": 1e9,
    "T": 1e12, "Tbps": 1e12, "Tb/s": 1e12,
}
_SIZE_UNITS: dict[str, float] = {
    "B": 1.0,
    "kB": 1e3, "MB": 1e6, "GB": 1e9,
    "KiB": 2.0**10, "MiB": 2.0**20, "GiB": 2.0**30,
}
_TIME_UNITS: dict[str, float] = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
_LENGTH_UNITS: dict[str, float] = {"m": 1.0, "cm": 1e-2, "km": 1e3}
_SI_PREFIX = {"K": "k", "M": "M", "G": "G"}
_PACKET_UNITS = ("pkt", "pkts", "packet", "packets", "p")

#: Upper bounds far beyond any real network (1 Pbps, 1 PB, a year, the Earth's circumference,
#: 10^15): inside them every model's arithmetic stays finite; beyond them a value is a typo, and
#: an error naming the flag beats an overflow deep inside a model.
MAX_RATE_BPS = 1e15
MAX_SIZE_BYTES = 1e15
MAX_TIME_S = 365 * 86400.0
MAX_LENGTH_M = 4.0075e7
MAX_NUMBER = 1e15

_SIZE_EXAMPLE = "12MB (10^6 bytes), 12MiB (2^20 bytes), 400kB, 1500B or 65pkt"
_RATE_EXAMPLE = "40G, 40Gbps or 100Mbps (bits per second)"
_TIME_EXAMPLE = "80us, 1.5ms, 200ns or 2s"
_LENGTH_EXAMPLE = "5m, 300m or 2km"


def _split(text: str, kind: str, example: str) -> tuple[float, str]:
    if not isinstance(text, str):
        text = str(text)
    match = _QUANTITY.match(text)
    if match is None:
        raise UnitError(f"{text!r} is not a {kind}", hint=f"write it like {example}")
    value = float(match.group("number").replace("_", ""))
    if not math.isfinite(value):
        raise UnitError(f"{text!r} is not a finite {kind}", hint=f"write it like {example}")
    return value, match.group("unit")


def split_quantity(text: str) -> tuple[float, str]:
    """``'40us'`` -> ``(40.0, 'us')``: the number and the unit as written, without converting
    (campaign ranges step in the unit the user wrote, e.g. ``10us:100us:10``)."""
    return _split(text, "number with an optional unit", "40us, 10G, 65pkt or 4")
def _bounded(value: float, maximum: float, text: str, kind: str, largest: str) -> float:
    if abs(value) > maximum:
        raise UnitError(f"{text!r} is beyond any real {kind}", hint=f"qosforge accepts up to {largest}; check the exponent and the unit")
    return value


def _missing_unit(text: str, kind: str, example: str) -> UnitError:
    return UnitError(f"{text!r} has no unit", hint=f"a {kind} needs an explicit unit, e.g. {example}")


def parse_rate_bps(text: str) -> float:
    """Parse a bandwidth such as ``40G`` or ``100Mbps`` into bits per second (> 0)."""
    value, unit = _split(text, "bandwidth", _RATE_EXAMPLE)
    if unit == "":
        raise _missing_unit(text, "bandwidth", _RATE_EXAMPLE)
    if unit in _RATE_UNITS:
        rate = value * _RATE_UNITS[unit]
    elif unit.endswith(("B", "Bps", "B/s")):
        raise UnitError(
            f"{text!r} looks like bytes per second",
            hint=f"bandwidth is in bits per second: write {_RATE_EXAMPLE}",
        )
    else:
        raise UnitError(f"unknown bandwidth unit {unit!r} in {text!r}", hint=f"use {_RATE_EXAMPLE}")
    if rate <= 0:
        raise UnitError(f"bandwidth {text!r} must be positive", hint=f"use e.g. {_RATE_EXAMPLE}")
    return _bounded(rate, MAX_RATE_BPS, text, "bandwidth", "1000Tbps")


def parse_size_bytes(text: str, *, packet_bytes: float | None = None, allow_zero: bool = False) -> float:
    """Parse a size such as ``12MB``, ``12MiB``, ``1500B`` or ``65pkt`` into bytes.

    ``pkt`` sizes need ``packet_bytes`` (the packet size the caller knows, e.g. an MTU).
    """
    value, unit = _split(text, "size", _SIZE_EXAMPLE)
    if unit == "":
        raise _missing_unit(text, "size", _SIZE_EXAMPLE)
    if unit in _SIZE_UNITS:
        size = value * _SIZE_UNITS[unit]
    elif unit in _PACKET_UNITS:
        if packet_bytes is None:
            raise UnitError(
                f"{text!r} is in packets but no packet size is known here",
                hint="give the size in bytes (e.g. 97500B) or pass the packet size",
            )
        size = value * packet_bytes
    elif unit in ("K", "k", "M", "G", "Ki", "Mi", "Gi"):
        raise UnitError(
            f"{text!r} is ambiguous",
            hint=f"write {value:g}{_SI_PREFIX[unit[0].upper()]}B (SI, 10^3-based) or "
            f"{value:g}{unit[0].upper()}iB (binary, 2^10-based)",
        )
    elif unit in ("KB",):
        raise UnitError(
            f"{text!r} is ambiguous (KB is used both for 1000 and 1024 bytes)",
            hint=f"write {value:g}kB (10^3 bytes) or {value:g}KiB (2^10 bytes)",
        )
    elif unit in ("b", "kb", "Kb", "Mb", "Gb", "kbit", "Mbit", "Gbit", "bit", "bits"):
        raise UnitError(
            f"{text!r} is in bits; sizes are bytes",
            hint=f"write the size in bytes, e.g. {_SIZE_EXAMPLE}",
        )
    else:
        raise UnitError(f"unknown size unit {unit!r} in {text!r}", hint=f"use {_SIZE_EXAMPLE}")
    if size < 0 or (size == 0 and not allow_zero):
        raise UnitError(
            f"size {text!r} must be {'non-negative' if allow_zero else 'positive'}",
            hint=f"use e.g. {_SIZE_EXAMPLE}",
        )
    return _bounded(size, MAX_SIZE_BYTES, text, "size", "1e15B (1 PB)")


def parse_time_s(text: str, *, allow_zero: bool = False) -> float:
    """Parse a duration such as ``80us`` or ``1.5ms`` into seconds."""
    value, unit = _split(text, "duration", _TIME_EXAMPLE)
    if unit == "":
        raise _missing_unit(text, "duration", _TIME_EXAMPLE)
    if unit not in _TIME_UNITS:
        raise UnitError(f"unknown time unit {unit!r} in {text!r}", hint=f"use {_TIME_EXAMPLE}")
    seconds = value * _TIME_UNITS[unit]
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise UnitError(f"duration {text!r} must be {'>= 0' if allow_zero else 'positive'}", hint=f"use e.g. {_TIME_EXAMPLE}")
    return _bounded(seconds, MAX_TIME_S, text, "duration", "a year (31536000s)")


def parse_length_m(text: str, *, allow_zero: bool = True) -> float:
    """Parse a cable length such as ``5m`` or ``2km`` into metres."""
    value, unit = _split(text, "length", _LENGTH_EXAMPLE)
    if unit == "":
        raise _missing_unit(text, "length", _LENGTH_EXAMPLE)
    if unit not in _LENGTH_UNITS:
        raise UnitError(f"unknown length unit {unit!r} in {text!r}", hint=f"use {_LENGTH_EXAMPLE}")
    metres = value * _LENGTH_UNITS[unit]
    if metres < 0 or (metres == 0 and not allow_zero):
        raise UnitError(f"length {text!r} must be positive", hint=f"use e.g. {_LENGTH_EXAMPLE}")
    return _bounded(metres, MAX_LENGTH_M, text, "length", "40075km")


def parse_fraction(text: str) -> float:
    """Parse a share written as a percentage with its sign, ``2%``, into a fraction in [0, 1].

    One rule for every share and probability (P_max in :func:`parse_percent` too): a bare number
    is refused, since ``1`` reads as 100 % to one user and 1 % to another (``simulate --load 1``
    ran at 100 % while ``--pmax 0.01`` was refused). ``0`` is the same in both readings.
    """
    value, unit = _split(text, "percentage", "2%")
    if unit == "" and value != 0.0:
        readings = [f"{value:g}%"] if 0.0 <= value <= 100.0 else []
        if 0.0 < value <= 1.0:
            readings.insert(0, f"{value * 100:g}%")
        raise UnitError(
            f"{text!r} has no % sign: a bare number could be a fraction or a percentage",
            hint=f"write {' or '.join(readings)} (a percentage)" if readings else "write a percentage between 0% and 100%",
        )
    if unit not in ("%", ""):
        raise UnitError(f"unknown unit {unit!r} in {text!r}", hint="write a percentage like 2%")
    if not 0.0 <= value <= 100.0:
        raise UnitError(f"{text!r} is outside 0..100%", hint="write a percentage between 0% and 100%")
    return value / 100.0


def parse_percent(text: str) -> float:
    """Parse a percentage written with its sign, ``1%``, into percent (1.0), within [0, 100].

    For quantities shown in percent everywhere (RED/WRED's P_max, as SONiC's
    ``*_drop_probability`` and SAI's ``*_DROP_PROBABILITY`` hold it): a bare number would be read
    as a fraction by :func:`parse_fraction` and as percent by the output, so it is refused.
    """
    value, unit = _split(text, "percentage", "1%")
    if unit == "":
        raise UnitError(f"{text!r} has no % sign: it could mean {value:g}% or {value * 100:g}%", hint=f"write {value:g}% or {value * 100:g}% (a percentage)")
    if unit != "%":
        raise UnitError(f"unknown unit {unit!r} in {text!r}", hint="write a percentage like 1%")
    if not 0.0 <= value <= 100.0:
        raise UnitError(f"{text!r} is outside 0..100%", hint="write a percentage between 0% and 100%")
    return value


def parse_number(text: str, *, kind: str = "number") -> float:
    """Parse a unitless number (alpha, counts); a unit suffix is an error."""
    value, unit = _split(text, kind, "16 or 0.5")
    if unit:
        raise UnitError(f"{text!r}: a {kind} takes no unit", hint=f"write just the number, e.g. {value:g}")
    return _bounded(value, MAX_NUMBER, text, kind, "1e15")


def format_bytes(value: float) -> str:
    """Human form of a byte count in SI units (kB = 1000 B), as the papers quote them."""
    magnitude = abs(value)
    if magnitude >= 1e9:
        return f"{value / 1e9:.4g} GB"
    if magnitude >= 1e6:
        return f"{value / 1e6:.4g} MB"
    if magnitude >= 1e3:
        return f"{value / 1e3:.5g} kB"
    return f"{value:.6g} B"


def format_byte_count(value: float) -> str:
    """The exact count of a byte figure: ``400,000 B``, or ``705,882.35 B`` where it has a
    fraction. A count computed in floating point (a BDP of 40 Gb/s x 80 us) that is whole within
    rounding prints whole.

    >>> format_byte_count(40e9 * 80e-6 / 8), format_byte_count(12e6 / 17)
    ('400,000 B', '705,882.35 B')
    """
    return f"{round(value):,} B" if _whole(value) else f"{value:,.2f} B"


def _whole(value: float) -> bool:
    return abs(value - round(value)) < 1e-6


def format_value(value: float, unit: str, *, exact: bool = True) -> str:
    """One number with its unit, formatted the same way everywhere qosforge prints for people.

    Bytes as SI sizes with the exact count when it is not a round figure, rates in bps, times in
    s/ms/us/ns, fractions of 1 as plain numbers, anything else as ``value unit``. ``exact=False``
    leaves out the exact byte count (summaries).

    >>> format_value(400_000, "B"), format_value(53_248, "B"), format_value(40e9, "bps")
    ('400 kB', '53.248 kB (53,248 B)', '40 Gbps')
    """
    if unit == "B":
        pretty = format_bytes(value)
        if not exact or abs(value) < 1000 or (_whole(value) and round(value) % 1000 == 0):
            return pretty
        return f"{pretty} ({format_byte_count(value)})"
    if unit == "bps":
        return format_rate(value)
    if unit == "s":
        return format_time(value)
    if unit == "%":
        return f"{value:.4g} %"
    text = f"{value:,.0f}" if float(value).is_integer() and abs(value) >= 1000 else f"{value:.6g}"
    return text if unit in ("", "1") else f"{text} {unit}"


def format_rate(value_bps: float) -> str:
    for scale, symbol in ((1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "kbps")):
        if abs(value_bps) >= scale:
            return f"{value_bps / scale:.4g} {symbol}"
    return f"{value_bps:.4g} bps"


def format_time(value_s: float) -> str:
    for scale, symbol in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if abs(value_s) >= scale:
            return f"{value_s / scale:.4g} {symbol}"
    return f"{value_s / 1e-9:.4g} ns"


#: Linux keeps the minimum RTO in jiffies and ``ip route ... rto_min`` takes whole milliseconds
#: (iproute2 ip/iproute.c get_time_rtt, rounded up): below 1 ms no Linux host can run it.
RTO_MIN_FLOOR_S = 1e-3
#: TCP_RTO_MAX (include/net/tcp.h: 120 s): an RTO is never longer, so neither is its minimum.
RTO_MIN_CEILING_S = 120.0


def parse_rto_min_s(text: str) -> float:
    """A minimum RTO in seconds as a Linux host runs it: whole milliseconds (ip route's rto_min
    unit) from 1 ms to TCP_RTO_MAX. The intent's ``hosts.rto_min`` and ``simulate --rto-min``
    both read it here, so a value one refuses the other refuses too."""
    try:
        value = parse_time_s(text, allow_zero=True)
    except UnitError:
        # parse_time_s's own hint suggests 80us or 200ns, which no minimum RTO can be.
        raise UnitError(f"{text!r} is not a minimum RTO: write whole milliseconds from 1ms to "
                        "120s, e.g. 4ms") from None
    if not RTO_MIN_FLOOR_S <= value <= RTO_MIN_CEILING_S:
        shown = format_time(value) if value > 0 else f"{value:g} s"
        raise UnitError(f"{shown} is outside 1 ms..120 s: Linux's minimum RTO is "
                        "at least a millisecond (ip route's rto_min unit) and at most "
                        "TCP_RTO_MAX; write e.g. 5ms or 200ms")
    milliseconds = value / RTO_MIN_FLOOR_S
    if abs(milliseconds - round(milliseconds)) > 1e-6:
        raise UnitError(f"{format_time(value)} is not a whole number of milliseconds: ip route's "
                        "rto_min takes milliseconds and rounds up (iproute2 get_time_rtt); "
                        f"write {math.ceil(milliseconds - 1e-6)}ms")
    return value


def parse_flag(flag: str, parser: Callable[..., Any], text: str | None, **kwargs: Any) -> Any:
    """``parser(text, **kwargs)`` (one of this module's parsers), its unit error placed at
    ``flag``; None for a flag not given."""
    if text is None:
        return None
    try:
        return parser(text, **kwargs)
    except UnitError as error:
        raise error.with_place(flag) from None
