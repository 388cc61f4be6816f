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
from typing import get_args

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
    assert transport_hosts() == {"tcp": "newreno", "dctcp": "dctcp", "d2tcp": "dctcp", "ear": "dctcp", "tbtcp": "tbtcp", "dcqcn": "dcqcn", "irn": "dcqcn"}
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


def _toy(tmp: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(HERE), os.environ.get("PYTHONPATH"))))}
    return subprocess.run([sys.executable, str(HERE / "toy_cli.py"), *argv], capture_output=True, text=True, cwd=tmp, env=env, timeout=300, check=False)


def test_a_toy_transport_registered_from_one_module_flows_end_to_end(tmp_path: Path) -> None:
    intent = tmp_path / "toy.yaml"
    intent.write_text(_TOPOLOGY + _TOY_CLASSES)

    # Intent validation: the toy's block belongs to it alone; unknown names list the toys.
    (tmp_path / "wrong-block.yaml").write_text(_TOPOLOGY + "classes:\n  - {name: bulk, transport: dctcp, dscp: [10], toy: {k: 20kB}}\n")
    done = _toy(tmp_path, "compile", "wrong-block.yaml", "-o", "never")
    assert done.returncode == 2 and "'toy' parameters given but transport is 'dctcp'" in done.stderr
    (tmp_path / "unknown.yaml").write_text(_TOPOLOGY + "classes:\n  - {name: bulk, transport: toyz, dscp: [10]}\n")
    done = _toy(tmp_path, "compile", "unknown.yaml", "-o", "never")
    assert done.returncode == 2 and "unknown.yaml:12:18: classes[0].transport: unknown transport 'toyz'" in done.stderr
    assert "accepted transports: tcp, dctcp, tbtcp, d2tcp, ear, dcqcn, irn, toy, toyx (dcqcn or irn for RoCE)" in done.stderr
    # The plan: toyx's lossless rule.
    (tmp_path / "lossy.yaml").write_text(_TOPOLOGY + "classes:\n  - {name: storage, transport: toyx, dscp: [26]}\n")
    done = _toy(tmp_path, "compile", "lossy.yaml", "-o", "never")
    assert done.returncode == 2 and "class 'storage': toyx needs a lossless class" in done.stderr and "lossy.yaml:" in done.stderr
    assert not (tmp_path / "never").exists()

    # Compile: the toy's marking plan sets the step at its block's k; the host target lists its congestion control.
    done = _toy(tmp_path, "compile", "toy.yaml", "-o", "out", "--target", "sonic", "--target", "host", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    classes = {c["name"]: c for c in report["switches"][0]["classes"]}
    assert classes["bulk"]["transport"] == "toy" and classes["storage"]["transport"] == "toyx"
    config = json.loads((tmp_path / "out" / "tor1" / "config_db.json").read_text())
    wred = config["WRED_PROFILE"]["bulk_40G"]
    assert (wred["green_min_threshold"], wred["green_max_threshold"], wred["green_drop_probability"]) == ("20000", "20000", "100")
    assert not any(name.startswith("storage") for name in config["WRED_PROFILE"])  # toyx marks nothing
    host_settings = json.loads((tmp_path / "out" / "hosts" / "linux-kernel-40G" / "host_settings.json").read_text())
    assert {(c["name"], c["transport"], c["congestion_control"]) for c in host_settings["classes"]} >= {("bulk", "toy", "toycc")}
    assert "Toy (a test's transport)" in json.dumps(host_settings)  # no Linux module: listed for manual installation, citing its paper

    # Lint reads the toy's marking model (DCTCP's step): K = 20 kB is below DCTCP's K at 40G, 80 us.
    done = _toy(tmp_path, "lint", "out/tor1/config_db.json", "--intent", "toy.yaml", "--format", "json")
    findings = json.loads(done.stdout)
    rules = {f["rule"] for f in (findings["findings"] if isinstance(findings, dict) else findings)}
    assert "dctcp-k" in rules, done.stdout

    # The simulator: toy runs as DCTCP hosts; toyx has no host model and is refused by name.
    done = _toy(tmp_path, "simulate", "toy.yaml", "--scenario", "incast", "--class", "bulk", "--flows", "2", "--flow-size", "15kB",
                "--duration", "1ms", "--warmup", "0s", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["transport"] == "dctcp"
    done = _toy(tmp_path, "simulate", "toy.yaml", "--scenario", "incast", "--class", "storage", "--flows", "2", "--duration", "1ms")
    assert done.returncode == 2 and "transport toyx has no host model in the software switch" in done.stderr
