"""``profiles list | show NAME``: the bundled vendor profiles and each value's source.

The JSON documents are stable (docs/architecture.md §7): ``list`` is an array of
:func:`profile_summary` objects; ``show`` is the profile with every field as
``{value, source, note}`` (sizes in bytes, speeds in bits per second, ``null`` for ``unknown``)
plus the ``sources`` list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the profile schema (pydantic) is imported when a function runs
    from qosforge.vendor_profiles import VendorProfile as VendorProfile


def list_profiles() -> tuple[VendorProfile, ...]:
    """Every bundled vendor profile, in name order."""
    from qosforge.vendor_profiles import list_vendor_profiles

    return tuple(list_vendor_profiles())


def show_profile(name: str) -> VendorProfile:
    """Profile ``name`` (or an alias); an unknown name is a one-line error naming known ones."""
    from qosforge.vendor_profiles import load_vendor_profile

    return load_vendor_profile(name)


def profile_summary(profile: VendorProfile) -> dict[str, Any]:
    """One entry of ``profiles list --format json``."""
    return {
        "name": profile.name,
        "vendor": profile.vendor,
        "asic": profile.asic,
        "aliases": list(profile.aliases),
        "description": profile.description,
        "buffer_bytes": profile.buffer_bytes.value,
        "mmu_count": profile.mmu_count.value,
        "cell_bytes": profile.cell_bytes.value,
        "red_steps": profile.red.steps.value,
        "sonic_asic_table": profile.pfc_headroom.sonic.name if profile.pfc_headroom.sonic else None,
        "unknown_fields": profile.unknown_fields(),
    }


def profile_document(profile: VendorProfile) -> dict[str, Any]:
    """``profiles show NAME --format json``: every field with its source."""
    document: dict[str, Any] = profile.model_dump(mode="json")
    return document


__all__ = ["list_profiles", "profile_document", "profile_summary", "show_profile"]
