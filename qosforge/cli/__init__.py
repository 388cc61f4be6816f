"""The ``qosforge`` command line.

Errors the user can fix (:class:`qosforge.errors.QosforgeError`, click usage errors and
operating-system errors such as a full disk or a missing directory) are printed as one line on
stderr with exit code 2; no traceback is shown unless ``QOSFORGE_DEBUG=1``. Exit code 70 is kept
for qosforge bugs, 130 (128 + SIGINT, as shells report it) for Ctrl-C wherever it lands.

A command's output files are written all or nothing (:func:`qosforge.files.all_or_nothing`): a
run that fails or is interrupted leaves none of them.

Subcommands are the ``qosforge.commands`` entry points, imported on first use
(:mod:`qosforge.cli._lazy`) so ``--help``, ``--version``
and light commands do not load numpy, pydantic, numba or matplotlib.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys

import click

from qosforge import plugins
from qosforge._version import __version__
from qosforge.cli._lazy import HelpWhenBareGroup
from qosforge.errors import EXIT_BAD_INPUT, EXIT_BUG, EXIT_INTERRUPTED, QosforgeError, os_error_line
from qosforge.files import all_or_nothing


class _Commands(HelpWhenBareGroup):
    """The ``qosforge`` group: its subcommands are the ``qosforge.commands`` entry-point group
    (qosforge/plugins.py: the built-ins, then any installed plugin's), read on first use so that a
    broken plugin is reported by :func:`main` as one line, and each imported only when it runs or
    help lists it."""

    listed_all = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._read_entry_points()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        # A built-in command runs without reading installed metadata; other names need the list.
        builtin = {ref.name: ref.value for ref in plugins.BUILTINS[plugins.COMMANDS]}
        if cmd_name in builtin:
            self.lazy_subcommands.setdefault(cmd_name, builtin[cmd_name])
        else:
            self._read_entry_points()
        return super().get_command(ctx, cmd_name)

    def _read_entry_points(self) -> None:
        if not self.listed_all:
            references = plugins.references(plugins.COMMANDS)
            self.lazy_subcommands = {ref.name: ref.value for ref in references}
            self.listed_all = True

    def _load(self, cmd_name: str) -> click.Command:
        reference = plugins.find(plugins.COMMANDS, cmd_name)
        assert reference is not None  # get_command asks only for listed names
        return plugins.load_one(reference, click.Command)


@click.group(
    cls=_Commands,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="qosforge", package_name="qosforge")
def cli() -> None:
    """Compile transport intent into switch buffer, ECN/WRED and PFC configuration.

    Every number carries the model, formula and paper section it came from.
    """


def _print_error(text: str) -> None:
    click.echo(f"error: {' '.join(text.split())}", err=True)


def _command_path(argv: list[str] | None) -> str:
    """``qosforge compile`` for ``compile x.yaml -o``: the command whose --help a usage error
    should point to when click raised it without a context (an option missing its value)."""
    words = sys.argv[1:] if argv is None else argv
    group: click.Command = cli
    path = ["qosforge"]
    for word in words:
        if word.startswith("-") or not isinstance(group, click.Group):
            break
        try:
            found = group.get_command(click.Context(group, info_name=path[-1]), word)
        except Exception:  # a plugin that does not load: its name is still the best pointer
            found = None
        if found is None:
            break
        group = found
        path.append(word)
    return " ".join(path)


def _finished(error: BaseException) -> bool:
    """A command that ended by choosing its exit code (findings: 1) succeeded: keep its files;
    bad input, a bug or an interrupt do not."""
    if isinstance(error, click.exceptions.Exit):
        code: object = error.exit_code
    elif isinstance(error, SystemExit):
        code = error.code
    else:
        return False
    return code not in (EXIT_BAD_INPUT, EXIT_BUG, EXIT_INTERRUPTED)


def _interrupted() -> None:
    _print_error("interrupted")
    sys.exit(EXIT_INTERRUPTED)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the CLI, map user errors to one line and exit code 2."""
    # gRPC's C core logs TLS handshake failures itself (ssl_transport_security.cc) before push/diff
    # print their one-line error; it reads GRPC_VERBOSITY when grpc is first imported. The user's
    # own setting wins (debugging a device).
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    if argv is None:
        # The process ends after this command: the interpreter's last garbage collections would
        # free every module, class and compiled intent one by one (0.1-0.25 CPU s, up to a
        # quarter of a short compile or simulate; docs/speed.md). Frozen, they are left to the
        # OS; every atexit handler still runs and the standard streams are still flushed.
        atexit.register(gc.freeze)
    try:
        with all_or_nothing(keep=_finished):
            exit_code = cli.main(args=argv, prog_name="qosforge", standalone_mode=False)
    except KeyboardInterrupt:
        _interrupted()
    except click.exceptions.Abort as abort:
        if isinstance(abort.__cause__, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            _interrupted()
        _print_error("aborted")
        sys.exit(EXIT_BAD_INPUT)
    except QosforgeError as error:
        _print_error(error.one_line())
        sys.exit(EXIT_BAD_INPUT)
    except click.UsageError as error:
        command = error.ctx.command_path if error.ctx is not None else _command_path(argv)
        _print_error(f"{error.format_message()} (hint: see '{command} --help')")
        sys.exit(EXIT_BAD_INPUT)
    except click.ClickException as error:
        _print_error(error.format_message())
        sys.exit(EXIT_BAD_INPUT)
    except click.exceptions.Exit as exit_request:
        sys.exit(exit_request.exit_code)
    except OSError as error:  # full or read-only disk, permissions, a file where a folder goes
        if os.environ.get("QOSFORGE_DEBUG") == "1":
            raise
        _print_error(os_error_line(error))
        sys.exit(EXIT_BAD_INPUT)
    except (OverflowError, FloatingPointError) as error:  # absurd magnitudes the parsers let through
        if os.environ.get("QOSFORGE_DEBUG") == "1":
            raise
        _print_error(f"a value is too large to compute with ({error}) (hint: check the magnitudes and units of the numbers given)")
        sys.exit(EXIT_BAD_INPUT)
    except Exception as error:  # an internal bug: say so plainly, keep the traceback for debugging
        if os.environ.get("QOSFORGE_DEBUG") == "1":
            raise
        _print_error(
            f"internal error ({type(error).__name__}: {error}); this is a qosforge bug, "
            "please report it with QOSFORGE_DEBUG=1 output"
        )
        sys.exit(EXIT_BUG)
    sys.exit(exit_code if isinstance(exit_code, int) else 0)


__all__ = ["cli", "main"]
