"""``compare --plot`` is checked before any mode runs: a folder that cannot take the plot is one
line naming ``--plot``, exit 2, and ``--out`` stays as it was."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _unwritable(tmp_path: Path) -> Path:
    """A folder that refuses a new file: read-only by mode, or /sys for root (who passes modes)."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    return folder if os.geteuid() != 0 else Path("/sys")


def test_an_unwritable_plot_folder_is_refused_before_any_run(
    run_cli: Callable[..., tuple[int, str, str]], tmp_path: Path
) -> None:
    folder = _unwritable(tmp_path)
    if os.access(folder, os.W_OK) and os.geteuid() != 0:
        pytest.skip("the read-only folder is writable here")
    traffic = tmp_path / "one.traffic.yaml"
    traffic.write_text(
        "apiVersion: qosforge/v1\nkind: Traffic\n"
        "flows: [{src: 0, dst: 20, class: rdma, size: 100kB}]\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("kept")
    code, stdout, stderr = run_cli(
        "compare", str(ROOT / "examples" / "roce-pod.yaml"), "--traffic", str(traffic),
        "--modes", "lossy-irn", "--duration", "1ms", "--fail-links", "0",
        "--out", str(out), "--plot", str(folder / "compare.png"),
    )  # fmt: skip
    assert code == 2 and stdout == ""
    assert stderr.strip() == (
        f"error: --plot: cannot write '{folder / 'compare.png'}': "
        f"folder '{folder}' is not writable "
        "(hint: choose a folder you can write to, or make this one writable)"
    )
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
