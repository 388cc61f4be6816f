"""Every relative Markdown link in the README, the CHANGELOG and docs/ leads somewhere: the file
exists and, where the link names a section (``page.md#section``), the page has that anchor: an
explicit ``<a id="...">``, or a heading's anchor by GitHub's rule (lower case, punctuation other
than ``-`` and ``_`` dropped, spaces to ``-``, a repeated heading numbered ``-1``, ``-2``, ...).
Links to other sites are not fetched.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md")])
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    found = set(_HTML_ANCHOR.findall(text))  # an explicit <a id="..."> (docs/rules.md)
    for heading in _HEADING.findall(text):
        base = anchor(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    """The link targets outside code blocks and code spans (a regex in backticks is no link)."""
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return _LINK.findall(re.sub(r"`[^`\n]*`", "", text))


def broken(page: Path) -> list[str]:
    problems = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path_text, _, section = target.partition("#")
        path = (page.parent / path_text).resolve() if path_text else page
        if not path.exists():
            problems.append(f"{target}: no such file")
        elif section and path.suffix == ".md" and section not in anchors(path):
            problems.append(f"{target}: no heading with anchor #{section}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert not broken(page), f"{page.relative_to(ROOT)}: {broken(page)}"


def test_the_check_finds_a_missing_page_and_a_missing_section(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "# Title\n\n## The `x` flag: why\n\nsee [b](b.md), [c](a.md#nowhere)\n"
        "[ok](a.md#the-x-flag-why) [ok](#title) [web](https://example.com) `[0-7](-[0-7])?`\n"
    )
    assert broken(tmp_path / "a.md") == [
        "b.md: no such file",
        "a.md#nowhere: no heading with anchor #nowhere",
    ]
    assert (
        anchor("Fabric (`qosforge simulate INTENT --scenario a|b`)")
        == "fabric-qosforge-simulate-intent---scenario-ab"
    )
