"""Reading ``--base``: one switch's running config_db.json, or a folder of ``<switch>/config_db.json``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qosforge.backends.sonic.gcu_patch import BaseConfigError, check_base_config, gcu_patch
from qosforge.backends.sonic.render import ConfigDb


def _read(path: Path) -> dict[str, Any]:
    place = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BaseConfigError("no such file", place=place, hint="give a running config_db.json or a folder of <switch>/config_db.json") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BaseConfigError(f"cannot read the base config ({error.__class__.__name__}: {error})", place=place, hint="check the path and its permissions") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise BaseConfigError(f"not JSON: {error.msg} at line {error.lineno} column {error.colno}", place=place, hint="give the switch's running config: sonic-cfggen -d --print-data > config_db.json") from None
    config = check_base_config(document, place)
    _refuse_dynamic_buffer_model(config, place)
    return config


def _refuse_dynamic_buffer_model(config: dict[str, Any], place: str) -> None:
    """qosforge renders the traditional buffer model. Under ``buffer_model: dynamic`` buffermgrd is
    buffermgrdyn (sonic-swss cfgmgr/buffermgrdyn.cpp): it computes lossless PG profiles itself
    and removes or replaces statically sized ones, so a patch of traditional profiles on it
    would not hold; there is no safe partial path."""
    metadata = config.get("DEVICE_METADATA", {})
    localhost = metadata.get("localhost", {}) if isinstance(metadata, dict) else {}
    if isinstance(localhost, dict) and localhost.get("buffer_model") == "dynamic":
        raise BaseConfigError(
            "the running config uses DEVICE_METADATA.buffer_model 'dynamic'; qosforge renders the traditional model",
            place=f"{place} DEVICE_METADATA|localhost.buffer_model",
            hint="switch the device to the traditional buffer model (set buffer_model: traditional and config reload) before applying, or deploy without --base",
        )


def read_base_configs(path: Path, switches: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each switch's base config: ``path`` itself when it is a file (one switch only), else
    ``path/<switch>/config_db.json`` for every switch."""
    if path.is_dir():
        return {name: _read(path / name / "config_db.json") for name in switches}
    if not path.exists():
        raise BaseConfigError(
            "no such file or folder", place=f"--base {path}",
            hint="give a switch's running config_db.json (sonic-cfggen -d --print-data) or a folder of <switch>/config_db.json",
        )
    if len(switches) != 1:
        raise BaseConfigError(
            f"a base file is one switch's running config, but {len(switches)} switches are compiled",
            place=f"--base {path}",
            hint="compile one switch (--switch NAME), or give a folder of <switch>/config_db.json",
        )
    return {switches[0]: _read(path)}


def gcu_patch_texts(path: Path, configs: dict[str, ConfigDb], port_speeds_bps: dict[str, dict[str, float]] | None = None) -> dict[str, str]:
    """``gcu-patch.json`` text per switch: the patch from its base config to its compiled one
    (refused where the running port speeds are not the ones compiled for)."""
    bases = read_base_configs(path, list(configs))
    speeds = port_speeds_bps or {}
    return {
        name: json.dumps(gcu_patch(bases[name], config, place=f"--base for switch {name}", port_speeds_bps=speeds.get(name)), indent=2) + "\n"
        for name, config in configs.items()
    }


__all__ = ["gcu_patch_texts", "read_base_configs"]
