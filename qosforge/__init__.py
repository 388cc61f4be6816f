"""qosforge: compile transport intent into switch buffer, ECN/WRED and PFC configuration."""

from qosforge._version import __version__

__all__ = ["__version__"]
