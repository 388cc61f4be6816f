"""Class planning: lossless TC order, the RoCE CNP class, HPCC and IRN requirements."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.backends.report import report_to_json
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import IntentError, load_intent
from qosforge.ir import FabricIR

Writer = Callable[..., Path]


def compile_text(write_intent: Writer, text: str) -> FabricIR:
    intent, source_map = load_intent(write_intent(text))
    return compile_intent(intent, source_map)


def lossless(n: int, transport: str = "dctcp") -> str:
    return "".join(f"  - {{name: l{i}, transport: {transport}, dscp: [{30 + i}], lossless: true}}\n" for i in range(n))


@pytest.mark.parametrize(("count", "expected"), [(1, [3]), (2, [3, 4]), (3, [3, 4, 5]), (4, [3, 4, 5, 6])])
def test_lossless_classes_take_tcs_three_four_then_upward(write_intent: Writer, base_intent: str, count: int, expected: list[int]) -> None:
    switch = compile_text(write_intent, base_intent + lossless(count)).switches[0]
    tcs = [c.traffic_class for c in switch.classes if c.lossless]
    assert tcs == expected
    assert switch.ports[0].pfc_priorities == tuple(expected)
    assert [pg.index for pg in switch.ports[0].priority_groups if pg.lossless] == expected
    assert 2 not in tcs


def test_a_fifth_lossless_class_is_a_clear_error(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError) as caught:
        compile_text(write_intent, base_intent + lossless(5))
    line = caught.value.one_line()
    assert "classes[5].lossless" in line and "TCs 3, 4, 5, 6" in line and "5 lossless classes" in line


def test_the_profiles_lossless_limit_applies_where_known(write_intent: Writer, base_intent: str) -> None:
    # broadcom-trident2's limit is unknown; the softswitch profile is ours to bound via a fake copy.
    from qosforge.compiler import plan

    intent, source_map = load_intent(write_intent(base_intent + lossless(3)))
    from qosforge.vendor_profiles import load_vendor_profile

    profile = load_vendor_profile("broadcom-trident2")
    limited = profile.model_copy(update={"max_lossless_classes": profile.max_lossless_classes.model_copy(update={"value": 2})})
    with pytest.raises(IntentError, match="3 lossless classes, but broadcom-trident2 supports 2"):
        plan.plan_classes(intent, source_map, limited)


ROCE = "  - {name: rdma, transport: dcqcn, dscp: [26], lossless: true}\n"


def test_dcqcn_gets_a_strict_priority_cnp_class_on_tc6(write_intent: Writer, base_intent: str) -> None:
    fabric = compile_text(write_intent, base_intent + ROCE)
    switch = fabric.switches[0]
    assert dict(switch.maps.dscp_to_tc)[48] == 6
    (cnp,) = switch.control_classes
    assert (cnp.name, cnp.traffic_class, cnp.queue, cnp.dscp) == ("cnp", 6, 6, (48,))
    scheduler = next(s for s in switch.schedulers if s.name == "scheduler_cnp")
    assert scheduler.kind == "STRICT"
    queue = next(q for q in switch.ports[0].queues if q.index == 6)
    assert queue.class_name == "cnp" and not queue.lossless and queue.wred_profile is None
    assert 6 not in switch.ports[0].pfc_priorities
    report = report_to_json(fabric)["switches"][0]
    assert report["control_classes"][0]["dscp"] == [48]
    assert report["control_classes"][0]["traffic_class"] == 6


def test_cnp_dscp_is_configurable_and_checked(write_intent: Writer, base_intent: str) -> None:
    switch = compile_text(write_intent, base_intent + ROCE + "design: {cnp_dscp: 40}\n").switches[0]
    assert dict(switch.maps.dscp_to_tc)[40] == 6 and dict(switch.maps.dscp_to_tc)[48] == 0
    with pytest.raises(IntentError, match="CNP DSCP 26 is also used by class 'rdma'") as caught:
        compile_text(write_intent, base_intent + ROCE + "design: {cnp_dscp: 26}\n")
    assert "design.cnp_dscp" in caught.value.one_line()


def test_no_cnp_class_without_dcqcn(write_intent: Writer, base_intent: str) -> None:
    switch = compile_text(write_intent, base_intent).switches[0]
    assert switch.control_classes == ()
    assert dict(switch.maps.dscp_to_tc)[48] == 0


def test_cnp_moves_below_tc6_when_four_lossless_classes_hold_it(write_intent: Writer, base_intent: str) -> None:
    switch = compile_text(write_intent, base_intent + lossless(4, "dcqcn")).switches[0]
    (cnp,) = switch.control_classes
    assert cnp.traffic_class == 2
    assert dict(switch.maps.dscp_to_tc)[48] == 2


def test_irn_is_lossy_with_dcqcn_marking_and_a_cnp_class(write_intent: Writer, base_intent: str) -> None:
    text = base_intent + "  - {name: irn, transport: irn, dscp: [26], dcqcn: {kmax: 300kB}}\n"
    switch = compile_text(write_intent, text).switches[0]
    irn = next(c for c in switch.classes if c.name == "irn")
    assert not irn.lossless and irn.priority_group is None
    marking = {d.quantity: d.value for d in irn.marking}
    assert marking["kmax_bytes"] == 300e3 and marking["kmin_bytes"] == pytest.approx(5e3)
    curve = next(w for w in switch.wred_profiles if w.name.startswith("irn")).curve("green")
    assert curve is not None and curve.mark and not curve.drop
    assert [c.name for c in switch.control_classes] == ["cnp"]


def test_lossless_irn_is_an_error(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError, match="IRN is meant to run without PFC") as caught:
        compile_text(write_intent, base_intent + "  - {name: irn, transport: irn, dscp: [26], lossless: true}\n")
    assert "classes[1].lossless" in caught.value.one_line()


def test_hpcc_is_refused_with_its_reason(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError, match="in-band network telemetry") as caught:
        compile_text(write_intent, base_intent + "  - {name: h, transport: hpcc, dscp: [26], lossless: true}\n")
    line = caught.value.one_line()
    assert "classes[1].transport" in line and "transport hpcc is refused: HPCC senders react to in-band network telemetry (INT)" in line
    assert "no qosforge output (SONiC, SAI, OpenConfig) can enable INT" in line
    assert "accepted transports: tcp, dctcp, tbtcp, d2tcp, ear, dcqcn, irn" in line and "\n" not in line


def test_cnp_is_a_reserved_class_name(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError, match="reserved"):
        compile_text(write_intent, base_intent + "  - {name: cnp, transport: tcp, dscp: [40]}\n")


def lossy(n: int) -> str:
    return "".join(f"  - {{name: y{i}, transport: tcp, dscp: [{40 + i}]}}\n" for i in range(n))


def test_lossy_classes_stay_off_sonics_lossless_pair_beside_a_lossless_class(write_intent: Writer, base_intent: str) -> None:
    # mixed-fabric's shape: one DCQCN class (TC 3) + CNP (TC 6) + four lossy classes. The fourth lossy
    # class used to land on TC 4, which stock SONiC (qos_config.j2 LOSSLESS_TC 3,4) makes lossless.
    switch = compile_text(write_intent, base_intent + ROCE + lossy(3)).switches[0]
    lossy_tcs = sorted(c.traffic_class for c in switch.classes if not c.lossless)
    assert lossy_tcs == [1, 2, 5, 7]
    assert [c.traffic_class for c in switch.control_classes] == [6]
    assert [c.traffic_class for c in switch.classes if c.lossless] == [3]
    assert dict(switch.maps.dscp_to_tc)[42] == 7


def test_a_lossy_class_that_would_need_tc_3_or_4_is_refused(write_intent: Writer, base_intent: str) -> None:
    with pytest.raises(IntentError) as caught:
        compile_text(write_intent, base_intent + ROCE + lossy(4))
    line = caught.value.one_line()
    assert "classes[5]" in line and "TC 3 or 4 beside a lossless class" in line and "qos_config.j2" in line


def test_without_lossless_classes_lossy_classes_may_use_tcs_3_and_4(write_intent: Writer, base_intent: str) -> None:
    switch = compile_text(write_intent, base_intent + lossy(5)).switches[0]
    assert sorted(c.traffic_class for c in switch.classes) == [1, 2, 3, 4, 5, 6]


def test_pmax_is_named_with_its_unit_and_keeps_its_derivation(write_intent: Writer, base_intent: str) -> None:
    fabric = compile_text(write_intent, base_intent + "  - {name: roce, transport: dcqcn, dscp: [26], lossless: true, dcqcn: {pmax: 5%}}\n")
    roce = next(c for c in fabric.switches[0].classes if c.name == "roce")
    pmax = next(d for d in roce.marking if d.quantity.startswith("p"))
    # One unit for P_max in every output: percent, in the name (before: quantity "pmax" holding percent
    # while whatif's "pmax" held a fraction).
    assert (pmax.quantity, pmax.unit, pmax.value) == ("pmax_percent", "%", 5.0)
    derivation = pmax.provenance.derivation_of("pmax_percent")
    assert derivation is not None and derivation.formula == "input"
