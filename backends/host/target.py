"""The ``host`` target: per host kind, a sysctl.d file, a NIC setup script and host_settings.json,
written under ``hosts/<kind>/`` (registered in qosforge.backends.registry)."""

from __future__ import annotations

from collections.abc import Iterator

from qosforge.backends.phases import Explainer, Explanation
from qosforge.backends.registry import RenderedFile, Target
from qosforge.ir import SwitchIR

TARGET_NAME = "host"
#: The output folder of every host kind, beside the switch folders.
HOSTS_FOLDER = "hosts"


def _view(switch: SwitchIR, approximations: frozenset[str]) -> SwitchIR:
    return switch  # the host settings read the full plan; nothing of it is beyond the hosts


def _render(switches: tuple[SwitchIR, ...]) -> Iterator[RenderedFile]:
    from qosforge.backends.host.render import (
        DOCUMENT_FILE,
        NIC_SCRIPT,
        ROUTES_SCRIPT,
        SYSCTL_FILE,
        render_document,
        render_nic_script,
        render_routes,
        render_sysctl,
    )
    from qosforge.backends.host.settings import host_kinds

    for kind in host_kinds(switches):
        folder = f"{HOSTS_FOLDER}/{kind.name}"
        yield RenderedFile(folder, SYSCTL_FILE, render_sysctl(kind))
        yield RenderedFile(folder, NIC_SCRIPT, render_nic_script(kind))
        yield RenderedFile(folder, ROUTES_SCRIPT, render_routes(kind))
        yield RenderedFile(folder, DOCUMENT_FILE, render_document(kind))


def _explain(switches: tuple[SwitchIR, ...], kind: str, name: str) -> Explanation:
    from qosforge.backends.host.explain import explain_host_value
    from qosforge.backends.host.settings import host_kinds

    return explain_host_value(host_kinds(switches), kind, name)


TARGET = Target(
    name=TARGET_NAME,
    description="host kernel sysctls, TCP route attributes (rto_min, initcwnd), NIC QoS "
                "(trust, PFC, DSCP->priority) and DCQCN settings per host kind",
    file_names=("99-qosforge.conf", "nic-setup.sh", "tcp-routes.sh", "host_settings.json"),
    view=_view,
    render=_render,
    explain=Explainer("host", "a host setting's name in host_settings.json, e.g. ecn.roce_rp.rpg_ai_rate", _explain),
)
