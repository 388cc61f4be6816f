"""docs/softswitch.md's scenario tables are the registry's; this fails when they are stale.

Regenerate: ``.venv/bin/python -m qosforge.api.scenarios._docs docs/softswitch.md``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.api.scenarios import scenario_docs
from qosforge.api.scenarios._docs import BEGIN, END, with_tables
from qosforge.errors import QosforgeError

ROOT = Path(__file__).resolve().parents[3]


def test_committed_tables_are_the_generated_ones() -> None:
    committed = (ROOT / "docs" / "softswitch.md").read_text(encoding="utf-8")
    assert with_tables(committed, scenario_docs()) == committed, (
        "docs/softswitch.md's scenario tables are stale: run .venv/bin/python -m qosforge.api.scenarios._docs docs/softswitch.md")


def test_only_the_block_between_the_markers_changes() -> None:
    text = f"before\n{BEGIN}\nold table\n{END}\nafter\n"
    assert with_tables(text, "new\n") == f"before\n{BEGIN}\nnew\n{END}\nafter\n"
    with pytest.raises(QosforgeError, match="markers are missing"):
        with_tables("no markers", "new\n")
