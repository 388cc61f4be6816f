"""Building a campaign: axes, fixed values, intents, --set and --seeds, before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.campaigns import build as build_module
from qosforge.campaigns.build import CampaignRequest, build_campaign
from qosforge.campaigns.flags import forwarded_flags
from qosforge.campaigns.intents import parse_assignment, read_intent
from qosforge.cli.sweep import resolve_command
from qosforge.errors import QosforgeError

INTENT = str(Path(__file__).resolve().parents[2] / "examples" / "tlt-softswitch.yaml")


def _request(command: tuple[str, ...], options: dict[str, object], **extra: object) -> CampaignRequest:
    flags = forwarded_flags(resolve_command(command), frozenset({"--plot", "--out"}))
    return CampaignRequest(command=command, flags=flags, options=options, **extra)  # type: ignore[arg-type]


def test_axes_in_typed_order_then_seeds() -> None:
    campaign = build_campaign(_request(("simulate",), {"target_flows": "2,4", "target_rtt": "10us:30us:3", "target_scenario": "dumbbell",
                                                      "target_transport": "dctcp"}, seeds=2))
    assert [axis.key for axis in campaign.axes] == ["flows", "rtt", "seed"] and len(campaign.points) == 12
    first = campaign.points[0]
    assert first.params["flows"] == 2 and first.params["rtt"] == "10us" and first.params["seed"] == 1
    assert first.params["speed"] == "10G"  # a default is part of the point
    assert first.argv[first.argv.index("--seed") + 1] == "1" and "--format" not in first.argv


def test_an_intent_given_twice_is_refused() -> None:
    with pytest.raises(QosforgeError, match="given twice"):
        build_campaign(_request(("compile",), {}, intents=(read_intent(INTENT), read_intent(INTENT))))


def test_seeds_and_seed_together_are_refused() -> None:
    with pytest.raises(QosforgeError, match="--seeds"):
        build_campaign(_request(("simulate",), {"target_scenario": "dumbbell", "target_seed": "3"}, seeds=2))


def test_set_needs_an_intent_and_may_not_shadow_a_flag() -> None:
    with pytest.raises(QosforgeError, match="none was given"):
        build_campaign(_request(("simulate",), {"target_scenario": "dumbbell"}, assignments=(parse_assignment("design.alpha=1"),)))
    with pytest.raises(QosforgeError, match="also a flag"):
        build_campaign(_request(("compile",), {}, intents=(read_intent(INTENT),), assignments=(parse_assignment("switch=1"),)))


def test_each_changed_intent_is_validated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    original = build_module.validate_assigned
    monkeypatch.setattr(build_module, "validate_assigned", lambda *args: calls.append(args[2]) or original(*args))
    campaign = build_campaign(_request(("simulate",), {"target_scenario": "incast", "target_flows": "10,20,30"}, intents=(read_intent(INTENT),),
                                       assignments=(parse_assignment("design.alpha=1,2"),), seeds=2))
    assert len(campaign.points) == 12 and len(calls) == 2
    shipped = campaign.points[0].files[0]
    assert shipped.name == INTENT and "alpha: 1" in shipped.contents and campaign.points[0].argv[0] == INTENT
    assert campaign.points[0].params["intent_sha256"] == read_intent(INTENT).sha256


def test_a_point_neither_writes_its_own_files_nor_serves() -> None:
    # One --timeseries path would be overwritten by every point, and a served point runs until
    # interrupted, holding its worker: the campaign forwards neither.
    forwarded = {flag.flag for flag in forwarded_flags(resolve_command(("simulate",)), frozenset({"--plot", "--out"}))}
    assert "--traffic" in forwarded and "--measure" in forwarded
    for owned in ("--timeseries", "--serve-gnmi", "--serve-for", "--tls-cert", "--insecure", "--username"):
        assert owned not in forwarded


def test_a_traffic_file_that_does_not_parse_is_refused_before_any_point(tmp_path: Path) -> None:
    # One error at FILE:LINE (exit 2 from the CLI), not a failed row per point.
    good = Path(INTENT).parent / "mixed-fabric.traffic.yaml"
    bad = tmp_path / "bad.yaml"
    bad.write_text("flows:\n  - {src: 0, dst: 1, class: bulk}\n")
    mixed = str(Path(INTENT).parent / "mixed-fabric.yaml")
    with pytest.raises(QosforgeError) as refused:
        build_campaign(_request(("simulate",), {"target_traffic_path": f"{good},{bad}"}, intents=(read_intent(mixed),), seeds=3))
    assert refused.value.one_line().startswith(f"{bad}:1: apiVersion")
    with pytest.raises(QosforgeError, match="no such file") as missing:
        build_campaign(_request(("simulate",), {"target_traffic_path": str(tmp_path / "none.yaml")}, intents=(read_intent(mixed),)))
    assert missing.value.place == "--traffic"
    campaign = build_campaign(_request(("simulate",), {"target_traffic_path": str(good)}, intents=(read_intent(mixed),), seeds=2))
    assert len(campaign.points) == 2
