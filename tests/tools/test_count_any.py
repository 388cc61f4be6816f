"""tools/count_any.py: annotations that mention ``Any`` are counted from the syntax tree."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from count_any import count_file, main  # noqa: E402

SOURCE = '''
"""Any in a docstring is no annotation."""
import typing
from typing import Any, AnyStr

x: Any = 1                                   # 1
y: dict[str, Any] = {}                       # 2
z: "list[Any]" = []                          # 3 (a string annotation)
w: int = 0
s: AnyStr


def f(a: Any, b: int, *rest: Any, **named: typing.Any) -> Any:   # 4, 5, 6, 7
    local: list[int] = []
    return a  # Any in a comment is none either


class C:
    field: Any                               # 8
    other: tuple[int, ...]
'''


def test_every_annotation_that_mentions_any_counts_once(tmp_path: Path) -> None:
    path = tmp_path / "sample.py"
    path.write_text(SOURCE)
    assert count_file(path) == 8


def test_a_folder_is_summed_and_a_missing_path_is_bad_input(tmp_path: Path, capsys: object) -> None:
    (tmp_path / "a.py").write_text("from typing import Any\nx: Any = 1\n")
    (tmp_path / "b.py").write_text("y: int = 1\n")
    assert main([str(tmp_path)]) == 0
    assert main([str(tmp_path / "missing")]) == 2
