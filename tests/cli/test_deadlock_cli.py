"""compile and lint --intent refuse a fabric whose lossless class can deadlock: one line, exit 2."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

RING = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {{name: ring}}
topology:
  switches:
{switches}classes:
  - {{name: rdma, transport: dcqcn, dscp: [26], lossless: true}}
"""


def ring_intent(tmp_path: Path, n: int) -> Path:
    switches = "".join(
        f"""    - name: sw{i + 1}
      profile: broadcom-trident2
      ports:
        - {{name: Ethernet0, speed: 40G, cable: 2m, peer: host}}
        - {{name: Ethernet8, speed: 40G, cable: 10m, peer: "sw{(i + 1) % n + 1}:Ethernet12"}}
        - {{name: Ethernet12, speed: 40G, cable: 10m, peer: "sw{(i - 1) % n + 1}:Ethernet8"}}
"""
        for i in range(n)
    )
    path = tmp_path / f"ring{n}.yaml"
    path.write_text(textwrap.dedent(RING).lstrip("\n").format(switches=switches))
    return path


Run = Callable[..., tuple[int, str, str]]


def test_compile_refuses_a_lossless_ring_in_one_line(run_cli: Run, tmp_path: Path) -> None:
    intent = ring_intent(tmp_path, 4)
    line = next(n for n, text in enumerate(intent.read_text().splitlines(), 1) if "lossless: true" in text)
    code, out, err = run_cli("compile", str(intent), "-o", str(tmp_path / "out"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"error: {intent}:{line}:48: ")  # the class's lossless: true
    assert "classes[0].lossless: lossless class 'rdma' (PG 3) can deadlock" in err
    assert "sw2:Ethernet12 -> sw3:Ethernet12 -> sw4:Ethernet12 -> sw1:Ethernet12 -> sw2:Ethernet12" in err
    assert "(hint: break the cycle:" in err
    assert not (tmp_path / "out").exists()


def test_lint_with_a_deadlocking_intent_is_unusable_input(run_cli: Run, tmp_path: Path) -> None:
    triangle = ring_intent(tmp_path, 3)
    assert run_cli("compile", str(triangle), "-o", str(tmp_path / "out"), "--target", "sonic", "-q")[0] == 0
    config = tmp_path / "out" / "sw1" / "config_db.json"
    assert run_cli("lint", str(config), "--intent", str(triangle))[0] == 0
    code, _out, err = run_cli("lint", str(config), "--intent", str(ring_intent(tmp_path, 4)))
    assert code == 2
    assert "can deadlock: PFC buffers form a cycle on switches sw2, sw3, sw4, sw1" in err and "Traceback" not in err
