"""Lossless means lossless: with the headroom the compiler computes, no example with a lossless
class drops a lossless frame in any fabric scenario the CLI runs at its defaults, nor in the
harder variants (a pause storm with 16 flows per sending host, all-to-all at 90 % load).

The scenarios are run exactly as ``qosforge simulate INTENT --scenario X`` runs them
(qosforge/api/scenarios/_fabric.py ``run_fabric``), so a default that drops lossless frames fails
here. The link model behind it (docs/softswitch.md "Link model"): a link carries only its wire
(cable at 5 ns/m plus PHY delay) for data and PFC frames, the rest of ``link_latency`` is spent
inside the receiving switch after the frame is charged to its PG, as the headroom model assumes.
Each run also reports how close it came (``lossless_headroom``): the peak headroom a PG used never
exceeds its XOFF, and no switch ever holds more than its chip's buffer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qosforge.api.scenarios._fabric import FabricOptions, run_fabric
from qosforge.compiler.loader import load_intent

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _lossless_fabric_examples() -> list[str]:
    """Every example with a lossless class and hosts on more than one switch."""
    names = []
    for path in sorted(p for p in EXAMPLES.glob("*.yaml") if not p.name.endswith(".traffic.yaml")):
        intent, _ = load_intent(path)
        topology = intent.topology
        one_switch = (topology.leaf_spine is not None and topology.leaf_spine.leaves == 1) or (topology.switches is not None and len(topology.switches) == 1)
        if any(c.lossless for c in intent.classes) and not one_switch:
            names.append(path.stem)
    return names


LOSSLESS_EXAMPLES = _lossless_fabric_examples()
#: (scenario, flows, load): every fabric scenario at its defaults, then the harder variants (the
#: referee tier, pyproject.toml: the 16-flow storm on roce-pod is the longest test of the suite).
CASES = [
    pytest.param("fabric-incast", None, None, id="fabric-incast"),
    pytest.param("all-to-all", None, None, id="all-to-all"),
    pytest.param("pause-storm", None, None, id="pause-storm"),
    pytest.param("pause-storm", 16, None, id="pause-storm-16", marks=pytest.mark.referee),
    pytest.param("all-to-all", None, 0.9, id="all-to-all-90", marks=pytest.mark.referee),
]


def _run(example: str, scenario: str, flows: int | None, load: float | None) -> tuple[Any, dict[str, Any]]:
    options = FabricOptions(intent=str(EXAMPLES / f"{example}.yaml"), scenario=scenario, switches=(), class_name=None, port_name=None,
                            flows=flows, transport=None, packet_bytes=None, flow_size_bytes=None, load=load, flow_size_dist="web-search",
                            stall_s=None, duration_s=None, warmup_s=None, seed=1, rto_min_s=None, assume={})
    result, keys, _, _, _ = run_fabric(options)
    return result, keys


def test_the_examples_with_lossless_classes_are_found() -> None:
    assert {"roce-pod", "mixed-fabric"} <= set(LOSSLESS_EXAMPLES)


@pytest.mark.parametrize("example", LOSSLESS_EXAMPLES)
@pytest.mark.parametrize(("scenario", "flows", "load"), CASES)
def test_no_lossless_drop_with_the_compiled_headroom(example: str, scenario: str, flows: int | None, load: float | None) -> None:
    result, keys = _run(example, scenario, flows, load)
    assert result.counters["lossless_drops"] == 0, keys["drops_by_reason"]
    assert keys["drops_by_reason"]["lossless_headroom"] == 0
    assert result.counters["packets_forwarded"] > 0
    # Every switch stays within its chip's buffer, and every lossless PG within its XOFF.
    for switch in keys["switches"]:
        assert 0 < switch["buffer_peak_bytes"] <= switch["buffer_bytes"], switch["name"]
        for port in switch["ports"]:
            for pg in port.get("lossless_headroom", ()):
                assert 0 <= pg["headroom_peak_bytes"] <= pg["xoff_bytes"], (switch["name"], port["port"], pg)
                assert pg["margin_bytes"] == pg["xoff_bytes"] - pg["headroom_peak_bytes"]
    tightest = keys["lossless_headroom"]["tightest"]
    margins = [pg["margin_bytes"] for s in keys["switches"] for p in s["ports"] for pg in p.get("lossless_headroom", ())]
    assert tightest["margin_bytes"] == min(margins)
    assert f"of {tightest['xoff_bytes'] / 1e3:.1f} kB" in keys["headroom_used"]
    if scenario == "pause-storm":
        # The storm pushes frames into headroom: the margin is measured, not vacuous.
        assert keys["lossless_headroom"]["pgs_that_used_headroom"] > 0
        assert tightest["headroom_peak_bytes"] > 0
