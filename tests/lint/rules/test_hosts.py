"""Host rules (--hosts): each fails on a crafted mismatch between a host settings document and the
switch config, and host and switch settings rendered from any valid intent agree (property)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosforge.backends.registry import get_target
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent
from qosforge.lint.engine import Linter

ROOT = Path(__file__).resolve().parents[3]
HOST_RULES = (
    "host-pfc-not-lossless",
    "host-pfc-missing",
    "host-dscp-priority",
    "host-cnp-dscp",
    "host-cc-ignores-ecn",
    "host-attachment-port",
    "host-trust-pcp",
    "host-cnp-lossless",
    "host-kernel-cc",
)


def _render(intent_path: Path) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """(switch -> config_db text, host kind -> host document) of one intent."""
    intent, source_map = load_intent(intent_path)
    fabric = compile_intent(intent, source_map, targets=("sonic", "host"))
    configs = {f.switch: f.text for f in get_target("sonic").render(fabric.for_target("sonic"))}
    hosts = {f.switch: json.loads(f.text) for f in get_target("host").render(fabric.for_target("host")) if f.file_name == "host_settings.json"}
    return configs, hosts


def _host_findings(config: str, document: dict[str, Any], tmp_path: Path) -> list[Any]:
    path = tmp_path / "host_settings.json"
    path.write_text(json.dumps(document))
    report = Linter(hosts=path).lint_bytes(config.encode(), "leaf1/config_db.json")
    assert report.unusable is None
    return [f for f in report.findings if f.rule.startswith("host-")]


@pytest.fixture(scope="module")
def roce_pod() -> tuple[str, dict[str, Any]]:
    configs, hosts = _render(ROOT / "examples" / "roce-pod.yaml")
    return configs["leaf1"], hosts["hosts/nvidia-connectx-6dx-100G"]


def test_rendered_hosts_agree_with_their_switch(roce_pod: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    config, document = roce_pod
    assert _host_findings(config, document, tmp_path) == []


def _crafted(document: dict[str, Any], change: str) -> dict[str, Any]:
    doc = json.loads(json.dumps(document))
    if change == "pfc-extra":
        doc["qos"]["pfc_priorities"] = [3, 5]
    elif change == "pfc-missing":
        doc["qos"]["pfc_priorities"] = []
    elif (
        change == "dscp-priority"
    ):  # the RoCE class on priority 4 (with its DCQCN there), PFC still on 3
        doc["qos"]["dscp_to_priority"]["26"] = 4
        doc["qos"]["dcqcn"]["rp_priorities"] = doc["qos"]["dcqcn"]["np_priorities"] = [4]
    elif change == "cnp":
        doc["qos"]["cnp"]["dscp"] = 46
    elif change == "cc":
        doc["kernel"] = {"tcp_congestion_control": "bbr", "tcp_ecn": 2}
        for klass in doc["classes"]:
            klass["congestion_control"] = (
                None if klass["transport"] == "dctcp" else klass["congestion_control"]
            )
    elif change == "rp":
        doc["qos"]["dcqcn"]["rp_priorities"] = []
    elif change == "trust-pcp":
        doc["qos"]["trust"] = "pcp"
    elif (
        change == "cnp-on-pfc"
    ):  # CNPs on the hosts' lossless priority 3 (DSCP 48 still the switch's strict queue)
        doc["qos"]["cnp"]["priority"] = 3
    elif change == "kernel-reno":  # the DCTCP class's sockets get reno unless they select dctcp
        doc["kernel"] = {"tcp_congestion_control": "reno", "tcp_ecn": 2}
    return doc


@pytest.mark.parametrize(("change", "rule", "values"), [
    ("pfc-extra", "host-pfc-not-lossless", {"priority": 5}),
    ("pfc-missing", "host-pfc-missing", {"priority": 3}),
    ("dscp-priority", "host-dscp-priority", {"dscp": 26, "host_priority": 4, "pg": 3}),
    ("cnp", "host-cnp-dscp", {"cnp_dscp": 46}),
    ("cc", "host-cc-ignores-ecn", {"dscp": 0, "queue": 1}),
    ("rp", "host-cc-ignores-ecn", {"dscp": 26, "queue": 3}),
    ("trust-pcp", "host-trust-pcp", {"trust": "pcp"}),
    ("cnp-on-pfc", "host-cnp-lossless", {"cnp_dscp": 48, "cnp_priority": 3}),
    ("kernel-reno", "host-kernel-cc", {"dscp": 0, "class_cc": "dctcp", "kernel_cc": "reno"}),
])
def test_each_rule_fails_on_its_mismatch(change: str, rule: str, values: dict[str, int], roce_pod: tuple[str, dict[str, Any]],
                                         tmp_path: Path) -> None:
    config, document = roce_pod
    findings = _host_findings(config, _crafted(document, change), tmp_path)
    assert {f.rule for f in findings} == {rule}, [f.message for f in findings]
    [finding] = findings  # one per mismatch, merged over the 16 host ports
    assert {k: finding.values[k] for k in values} == values
    assert finding.values["ports"] == 16 and finding.table == "PORT_QOS_MAP"


def test_a_kernel_that_refuses_ecn_is_found_whatever_the_class_says(
    roce_pod: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    """kernel: cubic with tcp_ecn 0. The class still says dctcp, but a listener on the kernel's
    cubic with tcp_ecn 0 accepts no ECN (Linux tcp_ecn_create_request), so no connection of the
    class negotiates ECN and the marking queue drops instead (before: no finding)."""
    config, document = roce_pod
    doc = json.loads(json.dumps(document))
    doc["kernel"] = {"tcp_congestion_control": "cubic", "tcp_ecn": 0}
    findings = {f.rule: f for f in _host_findings(config, doc, tmp_path)}
    assert set(findings) == {"host-cc-ignores-ecn", "host-kernel-cc"}
    assert (
        findings["host-cc-ignores-ecn"].values["dscp"] == 0
        and "receivers refuse ECN" in findings["host-cc-ignores-ecn"].message
    )
    assert findings["host-kernel-cc"].severity.value == "warning"
    # With dctcp as the kernel's default, tcp_ecn 0 is fine: dctcp needs ECN and negotiates it.
    doc["kernel"] = {"tcp_congestion_control": "dctcp", "tcp_ecn": 0}
    assert _host_findings(config, doc, tmp_path) == []


def test_a_route_that_asks_for_ecn_is_ecn_negotiated(
    roce_pod: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    """A cubic class on the DCTCP class's marking queue, net.ipv4.tcp_ecn at Linux's default 2:
    its senders never ask for ECN, unless its routes carry features ecn (RTAX_FEATURE_ECN,
    tcp_ecn_send_syn), as tcp-routes.sh writes them (``route_ecn``)."""
    config, document = roce_pod
    doc = json.loads(json.dumps(document))
    doc["kernel"] = {"tcp_congestion_control": "dctcp", "tcp_ecn": 2}
    tcp = next(c for c in doc["classes"] if c["transport"] == "dctcp")
    tcp["congestion_control"] = "cubic"
    findings = _host_findings(config, doc, tmp_path)
    assert "host-cc-ignores-ecn" in {f.rule for f in findings}
    tcp["route_ecn"] = True
    assert "host-cc-ignores-ecn" not in {f.rule for f in _host_findings(config, doc, tmp_path)}


def test_an_attachment_to_a_port_the_config_lacks_is_a_finding_not_every_port(
    roce_pod: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    config, document = roce_pod
    doc = _crafted(document, "pfc-missing")  # would be a finding on each of the 16 host ports
    doc["attachments"] = [{"switch": "leaf1", "port": "Ethernet200"}]
    findings = _host_findings(config, doc, tmp_path)
    assert [(f.rule, f.values["port"]) for f in findings] == [
        ("host-attachment-port", "Ethernet200")
    ]
    # One real port and one typo: the real one is checked, the typo named.
    doc["attachments"] = [
        {"switch": "leaf1", "port": "Ethernet0"},
        {"switch": "leaf1", "port": "Ethernet0x"},
    ]
    findings = _host_findings(config, doc, tmp_path)
    assert sorted(f.rule for f in findings) == ["host-attachment-port", "host-pfc-missing"]
    assert next(f for f in findings if f.rule == "host-pfc-missing").key == "Ethernet0"
    # Hosts on two switches and no --intent: a port only the other switch has is not this
    # config's to miss (port names repeat across switches).
    doc["attachments"] = [
        {"switch": "leaf1", "port": "Ethernet0"},
        {"switch": "leaf2", "port": "Ethernet200"},
    ]
    findings = _host_findings(config, doc, tmp_path)
    assert [f.rule for f in findings] == ["host-pfc-missing"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda doc: doc["classes"][0].update(dscp=[99]),
            r"classes\.0\.dscp\.0: Input should be less than or equal to 63",
        ),
        (
            lambda doc: doc["qos"]["dscp_to_priority"].update({"99": 3}),
            r"qos\.dscp_to_priority: .*DSCP '99' is not a DSCP",
        ),
        (lambda doc: doc.update(classes=[]), r"classes: List should have at least 1 item"),
    ],
)
def test_a_document_that_cannot_describe_hosts_is_refused(
    change: Any, message: str, roce_pod: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    from qosforge.errors import QosforgeError

    _config, document = roce_pod
    doc = json.loads(json.dumps(document))
    change(doc)
    path = tmp_path / "host_settings.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(QosforgeError, match=message) as raised:
        Linter(hosts=path)
    assert raised.value.place == "--hosts"


def test_with_the_intent_only_the_files_switch_attachments_count(roce_pod: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    config, document = roce_pod
    intent = ROOT / "examples" / "roce-pod.yaml"
    # The same hosts said to attach to another switch: port names repeat (Ethernet0 is on every
    # switch), so without the switch's name another fabric's hosts were checked against leaf1.
    elsewhere = json.loads(json.dumps(document))
    for attachment in elsewhere["attachments"]:
        attachment["switch"] = "T1"
    path = tmp_path / "host_settings.json"
    path.write_text(json.dumps(elsewhere))
    report = Linter(intent=intent, switch="leaf1", hosts=path).lint_bytes(config.encode(), "leaf1/config_db.json")
    assert report.unusable is not None
    assert "attach to T1, not to leaf1" in report.unusable.message
    # Its own switch's attachments: checked, and a mismatch is still found on exactly its ports.
    own = _crafted(document, "pfc-missing")
    path.write_text(json.dumps(own))
    report = Linter(intent=intent, switch="leaf1", hosts=path).lint_bytes(config.encode(), "leaf1/config_db.json")
    assert report.unusable is None
    [finding] = [f for f in report.findings if f.rule.startswith("host-")]
    assert finding.rule == "host-pfc-missing"
    assert finding.values["ports"] == len([a for a in own["attachments"] if a["switch"] == "leaf1"])


def test_a_garbage_host_document_is_a_clear_error(tmp_path: Path) -> None:
    from qosforge.errors import QosforgeError

    path = tmp_path / "h.json"
    path.write_text(json.dumps({"format": "qosforge.host-settings/1", "host_kind": "x"}))
    with pytest.raises(QosforgeError, match=r"h.json: nic: Field required") as raised:
        Linter(hosts=path)
    assert raised.value.place == "--hosts"


_TRANSPORTS = ("tcp", "dctcp", "dcqcn", "d2tcp")


@st.composite
def intents(draw: st.DrawFn) -> str:
    """A valid single-leaf intent: 1-3 classes on distinct DSCPs, RoCE classes lossless, any NIC that runs them."""
    transports = draw(st.lists(st.sampled_from(_TRANSPORTS), min_size=1, max_size=3))
    dscps = draw(st.lists(st.integers(0, 47).filter(lambda d: d != 48), min_size=len(transports), max_size=len(transports), unique=True))
    rdma = "dcqcn" in transports
    nic = draw(st.sampled_from(("nvidia-connectx-5", "nvidia-connectx-6dx") if rdma else ("linux-kernel", "nvidia-connectx-5")))
    speed = draw(st.sampled_from(("25G", "100G")))
    classes = "\n".join(f"  - {{name: c{i}, transport: {t}, dscp: [{d}], lossless: {'true' if t == 'dcqcn' else 'false'}}}"
                        for i, (t, d) in enumerate(zip(transports, dscps, strict=True)))
    return f"""apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: prop}}
topology:
  switches:
    - name: leaf1
      profile: mellanox-spectrum-2
      ports:
        - {{name: "Ethernet[0-12/4]", speed: {speed}, cable: 3m, peer: host, host_nic: {nic}}}
classes:
{classes}
targets: [sonic, host]
"""


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=intents())
def test_host_and_switch_rendered_from_any_intent_agree(text: str, tmp_path: Path) -> None:
    path = tmp_path / "intent.yaml"
    path.write_text(text)
    configs, hosts = _render(path)
    assert hosts
    for document in hosts.values():
        assert _host_findings(configs["leaf1"], document, tmp_path) == []
