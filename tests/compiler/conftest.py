from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

BASE = """
apiVersion: qosforge/v1
kind: Fabric
metadata: {name: test}
topology:
  leaf_spine:
    spines: 2
    leaves: 3
    hosts_per_leaf: 4
    host_link: {speed: 40G, cable: 3m}
    fabric_link: {speed: 40G, cable: 10m}
    link_latency: 10us
    leaf_profile: broadcom-trident2
classes:
  - name: bulk
    transport: dctcp
    dscp: [10]
"""


@pytest.fixture
def base_intent() -> str:
    return BASE


@pytest.fixture
def write_intent(tmp_path: Path) -> Callable[[str], Path]:
    def write(text: str, name: str = "intent.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    return write
