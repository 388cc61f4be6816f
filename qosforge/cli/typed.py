"""Whether the operator typed a flag, as opposed to a default or a sweep filling it in.

A note about a flag ("--seed has no effect") is for the person who typed it. A sweep runs each
grid point as the same click command with every value on its argv (campaigns/execute.py), so
click reports those flags as typed; the sweep marks the point's context with
:class:`CampaignPoint`, and the sweep itself says once what concerns the whole campaign.
"""

from __future__ import annotations

import click
from click.core import ParameterSource


class CampaignPoint:
    """``ctx.obj`` of a command run as one point of ``qosforge sweep``."""


def typed_by_operator(parameter: str) -> bool:
    """True when ``parameter`` of the current command was typed on its command line by a person."""
    context = click.get_current_context()
    return context.get_parameter_source(parameter) == ParameterSource.COMMANDLINE and not isinstance(context.find_root().obj, CampaignPoint)


__all__ = ["CampaignPoint", "typed_by_operator"]
