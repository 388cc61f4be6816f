"""``qosforge.api.fit``: the chip model and the TBTCP RED fit as a typed request -> outcome (no
click: test_no_cli.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.api.fit import FitRedRequest, fit_red, red_chip_model
from qosforge.errors import QosforgeError
from qosforge.fitting.red_model import RedStepModel

#: TBTCP Table 1's operating point (§6.2, §7): BDP 180 kB (10G x 150 us), l = 138 kB, t_max 550 kB.
TABLE_1 = FitRedRequest(bdp="180kB", t_min="138kB", t_max="550kB")


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """``qosforge ARGV...`` as a user runs it: (exit code, stdout)."""
    from qosforge.cli import main

    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    return int(exited.value.code or 0), capsys.readouterr().out


def test_table_1_at_r_4_programs_18_percent() -> None:
    outcome = fit_red(TABLE_1)  # r defaults to compile's tbtcp.r, 4
    result = outcome.result
    assert result.window_reduction_r == 4 and result.t_min_bytes == 138_000 and result.t_max_bytes == 550_000
    # The least-squares P_max rounds to 18 % on the chip's whole-percent grid (TBTCP Table 1, r = 4).
    assert float(result.p_max) == pytest.approx(0.18) and float(result.p_max_unquantized) == pytest.approx(0.179577, abs=1e-6)
    assert float(result.error_kilobytes) == pytest.approx(0.49278, rel=1e-4)
    # Step i marks with P_max (i + 0.5) / 8 (the generic chip: 8 steps, offset 0.5).
    assert np.asarray(result.step_probabilities) == pytest.approx([0.18 * (i + 0.5) / 8 for i in range(8)])
    assert outcome.model == RedStepModel() and outcome.asic is None and outcome.notes == ()
    assert outcome.port_buffer_bytes is None and outcome.port_buffer_source == "not given"


@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=1.0, max_value=64.0))
def test_the_least_squares_p_max_scales_as_one_over_r(r: float) -> None:
    # Fitting p(Q)/r with P_max x (a fixed step shape) is linear least squares: P_max*(r) = P_max*(1) / r.
    one = float(fit_red(FitRedRequest(bdp="180kB", t_min="138kB", t_max="550kB", r="1")).result.p_max_unquantized)
    scaled = float(fit_red(FitRedRequest(bdp="180kB", t_min="138kB", t_max="550kB", r=f"{r!r}")).result.p_max_unquantized)
    assert scaled == pytest.approx(one / r, rel=1e-9)


def test_a_sweep_is_one_vectorised_fit_over_the_grid() -> None:
    outcome = fit_red(FitRedRequest(bdp="180kB", t_min="138kB", t_max="550kB", sweeps=("r=1:4:4",)))
    (axis,) = outcome.axes
    assert axis.name == "r" and axis.argument == "window_reduction_r" and axis.values.tolist() == [1, 2, 3, 4]
    assert 100 * np.asarray(outcome.result.p_max) == pytest.approx([72, 36, 24, 18])
    assert outcome.report()["sweep"] == [{"name": "r", "values": [1.0, 2.0, 3.0, 4.0]}]


def test_the_chip_model_from_a_vendor_profile_and_its_overrides() -> None:
    from qosforge.vendor_profiles import load_vendor_profile

    model, profile = red_chip_model("broadcom-tomahawk3")
    assert profile.name == load_vendor_profile("broadcom-tomahawk3").name == "broadcom-tomahawk3"
    continuous, _ = red_chip_model("broadcom-tomahawk3", steps=4, granularity=None, granularity_given=True)
    assert continuous.steps == 4 and continuous.probability_granularity is None
    assert continuous.step_offset == model.step_offset  # what is not overridden stays the profile's
    generic, none = red_chip_model(None, steps=16, step_offset=0.25, granularity=0.05, granularity_given=True, per_step=True)
    assert none is None and (generic.steps, generic.step_offset, generic.probability_granularity) == (16, 0.25, 0.05)
    assert generic.per_step_programmable and generic.name == "generic step RED"
    sources = dict(generic.sources)
    assert sources["steps"] == "given explicitly (--steps)" and sources["per_step_programmable"].startswith("assumed by --per-step; ")


def test_optimising_t_max_up_to_the_profile_buffer() -> None:
    # TBTCP §7's chip: "9MB shared buffer in total" (vendor_profiles/broadcom-trident.yaml buffer_bytes).
    outcome = fit_red(FitRedRequest(bdp="180kB", t_min="138kB", asic="broadcom-trident", optimize_t_max=True))
    assert outcome.port_buffer_source.startswith("vendor profile broadcom-trident: buffer_bytes")
    assert outcome.port_buffer_bytes == 9e6 and 138_000 < float(outcome.result.t_max_bytes) <= 9e6
    # The chosen t_max is no worse, up to the buffer, than the paper's hand-picked 550 kB.
    fixed = fit_red(FitRedRequest(bdp="180kB", t_min="138kB", t_max="550kB", asic="broadcom-trident", port_buffer="9MB"))
    assert float(outcome.result.error_to_limit_kilobytes) <= float(fixed.result.error_to_limit_kilobytes)
    # ... and it is the buffer itself: TBTCP's curve (p/r <= 0.5/r) fits the chip's "mark every
    # packet above t_max" worse than any step, so the search ends at its limit, and says so.
    assert float(outcome.result.t_max_bytes) == 9e6
    (note,) = outcome.notes
    assert note.startswith("t_max is the port buffer (9,000,000 B), the end of the search")
    assert "p/r at most 0.125 at r = 4" in note
    assert fixed.notes == ()


@pytest.mark.parametrize("r", ["1", "2", "4"])
@pytest.mark.parametrize("port_buffer", ["300kB", "1MB", "20MB"])
def test_for_tbtcps_curve_the_best_t_max_is_always_the_limit(r: str, port_buffer: str) -> None:
    outcome = fit_red(
        FitRedRequest(bdp="180kB", t_min="138kB", r=r, port_buffer=port_buffer, optimize_t_max=True)
    )
    assert float(outcome.result.t_max_bytes) == pytest.approx(float(outcome.port_buffer_bytes))
    assert any(note.startswith("t_max is the port buffer") for note in outcome.notes)


def test_a_fit_that_rounds_to_zero_carries_its_note() -> None:
    # 100 MB of BDP puts TBTCP's curve below 1 % over 138-550 kB: every 1 % step rounds to 0.
    outcome = fit_red(FitRedRequest(bdp="100MB", t_min="138kB", t_max="550kB", r="1"))
    assert float(outcome.result.p_max) == 0.0 and 100 * float(outcome.result.p_max_unquantized) == pytest.approx(0.411, abs=5e-4)
    (note,) = outcome.notes
    assert note.startswith("every programmed marking probability is 0") and "0.411 %" in note and outcome.report()["notes"] == [note]


@pytest.mark.parametrize(("request_", "place", "message"), [
    (FitRedRequest(bdp="180kB", t_min="138kB"), "--t-max", "is required"),
    (FitRedRequest(bdp="180kB", t_max="550kB"), "--t-min", "is required"),
    (FitRedRequest(bdp="180", t_min="138kB", t_max="550kB"), "--bdp", "'180' has no unit"),
    # Errors raised by the fitting library name its parameter; the request's flag is what the user typed.
    (FitRedRequest(bdp="180kB", t_min="550kB", t_max="138kB"), "--t-max", "must be greater than t_min"),
    (FitRedRequest(bdp="180kB", t_min="138kB", t_max="550kB", steps=0), "--steps", "must be a whole number >= 1 (got 0)"),
    (FitRedRequest(bdp="180kB", t_min="138kB", t_max="550kB", optimize_t_max=True), "--t-max", "conflicts with --optimize-t-max"),
    (FitRedRequest(bdp="180kB", t_min="138kB", t_max="550kB", sweeps=("r=1:2:3", "r=1:3:3")), "--sweep", "sweeps the same name twice"),
])
def test_bad_requests_name_the_flag(request_: FitRedRequest, place: str, message: str) -> None:
    with pytest.raises(QosforgeError) as caught:
        fit_red(request_)
    assert caught.value.place == place and caught.value.message == message


def test_the_cli_prints_the_api_report(capsys: pytest.CaptureFixture[str]) -> None:
    from qosforge.presentation import tidy

    for request, flags in ((TABLE_1, ()), (FitRedRequest(bdp="180kB", t_min="138kB", t_max="550kB", sweeps=("beta=0.05:0.2:4",), per_step=True),
                                          ("--sweep", "beta=0.05:0.2:4", "--per-step"))):
        code, out = _cli(capsys, "fit", "red", "--bdp", "180kB", "--t-min", "138kB", "--t-max", "550kB", *flags, "--format", "json")
        assert code == 0
        assert json.loads(out) == json.loads(json.dumps(tidy(fit_red(request).report()), allow_nan=False))
