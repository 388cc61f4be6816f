"""Every repository file or folder that docs/architecture.md and docs/extending/*.md name exists,
so a rename that leaves these pages behind fails here (docs/architecture.md §8).

A path is a backticked token (`compiler/dynamic_th.py`, `tests/validation/`) whose first
component is a top-level entry of the repository, or a Python file named relative to a package
folder (`cli/_lazy.py` is qosforge/cli/_lazy.py). Templates (`<target>`, `*`) and the sources
the pages cite from other repositories (sonic-swss `cfgmgr/*.lua`, SAI `inc/saibuffer.h`) are
not repository paths and are not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "docs" / "architecture.md", *(ROOT / "docs" / "extending").glob("*.md")])
TOP_LEVEL = frozenset(entry.name for entry in ROOT.iterdir() if not entry.name.startswith("."))
_TOKEN = re.compile(r"`([^`\s]+)`")
_TEMPLATE = re.compile(r"[<>*{}]|\.\.\.")


def named_paths(text: str) -> list[str]:
    """The repository paths a page names (see the module docstring)."""
    paths = []
    for token in _TOKEN.findall(text):
        token = token.split("::")[0].rstrip(".,;:")
        if _TEMPLATE.search(token) or token.startswith(("http", "-")):
            continue
        first = token.split("/")[0]
        if ("/" in token and first in TOP_LEVEL) or token in TOP_LEVEL or token.endswith(".py"):
            paths.append(token)
    return paths


def exists(path: str) -> bool:
    if (ROOT / path).exists():
        return True
    # A Python file named relative to its package folder: cli/_lazy.py, engine/kernel.py.
    return path.endswith(".py") and any((ROOT / folder / path).exists() for folder in TOP_LEVEL if (ROOT / folder).is_dir())


def test_there_are_pages_and_they_name_paths() -> None:
    assert (ROOT / "docs" / "architecture.md") in PAGES
    assert len(named_paths((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))) > 30


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_named_path_exists(page: Path) -> None:
    missing = [path for path in named_paths(page.read_text(encoding="utf-8"))
               if not exists(path)]
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"


def test_the_check_finds_a_renamed_file() -> None:
    assert named_paths("see `compiler/dynamic_th.py` and `cli/_lazy.py`") == ["compiler/dynamic_th.py", "cli/_lazy.py"]
    assert exists("compiler/dynamic_th.py") and exists("cli/_lazy.py")
    assert not exists("compiler/no_such_module.py")
    assert named_paths("sonic-swss `cfgmgr/buffer_headroom_mellanox.lua`, `backends/<target>/`") == []
