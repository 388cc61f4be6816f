"""Checks of the PEM files a gNMI connection is given, made before gRPC reads them: gRPC's C core
reports a key that does not match its certificate as "Failed to bind" and a CA file that is no
certificate as "Failed to create security handshaker", neither naming the file. Python's ssl
module (OpenSSL, as gRPC's BoringSSL parses PEM) says which file is wrong and how."""

from __future__ import annotations

import ssl
from pathlib import Path

from qosforge.errors import QosforgeError


def check_certificates(path: Path, flag: str, place: str | None = None) -> None:
    """``path`` holds at least one PEM certificate (``-----BEGIN CERTIFICATE-----``)."""
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=str(path))
    except ssl.SSLError:
        raise QosforgeError(
            f"{path} holds no PEM certificate",
            place=_where(place, flag),
            hint=f"give {flag} a PEM file starting with -----BEGIN CERTIFICATE-----",
        ) from None
    except OSError as error:
        raise QosforgeError(
            f"cannot read {path}: {error.strerror}",
            place=_where(place, flag),
            hint="give a readable PEM file",
        ) from None


def check_key_pair(certificate: Path, key: Path, place: str | None = None) -> None:
    """``certificate`` is a PEM certificate and ``key`` the unencrypted PEM private key of it."""
    check_certificates(certificate, "--tls-cert", place)
    try:
        # The password callback refuses an encrypted key instead of prompting on the terminal
        # (gRPC cannot decrypt one either).
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(certificate), str(key), password=_no_password)
    except ssl.SSLError as error:
        if getattr(error, "reason", None) == "KEY_VALUES_MISMATCH":
            raise QosforgeError(
                f"the key {key} does not belong to the certificate {certificate}",
                place=_where(place, "--tls-key"),
                hint="give the private key the certificate was issued for",
            ) from None
        raise QosforgeError(
            f"{key} holds no unencrypted PEM private key",
            place=_where(place, "--tls-key"),
            hint="give a PEM key (-----BEGIN PRIVATE KEY-----); decrypt an encrypted one with "
                 "openssl pkey",
        ) from None
    except OSError as error:
        raise QosforgeError(
            f"cannot read {key}: {error.strerror}",
            place=_where(place, "--tls-key"),
            hint="give a readable PEM file",
        ) from None


def check_connection_files(
    insecure: bool,
    tls_ca: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    place: str,
) -> None:
    """The PEM files a TLS connection will read, checked before anything runs or connects (a
    dry run, a tune that pushes when it is done): ``place`` names the device."""
    if insecure:
        return
    if tls_ca:
        check_certificates(tls_ca, "--tls-ca", place)
    if tls_cert and tls_key:
        check_key_pair(tls_cert, tls_key, place)


def _no_password() -> str:
    raise ssl.SSLError("the key is encrypted")


def _where(place: str | None, flag: str) -> str:
    return f"{place}: {flag}" if place else flag


__all__ = ["check_certificates", "check_connection_files", "check_key_pair"]
