"""The report every format test renders: the bad-encoding config (with --profile) plus one
unusable file."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.lint.engine import Linter
from qosforge.lint.findings import Severity
from qosforge.lint.formats import Report

CONFIGS = Path(__file__).parents[1] / "configs"


@pytest.fixture(scope="module")
def report() -> Report:
    linter = Linter(profile="broadcom-tomahawk")
    bad = linter.lint_path(CONFIGS / "broadcom_bad_encoding.json")
    broken = linter.lint_bytes(b'{"A": ', "broken.json")
    assert broken.unusable is not None
    return Report(findings=bad.findings, files=[bad.file, broken.file], unusable=[broken.unusable],
                  skipped=linter.skipped, fail_on=Severity.ERROR, profile="broadcom-tomahawk")
