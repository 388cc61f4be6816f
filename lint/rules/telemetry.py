"""The rules of ``qosforge watch``: a running switch's counters held against what the compiler
predicted (docs/telemetry.md). They live in the lint registry so they share its ids, severities,
formats, exit codes and docs/rules.md; their checks run on counters, not on a config file
(:mod:`qosforge.lint.watch.rules`), so ``check`` is None here and ``qosforge lint`` never runs them.
"""

from __future__ import annotations

from qosforge.lint.context import Needs
from qosforge.lint.findings import Severity
from qosforge.lint.rules.base import Rule

_NEEDS: Needs = "counters"

LOSSLESS_PG_DROP = Rule(
    "watch-lossless-pg-drop", Severity.ERROR, "telemetry", "a lossless priority group dropped packets",
    "A priority group with PFC is lossless by design: before its headroom fills the switch sends XOFF and "
    "the peer stops (IEEE 802.1Qbb); the compiler sized the headroom for every byte still in flight "
    "(report.json pfc_headroom, the physical model of IEEE 802.3 Annex 31B or SONiC's "
    "buffer_headroom_*.lua). Drops there (SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS, the "
    "PG_DROP flex-counter group) mean the headroom is short of what arrives after XOFF: a cut "
    "headroom profile, a cable longer than the intent says, or a peer slower to react than 802.3 "
    "allows. The finding names the port and priority group, the drops seen and the headroom the "
    "compiler predicted with its provenance.",
    "compare the port's BUFFER_PG/BUFFER_PROFILE with the compiled config_db (qosforge diff, lint "
    "--profile) and the cable length in the intent; restore the compiled headroom",
    needs=_NEEDS)

LOSSLESS_QUEUE_DROP = Rule(
    "watch-lossless-queue-drop", Severity.ERROR, "telemetry", "a lossless class's queue dropped packets",
    "A lossless class's egress queue must not drop: PFC pauses the senders instead. Drops counted "
    "on its queue (SONiC's SAI_QUEUE_STAT_DROPPED_PACKETS; openconfig-qos dropped-pkts) mean the PFC chain "
    "is broken somewhere: PFC not enabled on the priority, DSCP classified to another priority "
    "group, or an egress limit below what PFC needs. Drops the PFC watchdog made on a queue it "
    "found stormed (action drop) are the watchdog's doing and reported by "
    "watch-pfcwd-triggered instead.",
    "check PORT_QOS_MAP pfc_enable and the DSCP/TC/PG maps of the port against the compiled config",
    needs=_NEEDS)

HEADROOM_EXCEEDED = Rule(
    "watch-headroom-exceeded", Severity.ERROR, "telemetry", "a priority group used more headroom than its XOFF margin",
    "The headroom watermark of a lossless priority group "
    "(SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES, SONiC's PG_WATERMARK group) is the "
    "most it ever held after sending XOFF. The compiler's xoff is its prediction of exactly that: the "
    "bytes still in flight when the peer reacts (IEEE 802.3 Annex 31B pause quanta, cable round "
    "trip, frames on both ends; or sonic-swss cfgmgr/buffer_headroom_*.lua in SONiC mode). More than xoff means the model's inputs are wrong for this link (cable, PHY delay, peer "
    "response), and the lossless guarantee rests on the rest of the profile's size.",
    "measure the link (cable length, gearbox/retimer delay: intent phy_delay) and recompile; "
    "until then raise the port's headroom",
    needs=_NEEDS)

PFC_PAUSE = Rule(
    "watch-pfc-pause", Severity.WARNING, "telemetry", "a priority spent more time paused than the threshold",
    "PFC pause duration (SAI_PORT_STAT_PFC_n_RX_PAUSE_DURATION_US, collected by SONiC's PFC "
    "watchdog on Mellanox and VS platforms, sonic-swss orchagent/orchdaemon.cpp) grew by more than "
    "--max-pause of the time watched: the port's egress on that priority sat idle that long, and "
    "so did everything queued behind it upstream (head-of-line blocking, Zhu et al., DCQCN "
    "SIGCOMM 2015 §2). Needs two samples (streaming); --once cannot tell a rate.",
    "find the congested receiver behind the port (qosforge simulate the same incast); the DCQCN/"
    "DCTCP marking thresholds should keep queues below XOFF most of the time",
    needs=_NEEDS)

PFC_STORM = Rule(
    "watch-pfc-storm", Severity.ERROR, "telemetry", "a priority was paused without end (PFC storm)",
    "A priority whose pause time grows as fast as wall time across consecutive samples for longer "
    "than the PFC watchdog's detection time is in a pause storm: a receiver that stopped draining "
    "(a stalled NIC) keeps its peer paused, and the pause spreads hop by hop (Guo et al., RDMA over "
    "Commodity Ethernet at Scale, SIGCOMM 2016 §4.3). The predicted limit is the compiled watchdog "
    "detection time (PFC_WD).",
    "find the host or port sending the pauses (pfcstat on the peer); the PFC watchdog should "
    "isolate the queue (check PFC_WD and FLEX_COUNTER_TABLE|PFCWD)",
    needs=_NEEDS)

PFCWD_TRIGGERED = Rule(
    "watch-pfcwd-triggered", Severity.ERROR, "telemetry", "the PFC watchdog detected a storm",
    "The PFC watchdog (sonic-swss orchagent/pfcwdorch.cpp) found a lossless queue paused for its "
    "whole detection time and acted on it (drop, forward or alert): "
    "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED grew, or PFC_WD_STATUS is 'stormed'. The design "
    "predicts no storm: lossless queues drain within the headroom's reaction time.",
    "find the stalled receiver behind the port; pfcwd show stats lists the stormed queues",
    needs=_NEEDS)

ECN_OFF = Rule(
    "watch-ecn-off", Severity.ERROR, "telemetry", "a marking class's queue passed K but nothing was ECN-marked",
    "A class whose transport needs ECN (DCTCP, D2TCP, EAR, TBTCP, DCQCN) has a WRED profile that "
    "marks above K. When its queue watermark went far enough above K that marks were certain "
    "(step marking: any packet above K is marked, DCTCP §3.1; RED: expected marks of the packets "
    "that raised the queue from K_min to the watermark, each at least a 9216 B jumbo frame, above "
    "ln(10^6), so zero marks has probability below 10^-6) while the ECN-marked counter "
    "(SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS; openconfig-qos ecn-marked-pkts) stayed 0, the "
    "profile does not mark: WRED_PROFILE ecn (ecn_green) or wred_green_enable unset, or the queue "
    "has no WRED profile. Senders then see no congestion signal and the queue fills to drops or "
    "PFC. (Traffic that is not ECN-capable is not marked either; check the hosts first if only one "
    "flow runs.)",
    "compare QUEUE|…|wred_profile and WRED_PROFILE with the compiled config (qosforge diff)",
    needs=_NEEDS)

TLT_THRESHOLD = Rule(
    "watch-tlt-threshold", Severity.WARNING, "telemetry", "a TLT queue rose above its color threshold",
    "TLT drops unimportant (red/yellow) packets above the color-aware threshold K (TLT §4.2), so "
    "only important (green) packets, at most one per flow in flight, may take the queue above K. "
    "A watermark more than one jumbo frame above K means either the color drop is not programmed "
    "(no red/yellow WRED drop thresholds, DSCP_TO_COLOR missing) or many flows hold an important "
    "packet at once; the finding gives the excess in 1500 B packets to tell the two apart.",
    "check the WRED_PROFILE yellow/red thresholds and the DSCP-to-color map against the compiled config",
    needs=_NEEDS)

UNPLANNED_QUEUE = Rule(
    "watch-unplanned-queue", Severity.WARNING, "telemetry", "traffic on a queue the design gave no class",
    "The compiler maps every class's DSCPs to one traffic class and queue (report.json classes, "
    "control_classes; SONiC's DSCP_TO_TC_MAP and TC_TO_QUEUE_MAP). Packets transmitted from a queue no class was given "
    "(SAI_QUEUE_STAT_PACKETS; openconfig-qos transmit-pkts) mean some DSCP lands where the design "
    "did not put it: a DSCP_TO_TC_MAP or classifier entry mapped to the wrong traffic class, or "
    "traffic with DSCPs the intent does not list (default class). Counters cannot tell which DSCP "
    "it is; a DSCP moved onto another class's queue looks like that class's traffic and is not "
    "found by this rule.",
    "compare DSCP_TO_TC_MAP / TC_TO_QUEUE_MAP (or the openconfig classifier) with the compiled config",
    needs=_NEEDS)

COUNTER_UNAVAILABLE = Rule(
    "watch-counter-unavailable", Severity.INFO, "telemetry", "the switch does not publish a counter a rule needs",
    "A rule needs a counter the target did not publish on any path of the catalogue "
    "(docs/telemetry.md): not in its models, or its SONiC flex-counter group disabled. It is "
    "reported once per switch and the rules that need it do not run there; watch never derives a "
    "missing counter from another one.",
    "enable the flex-counter group named in the message (compile emits FLEX_COUNTER_TABLE for "
    "the sonic target), or accept that the check does not run on this device",
    needs=_NEEDS)

RULES: tuple[Rule, ...] = (LOSSLESS_PG_DROP, LOSSLESS_QUEUE_DROP, HEADROOM_EXCEEDED, PFC_PAUSE, PFC_STORM,
                           PFCWD_TRIGGERED, ECN_OFF, TLT_THRESHOLD, UNPLANNED_QUEUE, COUNTER_UNAVAILABLE)

__all__ = ["RULES"]
