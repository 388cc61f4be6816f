"""The intent's ``objectives:`` (what ``qosforge tune`` holds a configuration to): validated
with the intent, ignored by the compiler."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.compiler.loader import IntentError, load_intent

ROOT = Path(__file__).resolve().parents[2]
ROCE_POD = (ROOT / "examples" / "roce-pod.yaml").read_text()


def _with(tmp_path: Path, block: str) -> Path:
    path = tmp_path / "intent.yaml"
    path.write_text(ROCE_POD + block)
    return path


def test_objectives_load_with_their_targets(tmp_path: Path) -> None:
    intent, _ = load_intent(
        _with(
            tmp_path,
            "objectives:\n  minimize: rdma.fct_p99_us\n  classes:\n"
            "    - {class: rdma, fct_p99_us: 500, lossless_drops: 0}\n"
            "    - {class: tcp, goodput_percent: 30}\n",
        )
    )
    assert intent.objectives is not None and intent.objectives.minimize == "rdma.fct_p99_us"
    assert [o.targets() for o in intent.objectives.classes] == [
        {"fct_p99_us": 500, "lossless_drops": 0},
        {"goodput_percent": 30},
    ]


@pytest.mark.parametrize(
    ("block", "fragment"),
    [
        (
            "objectives:\n  classes:\n    - {class: bulk, fct_p99_us: 5}\n",
            "objectives: no class 'bulk' in the intent; classes: rdma, tcp",
        ),
        ("objectives:\n  minimize: rdma.latency\n", "minimize: 'latency' is not a metric"),
        (
            "objectives:\n  classes:\n    - {class: rdma, goodput_percent: 120}\n",
            "less than or equal to 100",
        ),
        ("objectives:\n  classes:\n    - {class: rdma, fct_p99: 5}\n", "fct_p99"),
    ],
)
def test_bad_objectives_are_located(tmp_path: Path, block: str, fragment: str) -> None:
    path = _with(tmp_path, block)
    with pytest.raises(IntentError) as caught:
        load_intent(path)
    text = caught.value.one_line()
    assert text.startswith(f"{path}:") and fragment in text, text
