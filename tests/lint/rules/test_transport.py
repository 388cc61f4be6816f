"""Transport rules (--intent): each class's queue against the models for its transport.

Base: broadcom_traditional.json with its intent broadcom_fabric.yaml (clean). Expected values are
computed with the models (or fitter) the rule must use.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qosforge.fitting.red_model import red_model_from_profile
from qosforge.fitting.tbtcp_red import fit_tbtcp_red
from qosforge.lint.findings import Finding
from qosforge.lint.rules.transport import configured_error_kilobytes
from qosforge.models.dcqcn import dcqcn_marking
from qosforge.models.dctcp import dctcp_marking_threshold
from qosforge.models.tlt import tlt_headroom
from qosforge.vendor_profiles import load_vendor_profile

Config = dict[str, Any]
Lint = Callable[..., list[Finding]]
BASE = "broadcom_traditional.json"
RTT_S = 40e-6  # classes[].rtt of bulk, iperf and web in the intent
RATE_BPS = 40e9


def _lint(config: Config, lint_config: Lint) -> list[Finding]:
    return lint_config(config, intent=True)


def _only(findings: list[Finding], rule: str) -> Finding:
    matching = [f for f in findings if f.rule == rule]
    assert len(matching) == 1, [(f.rule, f.message) for f in findings]
    return matching[0]


def test_the_intended_config_is_clean(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    assert _lint(load_named(BASE), lint_config) == []


def test_dctcp_k_below_the_model(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    needed = dctcp_marking_threshold(RATE_BPS, RTT_S, 1500, 64000).threshold_bytes
    config = load_named(BASE)
    config["WRED_PROFILE"]["bulk_ecn"].update(green_min_threshold=str(int(needed) - 1500),
                                              green_max_threshold=str(int(needed) - 1500))
    finding = _only(_lint(config, lint_config), "dctcp-k")
    assert finding.values["required_bytes"] == needed
    assert (finding.key, finding.field) == ("bulk_ecn", "green_min_threshold")
    assert "class bulk at 40G" in finding.message and "Ethernet0, Ethernet4, Ethernet8, Ethernet12" in finding.message


def test_dctcp_needs_a_step(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named(BASE)
    config["WRED_PROFILE"]["bulk_ecn"].update(green_max_threshold="200000", green_drop_probability="10")
    finding = _only(_lint(config, lint_config), "dctcp-k")
    assert finding.field == "green_max_threshold" and "step marking" in finding.message


def test_dcqcn_marking_differs_from_the_model(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    expected = dcqcn_marking(RATE_BPS)
    config = load_named(BASE)
    config["WRED_PROFILE"]["AZURE_LOSSLESS"]["green_max_threshold"] = "400000"
    findings = [f for f in _lint(config, lint_config) if f.rule == "dcqcn-marking"]
    # both DCQCN classes (roce on queue 3, storage on queue 4) use the profile: one finding each
    assert sorted(f.message.split(" at ")[0] for f in findings) == ["class roce", "class storage"]
    for finding in findings:
        assert finding.values["expected_kmax_bytes"] == expected.kmax_bytes
        assert finding.values["expected_kmin_bytes"] == expected.kmin_bytes
        assert finding.values["kmax_bytes"] == 400000


def test_tbtcp_p_max_that_is_not_the_best_fit(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    model = red_model_from_profile(load_vendor_profile("broadcom-tomahawk"))
    bdp = RATE_BPS * RTT_S / 8
    best = fit_tbtcp_red(bdp, 138000, 550000, 4, model=model)
    config = load_named(BASE)
    config["WRED_PROFILE"]["iperf_red"]["green_drop_probability"] = "30"
    finding = _only(_lint(config, lint_config), "tbtcp-red-fit")
    assert finding.values["best_pmax_percent"] == pytest.approx(best.p_max * 100)
    assert finding.values["best_error_kb"] == pytest.approx(best.error_kilobytes)
    assert finding.values["configured_error_kb"] > finding.values["best_error_kb"]


def test_configured_error_equals_the_fitters_error_at_its_own_p_max() -> None:
    """The configured-curve error and the fitter's error are the same integral (TBTCP §6.2)."""
    model = red_model_from_profile(load_vendor_profile("broadcom-tomahawk"))
    for r in (1, 2, 4):
        best = fit_tbtcp_red(180000, 138000, 550000, r, model=model)
        assert configured_error_kilobytes(180000, 138000, 550000, best.p_max, r, model) == pytest.approx(
            best.error_kilobytes, rel=1e-12)


def test_tbtcp_t_min_below_the_lso_burst(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named(BASE)
    config["WRED_PROFILE"]["iperf_red"]["green_min_threshold"] = "100000"
    findings = [f for f in _lint(config, lint_config) if f.rule == "tbtcp-red-fit"]
    assert any("below the LSO burst 138,000 B" in f.message for f in findings)


def test_ecn_transport_without_marking(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named(BASE)
    config["WRED_PROFILE"]["bulk_ecn"]["ecn"] = "ecn_none"
    config["WRED_PROFILE"]["bulk_ecn"]["wred_green_enable"] = "true"  # WRED drops instead of marking
    finding = _only(_lint(config, lint_config), "ecn-missing")
    assert (finding.table, finding.field) == ("QUEUE", "wred_profile") and "class bulk runs dctcp" in finding.message


def test_class_split_over_queues(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named(BASE)
    config["DSCP_TO_TC_MAP"]["AZURE"]["12"] = "2"  # bulk's second DSCP joins iperf's queue
    findings = _lint(config, lint_config)
    assert "queues [1, 2]" in _only(findings, "class-dscp-split").message
    assert "classes bulk, iperf share queue 2" in _only(findings, "class-queue-shared").message


def test_lossless_class_not_paused(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named(BASE)
    config["PORT_QOS_MAP"]["Ethernet4"]["pfc_enable"] = "3"
    config["PORT_QOS_MAP"]["Ethernet4"]["pfcwd_sw_enable"] = "3"
    finding = _only(_lint(config, lint_config), "class-lossless-mismatch")
    assert "class storage is lossless in the intent" in finding.message and finding.key == "Ethernet4"


def test_tlt_threshold_below_the_bdp(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named(BASE)
    config["WRED_PROFILE"]["web_tlt"].update(red_min_threshold="150000", red_max_threshold="150000")
    finding = _only(_lint(config, lint_config), "tlt-threshold")
    assert finding.values["required_bytes"] == pytest.approx(RATE_BPS * RTT_S / 8)  # TCP: K >= BDP


def test_tlt_flows_at_the_design_point(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named(BASE)
    k = 2_000_000
    config["WRED_PROFILE"]["web_tlt"].update(red_min_threshold=str(k), red_max_threshold=str(k))
    pool = int(config["BUFFER_POOL"]["egress_lossy_pool"]["size"])
    expected = tlt_headroom(pool / 4, 2.0, 1, k, 1500, allow_infeasible=True)  # dynamic_th 1, 4 MMUs, M = 1
    finding = _only(_lint(config, lint_config), "tlt-flows")
    assert finding.values["flows"] == expected.total_flows < 1000  # design.concurrent_flows
    assert finding.values["required_flows"] == 1000


def test_tlt_without_a_color_threshold_is_noted(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named(BASE)
    for key, queue in config["QUEUE"].items():
        if key.endswith("|5"):
            del queue["wred_profile"]
    findings = _lint(config, lint_config)
    finding = _only(findings, "tlt-not-expressed")
    assert finding.severity.value == "info"
    # What is not expressed, why, and what to do, in words an operator can act on.
    assert "TLT is not expressed: queue 5 has no WRED profile" in finding.message
    assert "no DSCP-to-color map" in finding.message and "important ones can be lost" in finding.message
    assert finding.hint is not None and "approximations: [tlt-without-color]" in finding.hint and "--target sai" in finding.hint


def test_transport_rules_do_not_run_without_an_intent(load_named: Callable[[str], Config], lint_config: Lint) -> None:
    config = load_named(BASE)
    config["WRED_PROFILE"]["bulk_ecn"].update(green_min_threshold="1500", green_max_threshold="1500")
    assert lint_config(config, profile="broadcom-tomahawk") == []


def test_tlt_not_expressed_does_not_ask_for_what_the_intent_accepts(load_named: Callable[[str], Config],
                                                                    tmp_path: Path) -> None:
    """A new user's trial: an intent that lists tlt-without-color is told it accepted it."""
    import json

    from qosforge.lint.engine import Linter
    from tests.lint.conftest import INTENT

    intent = tmp_path / "fabric.yaml"
    intent.write_text(INTENT.read_text() + "\napproximations: [tlt-without-color]\n")
    config = load_named(BASE)
    for key, queue in config["QUEUE"].items():
        if key.endswith("|5"):
            del queue["wred_profile"]
    report = Linter(intent=intent, switch="tor1").lint_bytes(json.dumps(config).encode(), "config_db.json")
    finding = _only(report.findings, "tlt-not-expressed")
    assert "accepted by the intent" in finding.message
    assert finding.hint is not None and "the intent accepts this" in finding.hint
    assert "if that is intended" not in finding.hint and "remove the class's tlt block" not in finding.hint


def test_tlt_flows_read_dynamic_th_as_the_asic_does(tmp_path: Path, load_named: Callable[[str], Config]) -> None:
    """Spectrum reads dynamic_th 7 as alpha infinity (mlnx_sai/src/mlnx_sai_buffer.c
    sai_buffer_alpha_bounds_t), so one congested port may hold the whole pool B and TLT's headroom is
    B − K. tlt-flows used to take 2^7 = 128 here (526 flows) while dynamic-th-unlimited, on the
    same profile, said infinity; both now use the one conversion (606 flows)."""
    from qosforge.lint.engine import Linter

    intent = tmp_path / "fabric.yaml"
    text = (Path(__file__).parents[1] / "configs" / "broadcom_fabric.yaml").read_text()
    tbtcp = "  - name: iperf\n    transport: tbtcp\n    dscp: [8]\n    rtt: 40us\n    weight: 14\n    tbtcp: {r: 4, lso_burst: 138kB, t_max: 550kB}\n"
    assert tbtcp in text  # Spectrum's RED steps are unpublished: no TBTCP fit there
    intent.write_text(text.replace("broadcom-tomahawk", "mellanox-spectrum-2").replace(tbtcp, ""))
    config = load_named(BASE)
    config["BUFFER_PROFILE"]["egress_lossy_profile"]["dynamic_th"] = "7"
    k = 14_500_000
    config["WRED_PROFILE"]["web_tlt"].update(red_min_threshold=str(k), red_max_threshold=str(k))
    import json

    report = Linter(intent=intent, switch="tor1").lint_bytes(json.dumps(config).encode(), "config_db.json")
    assert report.unusable is None
    finding = _only(report.findings, "tlt-flows")
    pool = int(config["BUFFER_POOL"]["egress_lossy_pool"]["size"])  # Spectrum-2: one MMU
    expected = tlt_headroom(pool, float("inf"), 1, k, 1500, allow_infeasible=True)
    assert finding.values["flows"] == expected.total_flows == (pool - k) // 1500 == 606
    assert "alpha infinity, dynamic_th 7" in finding.message
    assert tlt_headroom(pool, 128.0, 1, k, 1500, allow_infeasible=True).total_flows == 526  # the old reading
    assert "dynamic-th-unlimited" in {f.rule for f in report.findings}
