"""Count the annotations that use ``typing.Any`` (a parameter, a return, a variable or a
dataclass field whose annotation mentions ``Any``), per file, so the places where mypy --strict
checks nothing can be measured and reduced.

    python tools/count_any.py [PATH ...]      # default: every package folder; a folder or a file
    python tools/count_any.py --by-file PATH  # one line per file with its count

Counted from the syntax tree, not by grep: ``Any`` in a docstring, a comment or a name such as
``AnyStr`` does not count, and ``dict[str, Any]`` counts once per annotation.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def package_folders() -> list[Path]:
    """The package's folders (pyproject.toml package-dir), where the count is taken by default;
    a folder mapped inside another (qosforge.lint.watch in lint/) is counted with it."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped: dict[str, str] = setuptools["package-dir"]
    folders = sorted({Path(folder).parts[0] for folder in mapped.values() if folder})
    return [ROOT / folder for folder in folders]


def _mentions_any(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == "Any":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Any":
            return True
        # A string annotation ("dict[str, Any]") is parsed as what it spells.
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                if _mentions_any(ast.parse(node.value, mode="eval").body):
                    return True
            except SyntaxError:
                continue
    return False


def _annotations(tree: ast.AST) -> Iterator[ast.expr | None]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args
            for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                yield argument.annotation
            for variadic in (arguments.vararg, arguments.kwarg):
                if variadic is not None:
                    yield variadic.annotation
            yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


def count_file(path: Path) -> int:
    """The annotations in ``path`` that mention ``Any``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return sum(_mentions_any(annotation) for annotation in _annotations(tree))


def python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(p for p in sorted(path.rglob("*.py")) if "__pycache__" not in p.parts)
        elif path.suffix == ".py":
            files.append(path)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--by-file", action="store_true", help="one line per file with a count")
    options = parser.parse_args(argv)
    paths = options.paths or package_folders()
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        print(f"error: no such path: {missing[0]}", file=sys.stderr)
        return 2
    files = python_files(paths)
    counts = {path: count_file(path) for path in files}
    if options.by_file:
        for path, count in sorted(counts.items(), key=lambda item: (-item[1], str(item[0]))):
            if count:
                print(f"{count:5d}  {path}")
    using = sum(1 for count in counts.values() if count)
    print(f"{sum(counts.values())} annotations use Any in {using} of {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
