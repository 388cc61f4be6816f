"""One flag name per concept across commands; the old names still work, hidden from --help."""

from __future__ import annotations

import json
from collections.abc import Callable

import click
import pytest

from qosforge.cli import cli
from qosforge.cli.options import FORMATS

Run = Callable[..., tuple[int, str, str]]


def _commands() -> dict[str, click.Command]:
    context = click.Context(cli)
    found: dict[str, click.Command] = {}
    for name in cli.list_commands(context):
        command = cli.get_command(context, name)
        assert command is not None
        if isinstance(command, click.Group):
            sub_context = click.Context(command, parent=context)
            for sub in command.list_commands(sub_context):
                found[f"{name} {sub}"] = command.get_command(sub_context, sub)  # type: ignore[assignment]
        else:
            found[name] = command
    return found


def _visible_flags(command: click.Command) -> set[str]:
    return {flag for param in command.params if isinstance(param, click.Option) and not param.hidden for flag in param.opts}


def test_no_visible_command_uses_an_old_name() -> None:
    for name, command in _commands().items():
        flags = _visible_flags(command)
        assert not flags & {"--rate", "--bandwidth"}, name
        if "--alpha" in flags:  # only the dynamic threshold
            option = next(p for p in command.params if "--alpha" in getattr(p, "opts", ()))
            assert "dynamic" in (option.help or "").lower(), name
        if name == "simulate":
            assert "--buffer" not in flags and "--queue-limit" in flags


@pytest.mark.parametrize(
    ("new", "old"),
    [
        (("whatif", "dcqcn", "--speed", "100G"), ("whatif", "dcqcn", "--rate", "100G")),
        (("whatif", "tbtcp", "--speed", "10G", "--rtt", "150us", "--flows", "10"), ("whatif", "tbtcp", "--rate", "10G", "--rtt", "150us", "--flows", "10")),
        (("whatif", "fastlane", "--speed", "10G", "--port-buffer", "128kB"), ("whatif", "fastlane", "--rate", "10G", "--buffer", "128kB")),
        (("whatif", "d2tcp", "--remaining", "1MB", "--window", "40pkt", "--rtt", "100us", "--deadline", "2ms", "--dctcp-alpha", "0.5"),
         ("whatif", "d2tcp", "--remaining", "1MB", "--window", "40pkt", "--rtt", "100us", "--deadline", "2ms", "--alpha", "0.5")),
    ],
)
def test_old_names_give_the_same_result(run_cli: Run, new: tuple[str, ...], old: tuple[str, ...]) -> None:
    code_new, out_new, err_new = run_cli(*new, "--format", "json")
    code_old, out_old, err_old = run_cli(*old, "--format", "json")
    assert (code_new, code_old) == (0, 0), err_new + err_old
    assert json.loads(out_new) == json.loads(out_old)


def test_old_and_new_name_together_is_an_error(run_cli: Run) -> None:
    code, _out, err = run_cli("whatif", "dcqcn", "--speed", "100G", "--rate", "40G")
    assert code == 2
    assert "--rate is the old name of --speed" in err


def test_old_names_are_hidden_from_help(run_cli: Run) -> None:
    code, out, _ = run_cli("simulate", "--help")
    assert code == 0
    assert "--speed" in out and "--queue-limit" in out
    assert "--bandwidth" not in out and "--buffer " not in out


#: Every command's --format choices (default first), as each command prints them.
FORMAT_CHOICES = {
    **dict.fromkeys(("check deadlock", "compile", "explain", "fit red", "profiles list",
                     "profiles show", "simulate"), ("table", "json")),
    **{f"whatif {name}": ("table", "json") for name in (
        "buffer", "d2tcp", "dcqcn", "dctcp", "ear", "fastlane", "pfc-headroom", "tbtcp", "tlt")},
    **dict.fromkeys(("compare", "diff", "push", "tune"), ("text", "json")),
    "lint": ("text", "json", "sarif", "github"),
    "watch": ("text", "json", "sarif"),
}  # fmt: skip


def test_every_format_option_describes_its_choices_in_the_same_words() -> None:
    found: dict[str, tuple[str, ...]] = {}
    for name, command in _commands().items():
        for param in command.params:
            if isinstance(param, click.Option) and "--format" in param.opts:
                assert isinstance(param.type, click.Choice)
                choices = found[name] = tuple(param.type.choices)
                assert (param.name, param.default, param.show_default) == (
                    "output_format", choices[0], True), name
                help_text = param.help or ""
                assert help_text.startswith("Output on stdout ("), (name, help_text)
                for choice in choices:
                    # compile's JSON is its report.json; every other choice reads the same.
                    words = ("the report.json document" if (name, choice) == ("compile", "json")
                             else FORMATS[choice])
                    assert f"{choice}: {words}" in help_text, (name, help_text)
    assert found == FORMAT_CHOICES


def test_text_and_table_name_one_readable_output_in_every_command() -> None:
    # Half the commands print tables and call their readable output "table", the others "text";
    # a user who types the other name gets the readable output, not a refusal.
    from click.testing import CliRunner

    from qosforge.cli import cli

    runner = CliRunner()
    table = runner.invoke(cli, ["whatif", "dctcp", "--speed", "10G", "--rtt", "100us", "--format", "text"])
    assert table.exit_code == 0, table.output
    assert table.output == runner.invoke(
        cli, ["whatif", "dctcp", "--speed", "10G", "--rtt", "100us", "--format", "table"]).output
    text = runner.invoke(cli, ["profiles", "list", "--format", "text"])
    assert text.exit_code == 0, text.output
    assert text.output == runner.invoke(cli, ["profiles", "list"]).output
