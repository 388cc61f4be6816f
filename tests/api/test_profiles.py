"""``qosforge.api.profiles``: the bundled vendor profiles as documents, without click."""

from __future__ import annotations

import pytest

from qosforge.api.profiles import list_profiles, profile_document, profile_summary, show_profile
from qosforge.errors import QosforgeError


def test_the_summary_is_the_profiles_sourced_values() -> None:
    profiles = list_profiles()
    assert [p.name for p in profiles] == sorted(p.name for p in profiles)
    trident2 = profile_summary(show_profile("td2"))  # an alias names the same profile
    # SONiC's Trident II pools: 61,376 cells of 208 B (sonic-buildimage td2 buffers), 8 RED steps.
    assert (trident2["buffer_bytes"], trident2["cell_bytes"], trident2["red_steps"]) == (
        61376 * 208,
        208,
        8,
    )
    assert trident2["name"] == "broadcom-trident2" and trident2["mmu_count"] == 1


def test_the_show_document_carries_each_values_source() -> None:
    document = profile_document(show_profile("broadcom-trident2"))
    assert document["buffer_bytes"]["source"] and document["sources"]
    assert set(document["buffer_bytes"]) >= {"value", "source", "note"}


def test_an_unknown_profile_is_a_one_line_error() -> None:
    with pytest.raises(QosforgeError, match="broadcom-trident9"):
        show_profile("broadcom-trident9")
