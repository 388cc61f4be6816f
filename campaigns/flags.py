"""The flags a sweep forwards, discovered from the target command's click parameters.

Nothing here lists ``simulate``'s or ``whatif``'s flags: every option of the target becomes an
option of ``qosforge sweep <target>`` (same names, aliases and help), except the few the campaign
owns (``--format``, ``--plot``, ``--output``, ``--sweep``). A single-valued option accepts a list
``a,b,c``; a numeric one also ``START:STOP:N``. Numeric means an int/float option or one whose
metavar names a quantity qosforge.units parses (SIZE, RATE, TIME, PERCENT, LENGTH, NUMBER, N);
those values are checked with the same parser before anything runs, so a typo is bad input
(exit 2), not a campaign of failed points.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

import click

from qosforge.campaigns.grid import Value, values_of
from qosforge.errors import QosforgeError, UnitError
from qosforge.units import (
    parse_fraction,
    parse_length_m,
    parse_number,
    parse_rate_bps,
    parse_size_bytes,
    parse_time_s,
)

#: Target options the campaign itself decides: output is always JSON, plots and configs are the
#: campaign's own, and whatif's vectorised --sweep is what the grid replaces. A point writes no
#: file of its own (one --timeseries path would be overwritten by every point) and serves nothing
#: (a served point runs until interrupted and would hold its worker).
OWNED_BY_CAMPAIGN = frozenset({"output_format", "plot", "plot_path", "output", "output_dir", "sweep", "timeseries_path",
                               "serve_gnmi", "serve_for", "tls_cert", "tls_key", "tls_ca", "insecure", "username"})

_QUANTITY_CHECKS: dict[str, Callable[[str], Any]] = {
    "SIZE": lambda text: parse_size_bytes(text, packet_bytes=1500.0, allow_zero=True),
    "RATE": parse_rate_bps,
    "TIME": lambda text: parse_time_s(text, allow_zero=True),
    "PERCENT": parse_fraction,
    "LENGTH": parse_length_m,
    "NUMBER": parse_number,
    "N": lambda text: parse_number(text, kind="whole number"),
}

FlagKind = Literal["value", "switch", "multiple"]


@dataclass(frozen=True)
class Flag:
    """One forwarded option: its row key (``rtt``), the flag typed (``--rtt``), the sweep
    command's parameter name for it, and how its values are read."""

    key: str
    flag: str
    dest: str
    kind: FlagKind
    original: click.Option
    alias_of: str | None = None
    """For an old flag name (qosforge.cli.options.Rename, e.g. simulate's ``--bandwidth``): the
    ``dest`` of the flag it names, whose row key and checks its values take."""

    @property
    def numeric(self) -> bool:
        return isinstance(self.original.type, (click.types.IntParamType, click.types.FloatParamType)) or self.original.metavar in _QUANTITY_CHECKS

    @property
    def whole(self) -> bool:
        return isinstance(self.original.type, click.types.IntParamType) or self.original.metavar == "N"

    def default(self) -> Any:
        default = self.original.default
        default = default() if callable(default) else default
        # click 8.2+ marks "no default" with a sentinel object, older versions with None.
        return default if isinstance(default, (str, int, float, bool, tuple, list)) else None

    def value(self, text: str) -> Value:
        """One value as it goes in the row, checked with the target's own type or unit parser."""
        place = self.flag
        kind = self.original.type
        if isinstance(kind, (click.types.IntParamType, click.types.FloatParamType, click.Choice)):
            try:
                converted: Value = cast(Any, kind).convert(text, self.original, None)
            except click.BadParameter as error:
                raise QosforgeError(error.message, place=place, hint=f"see the {self.flag} line of --help") from None
            return converted
        check = _QUANTITY_CHECKS.get(self.original.metavar or "")
        if check is not None:
            try:
                check(text)
            except UnitError as error:
                raise error.with_place(place) from None
        return text

    def values(self, text: str) -> tuple[Value, ...]:
        return tuple(self.value(item) for item in values_of(text, self.flag, numeric=self.numeric, whole=self.whole))

    def chosen(self, value: Any) -> bool:
        """Whether ``value`` is a choice, not the flag's default: a flag a scenario does not read is
        refused only when chosen (as ``qosforge simulate`` refuses it only when typed)."""
        if self.kind == "switch":
            return bool(value)
        if self.kind == "multiple":
            return bool(value) and tuple(value) != tuple(self.default() or ())
        return bool(value != self.default())

    def argv(self, value: Any) -> list[str]:
        if self.kind == "switch":
            return [self.flag] if value else []
        if self.kind == "multiple":
            return [part for item in value for part in (self.flag, str(item))]
        return [] if value is None else [self.flag, str(value)]

    def sweep_option(self) -> click.Option:
        """The option ``qosforge sweep`` offers for this flag (text, so lists and ranges pass)."""
        if self.kind == "switch":
            return click.Option([*self.original.opts, self.dest], is_flag=True, default=False, show_default=False, help=self.original.help, hidden=self.original.hidden)
        note = " Sweep: a,b,c or START:STOP:N." if self.numeric else " Sweep: a,b,c." if self.kind == "value" else ""
        default = self.default()
        shown = f" [default: {','.join(map(str, default)) if isinstance(default, tuple) else default}]" if default not in (None, (), False) else ""
        if "[default:" in (self.original.help or ""):
            shown = ""  # whatif's help already states it
        metavar = self.original.metavar or ("|".join(self.original.type.choices) if isinstance(self.original.type, click.Choice) else self.original.type.name.upper())
        return click.Option([*self.original.opts, self.dest], multiple=self.kind == "multiple", default=None, metavar=metavar, show_default=False,
                            required=self.original.required, help=(self.original.help or "") + shown + note, hidden=self.original.hidden)


def forwarded_flags(command: click.Command, reserved: frozenset[str]) -> list[Flag]:
    """Every option of ``command`` a sweep forwards; ``reserved`` are the sweep's own flags."""
    flags: list[Flag] = []
    for param in command.params:
        if not isinstance(param, click.Option) or param.name is None or param.name in OWNED_BY_CAMPAIGN:
            continue
        if any(option in reserved for option in param.opts):
            continue
        if param.is_flag and param.secondary_opts:
            continue  # --x/--no-x pairs: none in qosforge today; forwarding them needs both names
        long_names = [option for option in param.opts if option.startswith("--")] or list(param.opts)
        kind: FlagKind = "switch" if param.is_flag else "multiple" if param.multiple else "value"
        flags.append(Flag(key=long_names[0].lstrip("-"), flag=long_names[0], dest=f"target_{param.name}", kind=kind, original=param,
                          alias_of=_renamed(param, command)))
    return flags


def _renamed(param: click.Option, command: click.Command) -> str | None:
    """The sweep ``dest`` of the flag a hidden old name stands for (hidden_alias_option names its
    parameter ``<dest>__<old name>``), or None for every other option."""
    if not param.hidden or param.name is None or "__" not in param.name:
        return None
    dest = param.name.split("__", 1)[0]
    return f"target_{dest}" if any(other.name == dest for other in command.params if other is not param) else None


def _merge_aliases(flags: list[Flag], options: Mapping[str, Any]) -> dict[str, Any]:
    """Each old name's values moved onto the flag it names, as the command itself does
    (qosforge.cli.options.merge_renamed): ``sweep simulate --bandwidth 10G`` is ``--speed 10G``."""
    merged = dict(options)
    by_dest = {flag.dest: flag for flag in flags}
    for alias in (flag for flag in flags if flag.alias_of is not None):
        given = merged.pop(alias.dest, None)
        if given is None or alias.alias_of not in by_dest:
            continue
        canonical = by_dest[alias.alias_of]
        if merged.get(canonical.dest) is not None:
            raise QosforgeError(f"is the old name of {canonical.flag}", place=alias.flag, hint=f"give only {canonical.flag}")
        merged[canonical.dest] = given
    return merged


def given_values(flags: list[Flag], options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, tuple[Value, ...]]]:
    """Split the sweep's options into fixed values (given once, or the target's default) and
    swept ones (key -> values), in the order the flags were typed."""
    fixed: dict[str, Any] = {}
    swept: dict[str, tuple[Value, ...]] = {}
    options = _merge_aliases(flags, options)
    flags = [flag for flag in flags if flag.alias_of is None]
    by_dest = {flag.dest: flag for flag in flags}
    typed_order = [by_dest[name] for name in options if name in by_dest]
    for flag in typed_order + [flag for flag in flags if flag not in typed_order]:
        given = options.get(flag.dest)
        if flag.kind == "switch":
            fixed[flag.key] = bool(given)
        elif flag.kind == "multiple":
            # Checked as the target checks each (a --target choice), before anything runs; a
            # repeatable flag is no grid axis, so each value is one item, a,b,c included.
            fixed[flag.key] = tuple(flag.value(str(item)) for item in given) if given else tuple(flag.default() or ())
        elif given is None:
            default = flag.default()
            if default is not None:
                fixed[flag.key] = flag.value(str(default)) if not isinstance(default, (int, float)) else default
        else:
            values = flag.values(given)
            if len(values) == 1:
                fixed[flag.key] = values[0]
            else:
                swept[flag.key] = values
    return fixed, swept


__all__ = ["OWNED_BY_CAMPAIGN", "Flag", "forwarded_flags", "given_values"]
