"""A small compiled fabric for the SAI backend tests.

One `softswitch` ToR (the profile that honours ECT thresholds), two 40G host ports with 3 m and
20 m cables, three classes: DCTCP with TLT (exact color drop + ECT marking), DCQCN lossless on
PFC priority 3 (PG profiles, PFC maps, watchdog), and TCP (no WRED). Everything comes out of the
real compiler, so the tests see what `qosforge compile --target sai` writes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qosforge.backends.sai import SaiProgram, render_sai_program
from qosforge.compiler.compile import compile_intent
from qosforge.compiler.loader import load_intent
from qosforge.ir import SwitchIR

INTENT = """\
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: sai-fixture}
topology:
  switches:
    - name: tor1
      profile: softswitch
      ports:
        - {name: Ethernet0, speed: 40G, cable: 3m, peer: host}
        - {name: Ethernet4, speed: 40G, cable: 20m, peer: host}
classes:
  - name: bulk
    transport: dctcp
    dscp: [10]
    rtt: 80us
    tlt: {important_dscp: [11]}
  - name: rdma
    transport: dcqcn
    dscp: [26]
    lossless: true
  - name: web
    transport: tcp
    dscp: [18]
design: {congested_ports: 2}
targets: [sai]
"""


CompileSai = Callable[..., tuple[SwitchIR, ...]]


@pytest.fixture
def sai_intent() -> str:
    return INTENT


@pytest.fixture
def compile_sai(tmp_path: Path) -> CompileSai:
    """compile_sai(intent_text, **compile_intent kwargs) -> the SAI view's switches."""

    def run(text: str, **kwargs: object) -> tuple[SwitchIR, ...]:
        path = tmp_path / "intent.yaml"
        path.write_text(text)
        intent, source_map = load_intent(path)
        fabric = compile_intent(intent, source_map, **kwargs)  # type: ignore[arg-type]
        return fabric.for_target("sai")

    return run


@pytest.fixture
def switch_ir(compile_sai: CompileSai) -> SwitchIR:
    return compile_sai(INTENT)[0]


@pytest.fixture
def program(switch_ir: SwitchIR) -> SaiProgram:
    return render_sai_program(switch_ir)
