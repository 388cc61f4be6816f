"""Host NIC profiles: one YAML per NIC in ``vendor_profiles/nics/`` (file stem = profile name),
like the switch profiles: vendor, driver (which command set the host target renders), the
speeds the NIC runs at, and whether it runs DCQCN and PFC, every fact with its source.

The default host is ``linux-kernel``: the kernel's TCP settings only (backends/host).
"""

from __future__ import annotations

import difflib
import functools
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from qosforge.errors import ProfileError, UnitError
from qosforge.units import parse_rate_bps

#: The host NIC profile an intent that names none runs (kernel settings only).
DEFAULT_HOST_NIC = "linux-kernel"
_FOLDER = "nics"
_SUFFIX = ".yaml"


class NicSource(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    citation: str = Field(min_length=1)
    url: str | None = None


class HostNicProfile(BaseModel):
    """One host NIC (or the bare kernel): what the host target may render for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    vendor: Literal["linux", "nvidia"]
    driver: Literal["none", "mlx5"]
    """``mlx5``: NVIDIA ConnectX commands (mlnx_qos, sysfs ecn/, rdma_cm configfs) are rendered."""
    description: str
    speeds_bps: tuple[float, ...] = Field(alias="speeds")
    """Line rates the NIC runs at; empty: any (the kernel's settings do not depend on it)."""
    speeds_source: str = Field(min_length=1)
    dcqcn: bool
    dcqcn_source: str = Field(min_length=1)
    pfc: bool
    pfc_source: str = Field(min_length=1)
    sources: tuple[NicSource, ...] = Field(min_length=1)

    @field_validator("speeds_bps", mode="before")
    @classmethod
    def _speeds(cls, value: Any) -> tuple[float, ...]:
        if not isinstance(value, list):
            raise ValueError("speeds is a list like [25G, 100G]")
        try:
            return tuple(parse_rate_bps(str(item)) for item in value)
        except UnitError as error:
            raise ValueError(error.one_line()) from None

    def runs_at(self, speed_bps: float) -> bool:
        return not self.speeds_bps or any(abs(speed_bps - s) < 1.0 for s in self.speeds_bps)


def _files() -> dict[str, Any]:
    folder = resources.files("qosforge.vendor_profiles").joinpath(_FOLDER)
    return {entry.name[: -len(_SUFFIX)]: entry for entry in folder.iterdir() if entry.name.endswith(_SUFFIX) and entry.is_file()}


@functools.cache
def host_nic_names() -> tuple[str, ...]:
    return tuple(sorted(_files()))


@functools.cache
def load_host_nic(name: str) -> HostNicProfile:
    """The NIC profile ``name`` (case-insensitive); cached. Unknown names raise a ProfileError
    whose hint lists the known profiles."""
    canonical = name.strip().lower()
    files = _files()
    if canonical not in files:
        close = difflib.get_close_matches(canonical, list(files), n=1, cutoff=0.5)
        suggestion = f"did you mean {close[0]!r}? " if close else ""
        raise ProfileError(f"unknown host NIC profile {name!r}", place="host_nic",
                           hint=f"{suggestion}known host NIC profiles: {', '.join(host_nic_names())}")
    place = f"vendor_profiles/{_FOLDER}/{canonical}{_SUFFIX}"
    try:
        data = YAML(typ="safe").load(files[canonical].read_text(encoding="utf-8"))
        profile = HostNicProfile.model_validate(data)
    except YAMLError as error:
        raise ProfileError(f"not valid YAML: {error}", place=place, hint="fix the YAML syntax") from None
    except ValidationError as error:
        first = error.errors()[0]
        raise ProfileError(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}", place=place,
                           hint="see vendor_profiles/host_nics.py for the fields") from None
    if profile.name != canonical:
        raise ProfileError(f"profile name {profile.name!r} differs from its file name", place=place, hint=f"set name: {canonical}")
    return profile


__all__ = ["DEFAULT_HOST_NIC", "HostNicProfile", "NicSource", "host_nic_names", "load_host_nic"]
