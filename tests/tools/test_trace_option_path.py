"""tools/trace_option_path.py: the path an option's value travels, counted from a real run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from trace_option_path import summarise  # noqa: E402


def _row(t: int, file: str) -> dict[str, object]:
    return {"t": t, "pid": 1, "file": file, "function": "f", "argument": "x"}


def test_hops_and_returns_are_counted_in_time_order() -> None:
    rows = [_row(3, "b.py"), _row(1, "a.py"), _row(2, "a.py"), _row(4, "a.py"), _row(5, "c.py"), _row(6, "b.py")]
    result = summarise(rows, until=None)
    # a a -> b -> a -> c -> b: four changes of file, two of them back into a file already visited.
    assert (result["calls"], result["files"], result["hops"], result["returns"]) == (6, 3, 4, 2)
    assert result["files_in_order"] == ["a.py", "b.py", "c.py"]
    cut = summarise(rows, until="c.py")  # up to and including the first call into the consumer
    assert (cut["calls"], cut["files"], cut["hops"], cut["returns"]) == (5, 3, 3, 1)


def test_fit_r_travels_from_the_cli_through_the_api_to_the_fitter(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "trace_option_path.py"), "--text", "3.21", "--value", "3.21",
         "--until", "fitting/tbtcp_red.py", "--", "fit", "red", "--bdp", "180kB", "--t-min", "138kB", "--t-max", "550kB",
         "--r", "3.21", "--format", "json"],
        capture_output=True, text=True, check=True, cwd=tmp_path)
    result = json.loads(done.stdout)
    assert result["exit"] == 0
    files = result["files_in_order"]
    assert files.index("qosforge/cli/fit.py") < files.index("qosforge/api/fit.py") < files.index("fitting/tbtcp_red.py")
    assert files[-1] == "fitting/tbtcp_red.py" and result["returns"] == 0
