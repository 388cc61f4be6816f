"""Where to deliver: a device's gNMI address and how to reach it (TLS, credentials, timeout),
from the command line (one ``--address``) or an inventory file (every switch of a fabric).

Inventory (YAML)::

    defaults: {tls_ca: ca.pem, username: netops, timeout: 10s}   # optional, for every switch
    switches:
      leaf1: {address: "10.0.0.1:9339"}
      leaf2: {address: "leaf2.example.net:9339", tls_cert: leaf2-client.pem, tls_key: leaf2-client.key}
      lab1:  {address: "127.0.0.1:9339", insecure: true}

Relative certificate paths are relative to the inventory file. Flags given on the command line
are the defaults that an inventory entry overrides. Passwords are never read from here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from qosforge.errors import QosforgeError, UnitError
from qosforge.units import parse_time_s


class DeliveryInputError(QosforgeError):
    """An unusable address, inventory or TLS setting (exit code 2)."""


@dataclass(frozen=True)
class GnmiConnection:
    """How to reach devices: TLS unless ``insecure``; ``skip_verify`` accepts any server certificate."""

    tls_ca: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    skip_verify: bool = False
    insecure: bool = False
    username: str | None = None
    timeout_s: float = 10.0


@dataclass(frozen=True)
class Device:
    name: str
    host: str
    port: int
    connection: GnmiConnection
    defined_at: str | None = None
    """``FILE:LINE:COLUMN: switches.NAME`` of an inventory entry (None for --address)."""

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_address(text: str, place: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``[IPv6]:PORT``."""
    host, separator, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if separator and host and port.isdigit() and not 0 < int(port) < 65536:
        raise DeliveryInputError(f"port {int(port)} in {text!r} is outside 1-65535", place=place,
                                 hint="a TCP port is 1-65535; gNMI's registered port is 9339 (IANA)")
    if not separator or not host or not port.isdigit():
        raise DeliveryInputError(f"{text!r} is not HOST:PORT", place=place, hint="write e.g. 10.0.0.1:9339 or [2001:db8::1]:9339")
    return host, int(port)


def parse_timeout(text: str, place: str) -> float:
    try:
        seconds = float(parse_time_s(text))
    except UnitError as error:
        raise DeliveryInputError(error.message, place=place, hint="write e.g. 10s or 500ms") from None
    if seconds <= 0:
        raise DeliveryInputError(f"{text!r} is not a positive time", place=place, hint="write e.g. 10s")
    return seconds


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str | None = None
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    skip_verify: bool | None = None
    insecure: bool | None = None
    username: str | None = None
    timeout: str | None = None

    @field_validator("timeout", mode="before")
    @classmethod
    def _timeout_is_text(cls, value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise ValueError(f"{value!r} has no unit; write it like 10s")
        return value


class _Inventory(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    defaults: _Entry = Field(default_factory=_Entry)
    switches: dict[str, _Entry] = Field(min_length=1)


def _apply(connection: GnmiConnection, entry: _Entry, base: Path, place: str) -> GnmiConnection:
    def path(value: str | None, current: Path | None) -> Path | None:
        return current if value is None else (base / value)

    return replace(
        connection,
        tls_ca=path(entry.tls_ca, connection.tls_ca),
        tls_cert=path(entry.tls_cert, connection.tls_cert),
        tls_key=path(entry.tls_key, connection.tls_key),
        skip_verify=connection.skip_verify if entry.skip_verify is None else entry.skip_verify,
        insecure=connection.insecure if entry.insecure is None else entry.insecure,
        username=connection.username if entry.username is None else entry.username,
        timeout_s=connection.timeout_s if entry.timeout is None else parse_timeout(entry.timeout, f"{place}.timeout"),
    )


def _yaml_place(path: Path, mark: Any) -> str:
    """``FILE:LINE:COLUMN`` (1-based) of a ruamel mark, or the file alone."""
    line, column = getattr(mark, "line", None), getattr(mark, "column", None)
    return f"{path}:{line + 1}:{column + 1}" if line is not None and column is not None else str(path)


def _position(tree: Any, loc: tuple[Any, ...]) -> tuple[int, int] | None:
    """(line, column), 0-based, of the deepest key of ``loc`` present in a round-trip YAML tree."""
    found = None
    node = tree
    for part in loc:
        lc = getattr(node, "lc", None)
        if not isinstance(node, dict) or part not in node or lc is None:
            break
        found = lc.key(part)
        node = node[part]
    return found


def load_inventory(path: Path, connection: GnmiConnection) -> tuple[Device, ...]:
    """Every switch of an inventory file, with ``connection`` as the defaults it overrides. Errors
    name ``FILE:LINE:COLUMN`` of the offending YAML (a round-trip parse keeps the positions)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        text = path.read_text(encoding="utf-8")
        data = YAML(typ="safe").load(text)
        tree = YAML(typ="rt").load(text)
    except (OSError, UnicodeDecodeError) as error:
        raise DeliveryInputError(f"cannot read the inventory: {error}", place=str(path), hint="give a readable YAML file") from None
    except MarkedYAMLError as error:
        problem = " ".join(str(error.problem or error.context or "syntax error").split())
        raise DeliveryInputError(f"not valid YAML: {problem}", place=_yaml_place(path, error.problem_mark or error.context_mark),
                                 hint="fix the YAML syntax there") from None
    except YAMLError as error:
        raise DeliveryInputError(f"not valid YAML: {' '.join(str(error).split())}", place=str(path), hint="fix the YAML syntax") from None
    try:
        inventory = _Inventory.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        position = _position(tree, tuple(first["loc"]))
        place = f"{path}:{position[0] + 1}:{position[1] + 1}" if position is not None else str(path)
        raise DeliveryInputError(f"{where}: {first['msg']}", place=place,
                                 hint="an inventory has 'switches: {NAME: {address: HOST:PORT, ...}}' and optional 'defaults'") from None
    base = path.parent
    defaults = _apply(connection, inventory.defaults, base, f"{path}: defaults")
    devices = []
    for name, entry in inventory.switches.items():
        position = _position(tree, ("switches", name))
        place = f"{path}:{position[0] + 1}:{position[1] + 1}: switches.{name}" if position is not None else f"{path}: switches.{name}"
        if entry.address is None:
            raise DeliveryInputError("no address", place=place, hint="add 'address: HOST:PORT'")
        at = _position(tree, ("switches", name, "address"))
        host, port = parse_address(entry.address, f"{path}:{at[0] + 1}:{at[1] + 1}: switches.{name}.address" if at is not None else f"{place}.address")
        devices.append(Device(name, host, port, _apply(defaults, entry, base, place), defined_at=place))
    return tuple(devices)


__all__ = ["DeliveryInputError", "Device", "GnmiConnection", "load_inventory", "parse_address", "parse_timeout"]
