"""Addresses, timeouts and inventory files: defaults, overrides, relative paths, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosforge.deliver.devices import (
    DeliveryInputError,
    GnmiConnection,
    load_inventory,
    parse_address,
    parse_timeout,
)


def test_addresses() -> None:
    assert parse_address("10.0.0.1:9339", "--address") == ("10.0.0.1", 9339)
    assert parse_address("[2001:db8::1]:57400", "--address") == ("2001:db8::1", 57400)
    for bad in ("10.0.0.1", ":9339", "host:x", "host:"):
        with pytest.raises(DeliveryInputError, match="not HOST:PORT"):
            parse_address(bad, "--address")
    for out_of_range in ("host:0", "host:70000", "[::1]:99999"):
        with pytest.raises(DeliveryInputError, match="outside 1-65535"):
            parse_address(out_of_range, "--address")


@given(st.text(max_size=30))
def test_address_parser_never_raises_anything_else(text: str) -> None:
    try:
        host, port = parse_address(text, "--address")
    except DeliveryInputError:
        return
    assert host and 0 < port < 65536


def test_timeouts() -> None:
    assert parse_timeout("500ms", "--timeout") == pytest.approx(0.5)
    with pytest.raises(DeliveryInputError, match="--timeout"):
        parse_timeout("10", "--timeout")


def test_inventory_defaults_overrides_and_relative_paths(tmp_path: Path) -> None:
    path = tmp_path / "fabric" / "inventory.yaml"
    path.parent.mkdir()
    path.write_text(
        "defaults: {tls_ca: pki/ca.pem, username: netops, timeout: 5s}\n"
        "switches:\n"
        "  leaf1: {address: '10.0.0.1:9339'}\n"
        "  lab: {address: '127.0.0.1:50051', insecure: true, username: lab, timeout: 1s}\n"
    )
    leaf1, lab = load_inventory(path, GnmiConnection(skip_verify=False, timeout_s=10.0))
    assert leaf1.name == "leaf1" and leaf1.address == "10.0.0.1:9339"
    assert leaf1.connection.tls_ca == path.parent / "pki" / "ca.pem" and leaf1.connection.username == "netops"
    assert leaf1.connection.timeout_s == pytest.approx(5.0)
    assert lab.connection.insecure and lab.connection.username == "lab" and lab.connection.timeout_s == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("switches: {}\n", "switches"),
        ("switches: {leaf1: {adress: '1.2.3.4:9339'}}\n", "adress"),
        ("switches: {leaf1: {tls_ca: ca.pem}}\n", "no address"),
        ("switches: {leaf1: {address: '1.2.3.4:9339', timeout: 5}}\n", "no unit"),
        ("switches: [leaf1\n", "not valid YAML"),
        ("switches: {leaf1: {address: 'nohost'}}\n", "not HOST:PORT"),
    ],
)
def test_bad_inventories_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "inventory.yaml"
    path.write_text(text)
    with pytest.raises(DeliveryInputError, match=message) as caught:
        load_inventory(path, GnmiConnection())
    assert str(path) in caught.value.one_line() and "\n" not in caught.value.one_line()


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("switches:\n  leaf1: {address: 127.0.0.1:9339\n  x: 1\n", ":3:4"),  # syntax: where the parser stopped
        ("switches:\n  leaf1:\n    address: '1.2.3.4:9339'\n    tls_ca: 5\n", ":4:5"),  # schema: the offending key
        ("switches:\n  leaf1:\n    address: nohost\n", ":3:5"),  # value: the address key
    ],
)
def test_inventory_errors_keep_line_and_column(tmp_path: Path, text: str, place: str) -> None:
    # YAML errors used to be squashed into one line without their position.
    path = tmp_path / "inventory.yaml"
    path.write_text(text)
    with pytest.raises(DeliveryInputError) as caught:
        load_inventory(path, GnmiConnection())
    assert caught.value.place is not None and caught.value.place.startswith(f"{path}{place}")
