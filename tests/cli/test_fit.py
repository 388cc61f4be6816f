"""``qosforge fit red`` end to end through the root CLI: JSON, table, sweeps, plots, errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

TABLE_1 = ("--bdp", "180kB", "--t-min", "138kB", "--t-max", "550kB")




def test_issue_example_prints_one_json_object(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, err = run_cli("fit", "red", *TABLE_1, "--r", "4", "--format", "json")
    assert code == 0 and err == ""
    payload = json.loads(out)
    assert payload["t_min_bytes"] == 138_000 and payload["t_max_bytes"] == 550_000
    # P_max in percent, named with its unit, as compile's report shows it (before: "p_max": 0.18).
    assert payload["pmax_percent"] == pytest.approx(18.0) and "p_max" not in payload
    assert payload["pmax_unquantized_percent"] == pytest.approx(17.9577, abs=1e-4)
    assert payload["units"]["pmax_percent"] == "%" and payload["probability_granularity_percent"] == pytest.approx(1.0)
    assert payload["error"] == pytest.approx(0.49278, rel=1e-4)
    assert payload["steps"] == 8 and payload["r"] == 4
    assert payload["beta"] == 0.1
    assert len(payload["step_probabilities_percent"]) == 8 and payload["step_probabilities_percent"][0] == pytest.approx(1.125)
    assert payload["error_to_limit"] is None
    assert any("TBTCP §6.2" in d["source"] for d in payload["provenance"]["derivations"])


def test_bytes_or_kilobytes_give_the_same_answer(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    _, in_kb, _ = run_cli("fit", "red", *TABLE_1, "--r", "2", "--format", "json")
    _, in_bytes, _ = run_cli("fit", "red", "--bdp",
        "180000B",
        "--t-min",
        "138000B",
        "--t-max",
        "0.55MB",
        "--r",
        "2",
        "--format",
        "json",
    )
    first, second = json.loads(in_kb), json.loads(in_bytes)
    for key in (
        "t_min_bytes",
        "t_max_bytes",
        "pmax_percent",
        "pmax_unquantized_percent",
        "error",
        "step_probabilities_percent",
    ):
        assert first[key] == pytest.approx(second[key], rel=1e-12), key


def test_human_table(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("fit", "red", *TABLE_1, "--r", "4")
    assert code == 0
    assert "P_max programmed" in out and "18 %" in out and "0.18" not in out
    assert "programmed steps" in out and "QCD" in out and "TBTCP §6.2" in out


def test_asic_profile_and_per_step_refusal(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("fit", "red", *TABLE_1, "--asic", "broadcom-trident2", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["asic"] == "broadcom-trident2" and payload["steps"] == 8
    assert (
        payload["port_buffer_bytes"] == 12_766_208
    )  # the profile's whole shared buffer bounds t_max
    code, out, err = run_cli("fit", "red", *TABLE_1, "--asic", "broadcom-trident2", "--per-step")
    assert code == 2 and "--per-step" in err and "cannot program each RED step" in err


def test_per_step_without_profile(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("fit", "red", *TABLE_1, "--per-step", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["per_step"] is True and payload["r"] == 1
    assert payload["step_probabilities_percent"][-1] == pytest.approx(50)
    assert payload["error"] < 0.5


def test_steps_offset_and_granularity_flags(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("fit", "red", *TABLE_1,
        "--steps",
        "16",
        "--step-offset",
        "1",
        "--probability-granularity",
        "5%",
        "--format",
        "json",
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["steps"] == 16 and payload["step_offset"] == 1.0
    assert round(payload["pmax_percent"] / 5, 9) == round(payload["pmax_percent"] / 5)


def test_paper_p_max_with_five_percent_grid(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    got = []
    for r in ("1", "2", "3", "4"):
        _, out, _ = run_cli("fit", "red", *TABLE_1, "--r", r, "--probability-granularity", "5%", "--format", "json"
        )
        got.append(json.loads(out)["pmax_percent"])
    assert got == pytest.approx([70, 35, 25, 20])


def test_optimize_t_max(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("fit", "red", "--bdp",
        "180kB",
        "--t-min",
        "138kB",
        "--optimize-t-max",
        "--port-buffer",
        "1MB",
        "--format",
        "json",
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["t_max_bytes"] == pytest.approx(1e6)
    assert payload["error_to_limit"] >= payload["error"]


def test_sweep_gives_arrays(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("fit", "red", *TABLE_1, "--sweep", "r=1:4:4", "--format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["pmax_percent"] == pytest.approx([72, 36, 24, 18])
    assert payload["sweep"][0]["name"] == "r"
    code, out, _ = run_cli("fit", "red", *TABLE_1, "--sweep", "r=1:4:4", "--sweep", "t-max=400kB:600kB:3")
    assert code == 0 and "12 points" in out


def test_lso_burst_defaults_t_min(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    code, out, _ = run_cli("fit", "red", "--bdp", "180kB", "--lso-burst", "138kB", "--t-max", "550kB", "--format", "json"
    )
    assert code == 0 and json.loads(out)["t_min_bytes"] == 138_000


def test_plot_is_written_atomically(run_cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> None:
    target = tmp_path / "fit.png"
    code, _, _ = run_cli("fit", "red", *TABLE_1, "--r", "4", "--plot", str(target))
    assert code == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["fit.png"]
    sweep_plot = tmp_path / "sweep.png"
    code, _, _ = run_cli("fit", "red", *TABLE_1, "--sweep", "t-max=300kB:900kB:7", "--plot", str(sweep_plot))
    assert code == 0 and sweep_plot.stat().st_size > 0


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--bdp", "180kB", "--t-min", "138kB", "--t-max", "138kB"), "--t-max"),
        (("--bdp", "180kB", "--t-min", "138kB", "--t-max", "100kB"), "--t-max"),
        (("--bdp", "0B", "--t-min", "138kB", "--t-max", "550kB"), "--bdp"),
        (("--bdp", "-180kB", "--t-min", "138kB", "--t-max", "550kB"), "--bdp"),
        (("--bdp", "180KB", "--t-min", "138kB", "--t-max", "550kB"), "--bdp"),
        ((*TABLE_1, "--r", "0.5"), "--r"),
        ((*TABLE_1, "--steps", "0"), "--steps"),
        ((*TABLE_1, "--step-offset", "2"), "--step-offset"),
        ((*TABLE_1, "--beta", "0.7"), "--beta"),
        ((*TABLE_1, "--per-step", "--r", "2"), "--r"),
        ((*TABLE_1, "--port-buffer", "100kB"), "--t-min"),
        ((*TABLE_1, "--port-buffer", "500kB"), "--t-max"),
        ((*TABLE_1, "--lso-burst", "200kB"), "--t-min"),
        ((*TABLE_1, "--asic", "no-such-chip"), "no-such-chip"),
        (("--bdp", "180kB", "--t-max", "550kB"), "--t-min"),
        (("--bdp", "180kB", "--t-min", "138kB"), "--t-max"),
        ((*TABLE_1, "--optimize-t-max"), "--t-max"),
        (("--bdp", "180kB", "--t-min", "138kB", "--optimize-t-max"), "--port-buffer"),
        ((*TABLE_1, "--sweep", "steps=1:8:8"), "--sweep"),
        ((*TABLE_1, "--sweep", "r=1:4"), "--sweep"),
        ((*TABLE_1, "--sweep", "r=0.5:4:4"), "--r"),
    ],
)
def test_bad_input_is_one_line_naming_the_flag(
    run_cli: Callable[..., tuple[int, str, str]], argv: tuple[str, ...], flag: str
) -> None:
    code, out, err = run_cli("fit", "red", *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    assert flag in err and "hint" in err
    assert "Traceback" not in err


def test_a_bare_probability_granularity_is_refused(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    # 0.05: a fraction (5 %) or a percentage (0.05 %)? P_max is in percent everywhere, so the % sign is required.
    code, out, err = run_cli("fit", "red", *TABLE_1, "--probability-granularity", "0.05")
    assert code == 2 and out == "" and err.startswith("error: --probability-granularity: '0.05' has no % sign")


def test_a_fit_that_rounds_to_zero_everywhere_says_what_it_programs(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    # 100 MB of BDP puts TBTCP's curve below 1 % over 138-550 kB: every 1 % step rounds to 0.
    code, out, err = run_cli("fit", "red", "--bdp", "100MB", "--t-min", "138kB", "--t-max", "550kB", "--r", "1", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["step_probabilities_percent"] == [0.0] * report["steps"]
    assert len(report["notes"]) == 1 and "marks only above t_max" in report["notes"][0] and "0.411 %" in report["notes"][0]
    assert "note: every programmed marking probability is 0: P_max rounds to 0 on the 1 % probability grid" in err
    code, out, _ = run_cli("fit", "red", "--bdp", "180kB", "--t-min", "138kB", "--t-max", "550kB", "--r", "4", "--format", "json")
    assert code == 0 and json.loads(out)["notes"] == []
