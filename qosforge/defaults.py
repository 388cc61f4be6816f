"""Design defaults shared by the intent schema, ``whatif``, ``fit`` and ``simulate`` (no imports,
so the CLI reads them without loading pydantic): one value each, so a calculator and ``compile``
give the same numbers for the same inputs. Each is the text a user would type, as flags and
intent fields take it; ``tests/cli/test_calculator_defaults.py`` checks every calculator
flag against these (and the intent's field defaults against them too)."""

#: The host NIC LSO/TSO burst when the intent does not say: DCTCP's K floor (DCTCP §3.5 burst
#: allowance), EAR's K (the same switch side, EAR §4.2) and TBTCP's marking start l.
#: ``whatif dctcp --burst``, ``whatif ear --burst`` and ``whatif tbtcp --lso-burst`` default to it.
DEFAULT_LSO_BURST = "64kB"
#: TBTCP's QCD window reduction r when not given (TBTCP §6.2 testbed: r = 4); the intent's
#: ``tbtcp.r``, ``whatif tbtcp --r`` and ``simulate --r`` default to it.
DEFAULT_TBTCP_R = 4
#: TBTCP's RAI increase per RTT in MSS (TBTCP §5.1 runs use 0.1): intent ``tbtcp.beta``,
#: ``whatif tbtcp --beta``, ``fit red --beta``.
DEFAULT_TBTCP_BETA = 0.1
#: The packet size packet-based thresholds use (intent ``design.mtu``; whatif ``--packet`` /
#: ``--mss``).
DEFAULT_MTU = "1500B"
#: Dynamic-threshold alpha (2^dynamic_th; SONiC's lossless profiles use dynamic_th 0, alpha 1).
DEFAULT_ALPHA = 1.0
#: The design point M, ports congested at once (TLT §4.2).
DEFAULT_CONGESTED_PORTS = 1
#: SONiC's LOSSLESS_TRAFFIC_PATTERN defaults (sonic-swss cfgmgr/buffermgrdyn.cpp): lossless
#: frame 1024 B, 50 % small packets; the port MTU SONiC configures by default, 9100 B.
DEFAULT_LOSSLESS_MTU = "1024B"
DEFAULT_SMALL_PACKET_PERCENT = 50.0
DEFAULT_PORT_MTU = "9100B"
#: FastLane's notification queue caps (FastLane §3.2, §5: 2 % of bandwidth, 5 % of buffer).
DEFAULT_FASTLANE_BANDWIDTH_CAP = "2%"
DEFAULT_FASTLANE_BUFFER_CAP = "5%"
#: Linux's minimum RTO, TCP_RTO_MIN = HZ/5 (include/net/tcp.h), and initial window,
#: TCP_INIT_CWND = 10 segments (include/net/tcp.h; RFC 6928): what a TCP class's hosts run where
#: neither the intent's ``hosts`` nor a host settings document says otherwise.
LINUX_RTO_MIN = "200ms"
LINUX_INITIAL_WINDOW_SEGMENTS = 10
#: The receive window of the software switch's window hosts, packets: no congestion window is
#: larger than it less one (softswitch/engine/window.py), so it bounds the initial window an
#: intent may state (``hosts.initial_window_segments``).
SIMULATED_RECEIVE_WINDOW_PACKETS = 2048
