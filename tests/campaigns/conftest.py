"""Shared campaign rows for the table and plot tests."""

from __future__ import annotations

import pytest

from qosforge.campaigns.store import Row


@pytest.fixture
def sample_rows() -> list[Row]:
    """A 2 x 2 grid of flows and RTT (queue = flows x RTT in us) and one failed point."""
    rows = []
    for flows in (2, 8):
        for rtt in ("10us", "40us"):
            result = {"flows": flows, "queue_p99_packets": flows * float(rtt[:-2]), "drops": 0, "ok": True, "by": {"wred": flows}, "name": "x"}
            rows.append(Row(f"{flows}{rtt}", ("simulate",), {"rtt": rtt, "flows": flows}, result, None, {"seconds": 0.5}))
    rows.append(Row("bad", ("simulate",), {"rtt": "80us", "flows": 2}, None, "--rtt: too long", {"seconds": 0.1}))
    return rows
