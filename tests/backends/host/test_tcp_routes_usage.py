"""tcp-routes.sh's usage example names a class its own ``case`` takes (the golden scripts, as
``compile --target host`` writes them for every example intent), never a class of another
intent: roce-pod has no class ``bulk``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
SCRIPTS = sorted(GOLDEN.glob("*/hosts/*/tcp-routes.sh"))
_EXAMPLE = re.compile(r"^# Usage: .*\(e\.g\. sh tcp-routes\.sh (\S+) ", re.MULTILINE)
_BRANCH = re.compile(r"^  ([A-Za-z][\w-]*)\) ip route replace", re.MULTILINE)


def test_there_are_scripts_to_check() -> None:
    assert any("roce-pod" in str(path) for path in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: str(path.relative_to(GOLDEN)))
def test_the_usage_example_is_a_class_the_script_takes(script: Path) -> None:
    text = script.read_text()
    (example,) = _EXAMPLE.findall(text)
    branches = _BRANCH.findall(text)
    if branches:
        assert example in branches, f"example class {example!r}, the script takes {branches}"
    else:
        # No class states route attributes: the example still names the host's first class.
        document = json.loads((script.parent / "host_settings.json").read_text())
        assert example == document["classes"][0]["name"]
