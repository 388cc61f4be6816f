"""tools/count_unit_files.py: a page edited only inside its generated block counts as generated."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from count_unit_files import GENERATED_BLOCKS, classify, only_in_generated_block  # noqa: E402

PAGE = "docs/softswitch.md"
BEGIN, END = GENERATED_BLOCKS[PAGE]
# Lines 1-2 prose, 3 the begin marker, 4-6 the tables, 7 the end marker, 8 prose.
TEXT = "\n".join(["# Software switch", "prose", BEGIN + " `python -m ...` -->", "| a |", "| b |", "| c |", END, "more prose"])


def test_a_change_inside_the_block_is_generated() -> None:
    assert only_in_generated_block(PAGE, ["@@ -5 +5,2 @@"], TEXT)
    assert only_in_generated_block(PAGE, ["@@ -4,0 +5 @@", "@@ -6,1 +6,0 @@"], TEXT)


def test_a_change_outside_or_on_a_marker_is_a_docs_edit() -> None:
    assert not only_in_generated_block(PAGE, ["@@ -5 +5 @@", "@@ -2 +2 @@"], TEXT)  # prose edited too
    assert not only_in_generated_block(PAGE, ["@@ -7 +7 @@"], TEXT)  # the end marker itself
    assert not only_in_generated_block(PAGE, [], TEXT)
    assert not only_in_generated_block(PAGE, ["@@ -5 +5 @@"], TEXT.replace(END, "gone"))  # markers missing


def test_classify() -> None:
    assert classify("docs/rules.md") == "generated" and classify("tests/backends/sonic/golden/x.json") == "generated"
    assert classify("lint/rules/schema.py") == "source" and classify("tests/api/test_fit.py") == "tests"
    assert classify(PAGE) == "docs" and classify("tools/count_unit_files.py") == "other"


def test_the_engine_layout_world_block_is_generated() -> None:
    # Its markers are engine/state.py's: an appended array changes lines inside the block only.
    from qosforge.softswitch.engine import state

    layout = "softswitch/engine/layout.py"
    text = (ROOT / layout).read_text()
    block = state.current_layout_block(text)
    first = text[: text.index(block)].count("\n") + 1  # the begin marker's line
    last = first + block.count("\n") - 1  # the end marker's line
    assert only_in_generated_block(layout, [f"@@ -{last - 1} +{last - 2},2 @@"], text)
    assert not only_in_generated_block(layout, [f"@@ -{last} +{last} @@"], text)
    assert not only_in_generated_block(layout, [f"@@ -{first - 2} +{first - 2} @@"], text)
