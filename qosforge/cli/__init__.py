"""The ``qosforge`` command line (DESIGN.md §7).

Errors the user can fix (:class:`qosforge.errors.QosforgeError` and click usage errors) are printed
as one line on stderr with exit code 2; no traceback is shown unless ``QOSFORGE_DEBUG=1``.
"""

from __future__ import annotations

import os
import sys

import click

from qosforge._version import __version__
from qosforge.cli.compile import compile_command, explain_command, schema_command
from qosforge.cli.diff import diff_command
from qosforge.cli.fit import fit_group
from qosforge.cli.lint import lint_command
from qosforge.cli.profiles import profiles_group
from qosforge.cli.push import push_command
from qosforge.cli.simulate import simulate_command
from qosforge.cli.whatif import whatif_group
from qosforge.errors import EXIT_BAD_INPUT, QosforgeError


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="qosforge")
def cli() -> None:
    """Compile transport intent into switch buffer, ECN/WRED and PFC configuration.

    Every number carries the model, formula and paper section it came from.
    """


for _command in (compile_command, explain_command, lint_command, whatif_group, fit_group, profiles_group, schema_command, simulate_command):
    cli.add_command(_command)
cli.add_command(push_command)
cli.add_command(diff_command)


def _print_error(text: str) -> None:
    click.echo(f"error: {' '.join(text.split())}", err=True)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the CLI, map user errors to one line and exit code 2."""
    try:
        exit_code = cli.main(args=argv, prog_name="qosforge", standalone_mode=False)
    except QosforgeError as error:
        _print_error(error.one_line())
        sys.exit(EXIT_BAD_INPUT)
    except click.UsageError as error:
        command = error.ctx.command_path if error.ctx is not None else "qosforge"
        _print_error(f"{error.format_message()} (hint: see '{command} --help')")
        sys.exit(EXIT_BAD_INPUT)
    except click.ClickException as error:
        _print_error(error.format_message())
        sys.exit(EXIT_BAD_INPUT)
    except click.exceptions.Abort:
        _print_error("aborted")
        sys.exit(EXIT_BAD_INPUT)
    except click.exceptions.Exit as exit_request:
        sys.exit(exit_request.exit_code)
    except Exception as error:  # an internal bug: say so plainly, keep the traceback for debugging
        if os.environ.get("QOSFORGE_DEBUG") == "1":
            raise
        _print_error(
            f"internal error ({type(error).__name__}: {error}); this is a qosforge bug, "
            "please report it with QOSFORGE_DEBUG=1 output"
        )
        sys.exit(70)
    sys.exit(exit_code if isinstance(exit_code, int) else 0)


__all__ = ["cli", "main"]
