"""The headroom scenario's traffic and its refusals (softswitch/helper/headroom_incast.py); what it
does to the switch is checked against physics in tests/validation/test_pfc_headroom_in_flight.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.errors import QosforgeError
from qosforge.softswitch.helper.headroom_incast import headroom_incast

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_line_rate_lossless_senders_each_receive_port_mtu_frames() -> None:
    built = headroom_incast(EXAMPLES / "roce-pod.yaml", "leaf1", None, "Ethernet8", senders=3)
    config = built.compiled.config
    assert built.entry.name == "rdma" and config.ports[built.receiver].name == "Ethernet8"
    lossless = [f for f in built.flows if f.dst_port == built.receiver]
    reverse = [f for f in built.flows if f.dst_port != built.receiver]
    assert [f.src_port for f in lossless] == list(built.senders) and len(set(built.senders)) == 3
    for flow in lossless:
        assert flow.kind == "cbr" and flow.ect and flow.dscp == 26 and flow.packet_bytes == 1024
        # Line rate: back-to-back frames, each 1024 + 38 B of line time (IEEE 802.3 framing).
        line_bps = config.ports[flow.src_port].speed_bps
        assert flow.rate_pps * (flow.packet_bytes + 38) * 8 == pytest.approx(line_bps)
    assert [f.dst_port for f in reverse] == list(built.senders)
    assert {f.src_port for f in reverse}.isdisjoint({built.receiver, *built.senders})
    assert all(f.kind == "dctcp" and f.dscp in (0, 10) and f.packet_bytes == 9100 for f in reverse)
    assert built.run.pfc_watchdog


def test_a_lossy_class_is_refused() -> None:
    with pytest.raises(QosforgeError, match="not lossless") as refused:
        headroom_incast(EXAMPLES / "roce-pod.yaml", "leaf1", "tcp", None)
    assert refused.value.place == "--class"


def test_more_senders_than_the_switch_has_ports_for_is_refused() -> None:
    with pytest.raises(QosforgeError, match="need 19 ports") as refused:
        headroom_incast(EXAMPLES / "roce-pod.yaml", "leaf1", None, None, senders=9)
    assert "1 to 8 senders" in (refused.value.hint or "")
