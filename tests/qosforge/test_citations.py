"""Nothing in the repository cites files that are not in it.

A user or a future maintainer has only the repository: citations name primary sources (a paper
and section, a SONiC/SAI repository path) or files in this repository (docs/architecture.md).
The patterns below are notes that lived beside the repository while it was built.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Pattern -> what to cite instead.
FORBIDDEN = {
    r"\.\./shared": "a primary source",
    r"\bDESIGN\.md": "docs/architecture.md",
    r"shared/(?:papers)": "the paper (authors, title, section)",
    r"shared/(?:reference)": "the SONiC/SAI repository path",
    r"(?<![\w/.])reference/(sonic_qos|sai_qos|oc_gnmi_anchors)\.md": "the SONiC/SAI/OpenConfig repository path",
    r"(?<![\w/.])reference/(sai_metadata_qos|sai_identifiers|openconfig_qos_tree_config)\.txt": "the bundled copy or the upstream path",
}


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.decode().split("\0") if name]


def test_no_file_cites_notes_outside_the_repository() -> None:
    patterns = {re.compile(pattern): fix for pattern, fix in FORBIDDEN.items()}
    offenders = []
    this_file = Path(__file__).resolve()
    for path in tracked_files():
        if path.resolve() == this_file or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for pattern, fix in patterns.items():
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {pattern.pattern!r} -> cite {fix}")
    assert not offenders, "\n".join(offenders[:50]) + (f"\n... {len(offenders) - 50} more" if len(offenders) > 50 else "")


def test_the_patterns_catch_what_they_should() -> None:
    # Joined from parts, so this file does not itself contain what it forbids elsewhere.
    samples = ["see " + "/".join(("..", "shared", "x")), "(" + "DESIGN" + ".md §3)", "/".join(("shared", "papers", "tlt.txt")),
               "/".join(("reference", "sonic_qos.md")) + " §4.4.1", "/".join(("reference", "sai_metadata_qos.txt"))]
    for sample in samples:
        assert any(re.search(pattern, sample) for pattern in FORBIDDEN), sample
    assert not any(re.search(pattern, "backends/sai/sai_metadata_qos.txt") for pattern in FORBIDDEN)
