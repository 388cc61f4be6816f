"""``fit red``: a chip's RED step profile fitted to TBTCP's ideal curve, as a typed request and its outcome.

The request holds every ``qosforge fit red`` flag as the user gave it (text with units, parsed here
with qosforge.units so an error names the flag); :func:`fit_red` builds the chip model (a vendor
profile's steps, offset and granularities, or the generic step RED with the overrides given),
checks the flags against each other and runs the vectorised fit (qosforge/fitting/tbtcp_red.py,
TBTCP §4.4, §6.2). The outcome carries the fit, the model, the sweep axes and the notes an
operator must see; :meth:`FitRedOutcome.report` is the object ``--format json`` prints. Drawing
tables and plots is the CLI's (qosforge/cli/fit.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from qosforge.defaults import DEFAULT_TBTCP_BETA, DEFAULT_TBTCP_R
from qosforge.errors import QosforgeError
from qosforge.fitting.red_model import SOURCE_PER_STEP, RedStepModel, red_model_from_profile
from qosforge.fitting.tbtcp_red import TbtcpRedFit, fit_tbtcp_red
from qosforge.provenance import to_jsonable
from qosforge.units import parse_number, parse_percent, parse_size_bytes

if TYPE_CHECKING:
    from qosforge.vendor_profiles.schema import VendorProfile

#: Library parameter names (the ``place`` of a model error) -> the flag the user typed.
_FLAG_OF = {
    "bdp_bytes": "--bdp",
    "t_min_bytes": "--t-min",
    "t_max_bytes": "--t-max",
    "window_reduction_r": "--r",
    "beta": "--beta",
    "steps": "--steps",
    "step_offset": "--step-offset",
    "probability_granularity": "--probability-granularity",
    "per_step": "--per-step",
    "port_buffer_bytes": "--port-buffer",
    "lso_burst_bytes": "--lso-burst",
}
_SWEEP_EXAMPLE = "e.g. --sweep r=1:4:4 or --sweep t-max=300kB:1MB:8"


@dataclass(frozen=True)
class FitRedRequest:
    """Every flag of ``qosforge fit red`` as given (None: not given).

    Sizes are text with their unit (``180kB``), numbers text (``4``), ``granularity`` a percentage
    with its sign or ``continuous``; ``sweeps`` holds ``NAME=START:STOP:N`` items."""

    bdp: str
    t_min: str | None = None
    t_max: str | None = None
    r: str | None = None
    beta: str = f"{DEFAULT_TBTCP_BETA:g}"
    steps: int | None = None
    step_offset: str | None = None
    granularity: str | None = None
    asic: str | None = None
    per_step: bool = False
    optimize_t_max: bool = False
    port_buffer: str | None = None
    lso_burst: str | None = None
    sweeps: tuple[str, ...] = ()


@dataclass(frozen=True)
class SweepAxis:
    """One ``--sweep``: its name as typed, the fit's argument it sets and its values."""

    name: str
    argument: str
    values: np.ndarray


@dataclass(frozen=True)
class FitRedOutcome:
    """The fit (arrays over the sweep grid when ``axes``), the chip model it used, where the port
    buffer came from, and the notes an operator must read before programming it."""

    result: TbtcpRedFit
    model: RedStepModel
    asic: str | None
    port_buffer_bytes: float | None
    port_buffer_source: str
    axes: tuple[SweepAxis, ...]
    notes: tuple[str, ...]

    def report(self) -> dict[str, Any]:
        """The keys ``--format json`` prints, in order (before qosforge.presentation.tidy)."""
        return {**_json(self), "notes": list(self.notes)}


def _parsed(parse: Callable[[str], float], flag: str, text: str | None) -> float | None:
    """``parse(text)``, its error naming ``flag``; None for a flag not given."""
    if text is None:
        return None
    try:
        return parse(text)
    except QosforgeError as error:
        raise error.with_place(flag) from None


def _size(flag: str, text: str | None) -> float | None:
    return _parsed(parse_size_bytes, flag, text)


def _number(flag: str, text: str | None) -> float | None:
    return _parsed(parse_number, flag, text)


_SWEEPABLE: Mapping[str, tuple[str, Callable[[str, str], float | None]]] = {
    "bdp": ("bdp_bytes", _size),
    "t-min": ("t_min_bytes", _size),
    "t-max": ("t_max_bytes", _size),
    "r": ("window_reduction_r", _number),
    "beta": ("beta", _number),
}


def parse_sweep(text: str) -> SweepAxis:
    """One ``--sweep NAME=START:STOP:N`` (N evenly spaced values, both ends included)."""
    name, separator, span = text.partition("=")
    name = name.strip().lstrip("-").replace("_", "-")
    parts = span.split(":")
    if not separator or len(parts) != 3:
        raise QosforgeError(
            f"{text!r} is not NAME=START:STOP:N", place="--sweep", hint=_SWEEP_EXAMPLE
        )
    if name not in _SWEEPABLE:
        raise QosforgeError(
            f"cannot sweep {name!r}", place="--sweep", hint=f"sweep one of: {', '.join(_SWEEPABLE)}"
        )
    argument, parse = _SWEEPABLE[name]
    start, stop = parse("--sweep", parts[0]), parse("--sweep", parts[1])
    try:
        points = int(parts[2])
    except ValueError:
        points = 0
    if points < 2 or start is None or stop is None:
        raise QosforgeError(
            f"{parts[2]!r} is not a point count of at least 2", place="--sweep", hint=_SWEEP_EXAMPLE
        )
    return SweepAxis(name=name, argument=argument, values=np.linspace(start, stop, points))


def red_chip_model(
    asic: str | None,
    steps: int | None = None,
    step_offset: float | None = None,
    granularity: float | None = None,
    granularity_given: bool = False,
    per_step: bool = False,
) -> tuple[RedStepModel, VendorProfile | None]:
    """The chip's step RED model and its vendor profile (None without ``asic``).

    With ``asic`` the profile gives steps, offset, granularities and per-step support, the
    arguments override them; without it the generic step RED (qosforge/fitting/red_model.py)
    with the overrides, each recorded as given explicitly. ``granularity`` None with
    ``granularity_given`` is a continuous probability grid."""
    if asic is not None:
        from qosforge.vendor_profiles import load_vendor_profile

        profile = load_vendor_profile(asic)
        model = red_model_from_profile(
            profile,
            steps=steps,
            step_offset=step_offset,
            probability_granularity=granularity if granularity_given else None,
        )
        if granularity_given and granularity is None:
            model = replace(model, probability_granularity=None)
        return model, profile
    defaults = RedStepModel()
    sources = dict(defaults.sources)
    if steps is not None:
        sources["steps"] = "given explicitly (--steps)"
    if step_offset is not None:
        sources["step_offset"] = "given explicitly (--step-offset)"
    if granularity_given:
        sources["probability_granularity"] = "given explicitly (--probability-granularity)"
    if per_step:
        # No profile to ask: the user states the chip can program each step (TBTCP §8).
        sources["per_step_programmable"] = f"assumed by --per-step; {SOURCE_PER_STEP}"
    model = RedStepModel(
        steps=defaults.steps if steps is None else steps,
        step_offset=defaults.step_offset if step_offset is None else step_offset,
        probability_granularity=granularity
        if granularity_given
        else defaults.probability_granularity,
        per_step_programmable=per_step,
        name="generic step RED" if per_step else defaults.name,
        sources=tuple(sources.items()),
    )
    return model, None


def _parse_granularity(text: str | None) -> tuple[float | None, bool]:
    if text is None:
        return None, False
    if text.strip().lower() in ("continuous", "none"):
        return None, True
    try:
        value = parse_percent(text) / 100.0
    except QosforgeError as error:
        raise error.with_place("--probability-granularity") from None
    return value, True


def _port_buffer(given: float | None, profile: VendorProfile | None) -> tuple[float | None, str]:
    if given is not None:
        return given, "--port-buffer"
    if profile is not None and profile.buffer_bytes.value is not None:
        # A port can never queue more than the whole shared buffer (vendor profile buffer_bytes).
        return float(
            profile.buffer_bytes.value
        ), f"vendor profile {profile.name}: buffer_bytes (whole shared buffer)"
    return None, "not given"


def fit_red(request: FitRedRequest) -> FitRedOutcome:
    """Parse and check the request, build the chip model and fit it; errors name the flag."""
    try:
        return _fit_red(request)
    except QosforgeError as error:
        if error.place in _FLAG_OF:
            raise error.with_place(_FLAG_OF[error.place]) from None
        raise


def _fit_red(request: FitRedRequest) -> FitRedOutcome:
    values: dict[str, Any] = {
        "bdp_bytes": _size("--bdp", request.bdp),
        "t_min_bytes": _size("--t-min", request.t_min),
        "t_max_bytes": _size("--t-max", request.t_max),
        # compile's r (the intent's tbtcp.r default); per-step fitting keeps r = 1 (TBTCP §8)
        "window_reduction_r": _number("--r", request.r) if request.r is not None else (1.0 if request.per_step else float(DEFAULT_TBTCP_R)),
        "beta": _number("--beta", request.beta),
    }
    lso_burst = _size("--lso-burst", request.lso_burst)
    if values["t_min_bytes"] is None:
        if lso_burst is None:
            raise QosforgeError(
                "is required", place="--t-min", hint="give --t-min (l, e.g. 138kB) or --lso-burst"
            )
        values["t_min_bytes"] = lso_burst
    step_offset = _number("--step-offset", request.step_offset)
    granularity, granularity_given = _parse_granularity(request.granularity)
    model, profile = red_chip_model(
        request.asic, request.steps, step_offset, granularity, granularity_given, request.per_step
    )
    port_buffer, port_buffer_source = _port_buffer(_size("--port-buffer", request.port_buffer), profile)
    axes = tuple(parse_sweep(text) for text in request.sweeps)
    if len({axis.name for axis in axes}) != len(axes):
        raise QosforgeError(
            "sweeps the same name twice", place="--sweep", hint="sweep each name once"
        )
    if request.optimize_t_max:
        if values["t_max_bytes"] is not None:
            raise QosforgeError(
                "conflicts with --optimize-t-max",
                place="--t-max",
                hint="give --t-max or --optimize-t-max, not both",
            )
        if port_buffer is None:
            raise QosforgeError(
                "--optimize-t-max needs the port's buffer",
                place="--port-buffer",
                hint="give --port-buffer (e.g. 1MB) or --asic",
            )
        if axes:
            raise QosforgeError(
                "cannot be combined with --optimize-t-max",
                place="--sweep",
                hint="optimise t_max for one parameter set at a time",
            )
    elif values["t_max_bytes"] is None and not any(axis.argument == "t_max_bytes" for axis in axes):
        raise QosforgeError(
            "is required",
            place="--t-max",
            hint="give --t-max (e.g. 550kB), or --optimize-t-max with --port-buffer",
        )
    if axes:
        grids = np.meshgrid(*(axis.values for axis in axes), indexing="ij")
        for axis, grid in zip(axes, grids, strict=True):
            values[axis.argument] = grid
    result = fit_tbtcp_red(
        values["bdp_bytes"],
        values["t_min_bytes"],
        values["t_max_bytes"],
        values["window_reduction_r"],
        values["beta"],
        model,
        per_step=request.per_step,
        lso_burst_bytes=lso_burst,
        port_buffer_bytes=port_buffer,
    )
    return FitRedOutcome(
        result=result,
        model=model,
        asic=request.asic,
        port_buffer_bytes=port_buffer,
        port_buffer_source=port_buffer_source,
        axes=axes,
        notes=tuple(_notes(result, model))
        + _limit_note(result, port_buffer if request.optimize_t_max else None, model),
    )


def _finite(value: Any) -> Any:
    """NaN (no port buffer given) becomes JSON null."""
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def _limit_note(
    result: TbtcpRedFit, limit_bytes: float | None, model: RedStepModel
) -> tuple[str, ...]:
    """--optimize-t-max that ended at the port buffer: say why, so the buffer is not read as a
    tuned value. Above t_max the chip marks every packet (TBTCP §6.2), a residual of (1 − p/r)²
    per kB; TBTCP's curve is at most 0.5/r, so that tail fits worse than any programmed step and
    the error keeps falling as t_max grows, up to the limit (docs/fitting.md "Optimising t_max")."""
    if limit_bytes is None:
        return ()
    cell = model.threshold_granularity_bytes or 0.0
    if float(result.t_max_bytes) < limit_bytes - cell - 1e-9:
        return ()
    return (
        f"t_max is the port buffer ({limit_bytes:,.0f} B), the end of the search: above t_max the "
        "chip marks every packet, "
        f"which TBTCP's target (p/r at most {0.5 / float(result.window_reduction_r):.3g} at r = "
        f"{float(result.window_reduction_r):g}) fits worse than any step, so the error falls all "
        "the way to the limit; "
        "this is no tuned t_max. Choose one by hand where the queue should stop (TBTCP §6.2 uses "
        "550 kB)",
    )


def _notes(result: TbtcpRedFit, model: RedStepModel) -> list[str]:
    """What an operator must know before programming the fit: a profile whose every step rounds
    to 0 % marks nothing below t_max and every packet above it — one step at t_max, not TBTCP's
    curve (compile refuses such a fit for a class, compiler/thresholds.py)."""
    silent = np.all(np.asarray(result.step_probabilities, dtype=float) == 0.0, axis=-1)
    if not np.any(silent):
        return []
    grid = "continuous" if model.probability_granularity is None else f"{float(percent(model.probability_granularity)):g} %"
    where = "" if np.ndim(silent) == 0 else f" at {int(np.sum(silent))} of {silent.size} sweep points"
    least = float(np.max(np.where(silent, percent(result.p_max_unquantized), -np.inf)))
    return [f"every programmed marking probability is 0: P_max rounds to 0 on the {grid} probability grid{where} (least-squares "
            f"P_max {least:.3g} % or less); such a profile marks only above t_max, every packet there — a single step at t_max, "
            "not TBTCP's curve (TBTCP §6.2); a smaller --bdp, a larger --r or a finer --probability-granularity gives a curve"]


def percent(fraction: Any) -> Any:
    """A probability (scalar, array or list) in percent, rounded off float noise (0.18 -> 18)."""
    return np.round(100.0 * np.asarray(fraction, dtype=float), 9)


def _json(outcome: FitRedOutcome) -> dict[str, Any]:
    result, model = outcome.result, outcome.model
    payload: dict[str, Any] = {
        "bdp_bytes": result.bdp_bytes,
        "t_min_bytes": result.t_min_bytes,
        "t_max_bytes": result.t_max_bytes,
        # P_max in percent, named with its unit, as compile's report, explain and SONiC show it.
        "pmax_percent": percent(result.p_max),
        "pmax_unquantized_percent": percent(result.p_max_unquantized),
        "step_probabilities_percent": percent(result.step_probabilities),
        "error": result.error_kilobytes,
        "error_unquantized": result.error_unquantized_kilobytes,
        "error_to_limit": result.error_to_limit_kilobytes,
        "r": result.window_reduction_r,
        "beta": result.beta,
        "rtts_per_mss_increase": result.rtts_per_mss_increase,
        "steps": result.steps,
        "step_offset": result.step_offset,
        "per_step": result.per_step,
        "probability_granularity_percent": None if model.probability_granularity is None else percent(model.probability_granularity),
        "threshold_granularity_bytes": model.threshold_granularity_bytes,
        "asic": outcome.asic,
        "port_buffer_bytes": outcome.port_buffer_bytes,
        "units": {
            "error": "kB (∫ (p/r − f)² dQ with Q in kB, as TBTCP §6.2 Table 1)",
            "pmax_percent": "%",
            "t_min_bytes": "B",
            "t_max_bytes": "B",
            "r": "MSS per mark",
            "beta": "MSS per RTT",
        },
        "provenance": result.provenance,
    }
    if outcome.axes:
        payload["sweep"] = [{"name": axis.name, "values": axis.values.tolist()} for axis in outcome.axes]
    return {key: _finite(to_jsonable(value)) for key, value in payload.items()}


__all__ = ["FitRedOutcome", "FitRedRequest", "SweepAxis", "fit_red", "parse_sweep", "percent", "red_chip_model"]
