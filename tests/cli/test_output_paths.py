"""Every option that names a path a command writes refuses an empty value the same way
(qosforge.cli.options.OutputPath): one line naming the flag, exit 2, nothing written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.errors import EXIT_BAD_INPUT

Run = Callable[..., tuple[int, str, str]]
ROCE = str(Path(__file__).resolve().parents[2] / "examples" / "roce-pod.yaml")
TRAFFIC = str(Path(__file__).resolve().parents[2] / "examples" / "roce-pod-mixed.traffic.yaml")

WRITERS = [
    (("compile", ROCE, "-o", ""), "-o/--output: the output folder is empty"),
    (("compile", ROCE, "--output", "  "), "-o/--output: the output folder is empty"),
    (("schema", "-o", ""), "-o/--output: the output file is empty"),
    (("init", "-o", ""), "-o/--output: the output file is empty"),
    (("lint", "--fix", "-o", "", "config_db.json"), "-o/--output: the output file is empty"),
    (("lint", "--write-baseline", "", "config_db.json"), "--write-baseline: the output file is empty"),
    (("simulate", "--scenario", "incast", "--plot", ""), "--plot: the output file is empty"),
    (("whatif", "buffer", "--buffer", "12MB", "--sweep", "congested-ports=1:4:4", "--plot", ""), "--plot: the output file is empty"),
    (("fit", "red", "--plot", ""), "--plot: the output file is empty"),
    (("sweep", "whatif", "buffer", "--out", ""), "--out: the output file is empty"),
    (("sweep", "whatif", "buffer", "--out", "r.jsonl", "--plot", ""), "--plot: the output file is empty"),
    (("push", ROCE, "--backup", ""), "--backup: the output file is empty"),
    (("tune", ROCE, "--traffic", TRAFFIC, "--out", ""), "--out: the output folder is empty"),
]


@pytest.mark.parametrize(("argv", "expected"), WRITERS, ids=[" ".join(a[:2]) + f" {a[-2] if a[-1] == '' else a[-3]}" for a, _ in WRITERS])
def test_an_empty_output_path_is_refused_by_every_writing_command(run_cli: Run, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 argv: tuple[str, ...], expected: str) -> None:
    monkeypatch.chdir(tmp_path)  # Path("") is the current folder: nothing may appear there
    code, out, err = run_cli(*argv)
    assert code == EXIT_BAD_INPUT, err
    [line] = err.strip().splitlines()
    assert expected in line and "(hint: name a " in line
    assert list(tmp_path.iterdir()) == [] and out == ""


MISSING_FOLDER = [
    (("schema", "-o", "MISSING/intent.schema.json"), "-o/--output"),
    (("init", "-o", "MISSING/fabric.yaml"), "-o/--output"),
    (("lint", "--fix", "-o", "MISSING/fixed.json", "CONFIG"), "-o/--output"),
    (("lint", "--write-baseline", "MISSING/baseline.json", "CONFIG"), "--write-baseline"),
]


@pytest.mark.parametrize(("argv", "flag"), MISSING_FOLDER,
                         ids=[f"{argv[0]} {flag}" for argv, flag in MISSING_FOLDER])
def test_a_missing_output_folder_is_named_by_its_flag(run_cli: Run, tmp_path: Path,
                                                      argv: tuple[str, ...], flag: str) -> None:
    # These once fell through to the operating system's error: the path, but not the flag.
    config = tmp_path / "config_db.json"
    config.write_text("{}")
    places = {"CONFIG": str(config)}
    missing = str(tmp_path / "missing")
    argv = tuple(places.get(item, item.replace("MISSING", missing)) for item in argv)
    code, out, err = run_cli(*argv)
    assert code == EXIT_BAD_INPUT and out == ""
    [line] = err.strip().splitlines()
    assert line.startswith(f"error: {flag}: folder '{tmp_path / 'missing'}' does not exist")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["config_db.json"]
