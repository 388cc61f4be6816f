"""``simulate --serve-gnmi HOST:PORT``: the flags, read into the application layer's
:class:`~qosforge.api.serve.ServeRequest` (qosforge/api/serve.py serves; docs/telemetry.md).

The TLS and credential flags are ``push``/``diff``'s, from the target's side: ``--tls-cert`` and
``--tls-key`` are the certificate it presents, ``--tls-ca`` the CA a client certificate must
chain to, ``--insecure`` plaintext gRPC, ``--username`` with the password from
``$QOSFORGE_GNMI_PASSWORD`` the credentials every RPC must carry.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from qosforge.api.serve import ServeOptions, ServeRequest, serve_settings

F = TypeVar("F", bound=Callable[..., Any])

#: The click parameter names of the serving flags (``simulate`` pops them before its request).
SERVE_PARAMS = ("serve_gnmi", "serve_for", "tls_cert", "tls_key", "tls_ca", "insecure", "username")


def serve_options(function: F) -> F:
    options = [
        click.option("--serve-gnmi", "serve_gnmi", metavar="HOST:PORT",
                     help="Serve the simulated switch as a gNMI target while the run goes on "
                          "(a fabric: switch i on PORT+i); docs/telemetry.md."),
        click.option("--serve-for", "serve_for", metavar="TIME",
                     help="--serve-gnmi: stop serving this long (wall time) after the run ends, "
                          "then report (default: serve until interrupted)."),
        click.option("--tls-cert", type=click.Path(dir_okay=False), help="--serve-gnmi: the target's certificate (PEM)."),
        click.option("--tls-key", type=click.Path(dir_okay=False), help="--serve-gnmi: the target's private key (PEM)."),
        click.option("--tls-ca", type=click.Path(dir_okay=False),
                     help="--serve-gnmi: require client certificates signed by this CA (mutual TLS)."),
        click.option("--insecure", is_flag=True, help="--serve-gnmi: plaintext gRPC without TLS."),
        click.option("--username",
                     help="--serve-gnmi: require this username and the password in $QOSFORGE_GNMI_PASSWORD on every RPC."),
    ]
    return functools.reduce(lambda f, option: option(f), reversed(options), function)


def serve_request(params: dict[str, Any]) -> ServeRequest:
    """The serving flags' values (``SERVE_PARAMS``) as a request."""
    return ServeRequest(address=params["serve_gnmi"], serve_for=params["serve_for"], tls_cert=params["tls_cert"],
                        tls_key=params["tls_key"], tls_ca=params["tls_ca"], insecure=params["insecure"],
                        username=params["username"])


def serve_settings_for(request: ServeRequest, scenario: str) -> ServeOptions | None:
    """The application layer's settings, with the password read as push/diff read it and each
    served switch announced on stderr."""
    def ask_password() -> str:
        # Imported only when a run serves with --username: the delivery layer it brings in
        # (gNMI clients, the target registry) is ~0.1 CPU s a plain `simulate` need not pay.
        from qosforge.cli._gnmi import ask_password as ask

        return ask()

    def announce(line: str) -> None:
        click.echo(line, err=True)
        sys.stderr.flush()

    return serve_settings(request, scenario, password=ask_password, announce=announce)


__all__ = ["SERVE_PARAMS", "serve_options", "serve_request", "serve_settings_for"]
