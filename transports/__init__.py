"""The transport registry: one :class:`~qosforge.transports.spec.TransportSpec` per congestion
control (transports/spec.py), one module each, registered here in the order the intent's schema
lists them. Adding one: docs/extending/transport.md."""

from qosforge.transports.d2tcp import D2TCP
from qosforge.transports.dcqcn import DCQCN
from qosforge.transports.dctcp import DCTCP
from qosforge.transports.ear import EAR
from qosforge.transports.hpcc import HPCC
from qosforge.transports.irn import IRN
from qosforge.transports.spec import (
    HostSettings,
    LosslessRule,
    Marking,
    MarkingInputs,
    MarkingModel,
    TransportSpec,
    accepted_transports,
    blocks_setting_marking,
    find_transport,
    parameter_blocks,
    rdma_transports,
    refused_transports,
    register,
    roce_hint,
    seal,
    transport,
    transport_hint,
    transport_names,
    transports,
    transports_with_block,
)
from qosforge.transports.tbtcp import TBTCP
from qosforge.transports.tcp import TCP

for _spec in (TCP, DCTCP, TBTCP, D2TCP, EAR, DCQCN, HPCC, IRN):
    register(_spec)

__all__ = ["HostSettings", "LosslessRule", "Marking", "MarkingInputs", "MarkingModel", "TransportSpec", "accepted_transports",
           "blocks_setting_marking", "find_transport", "parameter_blocks", "rdma_transports", "refused_transports", "register", "roce_hint", "seal", "transport",
           "transport_hint", "transport_names", "transports", "transports_with_block"]
