"""Compatibility import path: compiling an intent for the switch lives in softswitch/helper/compiled.py."""

from qosforge.softswitch.helper.compiled import (
    TRANSPORT_HOSTS,
    CompiledSwitch,
    DesignPoint,
    compile_for_softswitch,
    host_transport,
    load_compiled,
    tbtcp_host_settings,
)

__all__ = ["TRANSPORT_HOSTS", "CompiledSwitch", "DesignPoint", "compile_for_softswitch", "host_transport", "load_compiled", "tbtcp_host_settings"]
