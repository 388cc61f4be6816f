"""The transport registry: one :class:`~qosforge.transports.spec.TransportSpec` per congestion
control (transports/spec.py), one module each, registered here from the ``qosforge.transports``
entry-point group (qosforge/plugins.py: the built-ins in the intent schema's order, then any
installed plugin's). Adding one: docs/extending/transport.md."""

from qosforge import plugins
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

for _reference, _spec in plugins.load(plugins.TRANSPORTS, TransportSpec):
    register(_spec)
__all__ = ["HostSettings", "LosslessRule", "Marking", "MarkingInputs", "MarkingModel", "TransportSpec", "accepted_transports",
           "blocks_setting_marking", "find_transport", "parameter_blocks", "rdma_transports", "refused_transports", "register", "roce_hint", "seal", "transport",
           "transport_hint", "transport_names", "transports", "transports_with_block"]
