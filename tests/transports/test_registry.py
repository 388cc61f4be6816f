"""The transport registry (transports/): every consumer derives its view from one TransportSpec
per congestion control.

The first tests pin what the registry derives for the built-in transports to the values that
were spelled out in each consumer before it existed (the intent's Literal, plan.py's CNP and
lossless checks, backends/host's congestion controls, lint's marking sets, the simulator's host
kinds). The last one registers two toy transports from a test-local module (toy_transport.py)
and drives them through intent validation, compile (report and IR), the host target, lint and
the simulator's dispatch and refusal, touching no qosforge source file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest

from qosforge.transports import (
    accepted_transports,
    parameter_blocks,
    rdma_transports,
    register,
    transport,
    transport_hint,
    transport_names,
    transports,
)

HERE = Path(__file__).resolve().parent


def test_builtin_names_in_the_schema_order() -> None:
    assert transport_names() == ("tcp", "dctcp", "tbtcp", "d2tcp", "ear", "dcqcn", "hpcc", "irn")
    assert accepted_transports() == ("tcp", "dctcp", "tbtcp", "d2tcp", "ear", "dcqcn", "irn")
    assert list(parameter_blocks()) == ["tbtcp", "d2tcp", "ear", "dcqcn"]
    assert "hpcc is refused: HPCC senders react to in-band network telemetry" in transport_hint()
    assert transport_hint().startswith("accepted transports: tcp, dctcp, tbtcp, d2tcp, ear, dcqcn, irn (dcqcn or irn for RoCE); ")


def test_host_settings_as_the_host_target_had_them() -> None:
    # backends/host/settings.py CONGESTION_CONTROL, ECN_TRANSPORTS and RDMA_TRANSPORTS before the registry.
    assert {s.name: s.host.congestion_control for s in transports()} == {
        "tcp": None, "dctcp": "dctcp", "d2tcp": "d2tcp", "tbtcp": "tbtcp", "ear": "ear", "dcqcn": "dcqcn", "irn": "dcqcn", "hpcc": None}
    assert {s.name for s in transports() if s.host.ecn} == {"dctcp", "d2tcp", "tbtcp", "ear", "dcqcn", "irn"}
    assert rdma_transports() == ("dcqcn", "irn")


def test_lint_and_simulator_views_as_they_were() -> None:
    models = {s.name: s.marking_model.name if s.marking_model else None for s in transports()}
    # lint/rules/transport.py ECN_TRANSPORTS and STEP_TRANSPORTS before the registry.
    assert {n for n, m in models.items() if m} == {"dctcp", "d2tcp", "ear", "dcqcn", "tbtcp"}
    assert {n for n, m in models.items() if m == "dctcp-step"} == {"dctcp", "d2tcp", "ear"}
    from qosforge.softswitch.helper.compiled import transport_hosts
    from qosforge.softswitch.traffic.spec import FlowKind

    # softswitch/helper/compiled.py TRANSPORT_HOSTS before the registry; every kind is the engine's.
    assert transport_hosts() == {"tcp": "cubic", "dctcp": "dctcp", "d2tcp": "dctcp", "ear": "dctcp", "tbtcp": "tbtcp", "dcqcn": "dcqcn", "irn": "dcqcn"}
    assert set(transport_hosts().values()) <= set(get_args(FlowKind))
    assert transport("hpcc").refused and transport("hpcc").flow_kind is None


def test_lossless_rules() -> None:
    dcqcn, irn = transport("dcqcn").lossless, transport("irn").lossless
    assert dcqcn is not None and dcqcn.need == "required" and irn is not None and irn.need == "refused"
    assert all(transport(n).lossless is None for n in ("tcp", "dctcp", "tbtcp", "d2tcp", "ear", "hpcc"))


def test_registering_after_the_intent_schema_was_built_is_refused() -> None:
    import qosforge.compiler.intent  # noqa: F401  (builds ClassSpec from the registry and seals it)

    with pytest.raises(RuntimeError, match=r"registered after qosforge\.compiler\.intent built the intent schema"):
        register(transport("tcp"))


_TOPOLOGY = """apiVersion: qosforge/v1
kind: Fabric
metadata: {name: toy}
topology:
  switches:
    - name: tor1
      profile: softswitch
      ports:
        - {name: "Ethernet[0-28/4]", speed: 40G, cable: 3m, peer: host}
targets: [sonic]
"""
_TOY_CLASSES = """classes:
  - {name: bulk, transport: toy, dscp: [10], rtt: 80us, toy: {k: 20kB}}
  - {name: storage, transport: toyx, dscp: [26], lossless: true}
"""


def _toy(tmp: Path, *commands: list[str]) -> list[dict[str, Any]]:
    """Run the command lines with the toys registered, in one fresh interpreter (toy_cli.py)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(HERE), os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, str(HERE / "toy_cli.py"), json.dumps(commands)], capture_output=True, text=True, cwd=tmp, env=env,
                          timeout=300, check=True)
    results: list[dict[str, Any]] = json.loads(done.stdout.splitlines()[-1])
    return results


def test_a_toy_transport_registered_from_one_module_flows_end_to_end(tmp_path: Path) -> None:
    (tmp_path / "toy.yaml").write_text(_TOPOLOGY + _TOY_CLASSES)
    (tmp_path / "wrong-block.yaml").write_text(_TOPOLOGY + "classes:\n  - {name: bulk, transport: dctcp, dscp: [10], toy: {k: 20kB}}\n")
    (tmp_path / "unknown.yaml").write_text(_TOPOLOGY + "classes:\n  - {name: bulk, transport: toyz, dscp: [10]}\n")
    (tmp_path / "lossy.yaml").write_text(_TOPOLOGY + "classes:\n  - {name: storage, transport: toyx, dscp: [26]}\n")
    wrong_block, unknown, lossy, compiled, linted, simulated, refused = _toy(
        tmp_path,
        ["compile", "wrong-block.yaml", "-o", "never"],
        ["compile", "unknown.yaml", "-o", "never"],
        ["compile", "lossy.yaml", "-o", "never"],
        ["compile", "toy.yaml", "-o", "out", "--target", "sonic", "--target", "host", "--format", "json"],
        ["lint", "out/tor1/config_db.json", "--intent", "toy.yaml", "--format", "json"],
        ["simulate", "toy.yaml", "--scenario", "incast", "--class", "bulk", "--flows", "2", "--flow-size", "15kB", "--duration", "1ms",
         "--warmup", "0s", "--format", "json"],
        ["simulate", "toy.yaml", "--scenario", "incast", "--class", "storage", "--flows", "2", "--duration", "1ms"],
    )

    # Intent validation: the toy's block belongs to it alone; an unknown name's hint lists the toys.
    assert wrong_block["code"] == 2 and "'toy' parameters given but transport is 'dctcp'" in wrong_block["stderr"]
    assert unknown["code"] == 2 and "unknown.yaml:12:18: classes[0].transport: unknown transport 'toyz'" in unknown["stderr"]
    assert "accepted transports: tcp, dctcp, tbtcp, d2tcp, ear, dcqcn, irn, toy, toyx (dcqcn or irn for RoCE)" in unknown["stderr"]
    # The plan: toyx's lossless rule, at the class's line.
    assert lossy["code"] == 2 and "class 'storage': toyx needs a lossless class" in lossy["stderr"] and "lossy.yaml:" in lossy["stderr"]
    assert not (tmp_path / "never").exists()

    # Compile: the toy's marking plan sets the step at its block's k; toyx marks nothing.
    assert compiled["code"] == 0, compiled["stderr"]
    classes = {c["name"]: c for c in json.loads(compiled["stdout"])["switches"][0]["classes"]}
    assert classes["bulk"]["transport"] == "toy" and classes["storage"]["transport"] == "toyx"
    config = json.loads((tmp_path / "out" / "tor1" / "config_db.json").read_text())
    wred = config["WRED_PROFILE"]["bulk_40G"]
    assert (wred["green_min_threshold"], wred["green_max_threshold"], wred["green_drop_probability"]) == ("20000", "20000", "100")
    assert not any(name.startswith("storage") for name in config["WRED_PROFILE"])
    # The host target: the toy's congestion control, listed for manual installation with its paper.
    host_settings = json.loads((tmp_path / "out" / "hosts" / "linux-kernel-40G" / "host_settings.json").read_text())
    assert {(c["name"], c["transport"], c["congestion_control"], c["ecn"]) for c in host_settings["classes"]} == {
        ("bulk", "toy", "toycc", True), ("storage", "toyx", None, False)}
    assert "Toy (a test's transport)" in json.dumps(host_settings)

    # Lint reads the toy's marking model (DCTCP's step): K = 20 kB is below DCTCP's K at 40G, 80 us.
    findings = json.loads(linted["stdout"])
    rules = {f["rule"] for f in (findings["findings"] if isinstance(findings, dict) else findings)}
    assert "dctcp-k" in rules, linted["stdout"]

    # The simulator: toy's hosts run as DCTCP; toyx has no host model and is refused by name.
    assert simulated["code"] == 0, simulated["stderr"]
    assert json.loads(simulated["stdout"])["transport"] == "dctcp"
    assert refused["code"] == 2 and "transport toyx has no host model in the software switch" in refused["stderr"]
