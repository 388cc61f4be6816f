"""Every calculator's defaults are compile's (the README promises it): each default of every
``whatif`` command and of ``fit red`` is compared with the value compile uses for the same input,
and the numbers the calculators derive by default with the numbers compile renders.

Before: ``whatif ear`` derived K with no LSO burst (18,000 B at 10G, 100 us, where compile renders
64,500 B), ``whatif tbtcp`` started marking at 138 kB (compile: 64 kB), ``whatif tlt --transport
dcqcn`` used 200 kB at any speed (compile: K_max scaled with the rate, 50 kB at 10G), and ``fit red``
fitted with r = 1 (compile: 4)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qosforge.api.calculators import calculator, calculator_names
from qosforge.api.calculators._framework import Param, parse_value
from qosforge.compiler.intent import D2tcpSpec, Design, FastLaneSpec, LinkSpec, TbtcpSpec
from qosforge.models.pfc_headroom import pfc_headroom

Run = Callable[..., tuple[int, str, str]]

_DESIGN, _TBTCP, _D2TCP, _FASTLANE = Design(), TbtcpSpec(), D2tcpSpec(), FastLaneSpec(dscp=46)
_PHYSICAL = inspect.signature(pfc_headroom).parameters

#: (command, flag) -> compile's value for that input (the intent field's default, or the model
#: default compile calls with).
COMPILE_DEFAULTS: dict[tuple[str, str], Any] = {
    ("buffer", "--alpha"): _DESIGN.alpha,
    ("buffer", "--congested-ports"): _DESIGN.congested_ports,
    ("tlt", "--alpha"): _DESIGN.alpha,
    ("tlt", "--congested-ports"): _DESIGN.congested_ports,
    ("tlt", "--packet"): _DESIGN.mtu,
    ("dctcp", "--packet"): _DESIGN.mtu,
    ("dctcp", "--burst"): _DESIGN.lso_burst,
    ("d2tcp", "--packet"): _DESIGN.mtu,
    ("d2tcp", "--d-min"): _D2TCP.d_min,
    ("d2tcp", "--d-max"): _D2TCP.d_max,
    ("ear", "--packet"): _DESIGN.mtu,
    ("tbtcp", "--beta"): _TBTCP.beta,
    ("tbtcp", "--mss"): _DESIGN.mtu,
    ("tbtcp", "--lso-burst"): _DESIGN.lso_burst,
    ("tbtcp", "--r"): _TBTCP.r,
    ("fastlane", "--bandwidth-cap"): _FASTLANE.bandwidth_cap,
    ("fastlane", "--buffer-cap"): _FASTLANE.buffer_cap,
    ("pfc-headroom", "--mode"): _DESIGN.headroom_model,
    ("pfc-headroom", "--port-mtu"): _DESIGN.port_mtu,
    ("pfc-headroom", "--lossless-mtu"): _DESIGN.lossless_mtu,
    ("pfc-headroom", "--small-packet-percent"): _DESIGN.small_packet_percent,
    ("pfc-headroom", "--phy-delay"): LinkSpec(speed="100G").phy_delay,
    ("pfc-headroom", "--propagation-speed"): _PHYSICAL["propagation_speed_mps"].default,
    ("pfc-headroom", "--mac-phy-delay"): _PHYSICAL["mac_phy_delay_bytes"].default,
}

#: Defaults that are no intent input: what the calculator asks about has no compile counterpart.
CALCULATOR_ONLY = {
    ("buffer", "--mmus"): "compile takes the vendor profile's mmu_count; a calculator has no profile",
    ("tlt", "--mmus"): "compile takes the vendor profile's mmu_count; a calculator has no profile",
    ("tbtcp", "--flows"): "compile has no default n (design.concurrent_flows is optional)",
    ("fastlane", "--drop-probability"): "a traffic condition, not a configuration",
    ("fastlane", "--data-packet"): "FastLane §3.2's packet sizes for its overhead formula",
    ("fastlane", "--ack"): "FastLane §3.2's packet sizes for its overhead formula",
    ("fastlane", "--notification"): "FastLane §3.2's packet sizes for its overhead formula",
    ("pfc-headroom", "--lanes"): "a port property SONiC's sonic mode reads; the intent has no lanes",
}


def _params() -> list[tuple[str, Param]]:
    found = []
    for command in calculator_names():
        spec = calculator(command)
        found += [(command, param) for param in spec.params if param.default is not None]
    return found


@pytest.mark.parametrize(("command", "param"), _params(), ids=lambda item: item if isinstance(item, str) else item.flag)
def test_every_calculator_default_is_compiles(command: str, param: Param) -> None:
    key = (command, param.flag)
    assert key in COMPILE_DEFAULTS or key in CALCULATOR_ONLY, f"{command} {param.flag}: say which compile value it mirrors, or why none"
    if key in COMPILE_DEFAULTS:
        assert param.default is not None
        value = parse_value(param, param.default, _DESIGN.mtu)
        assert value == COMPILE_DEFAULTS[key]


def _json(run_cli: Run, *argv: str) -> dict[str, Any]:
    code, out, err = run_cli(*argv, "--format", "json")
    assert code == 0, err
    return dict(json.loads(out))


#: Defaults a calculator applies without a flag default (the flag is optional, or its presence
#: changes what is derived): the output without the flag equals the output with compile's value.
IMPLICIT = [
    (("whatif", "ear", "--speed", "10G", "--base-rtt", "100us", "--delay-threshold", "144us"), ("--burst", "64kB")),
    (("fit", "red", "--bdp", "180kB", "--t-min", "138kB", "--t-max", "550kB"), ("--r", str(TbtcpSpec().r))),
    (("fit", "red", "--bdp", "180kB", "--t-min", "138kB", "--t-max", "550kB"), ("--beta", f"{TbtcpSpec().beta:g}")),
]


@pytest.mark.parametrize(("argv", "explicit"), IMPLICIT, ids=["ear-burst", "fit-r", "fit-beta"])
def test_implicit_defaults_are_compiles(argv: tuple[str, ...], explicit: tuple[str, str], run_cli: Run) -> None:
    assert _json(run_cli, *argv) == _json(run_cli, *argv, *explicit)


INTENT = """\
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: defaults-check}
topology:
  switches:
    - name: tor1
      profile: softswitch
      ports:
        - {name: "Ethernet[0-12/4]", speed: 10G, cable: 3m, peer: host}
classes:
  - {name: ear, transport: ear, dscp: [10], rtt: 100us, ear: {rtt_threshold: 144us}}
  - {name: rdma, transport: dcqcn, dscp: [26], lossless: true, rtt: 100us, tlt: {important_dscp: [27]}}
  - {name: web, transport: dctcp, dscp: [12], rtt: 10us, tlt: {important_dscp: [13]}}
targets: [sai]
"""


@pytest.fixture
def compiled_thresholds(run_cli: Run, tmp_path: Path) -> dict[str, dict[str, float]]:
    intent = tmp_path / "fabric.yaml"
    intent.write_text(INTENT)
    report = _json(run_cli, "compile", str(intent), "-o", str(tmp_path / "out"))
    return {cls["name"]: {item["label"]: item["value"] for item in cls["thresholds"]} for cls in report["switches"][0]["classes"]}


def test_whatif_gives_the_k_compile_renders(run_cli: Run, compiled_thresholds: dict[str, dict[str, float]]) -> None:
    ear = _json(run_cli, "whatif", "ear", "--speed", "10G", "--base-rtt", "100us", "--delay-threshold", "144us")
    assert ear["ecn_threshold_bytes"] == compiled_thresholds["ear"]["ecn_marking_threshold_bytes"] == 64_500  # before: 18,000
    dctcp = _json(run_cli, "whatif", "dctcp", "--speed", "10G", "--rtt", "100us")
    assert dctcp["threshold_bytes"] == 64_500
    # TLT's K from the transport: compile's DCTCP K (with the LSO burst) and DCQCN K_max at 10G.
    web = _json(run_cli, "whatif", "tlt", "--buffer", "12MB", "--transport", "dctcp", "--speed", "10G", "--rtt", "10us")
    assert web["threshold_bytes"] == compiled_thresholds["web"]["tlt_color_drop_threshold_bytes"] == 64_500  # before: 12,500 (BDP)
    rdma = _json(run_cli, "whatif", "tlt", "--buffer", "12MB", "--transport", "dcqcn", "--speed", "10G", "--rtt", "100us")
    assert rdma["threshold_bytes"] == compiled_thresholds["rdma"]["tlt_color_drop_threshold_bytes"] == 50_000  # before: 200,000
