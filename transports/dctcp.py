"""DCTCP (Alizadeh et al., SIGCOMM 2010): step ECN marking at K (DCTCP §3.4), Linux tcp_dctcp
on the hosts (Documentation/networking/dctcp.rst; RFC 8257 §3.2-3.3)."""

from qosforge.models.tlt import tlt_steady_queue
from qosforge.transports.marking import DCTCP_STEP, dctcp_step
from qosforge.transports.spec import HostSettings, TransportSpec

DCTCP = TransportSpec(
    name="dctcp",
    paper="DCTCP (Alizadeh et al., SIGCOMM 2010)",
    host=HostSettings(congestion_control="dctcp", ecn=True),
    marking=dctcp_step,
    marking_model=DCTCP_STEP,
    tlt=tlt_steady_queue("dctcp"),
    flow_kind="dctcp",
)
