"""Count the files a change touched to add one unit (a lint rule, a transport, a target, a scenario).

Reads the files a commit (or a range, or the working tree against a base) changed from git and
sorts them into what a newcomer edits by hand and what follows from it:

* **source**: files of the package folders (compiler/, lint/, qosforge/, ...) and vendor profiles;
* **tests**: tests/, except golden files;
* **generated**: files a documented command writes (docs/rules.md from
  ``python -m qosforge.lint.docs docs/rules.md``; golden files under tests/**/golden/ from
  ``QOSFORGE_REGENERATE_GOLDEN=1``);
* **docs**: other documentation (docs/, README.md);
* **other**: everything else (bench/, tools/, pyproject.toml, ...).

    python tools/count_unit_files.py COMMIT [COMMIT ...]       # each commit on its own
    python tools/count_unit_files.py BASE..HEAD                 # a range as one change
    python tools/count_unit_files.py --working-tree [BASE]      # uncommitted changes (against BASE, default HEAD)

``--json`` prints the classification for scripts. Exit 2 on an unknown commit.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Files a documented command regenerates (never edited by hand).
GENERATED = frozenset({"docs/rules.md"})
KINDS = ("source", "tests", "generated", "docs", "other")


def classify(path: str) -> str:
    """Which kind of file ``path`` (relative to the repository root) is."""
    if path in GENERATED or "/golden/" in f"/{path}":
        return "generated"
    if path.startswith("tests/"):
        return "tests"
    if path.startswith("docs/") or path == "README.md":
        return "docs"
    top = path.split("/")[0]
    if "/" in path and top in _package_folders():
        return "source"
    return "other"


def _package_folders() -> frozenset[str]:
    """The top-level folders pyproject.toml maps into the ``qosforge`` package."""
    import tomllib

    package_dir = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return frozenset(str(folder).split("/")[0] for folder in package_dir.values())


@dataclass
class Change:
    name: str
    files: dict[str, list[str]] = field(default_factory=lambda: {kind: [] for kind in KINDS})

    def add(self, status: str, path: str) -> None:
        self.files[classify(path)].append(f"{status} {path}")

    def summary(self) -> str:
        counts = ", ".join(f"{len(self.files[kind])} {kind}" for kind in KINDS)
        lines = [f"{self.name}: {counts}"]
        for kind in KINDS:
            lines.extend(f"  {kind:<9} {entry}" for entry in self.files[kind])
        return "\n".join(lines)


def _git(*args: str) -> str:
    completed = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise SystemExit(f"error: git {' '.join(args)}: {completed.stderr.strip()}")
    return completed.stdout


def changed(revision: str | None, working_tree_base: str | None = None) -> Change:
    """The files ``revision`` (a commit, or a ``A..B`` range) or the working tree changed."""
    if working_tree_base is not None:
        text = _git("diff", "--name-status", working_tree_base)
        untracked = _git("ls-files", "--others", "--exclude-standard").split()
        name = f"working tree against {working_tree_base}"
    elif revision is not None and ".." in revision:
        text, untracked, name = _git("diff", "--name-status", revision), [], revision
    else:
        assert revision is not None
        text = _git("diff-tree", "--no-commit-id", "--name-status", "-r", "--root", revision)
        untracked = []
        name = f"{revision} {_git('log', '-1', '--format=%s', revision).strip()[:70]}"
    change = Change(name)
    for line in text.splitlines():
        status, *paths = line.split("\t")
        change.add(status[0], paths[-1])
    for path in untracked:
        change.add("?", path)
    return change


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revisions", nargs="*", help="commits (each counted alone) or A..B ranges")
    parser.add_argument("--working-tree", nargs="?", const="HEAD", metavar="BASE", help="count uncommitted changes against BASE")
    parser.add_argument("--json", action="store_true", help="print the classification as JSON")
    args = parser.parse_args(argv)
    if not args.revisions and args.working_tree is None:
        parser.error("give a commit, a range or --working-tree")
    changes = [changed(revision) for revision in args.revisions]
    if args.working_tree is not None:
        changes.append(changed(None, args.working_tree))
    if args.json:
        print(json.dumps([{"change": c.name, **{k: c.files[k] for k in KINDS}} for c in changes], indent=2))
    else:
        print("\n".join(change.summary() for change in changes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
