"""Column indexes of the engine's state arrays (one place, shared by builder and kernel).

The kernel keeps all state in NumPy arrays so numba can compile it (docs/architecture.md §6 performance
target); these integer constants name the columns. numba treats module-level ints as
compile-time constants.
"""

from __future__ import annotations

# --- event kinds -------------------------------------------------------------------------
EV_GEN = 0  # a flow's next packet (open-loop source, DCQCN pacer) or a window flow's start
EV_TX_DONE = 1  # a transmit port finished serialising its current packet
EV_ARR_SW = 2  # a packet reaches the switch ingress
EV_ARR_HOST = 3  # a packet reaches the receiving host
EV_ACK = 4  # an ACK/NACK reaches the sender (reverse path: uncongested delay)
EV_PFC = 5  # a PFC frame takes effect at its receiver
EV_WAKE = 6  # a shaper has tokens again
EV_RTO = 7  # retransmission timer
EV_DCQCN = 8  # DCQCN reaction-point timer (alpha decay and rate increase)
EV_CNP = 9  # a DCQCN congestion notification reaches the sender
EV_DLD = 10  # PFC deadlock detection timer of (switch port, priority) ran out
EV_DLR = 11  # PFC deadlock recovery of (switch port, priority) ends
EV_FWD = 12  # a packet admitted at a switch ingress reaches its egress queue (forwarding latency spent)
EV_DELACK = 13  # a window receiver's delayed-ACK timer (engine/window.py)
EV_TLP = 14  # a SACK sender's tail loss probe timer (RFC 8985 §7, engine/sack.py)
EV_REO = 15  # a SACK sender's RACK reordering timer (RFC 8985 §6.3, engine/sack.py)
# Packet trimming and RoCE selective repeat (engine/trimming.py, engine/selective_repeat.py):
EV_TRIM_NACK = 16  # a receiver's NACK for a trimmed packet reaches the sender (NDP §3.1)

# --- packet integer columns (pk_i) ---------------------------------------------------------
P_FLOW = 0
P_BYTES = 1
P_CELLS = 2
P_SEQ = 3
P_FLAGS = 4
P_COLOR = 5
P_PG = 6
P_IN = 7
P_OUT = 8
P_Q = 9
P_NEXT = 10
P_HDR = 11  # 1 if the packet sits in PG headroom (ingress accounting)
P_PRIO = 12  # host NIC queue = 802.1p priority
P_ACC = 13  # bit0: counted in its PG, bit1: counted in its egress queue profile
PK_COLS = 14
# packet float columns (pk_f)
PF_SENT = 0
PKF_COLS = 1

# packet flags
F_ECT = 1
F_CE = 2
F_IMP = 4  # TLT important (Important Data)
F_CLOCK = 8  # TLT important ACK-clocking packet (first unacked byte only)
F_RTX = 16
F_CNP = 32  # a DCQCN congestion notification crossing the switch (receiver -> sender)
F_VLAN = 64  # the frame carries an IEEE 802.1Q tag (4 B more on the wire; models/ethernet.py)
# Packet trimming: a switch cut the packet to its header (SAI_SWITCH_ATTR_PACKET_TRIM_SIZE)
F_TRIM = 128

# --- flow kinds ---------------------------------------------------------------------------
K_POISSON = 0
K_CBR = 1
K_NEWRENO = 2
K_DCTCP = 3
K_TBTCP = 4
K_DCQCN = 5
K_TCP_ECN = 6  # NewReno with RFC 3168 ECN
K_CUBIC = 7  # CUBIC (RFC 9438), Linux's default congestion control

# flow integer columns (fl_i)
FL_KIND = 0
FL_SRC = 1
FL_DST = 2
FL_PG = 3
FL_Q = 4
FL_COLOR = 5
FL_COLOR_IMP = 6
FL_PRIO = 7
FL_TLT = 8
FL_ECT = 9
FL_SIZE = 10  # packets, -1 = unlimited
FL_SNDNXT = 11
FL_SNDUNA = 12
FL_RCVNXT = 13
FL_DUPACKS = 14
FL_INREC = 15
FL_RECOVER = 16
FL_WEND = 17
FL_ACKED_W = 18
FL_MARKED_W = 19
FL_CWR_END = 20
FL_RTO_PENDING = 21
FL_IMP_STATE = 22  # TLT sendState: 1 = next packet is important
FL_DONE = 23
FL_SEEN_ECN = 24
FL_NACKED = 25  # receiver: rcv_nxt value a NACK was sent for (go-back-N)
FL_HIGH = 26  # highest sequence sent + 1
FL_SINCE_IMP = 27  # DCQCN+TLT: packets since the last important one
FL_PKT_BYTES = 28
FL_PG_IMP = 29
FL_Q_IMP = 30
FL_RTX_FIRST = 31  # DCQCN+TLT: next packet starts a retransmission round
FL_LOSS = 32  # TLT: loss seen since the last Important Echo
FL_DCQCN_ARMED = 33
FL_GEN_PENDING = 34
FL_OOO = 35  # receiver: out-of-order packets held
FL_RTX_SEQ = 36  # last segment retransmitted
FL_CNP_Q = 37  # DCQCN: egress queue of the flow's CNPs on the sender's port, -1 = side path
FL_CNP_PG = 38  # ingress PG of the CNPs on the receiver's port
FL_CNP_PRIO = 39  # TC / NIC priority of the CNPs
FL_CNP_COLOR = 40
FL_HDR = 41  # header bytes of each packet (traffic.spec.HEADER_BYTES): payload = bytes - header
FL_DSCP = 42  # DSCP of the flow's packets (each switch classifies it with its own maps)
FL_DSCP_IMP = 43  # DSCP of its important packets (TLT)
FL_DSCP_CNP = 44  # DSCP of its CNPs
FL_HASH = 45  # the flow's ECMP hash (seeded, 0..2^31)
FL_LAST_BYTES = 46  # bytes of a finite flow's last packet (header + the payload remainder)
# Per-flow statistics of the measured window (after the warm-up), read by softswitch/flow_metrics.py:
FL_SENT_M = 47  # data packets the sender handed to its NIC (retransmissions included)
FL_RESENT_M = 48  # of those, retransmissions (F_RTX: fast retransmit, timeout, go-back-N)
FL_DROPPED_M = 49  # its data packets dropped at a switch (any reason)
FL_ARRIVED_M = 50  # its data packets reaching the receiver (duplicates included)
FL_PAYLOAD_M = 51  # application payload delivered: each packet once, at its first arrival (as C_DELIVERED_PAYLOAD)
# The ECN transports' window of reduction (CWR, DCTCP and RFC 3168 TCP) paced by Proportional Rate Reduction (RFC 6937), as Linux
# (net/ipv4/tcp_input.c tcp_cwnd_reduction) and ns-3 (src/internet/model/tcp-prr-recovery.cc) run it:
FL_CWR = 52  # 1 while the flow is in CWR
FL_PRR_DELIVERED = 53  # packets delivered since CWR began (RFC 6937 prr_delivered)
FL_PRR_OUT = 54  # packets sent since CWR began (prr_out)
FL_PRR_FLIGHT = 55  # packets outstanding when CWR began (RecoverFS)
# 1: the flow's frames are 802.1Q-tagged (its NIC trusts PCP: the priority rides in the tag)
FL_VLAN = 56
# DCQCN points its hosts' NICs disable: bit0 the sender's reaction point, bit1 the receiver's
# notification point
FL_DCQCN_OFF = 57
# The receiver's delayed ACKs (engine/window.py; Linux net/ipv4/tcp_input.c __tcp_ack_snd_check):
FL_DELACK = 58  # full segments per ACK (1: every segment is ACKed at once)
FL_DELACK_HELD = 59  # segments received and not yet ACKed
FL_DELACK_ARMED = 60  # 1 while a delayed-ACK timer event is queued
FL_QUICKACK = 61  # segments still ACKed at once (Linux icsk_ack.quick)
FL_CE_STATE = 62  # DCTCP receiver: CE state of the last segment (RFC 8257 §3.2)
# SACK (RFC 2018) and its loss recovery (RFC 6675, RACK-TLP RFC 8985; engine/sack.py). The
# sender's scoreboard is at most SACK_BLOCKS blocks [start, end) of SACKed segments above
# snd_una, sorted and disjoint:
FL_SACK = 63  # 1: the flow's hosts use SACK; 0: NewReno's recovery (RFC 6582)
FL_SB_N = 64  # blocks held
FL_SB_START = 65  # FL_SB_START + i: start of block i
FL_SB_END = 65 + 4  # FL_SB_END + i: end of block i (SACK_BLOCKS = 4 columns each)
FL_HIGH_RXT = 73  # RFC 6675 HighRxt: every lost segment below it has been retransmitted
FL_LOST_BELOW = 74  # the unSACKed segments below it are lost (DupThresh or RACK)
FL_RACK_HIGH = 75  # the highest SACKed segment when the RACK reordering timer was armed
FL_TLP_ARMED = 76  # 1 while a tail loss probe timer event is queued
FL_REO_ARMED = 77  # 1 while a RACK reordering timer event is queued
FL_TLP_OUT = 78  # 1 while a tail loss probe is unacknowledged (RFC 8985 §7.3: one at a time)
# Linux host settings per class and CUBIC's HyStart (engine/cubic.py; Linux tcp_cubic.c):
FL_HS_END = 79  # HyStart: the round ends when snd_una passes this sequence (ca->end_seq)
FL_HS_SAMPLES = 80  # HyStart: RTT samples taken in this round (ca->sample_cnt)
FL_HS_FOUND = 81  # HyStart: 1 once it ended slow start (ca->found); HYSTART_OFF: not run
# Packet trimming and RoCE selective repeat (IRN, Mittal et al. SIGCOMM 2018; engine/selective_repeat.py):
FL_SR = 82  # 1: the RoCE flow recovers by selective repeat (IRN), 0: go-back-N
FL_SR_CAP = 83  # IRN's BDP-FC: most packets outstanding (IRN §3.2)
FL_OOO_PKTS = 84  # first transmissions received below the highest one received (RFC 4737 §3.3), measured
FL_TRIMMED_M = 85  # its data packets a switch trimmed (measured window)
FL_TRIM_MARKS = 86  # sender: trim-NACKed packets waiting for their retransmission
FL_TRIM_SCAN = 87  # sender: no trim-NACKed packet waits below this sequence
FL_RTO_M = 88  # its retransmission timeouts (measured window)
# Load balancing and reordering (kernel.route_and_classify, hosts.host_receive):
FL_LB = 89  # how switches pick among ECMP members for the flow's data: LB_* below
FL_RCV_HIGH = 90  # receiver: highest first-transmission sequence received + 1 (RFC 4737 NextExp)
FL_DUP_RTX_M = 91  # segments reaching a receiver that already held them (RFC 2883 D-SACK), measured
# DCTCP's whole-packet window (window.py _linux_reno_increase, Linux tcp_cong_avoid_ai):
FL_CWND_CNT = 92  # segments ACKed toward the next +1 of cwnd (Linux tp->snd_cwnd_cnt)
FL_COLS = 93
HYSTART_OFF = 2

# flow float columns (fl_f)
FF_CWND = 0
FF_SSTHRESH = 1
FF_ALPHA = 2
FF_START = 3
FF_RATE = 4  # open-loop: packets/s; DCQCN: current rate R_C in bytes/s
FF_TARGET = 5  # DCQCN R_T, bytes/s
FF_DALPHA = 6  # DCQCN alpha
FF_BYTES_CTR = 7  # DCQCN byte counter
FF_TIMER_CNT = 8  # DCQCN timer stage count
FF_BYTE_CNT = 9  # DCQCN byte-counter stage count
FF_LAST_CNP = 10  # receiver: time of the last CNP sent
FF_CNP_SEEN = 11  # DCQCN: a CNP arrived in the current alpha period
FF_SRTT = 12
FF_RTTVAR = 13
FF_RTO = 14
FF_FINISH = 15
FF_BETA = 16  # TBTCP RAI beta (MSS per RTT)
FF_R = 17  # TBTCP QCD window reduction r
FF_LINE = 18  # sender line rate, bytes/s
FF_ACK_DELAY = 19  # reverse-path delay receiver -> sender
FF_RTO_AT = 20  # deadline of the armed retransmission timer
FF_DCQCN_NEXT = 21  # when the next DCQCN timer tick is due
FF_RTX_TIME = 22  # when FL_RTX_SEQ was retransmitted
FF_RTO_INITIAL = 23  # the transport timer the flow starts with (engine/build.py)
FF_DELACK_ECHO = 24  # send time of the oldest held segment (the ACK's RTT echo, RFC 7323 §4.3)
FF_DELACK_AT = 25  # deadline of the delayed-ACK timer
# CUBIC (RFC 9438 §4), in segments and seconds:
FF_CUBIC_WMAX = 26  # W_max: the window before the last reduction
FF_CUBIC_K = 27  # K: the time W(t) takes to grow back to W_max
FF_CUBIC_EPOCH = 28  # t = 0 of the current congestion-avoidance epoch (-1: none yet)
FF_CUBIC_EST = 29  # W_est, the Reno-friendly estimate (RFC 9438 §4.3)
FF_CUBIC_CWND0 = 30  # cwnd at the start of the epoch (cwnd_epoch)
FF_TLP_AT = 31  # deadline of the tail loss probe timer
FF_REO_AT = 32  # deadline of the RACK reordering timer
FF_MIN_RTT = 33  # the smallest RTT sample (RACK's reordering window is min_RTT/4)
# Linux host settings per class (simulate --hosts; softswitch/helper/hosts.py) and HyStart:
FF_RTO_MIN = 34  # the flow's minimum RTO, s (Linux tcp_rto_min_us, route rto_min)
FF_IW = 35  # its initial window, segments (route initcwnd; RFC 6928 IW10)
FF_HS_ROUND_START = 36  # HyStart: when the round began (ca->round_start)
FF_HS_LAST_ACK = 37  # HyStart: the last ACK of the ACK train (ca->last_ack)
FF_HS_CURR_RTT = 38  # HyStart: the smallest RTT sample of the round (ca->curr_rtt)
FF_HS_DELAY_MIN = 39  # HyStart: the smallest RTT sample of the flow (ca->delay_min)
# Packet trimming: when a go-back-N sender last went back on a trim NACK (one go-back per round)
FF_REWIND_AT = 40
# Load balancing: the inactivity gap after which a flow's next packet starts a new flowlet (CONGA
# SIGCOMM 2014 §3.4, LetFlow NSDI 2017 §3); 0: every packet is chosen on its own
FF_FLOWLET_GAP = 41
FL_F_COLS = 42

# --- transmit ports (switch ports 0..P-1 of every switch, then host NICs: P + the host's switch port)
# A switch port index is both the port's egress (transmit) and its ingress (receive) side.
TXF_RATE = 0  # bytes/s
TXF_PROP = 1  # one-way wire delay of the attached link (cable propagation + PHY), s
TXF_BUSY_UNTIL = 2
TXF_RESPONSE = 3  # PFC reaction time of this transmitter (802.3 Annex 31B), s
TXF_FWD = 4  # the link's latency beyond its wire, s: spent inside the receiving switch (or host) after arrival
TXF_COLS = 5
TXI_BUSY = 0
TXI_CUR = 1
TXI_RR = 2
TXI_CREDITED = 3
TXI_WAKE = 4  # a shaper wake-up is pending
TXI_NQ = 5
TXI_NONEMPTY = 6  # bit q set while queue q holds packets (engine/ports.py: the scheduler skips empty queues)
TXI_STRICT = 7  # bit q set when queue q is scheduled strict priority (QI_KIND 0)
# host NIC: bit p set when it honours a PAUSE of priority p (PFC enabled there; simulate --hosts)
TXI_PFC_RX = 8
# bit q set while queue q's DWRR deficit may be non-zero (engine/ports.py select_queue): the walk
# past an empty queue zeroes its deficit, and needs the queue's own memory only when this is set
TXI_DEFICIT = 9
TXI_COLS = 10

# --- queues (per transmit port) -------------------------------------------------------------
QI_HEAD = 0
QI_TAIL = 1
QI_PKTS = 2
QI_BYTES = 3
QI_CELLS = 4
QI_KIND = 5  # 0 strict, 1 DWRR/WRR
QI_PAUSED = 6
QI_WRED = 7  # -1 none
QI_POOL = 8  # -1 no buffer profile
QI_RES = 9  # reserved cells
QI_DYN = 10
QI_STATIC = 11  # static shared limit in cells, 0 = unlimited
QI_QUANTUM = 12  # DWRR quantum, bytes
QI_DLR = 13  # 1 while PFC deadlock recovery drops this queue's packets (SAI PFC_DLR, action DROP)
# Packet trimming: 1 when the queue's buffer profile discards by trimming (SAI inc/saibuffer.h
# SAI_BUFFER_PROFILE_ATTR_PACKET_ADMISSION_FAIL_ACTION = ..._DROP_AND_TRIM)
QI_TRIM = 14
QI_COLS = 15
QF_ALPHA = 0
QF_DEFICIT = 1
QF_TOKENS = 2
QF_TOKEN_TIME = 3
QF_SHAPE_RATE = 4  # bytes/s, 0 = none
QF_BURST = 5
QF_AVG = 6  # WRED average queue, bytes
QF_WEIGHT = 7  # 2^-WEIGHT of the WRED average
QF_CELL = 8  # cell size of the switch the queue belongs to, bytes
QF_COLS = 9

# --- ingress priority groups --------------------------------------------------------------------
GI_OCC = 0
GI_HDR = 1
GI_POOL = 2
GI_RES = 3
GI_DYN = 4
GI_STATIC = 5
GI_XOFF = 6
GI_XON = 7
GI_XON_OFFSET = 8
GI_STATE = 9
GI_MASK = 10
GI_COLS = 11
GF_ALPHA = 0
GF_COLS = 1

# --- pools -------------------------------------------------------------------------------------
PO_SHARED = 0  # shared cells (size - headroom pool - reserved)
PO_USED = 1
PO_HDR_SIZE = 2
PO_HDR_USED = 3
PO_COLS = 4

# --- WRED: wr_i[w, color, kind], kind 0 = drop curve, 1 = ECT marking curve ------------------
WRI_ENABLED = 0
WRI_MARK = 1  # color in ECN_MARK_MODE
WRI_ECT_DROP = 2  # ECT packets also face the drop curve
WRI_COLS = 3

# --- scalar parameters -------------------------------------------------------------------------
PRM_END = 0
PRM_WARMUP = 1
PRM_SAMPLE = 2
PRM_CELL = 3
PRM_TOTAL_CELLS = 4
PRM_DCTCP_G = 5
PRM_RTO_MIN = 6
PRM_RTO_INIT = 7
PRM_DCQCN_G = 8
PRM_DCQCN_TIMER = 9
PRM_DCQCN_BYTES = 10
PRM_DCQCN_F = 11
PRM_DCQCN_RAI = 12
PRM_DCQCN_RHAI = 13
PRM_CNP_INTERVAL = 14
PRM_DCQCN_MIN_RATE = 15
PRM_BAND = 16
PRM_IW = 17
PRM_PFC_FRAME = 18
PRM_TLT_N = 19
PRM_MIXED_CELLS = 20  # 1 when the switches count occupancy in different cell sizes
PRM_STOP = 21  # the kernel returns after the last event due by this time (a segment's end, simulation.py SegmentedRun); PRM_END stays the run's end
PRM_DELACK_TIMEOUT = 22  # the receivers' delayed-ACK timeout, s
PRM_QUICKACKS = 23  # segments a receiver ACKs at once at the start of a flow and after a duplicate
PRM_COLS = 24
PRI_NP = 0
PRI_SEED = 1
PRI_WINDOW = 2
PRI_HOSTQ = 3
PRI_NEXT_PAUSE = 4
PRI_QHIST_WIDTH = 5  # packets per bin of the every-queue depth histograms (W_QHIST)
PRI_COLS = 6

# --- counters ---------------------------------------------------------------------------------
C_EVENTS = 0
C_ENQ = 1
C_DEQ = 2
C_DROP = 3
C_PKT_EVENTS = 4  # enqueue + dequeue + drop at switch ports (the benchmark's unit)
C_POOL_EXHAUSTED = 5
C_HOST_DROPS = 6
C_IMPORTANT_DROPS = 7
C_IMPORTANT_SENT = 8
C_PFC_XOFF = 9
C_PFC_XON = 10
C_LOSSLESS_DROPS = 11
C_TIMEOUTS = 12
C_FAST_RETX = 13
C_CNP = 14
C_DELIVERED_BYTES = 15  # new in-order data at receivers after warm-up
C_MARKS = 16
C_FORWARDED = 17  # dequeued at switch ports after warm-up
C_ECN_ACKS = 18
C_ACKS = 19
C_MAX_PKTS_ALIVE = 20
C_DELIVERED_PAYLOAD = 21  # application payload of C_DELIVERED_BYTES (headers removed)
C_DEADLOCKS = 22  # PFC deadlocks the watchdog declared
C_WATCHDOG_DROPS = 23  # packets its recovery dropped
# line time of C_DELIVERED_BYTES' packets: frames + preamble/SFD + IFG (models/ethernet.py)
C_DELIVERED_WIRE = 24
# C_LOSSLESS_BY_REASON + DR_*: a lossless class's packets dropped, by cause
C_LOSSLESS_BY_REASON = 25
# Packet trimming (after the warm-up): packets trimmed, and trimmed packets the trim queue dropped
C_TRIMMED = 31
C_TRIM_DROPS = 32
C_COLS = 33

# drop reasons: st_drop[port, queue, reason]
DR_EGRESS = 0  # egress queue shared-buffer (dynamic/static threshold) limit
DR_WRED = 1
DR_INGRESS = 2  # lossy PG limit
DR_LOSSLESS = 3  # lossless PG headroom exhausted
DR_BUFFER = 4  # the chip's whole buffer is full
DR_WATCHDOG = 5  # PFC deadlock recovery (drop action) on the egress queue
DR_COLS = 6

# --- the world tuple passed to every compiled function (index = position) ---
# Generated from engine/state.py WORLD by
# `python -m qosforge.softswitch.engine.state`: edit the table there, never these
# lines (docs/extending/event.md).
# core
W_PKI = 0  # int32 [packets, PK_COLS]: packet integer columns (P_*)
W_PKF = 1  # float64 [packets, PKF_COLS]: packet float columns (PF_*)
W_FREE = 2  # int64 [packets]: stack of free packet slots
W_ST = 3  # int64 [ST_COLS]: misc integer state (ST_*)
W_STF = 4  # float64 [STF_COLS]: misc float state (STF_*)
# event queue (engine/heap.py)
W_HT = 5  # float64 [events]: the event heap's time keys
W_HI = 6  # int64 [events]: the event slot of each heap position
# core
W_TXF = 7  # float64 [tx, TXF_COLS]: transmit port floats (TXF_*)
W_TXI = 8  # int64 [tx, TXI_COLS]: transmit port integers (TXI_*)
# buffer (MMU)
W_QI = 9  # int64 [tx, queues, QI_COLS]: egress queue integers (QI_*)
W_QF = 10  # float64 [tx, queues, QF_COLS]: egress queue floats (QF_*)
W_GI = 11  # int64 [ports, pgs, GI_COLS]: ingress PG integers (GI_*)
W_GF = 12  # float64 [ports, pgs, GF_COLS]: ingress PG floats (GF_*)
W_PO = 13  # int64 [pools, PO_COLS]: buffer pools (PO_*)
W_WRI = 14  # int64 [wreds, 3, WRI_COLS]: WRED per color (WRI_*)
W_WRF = 15  # float64 [wreds, 3, 2, 2]: WRED (min, max) bytes per color and curve
W_WRP = 16  # float64 [wreds, 3, 2, wred_steps]: WRED step probabilities
# core
W_FLI = 17  # int64 [flows, FL_COLS]: flow integer columns (FL_*)
W_FLF = 18  # float64 [flows, FL_F_COLS]: flow float columns (FF_*)
W_RCV = 19  # int8 [receive_rows, window]: receivers' out-of-order bitmaps
W_PRMF = 20  # float64 [PRM_COLS]: float parameters (PRM_*)
W_PRMI = 21  # int64 [PRI_COLS]: integer parameters (PRI_*)
W_CNT = 22  # int64 [C_COLS]: run counters (C_*)
# buffer (MMU)
W_DROP = 23  # int64 [ports, queues, DR_COLS]: drops by reason (DR_*)
W_MARK = 24  # int64 [ports, queues, 3]: ECN marks per color
W_DROPC = 25  # int64 [ports, queues, 3]: drops per color
W_ENQ = 26  # int64 [ports, queues]: enqueued packets
W_DEQB = 27  # int64 [ports, queues]: dequeued bytes
# monitors
W_MON = 28  # int64 [monitors, 2]: the monitored (port, queue) pairs
W_MONS = 29  # float64 [monitors, MS_COLS]: their statistics (MS_*)
W_HIST = 30  # int64 [monitors, histogram_bins]: their histograms
W_RING = 31  # float64 [monitors, trace_points]: their time series
W_RINGT = 32  # float64 [trace_points]: the time series' sample times
# arrivals, marks and drops by color, ECT and depth band (BD_*)
W_BAND = 33  # int64 [monitors, 3, 2, bands, 3]
# buffer (MMU)
W_PGMAX = 34  # int64 [ports, pgs, 2]: each PG's peak occupancy
W_QMAX = 35  # int64 [ports, queues]: each queue's peak depth
# fabric
# PFC priority -> queue of each switch port (-1 if PFC off)
W_PFCPRIO = 36  # int64 [ports, priorities]
# event queue (engine/heap.py)
W_EVENT = 37  # int64 [3]: the kernel's scratch for the popped event
# fabric
W_LINK = 38  # int64 [tx, LK_COLS]: each transmit port's link (LK_*)
# ECMP group (start, count) in W_ECMP per destination switch with hosts
W_ROUTE = 39  # int64 [switches, leaves, 2]
W_ECMP = 40  # int64 [ecmp_members]: egress ports of the ECMP groups
W_SWI = 41  # int64 [switches, SW_COLS]: per switch (SW_*)
# the distinct sets of maps that classify a packet (SAI inc/saiport.h QOS_*_MAP); a switch port's
# set is its LK_CLS
W_CLS = 42  # int64 [class_map_sets, CL_COLS, 64]
W_PFCS = 43  # int64 [tx, priorities, PS_COLS]: PFC state per transmit port and priority (PS_*)
W_PFCT = 44  # float64 [tx, priorities, PT_COLS]: PFC times per transmit port and priority (PT_*)
# monitors
# rows of the every-queue depth histograms (W_QHIST_ROW)
W_QHIST = 45  # int64 [queue_histogram_rows, queue_histogram_bins]
# event queue (engine/heap.py)
W_SLOTF = 46  # float64 [events]: each event slot's float payload
W_SLOTI = 47  # int64 [events, SL_COLS]: each event slot's kind and integer payload (SL_*)
W_SLOTFREE = 48  # int64 [events]: free event slots
# flow start times, sorted (the kernel starts flows from here, not the heap)
W_START_S = 49  # float64 [listed_flows]
# the flow of each W_START_S entry; also its start event's sequence number
W_START_FLOW = 50  # int64 [listed_flows]
W_LANE_T = 51  # float64 [LANES, lane_capacity]: each event lane's times, a ring
W_LANE_S = 52  # int64 [LANES, lane_capacity]: the event slot of each lane entry
W_LANE_N = 53  # int64 [LANES, 2]: each lane's (head index, length)
# core
# per-port counters a device publishes (softswitch/device/counters.py)
W_PORTSTAT = 54  # int64 [tx, port_stats, PSC_COLS]
# flow dependencies
# flows it still waits for; -1 once it finished and started its dependents
W_DEP_WAIT = 55  # int64 [dependency_flows]
# its dependents are W_DEP_NEXT[W_DEP_PTR[f]:W_DEP_PTR[f+1]]
W_DEP_PTR = 56  # int64 [dependency_rows]
W_DEP_NEXT = 57  # int64 [dependents]: dependents, flow by flow
# load balancing
# when the entry last forwarded a packet
W_FLOWLET_T = 58  # float64 [flowlet_switches, flowlet_entries]
# the ECMP member index the entry's flowlet uses
W_FLOWLET_M = 59  # int64 [flowlet_switches, flowlet_entries]
# monitors
# each switch queue's row of W_QHIST, -1 none yet
W_QHIST_ROW = 60  # int64 [queue_histogram_ports, queues]
W_LEN = 61
# --- end of the world tuple ---

# event slot columns (W_SLOTI)
SL_KIND = 0
SL_A = 1
SL_B = 2
SL_SEQ = 3  # the event's push sequence number, its tie-break
SL_COLS = 4

# link table columns (W_LINK)
LK_PEER = 0  # switch port that receives what this port transmits; -1: the host on this port
LK_SWITCH = 1  # switch of a switch port; -1 for a host NIC
LK_FEEDER = 2  # transmit port feeding this switch port's ingress (PFC goes to it)
# Of a switch port with a host: its switch's index among the switches with hosts (W_ROUTE's
# second axis), and the ECMP group (start, count in W_ECMP) its own switch forwards to for it.
LK_LEAF = 3
LK_HOP_START = 4
LK_HOP_COUNT = 5
# A switch port's set of classification maps (its W_CLS row): ports share a few sets, so the
# maps stay in cache instead of 2 KiB per port (-1 for a host NIC).
LK_CLS = 6
LK_COLS = 7
# per switch (W_SWI)
SW_SALT = 0  # seeded salt of the ECMP hash at this switch
SW_TOTAL = 1  # cells held in this switch's buffer
SW_CAPACITY = 2  # cells of its whole buffer
SW_PEAK = 3  # most cells held at once in the measured window
# Packet trimming (SAI inc/saiswitch.h SAI_SWITCH_ATTR_PACKET_TRIM_*): trim size in bytes (0: the
# switch does not trim), the trim queue, the DSCP trimmed packets carry on
SW_TRIM_BYTES = 4
SW_TRIM_QUEUE = 5
SW_TRIM_DSCP = 6
SW_COLS = 7
# classification maps (W_CLS[link[port, LK_CLS], map, index])
CL_DSCP_TC = 0
CL_DSCP_COLOR = 1
CL_TC_PG = 2
CL_TC_QUEUE = 3
CL_COLS = 4
# per-port device counters (W_PORTSTAT[port, index, column]), counted after the warm-up like every statistic
PSC_PFC_TX = 0  # [port, priority]: PFC frames (XOFF and XON) the port sent with the priority enabled (SAI_PORT_STAT_PFC_n_TX_PKTS)
PSC_PFC_RX = 1  # [port, priority]: PFC frames the port received with the priority enabled (SAI_PORT_STAT_PFC_n_RX_PKTS)
PSC_PG_DROPS = 2  # [port, pg]: packets dropped at ingress admission of the PG (SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS)
PSC_TX_PKTS = 3  # [port, queue]: packets the queue transmitted (SAI_QUEUE_STAT_PACKETS)
PSC_DEADLOCKS = 4  # [port, priority]: deadlocks the PFC watchdog declared (sonic-swss pfcwd PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED)
# Packet trimming, [port, queue] of the queue that could not admit the packet:
PSC_TRIM = 5  # packets trimmed (SAI_QUEUE_STAT_TRIM_PACKETS)
PSC_TRIM_DROPS = 6  # of those, dropped by the trim queue (SAI_QUEUE_STAT_DROPPED_TRIM_PACKETS)
PSC_COLS = 7
# PFC state (W_PFCS): last PAUSE state received; recovery in progress
PS_RECEIVED = 0
PS_RECOVERING = 1
PS_COLS = 2
# PFC times (W_PFCT)
PT_SENT_SINCE = 0  # XOFF sent at (-1: not pausing the peer)
PT_SENT_S = 1  # seconds the peer was asked to pause (after the warm-up)
PT_RECEIVED_SINCE = 2  # paused by the peer since (-1: not paused)
PT_RECEIVED_S = 3  # seconds paused by the peer (after the warm-up)
PT_DLD_S = 4  # deadlock detection interval (0: no watchdog)
PT_DLR_S = 5  # deadlock recovery interval
PT_COLS = 6

# misc integer state (st)
ST_HSIZE = 0
ST_FREE_TOP = 1
ST_ALIVE = 2
ST_TOTAL = 3
ST_RING_N = 4
ST_RING_STRIDE = 5
ST_RING_SKIP = 6
ST_PAUSE_IDX = 7
ST_SEQ = 8  # sequence number of the next event pushed (engine/heap.py: ties run in push order)
ST_NEXT_START = 9  # the next entry of W_START_S / W_START_FLOW whose flow has not started
ST_SLOTS = 10  # event slots in use (heap and lanes; engine/heap.py)
# every-queue depth histograms (W_QHIST_ROW)
ST_QHIST_ROWS = 11  # rows of W_QHIST given out
ST_QHIST_SAMPLES = 12  # samples taken in the measured window
ST_COLS = 13

# Load-balancing modes (FL_LB): how a switch picks the egress among a group's members
LB_HASH = 0  # 5-tuple ECMP: the flow's seeded hash, salted per switch (a flow keeps its path)
LB_RANDOM = 1  # a random member per flowlet (LetFlow NSDI 2017 §3); per packet without a gap
LB_LEAST_QUEUE = 2  # the member whose egress queue holds the fewest bytes (adaptive routing)

#: Blocks of a SACK sender's scoreboard (FL_SB_START, FL_SB_END).
SACK_BLOCKS = 4

#: Event lanes (engine/heap.py): FIFO rings beside the heap for the kinds whose events are mostly
#: scheduled in time order (a fixed delay after the current time), lane = kind - EV_TX_DONE, and
#: the last lane for EV_FWD.
LANES = 4
# A lane's capacity: a power of two, at least this, and at least two entries per transmit port
# (engine/build.py lane_capacity), since a fabric keeps about one event of each lane's kind in
# flight per busy port and a lane that is full sends further events to the heap (log n each).
LANE_CAPACITY = 4096
# misc float state (stf)
STF_NEXT_SAMPLE = 0
STF_COLS = 1

# monitor statistics columns (mons)
MS_SUM_PKTS = 0
MS_SAMPLES = 1
MS_MAX_PKTS = 2
MS_SUM_BYTES = 3
MS_MAX_BYTES = 4  # the largest sample in bytes (a sampled run's report needs no time series for it)
MS_COLS = 5
# band statistics last axis
BD_ARRIVALS = 0
BD_MARKS = 1
BD_DROPS = 2
