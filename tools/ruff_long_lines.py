"""Keep tools/ruff_long_lines.toml (the files still allowed lines over 100 characters) true.

    python tools/ruff_long_lines.py          # drop the files that no longer have a long line
    python tools/ruff_long_lines.py --add    # also list every file ruff's E501 flags now

The list only shrinks in normal work: a touched file is wrapped and leaves it
(tests/qosforge/test_style.py fails while a listed file no longer needs its entry). ``--add`` is
for merging a branch written before E501 was enforced: it lists that branch's long-lined files,
to be wrapped when next touched (review what it adds).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "tools" / "ruff_long_lines.toml"
LIMIT = 100


def _header() -> str:
    return "".join(line + "\n" for line in LIST.read_text().splitlines() if line.startswith("#"))


def _flagged() -> set[str]:
    """Files with an E501 finding when nothing is exempt."""
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--isolated",
            "--select",
            "E501",
            f"--line-length={LIMIT}",
            "--output-format",
            "json",
            "--exclude",
            ".venv,.typecheck,build",
            ".",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return {str(Path(item["filename"]).relative_to(ROOT)) for item in json.loads(completed.stdout)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--add", action="store_true", help="also list every file with a long line now"
    )
    args = parser.parse_args(argv)
    listed = {
        p.removeprefix("../") for p in tomllib.loads(LIST.read_text())["lint"]["per-file-ignores"]
    }
    flagged = _flagged()
    kept = (listed | flagged) if args.add else (listed & flagged)
    body = "".join(f'"../{path}" = ["E501"]\n' for path in sorted(kept))
    LIST.write_text(_header() + "[lint.per-file-ignores]\n" + body)
    print(f"{len(kept)} files listed ({len(listed - kept)} dropped, {len(kept - listed)} added)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
