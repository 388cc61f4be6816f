"""Reading ``--base``: one switch's running config_db.json, or a folder of ``<switch>/config_db.json``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qosforge.backends.sonic.facts import VendorFact, vendor_from_metadata
from qosforge.backends.sonic.gcu_patch import (
    BaseConfigError,
    check_base_config,
    gcu_patch,
    ports_losing_qos,
)
from qosforge.backends.sonic.gcu_validators import (
    Refusal,
    branch_of,
    gcu_refusals,
    required_branch,
)
from qosforge.backends.sonic.hwsku import GCU_ASIC_OF_PROFILE, asic_name, gcu_asic_of_hwsku
from qosforge.backends.sonic.render import ConfigDb
from qosforge.vendor_profiles.schema import VendorProfile


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
    except RecursionError:  # Python's json parser recurses once per [ or {
        raise BaseConfigError(
            "nested too deeply to be a config_db.json",
            place=place,
            hint="give the switch's running config: sonic-cfggen -d --print-data > config_db.json",
        ) from None
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


@dataclass(frozen=True)
class BasePatch:
    """What ``compile --base`` makes of one switch's running config."""

    switch: str
    text: str | None
    """``gcu-patch.json``, or None where GCU's field-operation validators would refuse the change."""
    refusals: tuple[Refusal, ...]
    ports_losing_qos: tuple[str, ...]
    """Ports with QoS entries in the running config that the compiled one lacks: the patch (or a
    ``config qos clear`` + ``config load``) removes their QoS."""
    branch: str | None = None
    """The running image's SONiC branch, None where the running config does not say."""
    required_branch: str | None = None
    """The first SONiC branch on which GCU accepts every operation of the patch (None: any)."""


def _localhost(config: dict[str, Any]) -> dict[str, Any]:
    metadata = config.get("DEVICE_METADATA", {})
    localhost = metadata.get("localhost", {}) if isinstance(metadata, dict) else {}
    return localhost if isinstance(localhost, dict) else {}


def _profile_vendor(profile: VendorProfile) -> str | None:
    """What a vendor profile's switch is, for the base check: the ASIC vendor a running config of
    it names (``facts.vendor_from_metadata``), ``vs`` (SONiC's virtual switch), or None for a
    switch no running SONiC is (qosforge's own simulated one)."""
    if profile.name == "vs":
        return "vs"
    lowered = profile.vendor.lower()
    return next((vendor for vendor in ("mellanox", "broadcom", "barefoot") if vendor in lowered), None)


def _is_virtual(localhost: dict[str, Any]) -> bool:
    """SONiC-VS: its platform is x86_64-kvm_x86_64-r0 (sonic-buildimage platform/vs), whatever
    HWSKU it imitates (Force10-S6000 by default, which GCU reads as td2)."""
    platform, asic_type = localhost.get("platform"), localhost.get("asic_type")
    return (isinstance(platform, str) and "kvm" in platform.lower()) or asic_type == "vs"


def _wrong_switch(place: str, field: str, running: str, profile: VendorProfile,
                  hint: str) -> BaseConfigError:
    expected = GCU_ASIC_OF_PROFILE.get(profile.name)
    if expected is not None or profile.name == "vs":
        what = ""
    elif _profile_vendor(profile) is not None:
        what = ", an ASIC GCU has no name for"
    else:
        what = ", a simulated switch"
    return BaseConfigError(
        f"the running switch is {running}, but the intent compiles this switch for vendor profile "
        f"{profile.name} ({profile.vendor} {profile.asic}{what}): its pools and headroom are sized "
        "for that switch's buffer",
        place=f"{place} DEVICE_METADATA|localhost.{field}",
        hint=hint + ", or check that the base is this switch's running config")


def _field_of(fact: VendorFact) -> str:
    """The ``DEVICE_METADATA|localhost`` field a vendor fact was read from (``platform``...)."""
    return fact.source.split(".", 1)[-1].split(" ", 1)[0]


def running_gcu_asic(config: dict[str, Any], profile: VendorProfile, place: str) -> str | None:
    """GCU's name for the running switch's ASIC, after refusing a running config whose
    ``DEVICE_METADATA|localhost`` platform/HWSKU is another switch than the intent's profile: its
    pools and headroom were sized for that profile's buffer, not this switch's. A profile GCU has
    no ASIC name for (Trident, Tofino 2) is not any ASIC GCU names; the simulated ``softswitch``
    is no running switch at all; ``vs`` is only SONiC's virtual switch."""
    localhost = _localhost(config)
    hwsku = localhost.get("hwsku")
    running = gcu_asic_of_hwsku(hwsku) if isinstance(hwsku, str) else None
    fact = vendor_from_metadata(config)
    expected = GCU_ASIC_OF_PROFILE.get(profile.name)
    expected_vendor = _profile_vendor(profile)
    suggestion = next((name for name, asic in GCU_ASIC_OF_PROFILE.items() if asic == running), None)
    any_profile = "give the intent the switch's vendor profile (qosforge profiles list)"
    fix = f"give this switch's profile as {suggestion} in the intent" if suggestion else any_profile
    if expected_vendor == "vs":
        if not _is_virtual(localhost) and (running is not None or fact.vendor is not None):
            field = "hwsku" if running is not None else _field_of(fact)
            what = (f"a {asic_name(running)} (HWSKU {hwsku})" if running
                    else f"a {fact.vendor} switch ({fact.source})")
            raise _wrong_switch(place, field, f"{what}, not SONiC's virtual switch", profile, fix)
        return running
    if running is not None and running != expected:
        what = f"a {asic_name(running)} (HWSKU {hwsku}, as SONiC's GCU reads it)"
        raise _wrong_switch(place, "hwsku", what, profile, fix)
    # Where GCU names no ASIC, the vendor the platform, HWSKU or asic_type names must still be
    # the profile's (a simulated switch's profile has none: any real vendor is refused).
    if running is None and fact.vendor is not None and fact.vendor != expected_vendor:
        what = f"a {fact.vendor} switch ({fact.source})"
        raise _wrong_switch(place, _field_of(fact), what, profile, any_profile)
    return running if running is not None else (expected if not isinstance(hwsku, str) else None)


def running_branch(config: dict[str, Any]) -> str | None:
    """The running image's SONiC branch from ``DEVICE_METADATA|localhost.build_version`` where the
    config carries it (GCU reads the image's /etc/sonic/sonic_version.yml; config_db has it only
    where an operator copied it from ``show version``), as GCU reads it (:func:`branch_of`)."""
    version = _localhost(config).get("build_version")
    return branch_of(version) if isinstance(version, str) else None


def base_patches(path: Path, configs: dict[str, ConfigDb], profiles: dict[str, VendorProfile],
                 port_speeds_bps: dict[str, dict[str, float]] | None = None) -> list[BasePatch]:
    """Per switch: the GCU patch from its running config to the compiled one, unless GCU would
    refuse it (backends/sonic/gcu_validators.py), and the ports whose QoS it removes. Refused
    (exit 2, nothing written) where the running config is another ASIC, runs the dynamic buffer
    model, lacks a compiled port or runs a port at another speed."""
    bases = read_base_configs(path, list(configs))
    speeds = port_speeds_bps or {}
    results = []
    for name, config in configs.items():
        place = f"--base for switch {name}"
        asic = running_gcu_asic(bases[name], profiles[name], place)
        branch = running_branch(bases[name])
        patch = gcu_patch(bases[name], config, place=place, port_speeds_bps=speeds.get(name))
        refusals = tuple(gcu_refusals(bases[name], patch, asic, branch))
        text = None if refusals else json.dumps(patch, indent=2) + "\n"
        needed = (required_branch(bases[name], patch, asic)
                  if asic is not None and not refusals else None)
        losing = tuple(ports_losing_qos(bases[name], config))
        results.append(BasePatch(name, text, refusals, losing, branch, needed))
    return results


__all__ = ["BasePatch", "base_patches", "read_base_configs", "running_branch", "running_gcu_asic"]
