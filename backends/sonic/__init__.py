"""SONiC backend: the compiler IR as CONFIG_DB (``config_db.json``) QoS/buffer tables.

:func:`render_config_db` renders one switch; :func:`check_config_db` validates any config_db
fragment against SONiC's encoding rules, YANG constraints and the the SONiC sources (sonic-buildimage, sonic-swss)
checklist (the renderer runs it on its own output; ``qosforge lint`` reuses it).
"""

from __future__ import annotations

from typing import Any

from qosforge.backends.sonic.checks import RULES, Violation, check_config_db, qos_subset

#: The renderer (Jinja2, the IR) loads on first use, so ``qosforge lint`` (which only checks)
#: does not pay for it at start-up.
_RENDER_NAMES = frozenset({"ConfigDb", "ConfigDbViolationError", "config_db_to_json", "render_config_db",
                           "render_fabric"})


def __getattr__(name: str) -> Any:
    if name in _RENDER_NAMES:
        from qosforge.backends.sonic import render

        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "RULES",
    "ConfigDb",
    "ConfigDbViolationError",
    "Violation",
    "check_config_db",
    "config_db_to_json",
    "qos_subset",
    "render_config_db",
    "render_fabric",
]
