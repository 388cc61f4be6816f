"""A rendered config_db value SONiC would refuse is bad input (exit 2) naming the config_db field
and the intent field that drives it; a structural violation stays a qosforge bug (exit 70)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.backends.sonic.checks.violation import Violation
from qosforge.errors import EXIT_BAD_INPUT, EXIT_BUG

Run = Callable[..., tuple[int, str, str]]
ROCE = Path(__file__).resolve().parents[2] / "examples" / "roce-pod.yaml"


def _render_with(monkeypatch: pytest.MonkeyPatch, violation: Violation) -> None:
    """The renderer's own check finds ``violation`` (a value no schema bound or compile check caught)."""
    import qosforge.backends.sonic.render as render

    monkeypatch.setattr(render, "check_config_db", lambda config, **kwargs: [violation])


def test_a_refused_rendered_value_names_the_config_db_field_and_the_intent_input(
        run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _render_with(monkeypatch, Violation("wred-threshold-overflow", "WRED_PROFILE", "AZURE_LOSSLESS",
                                        "green_max_threshold", "2147483648 >= 2^31"))
    code, _, err = run_cli("compile", str(ROCE), "-o", str(tmp_path / "out"), "-q", "--target", "sonic")
    assert code == EXIT_BAD_INPUT, err
    [line] = err.strip().splitlines()
    assert f"{ROCE}:" in line and "topology.leaf_spine.link_latency" in line  # rdma's RTT sets its thresholds
    assert "WRED_PROFILE|AZURE_LOSSLESS.green_max_threshold is refused: 2147483648 >= 2^31" in line
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_a_refused_pfc_watchdog_value_points_at_its_design_field(run_cli: Run, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _render_with(monkeypatch, Violation("out-of-range", "PFC_WD", "Ethernet0", "detection_time",
                                        "10000 is outside 100..5000"))
    code, _, err = run_cli("compile", str(ROCE), "-o", str(tmp_path / "out"), "-q", "--target", "sonic")
    assert code == EXIT_BAD_INPUT and "design.pfc_watchdog_detection" in err and "PFC_WD|Ethernet0.detection_time" in err


def test_a_structural_violation_is_still_a_bug(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QOSFORGE_DEBUG", raising=False)
    _render_with(monkeypatch, Violation("structure", "QUEUE", "", None, "not an object"))
    code, _, err = run_cli("compile", str(ROCE), "-o", str(tmp_path / "out"), "-q", "--target", "sonic")
    assert code == EXIT_BUG and "qosforge bug" in err


@pytest.mark.parametrize(("value", "shown"), [("10000000s", "10000000000 is outside 100..5000"), ("10s", "10000 is outside 100..5000")])
def test_a_pfc_watchdog_time_sonic_refuses_is_bad_input(run_cli: Run, tmp_path: Path, value: str, shown: str) -> None:
    """SONiC's PFC_WD takes detection_time 100..5000 ms (sonic-pfcwd.yang); the SAI target and the
    softswitch take shorter ones, so the limit is the sonic target's. 10000000s used to be exit 70."""
    intent = tmp_path / "roce.yaml"
    intent.write_text(ROCE.read_text().replace("design:\n", f"design:\n  pfc_watchdog_detection: {value}\n", 1))
    code, _, err = run_cli("compile", str(intent), "-o", str(tmp_path / "out"), "-q", "--target", "sonic")
    assert code == EXIT_BAD_INPUT, err
    [line] = err.strip().splitlines()
    assert f"{intent}:" in line and "design.pfc_watchdog_detection" in line
    assert f"PFC_WD|Ethernet0.detection_time is refused: {shown}" in line and "more value(s)" in line
    assert not (tmp_path / "out").exists()
