"""TCP (the kernel's default, CUBIC on Linux): reacts to loss, so the switch marks no ECN; its
senders run whatever the kernel defaults to (the intent does not constrain it), which the software
switch's hosts run as CUBIC (RFC 9438; Linux net/ipv4/tcp_cubic.c)."""

from qosforge.models.tlt import tlt_steady_queue
from qosforge.transports.spec import HostSettings, TransportSpec

TCP = TransportSpec(
    name="tcp",
    paper="TCP (RFC 5681 congestion control; the kernel's default congestion control)",
    host=HostSettings(congestion_control=None, ecn=False),
    tlt=tlt_steady_queue("tcp"),
    flow_kind="cubic",
)
