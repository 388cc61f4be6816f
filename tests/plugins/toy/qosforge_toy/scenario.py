"""``toy-plugin-link``: ``--flows`` NewReno flows over one link of ``--toy-rate``, built with the
software switch's dumbbell."""

from __future__ import annotations

from qosforge.api.scenarios._framework import FlagSpec, Scenario
from qosforge.api.scenarios._single import prepare, run_single
from qosforge.api.simulation import ScenarioInput, SimulationOutcome
from qosforge.units import parse_flag, parse_rate_bps


def _run(inp: ScenarioInput) -> SimulationOutcome:
    from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell

    single = prepare(inp)
    rate_bps = parse_flag("--toy-rate", parse_rate_bps, inp.request.extra.get("toy_rate") or "1G")
    spec = DumbbellSpec(
        flows=single.flows,
        transport="newreno",
        bandwidth_bps=rate_bps,
        rtt_s=20e-6,
        buffer_bytes=200 * 1500,
        packet_bytes=1500,
        ecn_threshold_bytes=None,
        red_min_bytes=None,
        red_max_bytes=None,
        red_pmax=None,
        duration_s=single.duration_s,
        warmup_s=single.warmup_s,
        seed=inp.request.seed,
        tbtcp_beta=0.1,
        tbtcp_r=4.0,
        rto_min_s=inp.rto_min_s,
    )
    config, flows, run = dumbbell(spec)
    header = {
        "scenario": "toy-plugin-link",
        "flows": single.flows,
        "transport": "newreno",
        "bandwidth_bps": rate_bps,
        "approximations": [],
    }
    return run_single(inp, single, config, flows, run, header, rate_bps, 1500, None)


SCENARIO = Scenario(
    name="toy-plugin-link",
    summary="`--flows` NewReno flows over one link of `--toy-rate`",
    defaults="10 flows, 1G",
    reads={"flows": "10", "warmup": "a third of --duration", "toy_rate": "1G"},
    run=_run,
    flags=(
        FlagSpec("--toy-rate", "toy_rate", "toy-plugin-link: the link's rate.", metavar="RATE"),
    ),
    compiles_intent=False,
)
