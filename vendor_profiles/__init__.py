"""Vendor profiles: one YAML per switch ASIC (file stem = profile name), every value sourced.

    >>> from qosforge.vendor_profiles import load_vendor_profile
    >>> td2 = load_vendor_profile("broadcom-trident2")
    >>> td2.buffer_bytes.known("buffer_bytes")
    12000000

Profiles are parsed once per process (``functools.cache``): the compiler asks for the same profile
for every switch and class it plans, so the returned objects are shared and must not be mutated
(the models are frozen). The schema is in :mod:`qosforge.vendor_profiles.schema`.
"""

from __future__ import annotations

import difflib
import functools
from importlib import resources
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from qosforge.errors import ProfileError
from qosforge.vendor_profiles.schema import (
    SOURCED_FIELDS,
    UNKNOWN,
    BreakoutMode,
    PfcHeadroom,
    PortGroup,
    RedQuantisation,
    SonicAsicTable,
    Sourced,
    SourceRef,
    VendorProfile,
)

__all__ = [
    "SOURCED_FIELDS",
    "UNKNOWN",
    "BreakoutMode",
    "PfcHeadroom",
    "PortGroup",
    "RedQuantisation",
    "SonicAsicTable",
    "SourceRef",
    "Sourced",
    "VendorProfile",
    "list_vendor_profiles",
    "load_vendor_profile",
    "vendor_profile_names",
]

_SUFFIX = ".yaml"


def _profile_files() -> dict[str, Any]:
    """Profile name -> packaged YAML resource (works installed and editable)."""
    package = resources.files(__name__)
    return {
        entry.name[: -len(_SUFFIX)]: entry
        for entry in package.iterdir()
        if entry.name.endswith(_SUFFIX) and entry.is_file()
    }


@functools.cache
def vendor_profile_names() -> tuple[str, ...]:
    """Canonical profile names (file stems), sorted."""
    return tuple(sorted(_profile_files()))


@functools.cache
def _load_file(name: str) -> VendorProfile:
    resource = _profile_files()[name]
    place = f"vendor_profiles/{name}{_SUFFIX}"
    try:
        data = YAML(typ="safe").load(resource.read_text(encoding="utf-8"))
    except YAMLError as error:
        raise ProfileError(
            f"not valid YAML: {error}", place=place, hint="fix the YAML syntax"
        ) from None
    if not isinstance(data, dict):
        raise ProfileError("a vendor profile must be a mapping", place=place)
    try:
        profile = VendorProfile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        location = ".".join(str(part) for part in first["loc"])
        more = error.error_count() - 1
        raise ProfileError(
            f"{location}: {first['msg']}" + (f" (and {more} more problems)" if more else ""),
            place=place,
            hint="see vendor_profiles/schema.py for the fields and their units",
        ) from None
    if profile.name != name:
        raise ProfileError(
            f"profile name {profile.name!r} differs from its file name",
            place=place,
            hint=f"set name: {name} (the file stem is the profile name)",
        )
    return profile


@functools.cache
def _name_index() -> dict[str, str]:
    """Lower-cased name or alias -> canonical name; an alias may not shadow another profile."""
    index: dict[str, str] = {}
    for name in vendor_profile_names():
        for key in (name, *_load_file(name).aliases):
            folded = key.lower()
            if folded in index and index[folded] != name:
                raise ProfileError(
                    f"{key!r} names both {index[folded]!r} and {name!r}",
                    place=f"vendor_profiles/{name}{_SUFFIX}",
                    hint="aliases must be unique across profiles",
                )
            index[folded] = name
    return index


def load_vendor_profile(name: str) -> VendorProfile:
    """The profile called ``name`` or one of its aliases (case-insensitive); cached."""
    stem = name.strip().lower()
    if stem in _profile_files():
        # A file stem is its own profile (an alias may not shadow another profile, which
        # _name_index checks and tests/vendor_profiles holds for the bundled files): loading the
        # one file spares a run that names its profile the parsing of every other (~60 ms each).
        return _load_file(stem)
    index = _name_index()
    canonical = index.get(name.strip().lower())
    if canonical is None:
        close = difflib.get_close_matches(name.strip().lower(), list(index), n=1, cutoff=0.5)
        suggestion = f"did you mean {index[close[0]]!r}? " if close else ""
        raise ProfileError(
            f"unknown vendor profile {name!r}",
            place="vendor profile",
            hint=f"{suggestion}known profiles: {', '.join(vendor_profile_names())}",
        )
    return _load_file(canonical)


def list_vendor_profiles() -> list[VendorProfile]:
    """All bundled profiles, sorted by name."""
    return [_load_file(name) for name in vendor_profile_names()]
