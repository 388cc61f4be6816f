"""``qosforge compare``'s text table: one row per mode, refused modes with their reason."""

from __future__ import annotations

from qosforge.api.compare import CompareResult, ModeResult
from qosforge.cli.compare import render_table


def test_the_table_shows_victim_flows_with_their_share_and_the_paused_flows() -> None:
    ran = ModeResult(
        "pfc-only", "PFC", flows=10, paused_flows=9, victim_flows=1, paused_queues=2, queues=11
    )
    quiet = ModeResult("lossy-irn", "IRN", flows=10)
    refused = ModeResult("trimming", "trim", refused="cannot trim")
    table = render_table(CompareResult("pod.yaml", "t.yaml", "rdma", (ran, quiet, refused)))
    lines = table.splitlines()
    assert "victim flows" in lines[1] and "unfinished" in lines[1]
    assert "1 (10%) of 9 paused" in lines[2] and "2/11" in lines[2]
    assert "0 (0%) of 0 paused" in lines[3]
    assert lines[4].split() == ["trimming", "refused"]
    assert "trimming: cannot trim" in table and "victim flow was paused by PFC" in table


def test_the_table_says_how_many_flows_a_mode_left_unfinished() -> None:
    # A mode whose FCTs cover only its finished flows must not read as the fastest.
    stalled = ModeResult("lossless-dcqcn", "DCQCN", flows=10, unfinished_flows=8, fct_p50_s=1.75e-4)
    table = render_table(CompareResult("pod.yaml", "t.yaml", "rdma", (stalled,)))
    assert "8 of 10" in table.splitlines()[2]
