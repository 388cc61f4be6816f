"""The scenario seam, end to end: a scenario defined in this one test module, registered, becomes
a ``--scenario`` choice with its own flag, has the flags it does not read refused, shows in the
generated docs table, and runs on the engine through ``qosforge simulate``.

The toy is a point-to-point link: ``--flows`` NewReno flows over one link of ``--toy-rate`` (its
own flag), built with the software switch's dumbbell (softswitch/helper/single_switch.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from qosforge.api.scenarios import SCENARIOS, refuse_unread, register, scenario_docs, unregister
from qosforge.api.scenarios._framework import FlagSpec, Scenario
from qosforge.api.scenarios._single import prepare, run_single
from qosforge.api.simulation import ScenarioInput, SimulationOutcome
from qosforge.errors import QosforgeError
from qosforge.units import parse_flag, parse_rate_bps


def _run(inp: ScenarioInput) -> SimulationOutcome:
    from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell

    single = prepare(inp)
    rate_bps = parse_flag("--toy-rate", parse_rate_bps, inp.request.extra.get("toy_rate") or "1G")
    spec = DumbbellSpec(flows=single.flows, transport="newreno", bandwidth_bps=rate_bps, rtt_s=20e-6, buffer_bytes=200 * 1500, packet_bytes=1500,
                        ecn_threshold_bytes=None, red_min_bytes=None, red_max_bytes=None, red_pmax=None, duration_s=single.duration_s,
                        warmup_s=single.warmup_s, seed=inp.request.seed, tbtcp_beta=0.1, tbtcp_r=4.0, rto_min_s=inp.rto_min_s)
    config, flows, run = dumbbell(spec)
    header = {"scenario": "toy-link", "flows": single.flows, "transport": "newreno", "bandwidth_bps": rate_bps, "approximations": []}
    return run_single(inp, single, config, flows, run, header, rate_bps, 1500, None)


TOY = Scenario(
    name="toy-link",
    summary="`--flows` NewReno flows over one link of `--toy-rate`",
    defaults="10 flows, 1G",
    reads={"flows": "10", "warmup": "a third of --duration", "toy_rate": "1G"},
    run=_run,
    flags=(FlagSpec("--toy-rate", "toy_rate", "toy-link: the link's rate.", metavar="RATE"),),
    compiles_intent=False,
)


@pytest.fixture()
def toy() -> Iterator[Scenario]:
    register(TOY)
    try:
        yield TOY
    finally:
        unregister(TOY.name)


def _simulate(*argv: str) -> tuple[int, str, str]:
    from qosforge.cli.simulate import build_command

    result = CliRunner().invoke(build_command(), list(argv))
    if isinstance(result.exception, QosforgeError):
        return 2, result.stdout, result.exception.one_line()
    return result.exit_code, result.stdout, result.stderr


def test_a_registered_scenario_is_a_choice_with_its_own_flag(toy: Scenario) -> None:
    from qosforge.cli.simulate import build_command

    command = build_command()
    scenario = next(p for p in command.params if p.name == "scenario")
    assert "toy-link" in scenario.type.choices  # type: ignore[attr-defined]
    assert any(p.name == "toy_rate" and "--toy-rate" in p.opts for p in command.params)
    # One column per registered scenario, in the registry's order: the toy's own flag only in its own.
    row = "| `--toy-rate` | " + " | ".join("1G" if name == "toy-link" else "–" for name in SCENARIOS) + " |"
    assert "`toy-link`" in scenario_docs() and row in scenario_docs()


def test_a_flag_the_toy_does_not_read_is_refused_and_its_own_flag_elsewhere(toy: Scenario) -> None:
    code, _, error = _simulate("--scenario", "toy-link", "--speed", "10G")
    assert code == 2 and error == "--speed: applies to dumbbell, not toy-link (hint: drop --speed)"
    code, _, error = _simulate("--scenario", "dumbbell", "--transport", "newreno", "--toy-rate", "10G")
    assert code == 2 and error == "--toy-rate: applies to toy-link, not dumbbell (hint: drop --toy-rate)"
    # The refusal names every reader, the toy among them, in the registry's order.
    readers = ", ".join(name for name, scenario in SCENARIOS.items() if "flows" in scenario.reads)
    assert readers.endswith(", toy-link") and readers.startswith("dumbbell, incast, ")
    with pytest.raises(QosforgeError, match=f"applies to {readers}, not all-to-all"):
        refuse_unread(SCENARIOS["all-to-all"], frozenset({"flows"}))


def test_the_toy_runs_on_the_engine_through_the_cli(toy: Scenario) -> None:
    code, out, error = _simulate("--scenario", "toy-link", "--flows", "2", "--toy-rate", "1G", "--duration", "20ms", "--warmup", "5ms",
                                 "--format", "json")
    assert code == 0, error
    report = json.loads(out)
    assert report["scenario"] == "toy-link" and report["flows"] == 2 and report["bandwidth_bps"] == 1e9
    # Two long-lived NewReno flows keep a 1G bottleneck busy: the receiver's wire rate is the link's
    # rate, and never above it (softswitch/helper/single_switch.py dumbbell).
    assert 0.9 <= report["wire_gbps"] <= 1.0


def test_without_the_registration_the_toy_is_unknown() -> None:
    assert "toy-link" not in SCENARIOS
    code, _, error = _simulate("--scenario", "toy-link")
    assert code == 2 and "toy-link" in error
