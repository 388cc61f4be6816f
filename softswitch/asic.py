"""The chip the software switch emulates: buffer, cells, RED quantisation and ECN behaviour.

A SAI program names its vendor profile (``vendor_profile``); the software switch behaves like
that ASIC where the profile says how (docs/architecture.md §6): total buffer and cell size (occupancy is
counted in whole cells), the RED step function (``qosforge.fitting.red_model``, TBTCP §6.2),
whether the separate ECT thresholds ``SAI_WRED_ATTR_ECN_*`` are honoured (SAI inc/saiwred.h) and whether a color's drop curve also drops ECT packets (TLT §7.4, vendor profile
``color_drop_applies_to_ect``). A profile that leaves one of these unknown cannot be emulated
faithfully, so loading fails and names the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from qosforge.errors import QosforgeError

if TYPE_CHECKING:
    # Imported where used: the flag-configured dumbbell needs neither the vendor profiles (pydantic
    # schemas) nor the fitting package, and `qosforge simulate` starts faster without them.
    from qosforge.fitting.red_model import RedStepModel

#: A continuous (linear) RED curve approximated by this many equal steps, step midpoints. Used
#: by the flag-configured ``dumbbell`` scenario, which emulates no particular chip and should
#: compare with simulators whose RED is linear (ns-3 RedQueueDisc), and as the named
#: approximation for chips whose step quantisation is unpublished. 1024 steps keep the error
#: below 0.05 % of P_max, finer than any probability the flags can express.
LINEAR_RED_STEPS = 1024
#: The approximation a run takes where a vendor profile leaves the RED step quantisation unknown
#: (``--assume red.steps=N --assume red.step_offset=C`` replaces it with the operator's values).
RED_LINEAR_APPROXIMATION = "red-linear"


def red_linear_note(profile_name: str) -> str:
    """What the ``red-linear`` approximation means, for stderr and the JSON ``approximations``."""
    return (f"{RED_LINEAR_APPROXIMATION}: the RED step quantisation of {profile_name} is unpublished, so its WRED curves run as "
            f"SAI's linear curve (inc/saiwred.h: the probability rises linearly from min to max), {LINEAR_RED_STEPS} equal steps; "
            "state the chip's steps with --assume red.steps=N --assume red.step_offset=C")


@dataclass(frozen=True)
class AsicModel:
    """What the emulated chip does with the configuration it is given."""

    name: str
    buffer_bytes: float
    cell_bytes: float
    red: RedStepModel | None
    """None where the profile does not say (then no WRED profile may be in use)."""
    ecn_ect_thresholds: bool | None
    color_drop_applies_to_ect: bool | None
    """None where the profile does not say (then the ECT thresholds may not be enabled)."""
    approximations: tuple[str, ...] = ()
    """Named approximations taken for what the profile leaves unknown (``red-linear``)."""
    dynamic_th_special: tuple[tuple[int, float], ...] = ()
    """(exponent, alpha) where the chip reads a SHARED_DYNAMIC_TH exponent as another alpha than
    2^n: ``VendorProfile.dynamic_th_special_alphas``, as compile and lint read it
    (compiler/dynamic_th.py; Mellanox mlnx_sai/src/mlnx_sai_buffer.c: 7 = infinity, -8 = 0)."""

    @property
    def steps(self) -> int:
        return 1 if self.red is None else self.red.steps

    def step_probabilities(self, probability: float) -> np.ndarray:
        """The programmed per-step probabilities for a profile's P_max (TBTCP §6.2)."""
        if self.red is None:
            raise QosforgeError("the RED quantisation of this ASIC is unknown", place=f"vendor profile {self.name}", hint="state it with --assume red.steps=N --assume red.step_offset=C")
        return np.asarray(self.red.step_fractions() * probability, dtype=np.float64)

    @property
    def capacity_cells(self) -> int:
        """Whole cells of the chip's buffer: the most a switch holds at once."""
        return int(self.buffer_bytes // self.cell_bytes)

    def cells(self, size_bytes: float) -> int:
        """Cells a frame of ``size_bytes`` occupies (a partly used cell is held whole)."""
        return int(np.ceil(size_bytes / self.cell_bytes - 1e-9))


#: Fields a profile may leave unknown that the switch needs, and how ``--assume`` parses them.
ASSUMABLE = ("red.steps", "red.step_offset", "ecn_ect_thresholds", "color_drop_applies_to_ect")


def _parse_assumed(field: str, text: str) -> int | float | bool:
    try:
        if field == "red.steps":
            return int(text)
        if field == "red.step_offset":
            return float(text)
    except ValueError:
        raise QosforgeError(f"{text!r} is not a number", place=f"--assume {field}", hint="e.g. --assume red.steps=8") from None
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    raise QosforgeError(f"{text!r} is not true or false", place=f"--assume {field}", hint=f"e.g. --assume {field}=true")


def asic_from_profile(profile_name: str, assume: Mapping[str, str] | None = None) -> AsicModel:
    """The :class:`AsicModel` of a vendor profile; fields it leaves unknown stay None and loading
    a program that needs them fails (:mod:`qosforge.softswitch.config`).

    ``assume`` supplies values for fields the profile leaves unknown (never overriding a sourced
    value): the caller takes responsibility and the model's name records the assumption.
    """
    from qosforge.fitting.red_model import red_model_from_profile
    from qosforge.vendor_profiles import load_vendor_profile

    profile = load_vendor_profile(profile_name)
    place = f"vendor profile {profile.name}"
    given = dict(assume or {})
    for field in given:
        if field not in ASSUMABLE:
            raise QosforgeError(f"cannot assume {field!r}", place="--assume", hint=f"one of {', '.join(ASSUMABLE)}")
        if profile.sourced(field).is_known:
            raise QosforgeError(f"{field} is known for {profile.name} ({profile.sourced(field).value!r}); an assumption cannot override it", place=f"--assume {field}", hint="drop the assumption")
    values = {field: _parse_assumed(field, text) for field, text in given.items()}
    missing = [name for name in ("buffer_bytes", "cell_bytes") if not profile.sourced(name).is_known]
    if missing:
        raise QosforgeError(
            f"the software switch cannot emulate this ASIC: {', '.join(missing)} unknown",
            place=place,
            hint="compile for a profile that states these values (e.g. softswitch)",
        )

    def value(field: str) -> Any:
        return values[field] if field in values else profile.sourced(field).value

    red: RedStepModel | None = None
    approximations: tuple[str, ...] = ()
    if value("red.steps") is None and value("red.step_offset") is None:
        # Unpublished quantisation: run SAI's linear curve, named, rather than refuse every run.
        values["red.steps"], values["red.step_offset"] = LINEAR_RED_STEPS, 0.5
        approximations = (red_linear_note(profile.name),)
    if value("red.steps") is not None and value("red.step_offset") is not None:
        steps = values.get("red.steps")
        offset = values.get("red.step_offset")
        try:
            red = red_model_from_profile(profile, steps=None if steps is None else int(steps), step_offset=None if offset is None else float(offset))
        except QosforgeError as error:
            # The model names its own field (``steps``); the operator typed ``--assume red.steps``.
            assumed = f"red.{error.place}"
            if assumed not in values:
                raise
            raise error.with_place(f"--assume {assumed}") from None
    name = profile.name + (" (assuming " + ", ".join(f"{k}={v}" for k, v in given.items()) + ")" if given else "")
    ect = value("ecn_ect_thresholds")
    color_drop = value("color_drop_applies_to_ect")
    return AsicModel(
        name=name,
        buffer_bytes=float(profile.buffer_bytes.known()),
        cell_bytes=float(profile.cell_bytes.known()),
        red=red,
        ecn_ect_thresholds=None if ect is None else bool(ect),
        color_drop_applies_to_ect=None if color_drop is None else bool(color_drop),
        approximations=approximations,
        dynamic_th_special=tuple(sorted(profile.dynamic_th_special_alphas.items())),
    )


def ideal_asic(buffer_bytes: float) -> AsicModel:
    """A chip with byte accounting, linear RED and ECT thresholds honoured (``dumbbell``)."""
    from qosforge.fitting.red_model import RedStepModel

    return AsicModel(
        name="ideal (flag-configured dumbbell)",
        buffer_bytes=float(buffer_bytes),
        cell_bytes=1.0,
        red=RedStepModel(
            steps=LINEAR_RED_STEPS,
            step_offset=0.5,
            probability_granularity=None,
            name="linear RED (dumbbell)",
            sources=(("steps", "softswitch.asic.LINEAR_RED_STEPS: linear RED as in ns-3 RedQueueDisc"),),
        ),
        ecn_ect_thresholds=True,
        color_drop_applies_to_ect=True,
    )


__all__ = ["ASSUMABLE", "LINEAR_RED_STEPS", "AsicModel", "asic_from_profile", "ideal_asic"]
