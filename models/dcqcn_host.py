"""DCQCN host side: the reaction point (RP, the sender's NIC) and notification point (NP, the
receiver's NIC) parameters a sender at a given line rate runs with.

DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, §3.1 and
its parameter settings): g = 1/256; the alpha and rate-increase timer K = 55 us (both restart
when a CNP arrives); byte counter B = 10 MB; F = 5 fast-recovery stages; at most one CNP per flow
every 50 us at the NP. The same values are the DCQCN authors' own simulator configuration
(bobzhuyb/ns3-rdma mix/config.txt: CNP_INTERVAL 50, ALPHA_RESUME_INTERVAL 55, DCTCP_GAIN 1/256,
FAST_RECOVERY_TIMES 5) and HPCC's "dcqcn_paper" setting (alibaba-edu/High-Precision-Congestion-Control
run.py: t_alpha 50, t_dec 50, t_inc 55).

The rate-increase steps are stated at the paper's 40 Gb/s and scale with the sender's line rate:
R_AI = 40 Mb/s and R_HAI = 200 Mb/s at 40 Gb/s (bobzhuyb/ns3-rdma mix/config.txt RATE_AI 40Mb/s,
RATE_HAI 200Mb/s on 40G links), proportional to the NIC rate as HPCC's run.py scales them
(ai = 5·bw/25, hai = 50·bw/25 Mb/s). The software switch's DCQCN hosts (softswitch/engine/dcqcn.py)
step by exactly these values, so a host configured from :func:`dcqcn_host` is the host the
simulator runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosforge.errors import ModelInputError
from qosforge.provenance import Derivation, Provenance, input_value, quantity

# NumPy-free on purpose: the software switch's traffic spec (softswitch/traffic/spec.py) reads these
# constants and `qosforge simulate --help` must not load NumPy (tests/cli/test_startup.py);
# models/dcqcn.py takes the paper's reference rate and citation from here.
SOURCE_DCQCN = "Zhu et al., 'Congestion Control for Large-Scale RDMA Deployments', SIGCOMM 2015"
#: Link rate at which the DCQCN paper's defaults are stated (its 40 Gbps testbed).
DCQCN_REFERENCE_RATE_BPS = 40e9

#: §3.1: alpha <- (1 - g) alpha + g per CNP, g = 1/256.
DCQCN_G = 1.0 / 256.0
#: §3.1: alpha decays and the rate-increase timer fires after K = 55 us without a CNP.
DCQCN_TIMER_S = 55e-6
#: §3.1: byte counter B = 10 MB (a rate-increase event per 10 MB sent).
DCQCN_BYTE_COUNTER_BYTES = 10e6
#: §3.1: F = 5 fast-recovery stages before additive increase.
DCQCN_F = 5
#: R_AI and R_HAI at DCQCN_REFERENCE_RATE_BPS (40 Gb/s).
DCQCN_RAI_BPS = 40e6
DCQCN_RHAI_BPS = 200e6
#: §3.1 (NP): at most one CNP per flow every 50 us.
DCQCN_CNP_INTERVAL_S = 50e-6
#: A rate floor so a flow can always recover (HPCC ns-3 rdma-hw.cc MinRate default 100 Mb/s).
DCQCN_MIN_RATE_BPS = 100e6

SOURCE_STEPS = (f"{SOURCE_DCQCN} §3.1 at 40 Gb/s (bobzhuyb/ns3-rdma mix/config.txt RATE_AI 40Mb/s, RATE_HAI 200Mb/s), "
                "scaled with the line rate as alibaba-edu/High-Precision-Congestion-Control simulation/run.py scales them")
SOURCE_TIMERS = f"{SOURCE_DCQCN} §3.1 (K = 55 us, B = 10 MB, F = 5, g = 1/256; bobzhuyb/ns3-rdma mix/config.txt)"
SOURCE_NP = f"{SOURCE_DCQCN} §3.1 (NP: one CNP per flow per 50 us; bobzhuyb/ns3-rdma mix/config.txt CNP_INTERVAL 50)"
SOURCE_MIN_RATE = "alibaba-edu/High-Precision-Congestion-Control simulation/src/point-to-point/model/rdma-hw.cc MinRate default 100 Mb/s"


@dataclass(frozen=True, kw_only=True)
class DcqcnHost:
    line_rate_bps: float = quantity("bps", "the sender's NIC line rate")
    rai_bps: float = quantity("bps", "additive-increase step R_AI")
    rhai_bps: float = quantity("bps", "hyper-increase step R_HAI")
    timer_s: float = quantity("s", "alpha / rate-increase timer K")
    byte_counter_bytes: float = quantity("B", "byte counter B between rate-increase events")
    fast_recovery_stages: float = quantity("stages", "fast-recovery stages F")
    g: float = quantity("1", "alpha gain g")
    cnp_interval_s: float = quantity("s", "NP: least time between two CNPs of a flow")
    min_rate_bps: float = quantity("bps", "RP rate floor")
    provenance: Provenance


def dcqcn_host(line_rate_bps: float) -> DcqcnHost:
    """The RP/NP parameters of a DCQCN sender at ``line_rate_bps``."""
    if not line_rate_bps > 0:
        raise ModelInputError(f"line rate {line_rate_bps!r} b/s is not positive", place="line_rate_bps", hint="e.g. 100G")
    scale = line_rate_bps / DCQCN_REFERENCE_RATE_BPS
    return DcqcnHost(
        line_rate_bps=line_rate_bps,
        rai_bps=DCQCN_RAI_BPS * scale,
        rhai_bps=DCQCN_RHAI_BPS * scale,
        timer_s=DCQCN_TIMER_S,
        byte_counter_bytes=DCQCN_BYTE_COUNTER_BYTES,
        fast_recovery_stages=float(DCQCN_F),
        g=DCQCN_G,
        cnp_interval_s=DCQCN_CNP_INTERVAL_S,
        min_rate_bps=DCQCN_MIN_RATE_BPS,
        provenance=Provenance(
            model="dcqcn_host",
            inputs=(input_value("line_rate_bps", line_rate_bps, "bps"), input_value("reference_rate_bps", DCQCN_REFERENCE_RATE_BPS, "bps")),
            derivations=(
                Derivation("rai_bps", "40 Mb/s * line_rate_bps / 40 Gb/s", SOURCE_STEPS),
                Derivation("rhai_bps", "200 Mb/s * line_rate_bps / 40 Gb/s", SOURCE_STEPS),
                Derivation("timer_s", "K = 55 us", SOURCE_TIMERS),
                Derivation("byte_counter_bytes", "B = 10 MB", SOURCE_TIMERS),
                Derivation("fast_recovery_stages", "F = 5", SOURCE_TIMERS),
                Derivation("g", "g = 1/256", SOURCE_TIMERS),
                Derivation("cnp_interval_s", "50 us", SOURCE_NP),
                Derivation("min_rate_bps", "100 Mb/s", SOURCE_MIN_RATE),
            ),
        ),
    )


__all__ = [
    "DCQCN_BYTE_COUNTER_BYTES",
    "DCQCN_CNP_INTERVAL_S",
    "DCQCN_F",
    "DCQCN_G",
    "DCQCN_MIN_RATE_BPS",
    "DCQCN_RAI_BPS",
    "DCQCN_REFERENCE_RATE_BPS",
    "DCQCN_RHAI_BPS",
    "DCQCN_TIMER_S",
    "SOURCE_DCQCN",
    "DcqcnHost",
    "dcqcn_host",
]
