"""SONiC backend: the compiler IR as CONFIG_DB (``config_db.json``) QoS/buffer tables.

:func:`render_config_db` renders one switch; :func:`check_config_db` validates any config_db
fragment against SONiC's encoding rules, YANG constraints and the the SONiC sources (sonic-buildimage, sonic-swss)
checklist (the renderer runs it on its own output; ``qosforge lint`` reuses it).
"""

from __future__ import annotations

from qosforge.backends.sonic.checks import RULES, Violation, check_config_db, qos_subset
from qosforge.backends.sonic.render import (
    ConfigDb,
    ConfigDbViolationError,
    config_db_to_json,
    render_config_db,
    render_fabric,
)

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
