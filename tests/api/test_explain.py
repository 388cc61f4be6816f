"""``qosforge.api.explain``: one rendered value's derivation (without click: test_no_cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.api.explain import ExplainRequest, ExplainUsageError, explain

ROCE = str(Path(__file__).resolve().parents[2] / "examples" / "roce-pod.yaml")
XOFF = "BUFFER_PROFILE/pg_lossless_100000_40m_profile/xoff"


def test_a_switch_value_is_explained_by_the_sonic_target() -> None:
    result = explain(ExplainRequest(intent_path=ROCE, value_path=XOFF, switch="leaf1"))
    # SONiC's own headroom table for a Spectrum at 100G over 40 m (sonic-swss
    # cfgmgr/buffer_headroom_mellanox.lua), not a number of ours.
    assert (result.subject, result.target, result.explanation.rendered) == (
        "leaf1",
        "sonic",
        "53248",
    )
    assert result.explanation.model == "sonic_headroom[mellanox]"


def test_switch_and_host_together_or_neither_are_refused() -> None:
    with pytest.raises(ExplainUsageError, match="not both"):
        explain(ExplainRequest(intent_path=ROCE, value_path=XOFF, switch="leaf1", host="nic"))
    with pytest.raises(ExplainUsageError, match="give --switch NAME"):
        explain(ExplainRequest(intent_path=ROCE, value_path=XOFF))
    with pytest.raises(
        ExplainUsageError,
        match="target 'sonic' explains a switch's values: give --switch, not --host",
    ):
        explain(ExplainRequest(intent_path=ROCE, value_path=XOFF, host="nic", target="sonic"))
