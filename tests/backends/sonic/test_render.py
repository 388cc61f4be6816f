"""render_config_db: the IR -> config_db translation, its naming decisions and its refusals.

Golden file: tests/backends/sonic/golden/leaf1.json. After an intended change, regenerate with
    QOSFORGE_REGENERATE_GOLDEN=1 .venv/bin/pytest tests/backends/sonic
and review the diff; otherwise the test compares the text exactly.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import os
import tomllib
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from qosforge.backends.sonic import (
    ConfigDbViolationError,
    check_config_db,
    config_db_to_json,
    render_config_db,
)
from qosforge.backends.sonic.render import TEMPLATES, cable_length_text
from qosforge.errors import QosforgeError
from qosforge.ir import (
    CapabilityGap,
    Derived,
    EctMarkingIR,
    PriorityGroupIR,
    SchedulerIR,
    SwitchIR,
    WredIR,
)

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).resolve().parents[3]


def _replace_port(switch: SwitchIR, index: int, **changes: object) -> SwitchIR:
    ports = list(switch.ports)
    ports[index] = dataclasses.replace(ports[index], **changes)  # type: ignore[arg-type]
    return dataclasses.replace(switch, ports=tuple(ports))


def _replace_wred(switch: SwitchIR, name: str, wred: WredIR) -> SwitchIR:
    return dataclasses.replace(switch, wred_profiles=tuple(
        wred if w.name == name else w for w in switch.wred_profiles))


def test_golden(switch: SwitchIR) -> None:
    text = config_db_to_json(render_config_db(switch))
    path = GOLDEN / f"{switch.name}.json"
    if os.environ.get("QOSFORGE_REGENERATE_GOLDEN") == "1":
        path.write_text(text)
    assert text == path.read_text()


def test_renders_exactly_the_qos_tables_with_string_values(switch: SwitchIR) -> None:
    config = render_config_db(switch)
    assert set(config) == {
        "BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "WRED_PROFILE", "QUEUE",
        "SCHEDULER", "DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP",
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "PORT_QOS_MAP", "PFC_WD",
        "CABLE_LENGTH", "FLEX_COUNTER_TABLE"}
    assert all(isinstance(v, str) for t in config.values() for e in t.values() for v in e.values())
    assert check_config_db(config, asic_buffer_bytes=switch.buffer_bytes.as_int) == []


def test_counter_groups_watch_needs_are_enabled(switch: SwitchIR) -> None:
    """FLEX_COUNTER_TABLE enables exactly the groups qosforge watch reads on this (lossless,
    marking, watchdog) switch; a bad group name is refused like YANG refuses it."""
    groups = render_config_db(switch)["FLEX_COUNTER_TABLE"]
    assert groups == {name: {"FLEX_COUNTER_STATUS": "enable"} for name in
                      ("PFCWD", "PG_DROP", "PG_WATERMARK", "PORT", "QUEUE", "QUEUE_WATERMARK", "WRED_ECN_QUEUE")}
    assert [v.rule for v in check_config_db({"FLEX_COUNTER_TABLE": {"PG_WATERMARKS": {"FLEX_COUNTER_STATUS": "enable"}}})] == ["bad-key"]
    assert [v.rule for v in check_config_db({"FLEX_COUNTER_TABLE": {"QUEUE": {"FLEX_COUNTER_STATUS": "on"}}})] == ["bad-enum"]


def test_lossless_pool_and_pg_profiles_use_sonic_names(switch: SwitchIR) -> None:
    config = render_config_db(switch)
    assert "ingress_pool" not in config["BUFFER_POOL"]
    assert config["BUFFER_POOL"]["ingress_lossless_pool"] == {
        "type": "ingress", "mode": "dynamic", "size": "30000000", "xoff": "2000000"}
    # buffermgrd's own names (speed in Mb/s, cable from CABLE_LENGTH) and its key from pfc_enable.
    assert config["BUFFER_PG"]["Ethernet0|3"] == {"profile": "pg_lossless_100000_5m_profile"}
    assert config["BUFFER_PG"]["Ethernet4|3"] == {"profile": "pg_lossless_100000_40m_profile"}
    assert config["BUFFER_PROFILE"]["pg_lossless_100000_40m_profile"] == {
        "pool": "ingress_lossless_pool", "size": "72704", "dynamic_th": "0", "xon": "19456", "xoff": "53248"}
    assert "lossless_100g_5m" not in config["BUFFER_PROFILE"]  # only used under its SONiC name
    assert config["CABLE_LENGTH"] == {"AZURE": {"Ethernet0": "5m", "Ethernet4": "40m"}}


def test_maps_are_azure_and_bound_per_port(switch: SwitchIR) -> None:
    config = render_config_db(switch)
    assert len(config["DSCP_TO_TC_MAP"]["AZURE"]) == 64
    assert config["DSCP_TO_TC_MAP"]["AZURE"]["26"] == "3"
    assert config["MAP_PFC_PRIORITY_TO_QUEUE"] == {"AZURE": {"3": "3"}}
    assert config["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "AZURE"}
    assert config["PORT_QOS_MAP"]["Ethernet4"] == {
        "dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE",
        "pfc_to_queue_map": "AZURE", "pfc_to_pg_map": "AZURE", "pfc_enable": "3", "pfcwd_sw_enable": "3"}


def test_empty_ir_map_is_neither_emitted_nor_bound(switch: SwitchIR) -> None:
    maps = dataclasses.replace(switch.maps, pfc_priority_to_priority_group=())
    config = render_config_db(dataclasses.replace(switch, maps=maps))
    assert "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP" not in config
    assert "pfc_to_pg_map" not in config["PORT_QOS_MAP"]["Ethernet0"]


def test_pfc_watchdog_per_pfc_port_and_global_poll(switch: SwitchIR) -> None:
    config = render_config_db(switch)
    assert config["PFC_WD"] == {
        "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"},
        "Ethernet4": {"action": "drop", "detection_time": "200", "restoration_time": "200"},
        "GLOBAL": {"POLL_INTERVAL": "200"}}


def test_ranges_only_where_contiguous_and_same_profile(switch: SwitchIR) -> None:
    config = render_config_db(switch)
    assert set(k for k in config["BUFFER_QUEUE"] if k.startswith("Ethernet0|")) == {"Ethernet0|0-2", "Ethernet0|3"}
    assert set(k for k in config["BUFFER_PG"] if k.startswith("Ethernet0|")) == {"Ethernet0|0", "Ethernet0|3"}
    # QUEUE is per queue, as SONiC's templates write it.
    assert {k for k in config["QUEUE"] if k.startswith("Ethernet0|")} == {f"Ethernet0|{q}" for q in range(4)}


def test_two_lossless_pgs_share_one_range_key(switch: SwitchIR) -> None:
    port = switch.ports[0]
    pgs = (*port.priority_groups, PriorityGroupIR(4, "lossless_100g_5m", True))
    maps = dataclasses.replace(
        switch.maps, dscp_to_tc=tuple((d, 4 if d == 27 else tc) for d, tc in switch.maps.dscp_to_tc),
        tc_to_queue=((0, 0), (1, 1), (2, 2), (3, 3), (4, 3)),
        tc_to_priority_group=((0, 0), (1, 0), (2, 0), (3, 3), (4, 4)),
        pfc_priority_to_priority_group=((3, 3), (4, 4)), pfc_priority_to_queue=((3, 3), (4, 3)))
    changed = _replace_port(dataclasses.replace(switch, maps=maps), 0, priority_groups=pgs, pfc_priorities=(3, 4))
    changed = _replace_port(changed, 1, priority_groups=(*changed.ports[1].priority_groups,
                                                         PriorityGroupIR(4, "lossless_100g_40m", True)),
                            pfc_priorities=(3, 4))
    config = render_config_db(changed)
    assert config["BUFFER_PG"]["Ethernet0|3-4"] == {"profile": "pg_lossless_100000_5m_profile"}
    assert config["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3,4"


def test_wred_lossless_profile_named_azure_lossless(switch: SwitchIR) -> None:
    config = render_config_db(switch)
    assert config["QUEUE"]["Ethernet0|3"]["wred_profile"] == "AZURE_LOSSLESS"
    assert config["WRED_PROFILE"]["AZURE_LOSSLESS"] == {
        "wred_green_enable": "true", "wred_yellow_enable": "false", "wred_red_enable": "false",
        "ecn": "ecn_green", "green_min_threshold": "5000", "green_max_threshold": "200000",
        "green_drop_probability": "1"}


def test_wred_shared_with_lossy_queue_keeps_its_name(switch: SwitchIR) -> None:
    port = switch.ports[0]
    queues = tuple(dataclasses.replace(q, wred_profile="dcqcn_ecn") if q.index == 1 else q for q in port.queues)
    config = render_config_db(_replace_port(switch, 0, queues=queues))
    assert "AZURE_LOSSLESS" not in config["WRED_PROFILE"]
    assert config["QUEUE"]["Ethernet0|3"]["wred_profile"] == "dcqcn_ecn"


def test_wred_name_made_to_fit_yang_pattern(switch: SwitchIR) -> None:
    tlt = next(w for w in switch.wred_profiles if w.name == "tlt_drop")
    renamed = dataclasses.replace(tlt, name="tlt.drop")
    changed = _replace_wred(switch, "tlt_drop", renamed)
    for index in (0, 1):
        queues = tuple(dataclasses.replace(q, wred_profile="tlt.drop") if q.wred_profile == "tlt_drop" else q
                       for q in changed.ports[index].queues)
        changed = _replace_port(changed, index, queues=queues)
    assert render_config_db(changed)["QUEUE"]["Ethernet0|2"]["wred_profile"] == "tlt_drop"


def test_wred_enables_from_drop_or_mark_and_ecn_from_mark(switch: SwitchIR) -> None:
    dcqcn = next(w for w in switch.wred_profiles if w.name == "dcqcn_ecn")
    green = dcqcn.curves[0]
    curves = (dataclasses.replace(green, drop=True), dataclasses.replace(green, color="yellow"),
              dataclasses.replace(green, color="red", mark=False, drop=True))
    config = render_config_db(_replace_wred(switch, "dcqcn_ecn", dataclasses.replace(dcqcn, curves=curves)))
    profile = config["WRED_PROFILE"]["AZURE_LOSSLESS"]
    assert profile["ecn"] == "ecn_green_yellow"
    # yellow only marks, yet is enabled: as SONiC's qos.json templates do (sonic-buildimage #4545)
    assert (profile["wred_green_enable"], profile["wred_yellow_enable"], profile["wred_red_enable"]) == (
        "true", "true", "true")
    assert profile["red_max_threshold"] == "200000"


def test_inactive_color_gets_no_thresholds(switch: SwitchIR) -> None:
    tlt = next(w for w in switch.wred_profiles if w.name == "tlt_drop")
    idle = dataclasses.replace(tlt.curves[0], color="red", drop=False, mark=False)
    config = render_config_db(_replace_wred(switch, "tlt_drop", dataclasses.replace(tlt, curves=(*tlt.curves, idle))))
    assert not any(field.startswith("red_") for field in config["WRED_PROFILE"]["tlt_drop"])


def test_shaper_renders_cir_equal_to_pir_in_bytes(switch: SwitchIR, derive: Callable[..., Derived]) -> None:
    cap = derive(250e6, "B/s", "max_rate_bytes_per_s", "2% of 100G / 8", "FastLane §4")
    schedulers = (*switch.schedulers, SchedulerIR("sched_fastlane", "STRICT", None, cap))
    port = switch.ports[0]
    queues = tuple(dataclasses.replace(q, scheduler="sched_fastlane") if q.index == 0 else q for q in port.queues)
    config = render_config_db(_replace_port(dataclasses.replace(switch, schedulers=schedulers), 0, queues=queues))
    assert config["SCHEDULER"]["sched_fastlane"] == {
        "type": "STRICT", "meter_type": "bytes", "cir": "250000000", "pir": "250000000"}
    assert all("priority" not in s for s in config["SCHEDULER"].values())


def test_names_are_json_escaped_not_spliced(switch: SwitchIR) -> None:
    odd = 'sched "lossy", \\ {x}'
    schedulers = tuple(dataclasses.replace(s, name=odd) if s.name == "sched_lossy" else s for s in switch.schedulers)
    changed = dataclasses.replace(switch, schedulers=schedulers)
    for index in (0, 1):
        queues = tuple(dataclasses.replace(q, scheduler=odd) if q.scheduler == "sched_lossy" else q
                       for q in changed.ports[index].queues)
        changed = _replace_port(changed, index, queues=queues)
    config = render_config_db(changed)
    assert config["SCHEDULER"][odd] == {"type": "DWRR", "weight": "14"}
    assert config["QUEUE"]["Ethernet0|0"]["scheduler"] == odd


def test_cable_length_rounds_up() -> None:
    assert cable_length_text(5.0) == "5m"
    assert cable_length_text(2.3) == "3m"
    assert cable_length_text(0) == "0m"


# --- refusals: what config_db cannot express is the compiler's to resolve ----------------------


def test_refuses_dscp_to_color(switch: SwitchIR) -> None:
    maps = dataclasses.replace(switch.maps, dscp_to_color=((18, "red"), (20, "green")))
    with pytest.raises(QosforgeError) as caught:
        render_config_db(dataclasses.replace(switch, maps=maps))
    text = str(caught.value)
    assert "switch leaf1" in text and "class tlt" in text and "capability gap" in text
    assert "DSCP_TO_COLOR" in text


def test_accepts_all_green_color_map(switch: SwitchIR) -> None:
    maps = dataclasses.replace(switch.maps, dscp_to_color=((18, "green"), (20, "green")))
    assert render_config_db(dataclasses.replace(switch, maps=maps)) == render_config_db(switch)


def test_refuses_ect_marking(switch: SwitchIR) -> None:
    dcqcn = next(w for w in switch.wred_profiles if w.name == "dcqcn_ecn")
    curve = dcqcn.curves[0]
    ect = EctMarkingIR("green", curve.min_bytes, curve.max_bytes, curve.probability_percent)
    with pytest.raises(QosforgeError, match=r"class rdma.*ECT.*capability gap"):
        render_config_db(_replace_wred(switch, "dcqcn_ecn", dataclasses.replace(dcqcn, ect_marking=(ect,))))


def test_refuses_unresolved_sonic_gap(switch: SwitchIR) -> None:
    gap = dataclasses.replace(switch.gaps[0], approximation=None)
    with pytest.raises(QosforgeError, match="unresolved capability gap dscp-to-color"):
        render_config_db(dataclasses.replace(switch, gaps=(gap,)))
    other_target = CapabilityGap("openconfig", "rdma", "pfc", "no PFC in openconfig-qos", ())
    render_config_db(dataclasses.replace(switch, gaps=(*switch.gaps, other_target)))


def test_refuses_fractional_drop_probability(switch: SwitchIR, derive: Callable[..., Derived]) -> None:
    dcqcn = next(w for w in switch.wred_profiles if w.name == "dcqcn_ecn")
    curve = dataclasses.replace(dcqcn.curves[0], probability_percent=derive(0.3, "%", "pmax_percent"))
    with pytest.raises(QosforgeError, match=r"drop probability.*0\.3.*whole number"):
        render_config_db(_replace_wred(switch, "dcqcn_ecn", dataclasses.replace(dcqcn, curves=(curve,))))


def test_refuses_two_lossless_profiles_on_one_port(switch: SwitchIR) -> None:
    pgs = (*switch.ports[0].priority_groups, PriorityGroupIR(4, "lossless_100g_40m", True))
    with pytest.raises(QosforgeError, match="one lossless profile per port"):
        render_config_db(_replace_port(switch, 0, priority_groups=pgs))


def test_refuses_different_profiles_for_one_port_signature(switch: SwitchIR) -> None:
    with pytest.raises(QosforgeError, match="same speed and cable"):
        render_config_db(_replace_port(switch, 1, cable_m=5.0))


def test_same_signature_same_numbers_share_a_profile(switch: SwitchIR) -> None:
    pgs = tuple(dataclasses.replace(pg, buffer_profile="lossless_100g_5m") if pg.lossless else pg
                for pg in switch.ports[1].priority_groups)
    config = render_config_db(_replace_port(switch, 1, cable_m=5.0, priority_groups=pgs))
    assert config["BUFFER_PG"]["Ethernet4|3"] == {"profile": "pg_lossless_100000_5m_profile"}


def test_refuses_pfc_without_watchdog(switch: SwitchIR) -> None:
    with pytest.raises(QosforgeError, match="no PFC watchdog"):
        render_config_db(dataclasses.replace(switch, pfc_watchdog=None))


def test_violations_are_reported_as_a_bug(switch: SwitchIR) -> None:
    """An IR the compiler should never produce (weight 0, 63 DSCPs) fails loudly, listing rules."""
    schedulers = tuple(dataclasses.replace(s, weight=0) if s.name == "sched_lossy" else s for s in switch.schedulers)
    maps = dataclasses.replace(switch.maps, dscp_to_tc=switch.maps.dscp_to_tc[:-1])
    with pytest.raises(ConfigDbViolationError) as caught:
        render_config_db(dataclasses.replace(switch, schedulers=schedulers, maps=maps))
    assert {v.rule for v in caught.value.violations} == {"out-of-range", "dscp-map-incomplete"}
    assert not isinstance(caught.value, QosforgeError)  # a bug, not a user error


def test_pool_overcommit_is_caught(switch: SwitchIR, derive: Callable[..., Derived]) -> None:
    small = dataclasses.replace(switch, buffer_bytes=derive(20e6, "B", "buffer_bytes"))
    with pytest.raises(ConfigDbViolationError, match="pool-overcommit"):
        render_config_db(small)


# --- packaging ----------------------------------------------------------------------------------


def test_templates_are_package_data() -> None:
    folder = resources.files("qosforge.templates").joinpath("sonic")
    for name in TEMPLATES:
        assert folder.joinpath(name).is_file()
        json_hint = folder.joinpath(name).read_text()
        assert "tojson" in json_hint
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "qosforge.templates"]
    assert all(any(fnmatch.fnmatch(f"sonic/{name}", p) for p in patterns) for name in TEMPLATES)


def test_golden_is_valid_json_with_string_leaves() -> None:
    data = json.loads((GOLDEN / "leaf1.json").read_text())
    assert all(isinstance(v, str) for t in data.values() for e in t.values() for v in e.values())


def test_ir_profile_already_named_the_buffermgrd_way_is_kept(switch: SwitchIR) -> None:
    profiles = tuple(dataclasses.replace(p, name="pg_lossless_100000_5m_profile") if p.name == "lossless_100g_5m"
                     else p for p in switch.buffer_profiles)
    pgs = tuple(dataclasses.replace(pg, buffer_profile="pg_lossless_100000_5m_profile") if pg.lossless else pg
                for pg in switch.ports[0].priority_groups)
    changed = _replace_port(dataclasses.replace(switch, buffer_profiles=profiles), 0, priority_groups=pgs)
    assert render_config_db(changed) == render_config_db(switch)
