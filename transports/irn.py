"""IRN (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018): RoCE without PFC.
It keeps DCQCN's congestion control and ECN marking (IRN §4; TLT §7.1 runs "DCQCN with IRN") on a
lossy class; its selective retransmission replaces PFC (IRN §1, §3)."""

from __future__ import annotations

from qosforge.models.tlt import tlt_steady_queue
from qosforge.transports.dcqcn import DcqcnSpec, dcqcn_block_marking
from qosforge.transports.spec import (
    HostSettings,
    LosslessRule,
    Marking,
    MarkingInputs,
    TransportSpec,
)

SOURCE_IRN_LOSSY = (
    "IRN (Mittal et al., 'Revisiting Network Support for RDMA', SIGCOMM 2018) §1, §3: IRN's loss "
    "recovery (selective retransmission, BDP-FC) exists to run RoCE without PFC"
)


def _marking(inputs: MarkingInputs) -> Marking:
    return dcqcn_block_marking(inputs, selective_retransmission=True)


IRN = TransportSpec(
    name="irn",
    paper="IRN (Mittal et al., SIGCOMM 2018)",
    host=HostSettings(congestion_control="dcqcn", ecn=True, nic_dcqcn=True),
    marking=_marking,
    # lint checks no marking for IRN yet (lint/rules/transport.py checks DCQCN's on dcqcn classes only).
    marking_model=None,
    block="dcqcn",
    parameters=DcqcnSpec,
    marking_fields=("kmin", "kmax"),
    lossless=LosslessRule("refused", f"class '{{name}}': IRN is meant to run without PFC ({SOURCE_IRN_LOSSY})",
                          "remove lossless: true (IRN gets DCQCN's ECN marking on a lossy queue), or use transport: dcqcn for a lossless class"),
    tlt=tlt_steady_queue("irn"),
    flow_kind="dcqcn",
    flow_kind_note="IRN runs over DCQCN (TLT §4.2) with IRN's selective repeat and BDP-FC (softswitch/engine/selective_repeat.py)",
)
