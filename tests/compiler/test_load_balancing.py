"""``classes[*].load_balancing``: the intent's per-class balancing mode, carried to the simulator's
flows and never into a rendered file (SONiC's config_db expresses only ECMP)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.compiler.rendering import render_fabric_targets

Writer = Callable[..., Path]
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}\.\d{2}:\d{2}:\d{2}\.\d{6}\|", re.M)

INTENT = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: lb}}
topology:
  leaf_spine:
    spines: 2
    leaves: 2
    hosts_per_leaf: 2
    host_link: {{speed: 40G, cable: 3m}}
    fabric_link: {{speed: 40G, cable: 10m}}
    link_latency: 1us
    leaf_profile: softswitch
classes:
  - name: bulk
    transport: dctcp
    dscp: [10]
{balancing}
targets: [sonic, sai]
"""


def _intent(write_intent: Writer, balancing: str = "") -> Path:
    return write_intent(
        INTENT.format(balancing=f"    load_balancing: {balancing}" if balancing else "")
    )


def _error(write_intent: Writer, balancing: str) -> str:
    with pytest.raises(IntentError) as caught:
        load_intent(_intent(write_intent, balancing))
    return caught.value.one_line()


def test_a_class_balances_by_ecmp_unless_told() -> None:
    from qosforge.compiler.intent import LoadBalancingSpec

    assert LoadBalancingSpec().mode == "ecmp" and LoadBalancingSpec().flowlet_gap is None


def test_the_mode_and_gap_reach_the_class_ir(write_intent: Writer) -> None:
    intent, source_map = load_intent(_intent(write_intent, "{mode: flowlet, flowlet_gap: 50us}"))
    fabric = compile_intent(intent, source_map, targets=("sai",))
    classes = [c for switch in fabric.for_target("sai") for c in switch.classes if c.name == "bulk"]
    assert classes and all(
        c.load_balancing == "flowlet" and c.flowlet_gap_s == pytest.approx(50e-6) for c in classes
    )


@pytest.mark.parametrize(
    ("balancing", "message"),
    [
        ("{mode: flowlet}", "mode flowlet needs flowlet_gap"),
        ("{mode: spray, flowlet_gap: 50us}", "mode spray has no flowlets"),
        ("{mode: ecmp, flowlet_gap: 50us}", "mode ecmp has no flowlets"),
        ("{mode: conga}", "load_balancing.mode"),
        ("{mode: spray, idle_time: 5us}", "idle_time"),
    ],
)
def test_a_balancing_the_schema_cannot_run_is_refused_at_its_field(
    write_intent: Writer, balancing: str, message: str
) -> None:
    line = _error(write_intent, balancing)
    assert message in line and "classes" in line


@pytest.mark.parametrize(
    "balancing",
    ["{mode: spray}", "{mode: adaptive, flowlet_gap: 20us}", "{mode: flowlet, flowlet_gap: 50us}"],
)
def test_balancing_beyond_ecmp_renders_nothing(write_intent: Writer, balancing: str) -> None:
    def rendered(path: Path) -> dict[tuple[str, str, str], str]:
        intent, source_map = load_intent(path)
        fabric = compile_intent(intent, source_map)
        # A sairedis recording stamps each line with the time it was rendered.
        return {
            (target, file.switch, file.file_name): _STAMP.sub("", file.text)
            for target, file in render_fabric_targets(fabric, intent, source_map)
        }

    ecmp = rendered(_intent(write_intent))
    assert ecmp
    assert rendered(_intent(write_intent, balancing)) == ecmp


def test_the_simulators_flows_carry_the_class_mode(write_intent: Writer) -> None:
    from qosforge.softswitch.helper.fabric import compile_fabric
    from qosforge.softswitch.helper.fabric_scenarios import (
        AckPathDelays,
        class_flow_spec,
        fabric_traffic,
    )

    fabric = compile_fabric(_intent(write_intent, "{mode: adaptive, flowlet_gap: 20us}"), ())
    traffic = fabric_traffic(fabric, "bulk", None, None)
    flow = class_flow_spec(
        fabric,
        traffic,
        fabric.host_ports[0],
        fabric.host_ports[-1],
        10_000,
        0.0,
        AckPathDelays(fabric),
    )
    assert flow.load_balancing == "adaptive" and flow.flowlet_gap_s == pytest.approx(20e-6)


@given(
    mode=st.sampled_from(["ecmp", "flowlet", "spray", "adaptive"]),
    gap_us=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1e4, allow_nan=False)),
)
def test_a_balancing_is_accepted_exactly_when_its_mode_has_the_gap_it_needs(
    mode: str, gap_us: float | None
) -> None:
    from pydantic import ValidationError

    from qosforge.compiler.intent import LoadBalancingSpec

    given_gap = None if gap_us is None else f"{gap_us!r}us"
    needs_gap, takes_gap = mode == "flowlet", mode in ("flowlet", "adaptive")
    # The gap as the intent holds it, in seconds: 5e-324 us is 0.0 s, no flowlets at all.
    gap_s = None if gap_us is None else gap_us * 1e-6
    accepted = (takes_gap or gap_us is None) and (not needs_gap or bool(gap_s))
    try:
        spec = LoadBalancingSpec.model_validate({"mode": mode, "flowlet_gap": given_gap})
    except ValidationError:
        assert not accepted
        return
    assert accepted
    assert spec.flowlet_gap == (None if gap_us is None else pytest.approx(gap_us * 1e-6))
