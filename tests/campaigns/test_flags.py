"""Flags are discovered from the target command, so renames and new flags need no change here."""

from __future__ import annotations

import click
import pytest

from qosforge.campaigns.flags import forwarded_flags, given_values
from qosforge.errors import QosforgeError


@click.command()
@click.argument("intent", required=False)
@click.option("--speed", "--bandwidth", "speed", metavar="RATE", default="10G")
@click.option("--queue-limit", "queue_limit", metavar="SIZE", default="1000pkt")
@click.option("--buffer", "queue_limit_alias", metavar="SIZE", hidden=True)
@click.option("--flows", type=int, default=10)
@click.option("--transport", type=click.Choice(["dctcp", "tcp"]))
@click.option("--verbose", is_flag=True)
@click.option("--assume", multiple=True)
@click.option("--format", "output_format", default="table")
@click.option("--plot", "plot_path")
@click.option("--seed", type=int, default=1)
def target(**_: object) -> None:
    """A stand-in with simulate's shapes, after the --speed/--queue-limit rename."""


def _flags() -> dict[str, object]:
    return {flag.key: flag for flag in forwarded_flags(target, frozenset({"--out"}))}


def test_options_are_discovered_with_their_aliases_and_the_campaigns_own_are_left_out() -> None:
    flags = _flags()
    assert list(flags) == ["speed", "queue-limit", "buffer", "flows", "transport", "verbose", "assume", "seed"]
    option = flags["speed"].sweep_option()  # type: ignore[attr-defined]
    assert option.opts == ["--speed", "--bandwidth"]
    assert flags["buffer"].sweep_option().hidden  # type: ignore[attr-defined]


def test_defaults_fill_the_parameter_set_and_lists_become_axes() -> None:
    flags = forwarded_flags(target, frozenset())
    options = {"target_flows": "2:8:3", "target_speed": "10G,40G", "target_transport": "dctcp", "target_queue_limit": None,
               "target_queue_limit_alias": None, "target_verbose": False, "target_assume": (), "target_seed": None}
    fixed, swept = given_values(flags, options)
    assert swept == {"flows": (2, 5, 8), "speed": ("10G", "40G")}
    assert fixed == {"transport": "dctcp", "queue-limit": "1000pkt", "verbose": False, "assume": (), "seed": 1}


@pytest.mark.parametrize(("dest", "text", "message"), [("target_speed", "10GB", "--speed"), ("target_flows", "two", "--flows"),
                                                       ("target_transport", "dctcp,bbr", "--transport"), ("target_queue_limit", "5kg", "--queue-limit")])
def test_values_are_checked_with_the_targets_own_types_and_unit_parsers(dest: str, text: str, message: str) -> None:
    flags = forwarded_flags(target, frozenset())
    with pytest.raises(QosforgeError) as raised:
        given_values(flags, {dest: text})
    assert raised.value.place == message


def test_argv_forms() -> None:
    flags = _flags()
    assert flags["verbose"].argv(True) == ["--verbose"] and flags["verbose"].argv(False) == []  # type: ignore[attr-defined]
    assert flags["assume"].argv(("a=1", "b=2")) == ["--assume", "a=1", "--assume", "b=2"]  # type: ignore[attr-defined]
    assert flags["speed"].argv("40G") == ["--speed", "40G"] and flags["transport"].argv(None) == []  # type: ignore[attr-defined]


def test_an_old_flag_name_is_the_new_one_in_a_sweep() -> None:
    # `sweep simulate --bandwidth 10G` (simulate's documented old name of --speed) failed every
    # point with "give only --speed": the sweep forwarded both --speed's default and --bandwidth.
    from qosforge.cli.simulate import simulate_command

    flags = forwarded_flags(simulate_command, frozenset())
    alias = next(flag for flag in flags if flag.flag == "--bandwidth")
    assert alias.alias_of == "target_bandwidth" and alias.original.hidden
    fixed, swept = given_values(flags, {"target_bandwidth__bandwidth": "10G,40G"})
    assert swept["speed"] == ("10G", "40G") and "bandwidth" not in fixed and "bandwidth" not in swept
    with pytest.raises(QosforgeError, match="old name of --speed"):
        given_values(flags, {"target_bandwidth__bandwidth": "10G", "target_bandwidth": "40G"})
