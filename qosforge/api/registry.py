"""The names the registries hold, for the command line's choices and help texts: targets,
approximations and transports (backends/registry.py, transports/). The command line reads them
here, so it imports nothing below the application layer."""

from __future__ import annotations

from qosforge.backends.registry import approximation_names, target_names, targets_supporting


def transport_names() -> tuple[str, ...]:
    """Every registered transport, in the intent schema's order (loads the registry)."""
    from qosforge.transports import transport_names as names

    return names()


__all__ = ["approximation_names", "target_names", "targets_supporting", "transport_names"]
