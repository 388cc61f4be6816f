"""WRED profile and scheduler checks (sonic-wred-profile.yang, sonic-scheduler.yang, orchagent qosorch.cpp)."""

from __future__ import annotations

from qosforge.backends.sonic.checks.schema import WRED_COLORS, WRED_THRESHOLD_LIMIT, ecn_colors
from qosforge.backends.sonic.checks.view import ConfigView
from qosforge.backends.sonic.checks.violation import Violation
from qosforge.backends.sonic.keys import uint


def check_wred(view: ConfigView, found: list[Violation]) -> None:
    for name, profile in view.entries("WRED_PROFILE").items():
        marked = ecn_colors(profile.get("ecn", "ecn_none"))
        for color in WRED_COLORS:
            low = uint(profile.get(f"{color}_min_threshold"))
            high = uint(profile.get(f"{color}_max_threshold"))
            for field, value in ((f"{color}_min_threshold", low), (f"{color}_max_threshold", high)):
                if value is not None and value >= WRED_THRESHOLD_LIMIT:
                    found.append(Violation("wred-threshold-overflow", "WRED_PROFILE", name, field,
                                           f"{value} >= 2^31: orchagent parses it with stoi"))
            if low is not None and high is not None and low > high:
                found.append(Violation("wred-min-gt-max", "WRED_PROFILE", name, f"{color}_max_threshold",
                                       f"{color} max {high} < min {low}"))
            active = profile.get(f"wred_{color}_enable") == "true" or color in marked
            has_thresholds = any(f"{color}_{part}" in profile
                                 for part in ("min_threshold", "max_threshold", "drop_probability"))
            if has_thresholds and not active:
                found.append(Violation("wred-color-consistency", "WRED_PROFILE", name, None,
                                       f"{color} thresholds set but {color} neither drops nor marks "
                                       "(SAI: valid only when enabled)"))
            if active and (f"{color}_min_threshold" not in profile or f"{color}_max_threshold" not in profile):
                found.append(Violation("wred-color-consistency", "WRED_PROFILE", name, None,
                                       f"{color} drops or marks but has no min/max thresholds"))


def check_schedulers(view: ConfigView, found: list[Violation]) -> None:
    for name, scheduler in view.entries("SCHEDULER").items():
        if "priority" in scheduler:
            found.append(Violation("scheduler-priority", "SCHEDULER", name, "priority",
                                   "orchagent rejects the whole entry (Unknown field); use type STRICT"))
        cir = uint(scheduler.get("cir"))
        pir = uint(scheduler.get("pir"))
        cbs = uint(scheduler.get("cbs"))
        pbs = uint(scheduler.get("pbs"))
        for field in ("cbs", "pir"):
            if field in scheduler and not cir:
                found.append(Violation("scheduler-rates", "SCHEDULER", name, field,
                                       f"{field} can't be configured without cir > 0"))
        if pir is not None and cir is not None and pir < cir:
            found.append(Violation("scheduler-rates", "SCHEDULER", name, "pir", "pir must be >= cir"))
        if "pbs" in scheduler and not pir:
            found.append(Violation("scheduler-rates", "SCHEDULER", name, "pbs",
                                   "pbs can't be configured without pir > 0"))
        if pbs is not None and cbs is not None and pbs < cbs:
            found.append(Violation("scheduler-rates", "SCHEDULER", name, "pbs", "pbs must be >= cbs"))


__all__ = ["check_schedulers", "check_wred"]
