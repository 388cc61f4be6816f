"""parse_config_db: config_db -> typed values close to the IR (the reverse of the renderer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
from hypothesis import given, settings

from qosforge.backends.sonic import render_config_db
from qosforge.backends.sonic.parse import parse_config_db
from qosforge.ir import SwitchIR

CONFIGS = Path(__file__).parents[2] / "lint" / "configs"


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CONFIGS / name).read_text())
    return data


def test_round_trip_of_the_renderer(switch: SwitchIR) -> None:
    """What the renderer writes from the IR parses back to the same numbers and bindings."""
    parsed = parse_config_db(render_config_db(switch), file="leaf1.json")
    assert parsed.buffer_model == "traditional"
    pools = {p.name: p for p in parsed.pools}
    assert pools["ingress_lossless_pool"].size_bytes is not None
    assert pools["ingress_lossless_pool"].size_bytes.value == 30e6
    assert pools["ingress_lossless_pool"].shared_headroom_bytes is not None
    assert pools["ingress_lossless_pool"].shared_headroom_bytes.value == 2e6
    assert pools["egress_lossless_pool"].direction == "egress" and pools["egress_lossless_pool"].mode == "static"
    ir_profiles = {p.name: p for p in switch.buffer_profiles}
    lossless = parsed.profile("pg_lossless_100000_40m_profile")
    assert lossless is not None and lossless.xoff_bytes is not None and lossless.xon_bytes is not None
    assert (lossless.xoff_bytes.value, lossless.xon_bytes.value, lossless.reserved_bytes.value) == (
        ir_profiles["lossless_100g_40m"].xoff_bytes.value,  # type: ignore[union-attr]
        ir_profiles["lossless_100g_40m"].xon_bytes.value,  # type: ignore[union-attr]
        ir_profiles["lossless_100g_40m"].reserved_bytes.value)
    wred = parsed.wred("AZURE_LOSSLESS")  # the renderer's name for the lossless-only profile
    assert wred is not None
    green = wred.curve("green")
    # The renderer enables every marking color (sonic-buildimage issue #4545), so config_db says
    # non-ECT packets of the class are WRED-dropped on the same curve: drop reads back true.
    assert green is not None and green.mark and green.drop
    assert (green.min_bytes.value, green.max_bytes.value, green.probability_percent.value) == (5000, 200000, 1)
    for port_ir in switch.ports:
        port = parsed.port(port_ir.name)
        assert port is not None
        assert port.pfc_priorities == port_ir.pfc_priorities
        assert port.cable_m == port_ir.cable_m
        # no PORT table in a rendered fragment: the speed comes from buffermgrd's profile name
        assert port.speed_bps == port_ir.speed_bps and "pg_lossless_100000_" in port.speed_source
        assert [q.index for q in port.queues] == [q.index for q in port_ir.queues]
        assert {q.index for q in port.queues if q.lossless} == {q.index for q in port_ir.queues if q.lossless}
        assert {g.index for g in port.priority_groups if g.lossless} == {3}
        assert port.maps.dscp_to_tc == switch.maps.dscp_to_tc
        assert port.maps.pfc_priority_to_queue == switch.maps.pfc_priority_to_queue
        assert port.watchdog is not None and port.watchdog.detection_ms == 200


def test_port_facts_from_the_port_table() -> None:
    parsed = parse_config_db(_load("mellanox_whole.json"))
    port = parsed.port("Ethernet24")
    assert port is not None
    assert (port.speed_bps, port.speed_source, port.cable_m, port.mtu_bytes, port.lanes, port.admin_status) == (
        100e9, "PORT.speed", 300.0, 9100.0, 4, "up")
    assert parsed.port("CPU") is None  # QUEUE|CPU|0 is not a front-panel port
    wred = parsed.wred("AZURE_LOSSLESS")
    assert wred is not None and {c.color for c in wred.curves if c.drop and c.mark} == {"green", "yellow", "red"}


def test_dynamic_model_null_pgs_are_lossless_and_pools_may_lack_size() -> None:
    parsed = parse_config_db(_load("mellanox_dynamic.json"))
    assert parsed.buffer_model == "dynamic"
    assert parsed.traffic_pattern.lossless_mtu_bytes == 1024 and parsed.traffic_pattern.small_packet_percent == 50
    pool = parsed.pool("ingress_lossless_pool")
    assert pool is not None and pool.size_bytes is None
    port = parsed.port("Ethernet0")
    assert port is not None
    assert [(g.index, g.buffer_profile, g.lossless) for g in port.priority_groups] == [
        (0, "ingress_lossy_profile", False), (3, "NULL", True), (4, "NULL", True)]


def test_multi_port_keys_and_ranges_are_expanded_and_garbage_skipped() -> None:
    config = {
        "BUFFER_PROFILE": {"p": {"pool": "x", "size": "10", "xoff": "5"}, "broken": {"pool": "x"}},
        "BUFFER_PG": {"Ethernet0,Ethernet4|3-4": {"profile": "p"}, "Ethernet8|0-99999999999": {"profile": "p"},
                      "Ethernet8|x": {"profile": "p"}},
        "QUEUE": {"Ethernet0|0-1": {"scheduler": "s"}, "Ethernet0|" + "9" * 5000: {"scheduler": "s"}},
        "WRED_PROFILE": {"w": {"green_min_threshold": "1" * 5000, "green_max_threshold": "10"}},
        "PORT": {"Ethernet0": {"speed": "9" * 30}},
    }
    parsed = parse_config_db(config)
    assert parsed.profile("broken") is None  # no size: SONiC refuses it (missing-field)
    for name in ("Ethernet0", "Ethernet4"):
        port = parsed.port(name)
        assert port is not None and [g.index for g in port.priority_groups] == [3, 4]
    ethernet8 = parsed.port("Ethernet8")
    assert ethernet8 is not None and ethernet8.priority_groups == ()
    ethernet0 = parsed.port("Ethernet0")
    assert ethernet0 is not None and [q.index for q in ethernet0.queues] == [0, 1]
    assert ethernet0.speed_bps is None  # 30 digits is no speed
    wred = parsed.wred("w")
    assert wred is not None and wred.curves == ()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3),
    max_leaves=20,
)
table_names = st.sampled_from(["BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "QUEUE", "PORT",
                               "PORT_QOS_MAP", "WRED_PROFILE", "CABLE_LENGTH", "DSCP_TO_TC_MAP", "PFC_WD",
                               "DEVICE_METADATA", "LOSSLESS_TRAFFIC_PATTERN", "SCHEDULER"])


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(table_names, json_values, max_size=6))
def test_parse_never_raises(config: dict[str, Any]) -> None:
    parse_config_db(config)


def test_json_numbers_parse_like_their_strings(switch: SwitchIR) -> None:
    # parse_config_db used to drop every non-string value (a pool size written as 30000000).
    written = render_config_db(switch)
    typed = json.loads(json.dumps(written))
    for entry in typed["BUFFER_POOL"].values():
        entry["size"] = int(entry["size"]) if "size" in entry else None
    as_text, as_numbers = parse_config_db(written), parse_config_db(typed)
    assert {p.name: p.size_bytes.value if p.size_bytes else None for p in as_numbers.pools} == \
        {p.name: p.size_bytes.value if p.size_bytes else None for p in as_text.pools}
