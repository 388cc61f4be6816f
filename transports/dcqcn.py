"""DCQCN (Zhu et al., SIGCOMM 2015): RoCEv2's congestion control in the NIC (reaction and
notification points, DCQCN §3.1) on a lossless class (DCQCN §2 relies on PFC); RED marking
K_min/K_max/P_max at the switch (DCQCN §5)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from qosforge.fields import Percent, SizeBytes
from qosforge.models.tlt import tlt_steady_queue
from qosforge.transports.marking import DCQCN_RED, dcqcn_red
from qosforge.transports.spec import (
    HostSettings,
    LosslessRule,
    Marking,
    MarkingInputs,
    TransportSpec,
)


#: The intent's ``dcqcn:`` block (also IRN's, which runs DCQCN's congestion control, IRN §4). (A comment, not a docstring: the intent's JSON Schema would show it.)
class DcqcnSpec(BaseModel):
    # strict: as the intent's models (compiler/intent.py _Strict), no YAML true for a number.
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)
    kmin: SizeBytes | None = None
    kmax: SizeBytes | None = None
    pmax: Percent | None = Field(default=None, description="P_max in percent, with the % sign (e.g. 1%, DCQCN's default).")


def dcqcn_block_marking(inputs: MarkingInputs, *, selective_retransmission: bool) -> Marking:
    """DCQCN's RED ramp with the class's ``dcqcn`` overrides, if any."""
    block = inputs.parameters if isinstance(inputs.parameters, DcqcnSpec) else None
    return dcqcn_red(inputs, kmin_bytes=block.kmin if block else None, kmax_bytes=block.kmax if block else None,
                     pmax_percent=block.pmax if block else None, selective_retransmission=selective_retransmission)


def _marking(inputs: MarkingInputs) -> Marking:
    return dcqcn_block_marking(inputs, selective_retransmission=False)


DCQCN = TransportSpec(
    name="dcqcn",
    paper="DCQCN (Zhu et al., SIGCOMM 2015)",
    host=HostSettings(congestion_control="dcqcn", ecn=True, nic_dcqcn=True),
    marking=_marking,
    marking_model=DCQCN_RED,
    block="dcqcn",
    parameters=DcqcnSpec,
    marking_fields=("kmin", "kmax"),
    lossless=LosslessRule("required", "DCQCN (RoCEv2) needs a lossless class",
                          "set lossless: true (DCQCN §2 relies on PFC), or use transport: irn, which recovers losses itself"),
    tlt=tlt_steady_queue("dcqcn"),
    flow_kind="dcqcn",
)
