"""Compatibility import path: compiling an intent for the switch lives in softswitch/helper/compiled.py."""

from qosforge.softswitch.helper.compiled import (
    CompiledSwitch,
    DesignPoint,
    compile_for_softswitch,
    host_transport,
    load_compiled,
    tbtcp_host_settings,
    transport_hosts,
)

__all__ = ["CompiledSwitch", "DesignPoint", "compile_for_softswitch", "host_transport", "load_compiled", "tbtcp_host_settings", "transport_hosts"]
