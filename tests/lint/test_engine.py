"""Linter: which rules run, which profile applies, what --fix produces; bad files never raise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qosforge.errors import QosforgeError
from qosforge.lint.engine import Linter
from qosforge.lint.rules import rules_needing

CONFIGS = Path(__file__).parent / "configs"


def test_skipped_rules_are_named_with_the_reason() -> None:
    plain = Linter().skipped
    assert [s.reason for s in plain] == ["no --profile (and no --intent naming the ASIC)", "no --intent"]
    assert plain[0].rules == rules_needing("profile") and plain[1].rules == rules_needing("intent")
    assert [s.reason for s in Linter(profile="broadcom-tomahawk").skipped] == ["no --intent"]


def test_the_intent_names_the_profile_and_a_contradicting_one_is_refused() -> None:
    linter = Linter(intent=CONFIGS / "broadcom_fabric.yaml", switch="tor1")
    linter.lint_path(CONFIGS / "broadcom_traditional.json")
    assert linter.profiles_used == {"broadcom-tomahawk"} and linter.skipped == []
    explicit = Linter(profile="broadcom-tomahawk", intent=CONFIGS / "broadcom_fabric.yaml", switch="tor1")
    explicit.lint_path(CONFIGS / "broadcom_traditional.json")
    assert explicit.profiles_used == {"broadcom-tomahawk"}
    # A --profile the intent contradicts is an error, not a silent override.
    with pytest.raises(QosforgeError, match="--profile broadcom-trident2 contradicts the intent, which gives tor1: "
                                            "broadcom-tomahawk"):
        Linter(profile="broadcom-trident2", intent=CONFIGS / "broadcom_fabric.yaml", switch="tor1")


def test_bad_options_raise_before_any_file_is_read() -> None:
    with pytest.raises(QosforgeError, match="unknown vendor profile"):
        Linter(profile="nope")
    with pytest.raises(QosforgeError, match="--switch names a switch of an intent"):
        Linter(switch="tor1")


def test_fix_reports_what_is_left_in_the_corrected_file(tmp_path: Path) -> None:
    source = tmp_path / "bad.json"
    source.write_text((CONFIGS / "broadcom_bad_encoding.json").read_text().replace('"10": "3",\n      "10": "1"', '"10": "1"'))
    report = Linter().lint_path(source, fix=True, fixed_path=tmp_path / "out.json")
    assert report.fixed_path == str(tmp_path / "out.json") and report.fixed_text is not None
    assert [(f.file, f.rule) for f in report.findings] == [(str(tmp_path / "out.json"), "wred-min-gt-max")]
    assert not (tmp_path / "out.json").exists()  # the caller writes, once every file succeeded
    json.loads(report.fixed_text)


def test_unusable_files_are_reported_not_raised(tmp_path: Path) -> None:
    linter = Linter()
    assert linter.lint_path(tmp_path / "missing.json").unusable is not None
    report = linter.lint_bytes(b"{", "x.json")
    assert report.unusable is not None and report.unusable.message.startswith("x.json:1:2: not JSON")
