"""The folder -> qosforge.* mapping (docs/architecture.md §1) stays complete: every folder with an
__init__.py under a mapped root is a listed package, so installs never silently drop one."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_python_folder_is_a_listed_package() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    package_dirs: dict[str, str] = setuptools["package-dir"]
    listed = set(setuptools["packages"])
    expected = set()
    for package, folder in package_dirs.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            expected.add(".".join([package, *relative.parts]))
    assert expected == listed


def test_mapped_packages_import_under_the_qosforge_namespace() -> None:
    import qosforge.backends
    import qosforge.compiler
    import qosforge.fitting
    import qosforge.models
    import qosforge.softswitch

    assert Path(qosforge.models.__file__).parent == ROOT / "models"
    assert Path(qosforge.fitting.__file__).parent == ROOT / "fitting"
    assert Path(qosforge.compiler.__file__).parent == ROOT / "compiler"
    assert Path(qosforge.backends.__file__).parent == ROOT / "backends"
    assert Path(qosforge.softswitch.__file__).parent == ROOT / "softswitch"
