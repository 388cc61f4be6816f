"""HPCC (Li et al., SIGCOMM 2019): named by the schema so the compiler refuses it with its reason
(compiler/plan.py), but never compiled: HPCC steers by INT, which no qosforge output configures."""

from qosforge.models.tlt import tlt_steady_queue
from qosforge.transports.spec import HostSettings, TransportSpec

HPCC = TransportSpec(
    name="hpcc",
    paper="HPCC (Li et al., SIGCOMM 2019)",
    host=HostSettings(congestion_control=None, ecn=False),
    tlt=tlt_steady_queue("hpcc"),
    refused="HPCC senders react to in-band network telemetry (INT) from every switch, not to ECN marks "
            "(HPCC, SIGCOMM 2019, §3), and no qosforge output (SONiC, SAI, OpenConfig) can enable INT",
)
