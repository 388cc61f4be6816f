"""Output checks happen before anything runs or is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from qosforge.campaigns.build import Campaign
from qosforge.campaigns.grid import Axis
from qosforge.campaigns.session import Outputs, check_outputs
from qosforge.errors import QosforgeError

SWEPT = Campaign(("simulate",), (Axis("flows", (2, 4)),), ())


@pytest.mark.parametrize(("outputs", "place"), [
    (Outputs(out=Path("runs.json")), "--out"),
    (Outputs(out=Path("runs.jsonl"), parquet=Path("runs.csv")), "--parquet"),
    (Outputs(out=Path("runs.jsonl"), plot=Path("runs.svg")), "--plot"),
])
def test_suffixes(outputs: Outputs, place: str) -> None:
    with pytest.raises(QosforgeError) as raised:
        check_outputs(SWEPT, outputs)
    assert raised.value.place == place


def test_plot_needs_a_swept_parameter(tmp_path: Path) -> None:
    check_outputs(SWEPT, Outputs(out=tmp_path / "a.jsonl", plot=tmp_path / "a.png"))
    with pytest.raises(QosforgeError, match="nothing is swept"):
        check_outputs(
            Campaign(("simulate",), (), ()),
            Outputs(out=tmp_path / "a.jsonl", plot=tmp_path / "a.png"),
        )


@pytest.mark.parametrize("flag", ["--out", "--parquet", "--plot"])
def test_no_output_flag_creates_folders(flag: str, tmp_path: Path) -> None:
    # --out and --parquet used to create missing folders while --plot refused them.
    missing = tmp_path / "nonexistent"
    paths = {"--out": tmp_path / "a.jsonl", "--parquet": None, "--plot": None}
    suffix = {"--out": ".jsonl", "--parquet": ".parquet", "--plot": ".png"}[flag]
    paths[flag] = missing / f"runs{suffix}"
    with pytest.raises(QosforgeError, match="does not exist") as raised:
        check_outputs(
            SWEPT, Outputs(out=paths["--out"], parquet=paths["--parquet"], plot=paths["--plot"])
        )  # type: ignore[arg-type]
    assert raised.value.place == flag and not missing.exists()
