"""host_settings.json read back: what ``lint --hosts`` and ``simulate --hosts`` compare with the
switches. A rendered document, or one an operator wrote for what a host really runs: only the
summary sections are read (``qos``, ``kernel``, ``classes``); unknown keys are refused so a typo
never silently drops a setting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from qosforge.errors import QosforgeError

DOCUMENT_FORMAT = "qosforge.host-settings/1"


Priority = Annotated[int, Field(ge=0, le=7)]
#: The six-bit DSCP field (RFC 2474 §3).
Dscp = Annotated[int, Field(ge=0, le=63)]


#: Congestion controls that negotiate ECN on their own, whatever net.ipv4.tcp_ecn or a route says
#: (TCP_CONG_NEEDS_ECN: net/ipv4/tcp_dctcp.c).
NEEDS_ECN_CONGESTION_CONTROLS = frozenset({"dctcp"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CnpDoc(_Strict):
    dscp: int = Field(ge=0, le=63)
    priority: int = Field(ge=0, le=7)


class DcqcnDoc(_Strict):
    rp_priorities: list[Priority]
    np_priorities: list[Priority]
    rai_bps: float = Field(gt=0)
    rhai_bps: float = Field(gt=0)
    timer_s: float = Field(gt=0)
    byte_counter_bytes: float = Field(gt=0)
    fast_recovery_stages: int = Field(ge=1)
    g: float = Field(gt=0, le=1)
    cnp_interval_s: float = Field(ge=0)
    min_rate_bps: float = Field(gt=0)


class QosDoc(_Strict):
    trust: Literal["dscp", "pcp"]
    dscp_to_priority: dict[str, Priority]
    """DSCP (as JSON object keys are: text) -> the NIC's priority."""
    pfc_priorities: list[Priority]
    cnp: CnpDoc | None = None
    dcqcn: DcqcnDoc | None = None
    retransmission: Literal["go-back-n", "selective-repeat"] | None = None
    """The RoCE NIC's loss recovery (go-back-N, or IRN's selective repeat); absent: each class's
    transport's (selective repeat for IRN, go-back-N for DCQCN)."""

    @field_validator("dscp_to_priority")
    @classmethod
    def _dscps(cls, value: dict[str, int]) -> dict[str, int]:
        bad = [key for key in value if not (key.isdigit() and int(key) <= 63)]
        if bad:
            raise ValueError(f"DSCP {bad[0]!r} is not a DSCP (0-63, RFC 2474 §3)")
        return value

    def priority_of(self, dscp: int) -> int:
        """The NIC's priority for ``dscp``: the document's mapping, else mlnx_qos's default DSCP >> 3."""
        return self.dscp_to_priority.get(str(dscp), dscp >> 3)


class KernelDoc(_Strict):
    tcp_congestion_control: str | None = None
    tcp_ecn: int | None = Field(default=None, ge=0, le=2)
    tcp_rto_min_us: int | None = Field(default=None, gt=0)
    """net.ipv4.tcp_rto_min_us (Linux 6.11, ip-sysctl.rst; default 200000); None: not set."""


class ClassDoc(_Strict):
    name: str
    transport: str
    dscp: list[Dscp] = Field(min_length=1)
    priority: int = Field(ge=0, le=7)
    lossless: bool
    congestion_control: str | None = None
    ecn: bool
    route_ecn: bool = False
    """The routes to the class's peers ask for ECN (ip-route(8) ``features ecn``): its
    connections negotiate ECN whatever ``net.ipv4.tcp_ecn`` says."""
    rto_min_s: float | None = Field(default=None, gt=0)
    """The minimum RTO of the routes to the class's peers (ip-route(8) ``rto_min``); None: the
    kernel's."""
    initial_window_segments: int | None = Field(default=None, ge=1)
    """The initial congestion window of those routes (ip-route(8) ``initcwnd``); None: Linux's
    10."""


class NicDoc(_Strict):
    profile: str
    vendor: str
    driver: str
    speed_bps: float = Field(gt=0)


class AttachmentDoc(_Strict):
    switch: str
    port: str


class HostSettingsDocument(_Strict):
    format: Literal["qosforge.host-settings/1"]
    host_kind: str
    nic: NicDoc
    attachments: list[AttachmentDoc] = Field(default_factory=list)
    qos: QosDoc
    kernel: KernelDoc
    classes: list[ClassDoc] = Field(min_length=1)
    """What the hosts send: a document without a class leaves nothing of DSCP, ECN or congestion
    control to check, so it is refused rather than passed."""
    values: list[dict[str, Any]] = Field(default_factory=list)
    manual: list[dict[str, Any]] = Field(default_factory=list)

def load_host_document(path: Path, flag: str = "--hosts") -> HostSettingsDocument:
    """Read and validate a host settings document; a bad file is a one-line error naming the
    file, the field and the fix."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QosforgeError(f"no such file: {path}", place=flag, hint="give a host_settings.json that compile --target host wrote") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise QosforgeError(f"{path} is not JSON ({error})", place=flag, hint="give a host_settings.json that compile --target host wrote") from None
    except RecursionError:  # Python's json parser recurses once per [ or {
        raise QosforgeError(
            f"{path} is nested too deeply to be a host settings document",
            place=flag,
            hint="give a host_settings.json that compile --target host wrote (it is 4 levels deep)",
        ) from None
    try:
        return HostSettingsDocument.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(document)"
        more = error.error_count() - 1
        raise QosforgeError(f"{path}: {where}: {first['msg']}" + (f" (and {more} more problems)" if more else ""), place=flag,
                            hint=f"a host settings document has format {DOCUMENT_FORMAT!r} (docs/hosts.md)") from None


__all__ = ["DOCUMENT_FORMAT", "NEEDS_ECN_CONGESTION_CONTROLS", "HostSettingsDocument",
           "load_host_document"]
