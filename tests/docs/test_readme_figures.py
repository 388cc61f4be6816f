"""Figures the README quotes from a run are what that run gives today (the command beside them,
run as written): a stale figure is a claim about the switch that no longer holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.test_readme import _run

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


# One 2 ms lossless run (~1 CPU s): the slow tier, as the README's commands.
@pytest.mark.slow
def test_the_headroom_scenario_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claim = re.search(r"roce-pod: at most ([\d,]+) B used of ([\d,]+) B, no lossless drop", README)
    assert claim is not None, "the README lost its headroom figure"
    used, xoff = (int(text.replace(",", "")) for text in claim.groups())
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    code, err = _run(
        "qosforge simulate examples/roce-pod.yaml --scenario headroom --duration 2ms --warmup 0s"
        " --format json > headroom.json"
    )
    assert code == 0, err
    report = json.loads((tmp_path / "headroom.json").read_text())
    assert report["lossless_drops"] == 0
    assert max(pg["headroom_watermark_bytes"] for pg in report["headroom"]) == used
    assert {pg["xoff_bytes"] for pg in report["headroom"]} == {xoff}
