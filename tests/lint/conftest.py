"""Shared helpers for the lint tests: the configs under tests/lint/configs and a lint() call.

The configs are written for these tests in the shape of SONiC's rendered golden files
(the SONiC sources (sonic-buildimage, sonic-swss)), with numbers from the qosforge models:

* ``broadcom_traditional.json``: Tomahawk ToR, traditional buffer model, 4 x 40G on 5/40/300 m,
  lossless TC 3-4 with physical-model headroom, DCQCN / DCTCP / TBTCP WRED profiles; its intent
  is ``broadcom_fabric.yaml`` (switch ``tor1``);
* ``mellanox_whole.json``: a whole Spectrum-2 config_db (non-QoS tables too), 8 x 100G, headroom
  as SONiC's Mellanox plugin computes it (sonic-swss cfgmgr/buffer_headroom_mellanox.lua table);
* ``mellanox_dynamic.json``: a dynamic-buffer-model fragment (NULL PGs, pools without size).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from qosforge.lint.engine import Linter
from qosforge.lint.findings import Finding

CONFIGS = Path(__file__).parent / "configs"
INTENT = CONFIGS / "broadcom_fabric.yaml"
Config = dict[str, Any]


@cache
def _original(name: str) -> Config:
    data: Config = json.loads((CONFIGS / name).read_text())
    return data


def load(name: str) -> Config:
    """A fresh deep copy of a test config (tests mutate it)."""
    return copy.deepcopy(_original(name))


@cache
def linter(profile: str | None = None, intent: bool = False) -> Linter:
    """Linters are cached: an intent is compiled once for the whole test session."""
    return Linter(profile=profile, intent=INTENT if intent else None, switch="tor1" if intent else None)


def lint(config: Config | bytes | str, *, profile: str | None = None, intent: bool = False,
         file: str = "config_db.json") -> list[Finding]:
    data = config if isinstance(config, bytes) else (
        config.encode() if isinstance(config, str) else json.dumps(config, indent=2).encode())
    report = linter(profile, intent).lint_bytes(data, file)
    assert report.unusable is None, report.unusable
    return report.findings


def rules_of(findings: list[Finding]) -> set[str]:
    return {finding.rule for finding in findings}


@pytest.fixture
def configs() -> Path:
    return CONFIGS


@pytest.fixture
def load_named() -> Callable[[str], Config]:
    """load_named("broadcom_traditional.json") -> a fresh copy to mutate."""
    return load


@pytest.fixture
def lint_config() -> Callable[..., list[Finding]]:
    """lint_config(config, profile=None, intent=False) -> findings (asserts the input is usable)."""
    return lint
