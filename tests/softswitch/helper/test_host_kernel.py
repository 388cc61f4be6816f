"""Each class's Linux TCP host from a host settings document (softswitch/helper/host_kernel.py):
congestion control, ECN negotiation (net.ipv4.tcp_ecn), minimum RTO and initial window, with
their sources, against Linux's rules (ip-sysctl.rst, tcp_dctcp.c, include/net/tcp.h)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.backends.host.document import HostSettingsDocument, load_host_document
from qosforge.errors import QosforgeError
from qosforge.softswitch.helper.host_kernel import apply_host_kernel, host_model
from qosforge.softswitch.traffic.spec import FlowSpec

ROOT = Path(__file__).resolve().parents[3]
#: mixed-fabric's rendered hosts: classes rpc (d2tcp), bulk (dctcp), storage (dcqcn), search
#: (ear) and legacy (tcp, DSCP 0, no congestion control of its own); tcp_ecn = 1.
MIXED = (
    ROOT
    / "tests/backends/host/golden/mixed-fabric/hosts/nvidia-connectx-6dx-100G/host_settings.json"
)


def _document(
    tcp_ecn: int | None = 1,
    default_cc: str | None = None,
    rto_min_us: int | None = None,
    legacy: dict[str, object] | None = None,
) -> HostSettingsDocument:
    document = load_host_document(MIXED)
    kernel = document.kernel.model_copy(
        update={
            "tcp_ecn": tcp_ecn,
            "tcp_congestion_control": default_cc,
            "tcp_rto_min_us": rto_min_us,
        }
    )
    # The rendered document carries the intent's 4 ms minimum RTO; cleared here so each test
    # states the route's value it checks (None: the kernel's).
    classes = [
        c.model_copy(update={"rto_min_s": None, **(legacy or {})}) if c.name == "legacy" else c
        for c in document.classes
    ]
    return document.model_copy(update={"kernel": kernel, "classes": classes})


def _flow(kind: str = "cubic", dscp: int = 0) -> FlowSpec:
    return FlowSpec(kind=kind, src_port=0, dst_port=1, dscp=dscp, ect=False)  # type: ignore[arg-type]


@settings(deadline=None)  # each example reads the golden document
@given(st.sampled_from([None, 0, 1, 2]), st.sampled_from([None, "cubic", "reno", "dctcp"]))
def test_ecn_is_negotiated_as_linux_does(tcp_ecn: int | None, class_cc: str | None) -> None:
    """tcp_ecn = 1 on both ends negotiates ECN; 2 (the default, None here) and 0 do not; DCTCP
    negotiates it whatever the sysctl (TCP_CONG_NEEDS_ECN). A class without its own congestion
    control runs the kernel default, Linux's cubic."""
    model = host_model(_document(tcp_ecn, legacy={"congestion_control": class_cc}), _flow())
    cc = class_cc or "cubic"
    assert model.congestion_control == cc
    assert model.ecn_capable == (cc == "dctcp" or tcp_ecn == 1)
    expected = {
        "cubic": "cubic",
        "dctcp": "dctcp",
        "reno": "tcp-ecn" if tcp_ecn == 1 else "newreno",
    }[cc]
    assert model.flow_kind == expected
    assert model.sources["congestion_control"] == (
        "host document classes[4].congestion_control"
        if class_cc
        else "Linux default (net.ipv4.tcp_congestion_control)"
    )


def test_the_minimum_rto_comes_from_the_route_then_the_sysctl_then_linux() -> None:
    assert host_model(_document(), _flow()).rto_min_s == 0.2
    assert host_model(_document(rto_min_us=5000), _flow()).rto_min_s == 0.005
    routed = host_model(_document(rto_min_us=5000, legacy={"rto_min_s": 0.001}), _flow())
    assert routed.rto_min_s == 0.001 and routed.sources["rto_min"].startswith(
        "host document classes[4].rto_min_s"
    )
    assert host_model(_document(), _flow(), rto_min_flag_s=0.004).sources["rto_min"] == "--rto-min"


def test_the_initial_window_is_the_route_s_or_iw10() -> None:
    assert host_model(_document(), _flow()).initial_window == 10
    assert (
        host_model(_document(legacy={"initial_window_segments": 32}), _flow()).initial_window == 32
    )


def test_the_kernel_default_runs_where_the_class_names_none() -> None:
    model = host_model(_document(default_cc="dctcp"), _flow())
    assert (model.congestion_control, model.flow_kind, model.ecn_capable) == (
        "dctcp",
        "dctcp",
        True,
    )
    assert model.sources["congestion_control"] == "host document kernel.tcp_congestion_control"


def test_a_class_s_own_transport_keeps_its_host_model() -> None:
    # rpc is D2TCP (DSCP 34 in mixed-fabric), simulated on DCTCP's host model.
    rpc = next(c for c in _document().classes if c.name == "rpc")
    model = host_model(_document(), _flow("dctcp", rpc.dscp[0]))
    assert model.congestion_control == "d2tcp" and model.flow_kind == "dctcp"


def test_a_congestion_control_the_simulator_does_not_run_is_refused_by_its_key() -> None:
    with pytest.raises(QosforgeError) as refused:
        host_model(_document(legacy={"congestion_control": "bbr"}), _flow())
    assert refused.value.place == "--hosts: classes[4].congestion_control" and "'bbr'" in str(
        refused.value
    )
    with pytest.raises(QosforgeError) as kernel:
        host_model(_document(default_cc="vegas"), _flow())
    assert kernel.value.place == "--hosts: kernel.tcp_congestion_control"


def test_only_window_flows_change() -> None:
    flows = (
        _flow(),
        FlowSpec(kind="dcqcn", src_port=0, dst_port=1, dscp=0),
        FlowSpec(kind="poisson", src_port=0, dst_port=1, dscp=0),
    )
    adjusted, models = apply_host_kernel(_document(), flows)
    assert adjusted[1:] == flows[1:] and len(models) == 1
    assert (adjusted[0].ect, adjusted[0].rto_min_s, adjusted[0].initial_window) == (True, 0.2, 10)
