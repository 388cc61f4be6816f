"""SONiC packet trimming: SWITCH_TRIMMING|GLOBAL and packet_discard_action as
sonic-trimming.yang and sonic-buffer-profile.yang define them, the validator's checks of them, lint's reading of them, and
GCU's live change of packet_discard_action (compile --base)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from qosforge.backends.sonic.checks import check_config_db
from qosforge.backends.sonic.gcu_patch import gcu_patch
from qosforge.backends.sonic.gcu_validators import gcu_refusals
from qosforge.backends.sonic.parse import parse_config_db
from qosforge.backends.sonic.render import ConfigDb, render_config_db
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "trim-pod.yaml"


@pytest.fixture(scope="module")
def config() -> ConfigDb:
    intent, source_map = load_intent(EXAMPLE)
    fabric = compile_intent(intent, source_map, switches=("leaf1",))
    return render_config_db(fabric.for_target("sonic")[0])


def test_switch_trimming_global_is_the_yang_leaves(config: ConfigDb) -> None:
    assert config["SWITCH_TRIMMING"] == {
        "GLOBAL": {"size": "256", "dscp_value": "11", "queue_index": "7"}
    }


def test_only_the_trimmed_queue_profile_trims(config: ConfigDb) -> None:
    trimming = {
        name
        for name, p in config["BUFFER_PROFILE"].items()
        if p.get("packet_discard_action") == "trim"
    }
    assert trimming == {"egress_lossy_trim_profile"}
    assert all(
        p.get("packet_discard_action") in (None, "trim") for p in config["BUFFER_PROFILE"].values()
    )
    # The rdma class's queue (1) trims; the trim queue (7) has its own 5 %-capped profile.
    assert config["BUFFER_QUEUE"]["Ethernet0|1"] == {"profile": "egress_lossy_trim_profile"}
    assert config["BUFFER_QUEUE"]["Ethernet0|7"] == {"profile": "egress_trim_profile"}
    assert config["BUFFER_PROFILE"]["egress_trim_profile"]["dynamic_th"] == "-5"
    scheduler = config["SCHEDULER"][config["QUEUE"]["Ethernet0|7"]["scheduler"]]
    # DWRR at the trimmed class's weight, unshaped (compiler/trimming.py).
    rdma = config["SCHEDULER"][config["QUEUE"]["Ethernet0|1"]["scheduler"]]
    assert scheduler == {"type": "DWRR", "weight": rdma["weight"]}


@pytest.mark.parametrize(
    ("field", "value", "rule"),
    [
        ("dscp_value", "64", "bad-pattern"),
        ("dscp_value", "from_tc", "bad-pattern"),
        ("queue_index", "256", "bad-pattern"),
        ("queue_index", "static", "bad-pattern"),
        ("size", "4294967296", "out-of-range"),
        ("tc_value", "-1", "bad-integer"),
    ],
)
def test_the_validator_knows_the_yang_ranges(
    config: ConfigDb, field: str, value: str, rule: str
) -> None:
    broken = copy.deepcopy(config)
    broken["SWITCH_TRIMMING"]["GLOBAL"][field] = value
    assert [v.rule for v in check_config_db(broken) if v.table == "SWITCH_TRIMMING"] == [rule]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("dscp_value", "from-tc"),
        ("queue_index", "dynamic"),
        ("dscp_value", "0"),
        ("queue_index", "255"),
    ],
)
def test_the_union_members_are_accepted(config: ConfigDb, field: str, value: str) -> None:
    changed = copy.deepcopy(config)
    changed["SWITCH_TRIMMING"]["GLOBAL"][field] = value
    assert not [v for v in check_config_db(changed) if v.table == "SWITCH_TRIMMING"]


def test_switch_trimming_has_only_the_global_key(config: ConfigDb) -> None:
    broken = copy.deepcopy(config)
    broken["SWITCH_TRIMMING"]["global"] = broken["SWITCH_TRIMMING"].pop("GLOBAL")
    assert [v.rule for v in check_config_db(broken) if v.table == "SWITCH_TRIMMING"] == ["bad-key"]


def test_lint_reads_the_discard_action_back(config: ConfigDb) -> None:
    parsed = parse_config_db(config)
    actions = {p.name: p.discard_action for p in parsed.buffer_profiles}
    assert (
        actions["egress_lossy_trim_profile"] == "trim" and actions["egress_lossy_profile"] == "drop"
    )


def _running(config: ConfigDb) -> dict[str, object]:
    ports = {key.split("|")[0] for key in config["BUFFER_QUEUE"]}
    return {
        "DEVICE_METADATA": {"localhost": {"hwsku": "ACS-SN5600"}},
        "PORT": {p: {"speed": "400000"} for p in ports},
        **copy.deepcopy(config),
    }


def test_gcu_turns_trimming_on_live_on_spectrum_4_only(config: ConfigDb) -> None:
    # The switch runs the same QoS with the class dropping; the patch flips packet_discard_action,
    # which GCU's "Packet trimming eligibility modification" scenario allows on spc4, not on spc2.
    running = _running(config)
    running_profiles = running["BUFFER_PROFILE"]
    assert isinstance(running_profiles, dict)
    del running_profiles["egress_lossy_trim_profile"]["packet_discard_action"]
    running.pop("SWITCH_TRIMMING")
    patch = gcu_patch(running, config)
    assert {(op["op"], op["path"]) for op in patch} == {
        ("add", "/BUFFER_PROFILE/egress_lossy_trim_profile/packet_discard_action"),
        ("add", "/SWITCH_TRIMMING"),
    }
    assert gcu_refusals(running, patch, "spc4") == []
    refused = gcu_refusals(running, patch, "spc2")
    assert [r.path for r in refused] == [
        "/BUFFER_PROFILE/egress_lossy_trim_profile/packet_discard_action"
    ]


def test_a_config_without_trimming_leaves_the_running_setting(config: ConfigDb) -> None:
    running = _running(config)
    plain = {
        table: rows for table, rows in copy.deepcopy(config).items() if table != "SWITCH_TRIMMING"
    }
    patch = gcu_patch(running, plain)
    assert not [op for op in patch if op["path"].startswith("/SWITCH_TRIMMING")]
