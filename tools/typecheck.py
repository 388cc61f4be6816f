"""Run mypy over the qosforge package as it is installed (folders mapped into qosforge.*).

mypy cannot read setuptools' ``package-dir`` remapping (models/ -> qosforge.models, ...), so this
builds a throw-away view in ``.typecheck/`` whose ``qosforge/`` folder links each mapped folder
under its import name, runs mypy on it, and rewrites reported paths back to the source tree.
Usage: ``python tools/typecheck.py`` (exit code is mypy's).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIEW = ROOT / ".typecheck"


def build_view() -> dict[str, str]:
    package_dirs: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    shutil.rmtree(VIEW, ignore_errors=True)
    package_root = VIEW / "qosforge"
    package_root.mkdir(parents=True)
    for entry in (ROOT / package_dirs["qosforge"]).iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry, package_root / entry.name)
    view_to_source = {".typecheck/qosforge/": f"{package_dirs['qosforge']}/"}
    for package, folder in package_dirs.items():
        if package == "qosforge":
            continue
        name = package.split(".", 1)[1]
        os.symlink(ROOT / folder, package_root / name)
        view_to_source[f".typecheck/qosforge/{name}/"] = f"{folder}/"
    return view_to_source


def main() -> int:
    view_to_source = build_view()
    process = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "qosforge"],
        cwd=VIEW,
        capture_output=True,
        text=True,
    )
    pattern = re.compile("|".join(re.escape(k.removeprefix(".typecheck/")) for k in sorted(view_to_source, key=len, reverse=True)))
    lookup = {k.removeprefix(".typecheck/"): v for k, v in view_to_source.items()}
    for line in (process.stdout + process.stderr).splitlines():
        print(pattern.sub(lambda match: lookup[match.group(0)], line, count=1))
    return process.returncode


if __name__ == "__main__":
    raise SystemExit(main())
