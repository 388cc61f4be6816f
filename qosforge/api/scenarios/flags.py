"""The flags of ``qosforge simulate`` that more than one scenario shares, as data.

The order is ``--help``'s (and a sweep's: campaigns forward them in this order). Which scenario
reads which flag is said by each scenario (:class:`~qosforge.api.scenarios._framework.Scenario`
``reads``), not here; a flag only one new scenario reads belongs in that scenario's module
(``Scenario.flags``).
"""

from __future__ import annotations

from qosforge.api.scenarios._framework import FlagSpec
from qosforge.defaults import DEFAULT_TBTCP_R
from qosforge.softswitch.traffic.spec import FLOW_KIND_NAMES, MAX_FLOWS, MAX_SEED, FlowKind

#: ``--transport``'s names: engine flow kinds (softswitch/traffic/spec.py), not the intent's transports.
TRANSPORTS: dict[str, FlowKind] = FLOW_KIND_NAMES

#: Before the scenarios' own flags (the ``--scenario`` option sits between INTENT and these).
LEADING: tuple[FlagSpec, ...] = (
    FlagSpec("--traffic", "traffic_path", "Your own flows on INTENT's switches (YAML, or .csv): instead of --scenario (docs/softswitch.md 'Your own traffic').",
             metavar="FILE", checked=False),
    FlagSpec("--measure", "measure_text", "--traffic: the window every statistic covers, e.g. 4s:5s; the run ends at END (default 0s:--duration).", metavar="START:END"),
    FlagSpec("--sample", "sample_text", "--traffic: queue sampling interval of the time series and the per-port means (default 100us).", metavar="TIME"),
    FlagSpec("--timeseries", "timeseries_path", "--traffic: write the sampled queues and PFC pauses (.csv or .parquet).", kind="output",
             output_default_name="queues.csv"),
    FlagSpec("--switch", "switch_names", "incast: the switch of INTENT (default: the first); fabric scenarios: repeat to simulate only these switches and their links.",
             metavar="NAME", multiple=True),
    FlagSpec("--class", "class_name", "incast, fabric: the traffic class (default: the intent's first class, e.g. rdma on roce-pod; pause-storm: its first "
             "lossless class). The report names it (class, class_chosen_by).", metavar="NAME"),
    FlagSpec("--port", "port_name", "incast: the receiver's port (default: the first port); fabric-incast/pause-storm: the receiving/stalled host as "
             "SWITCH:PORT (default: the last leaf's first host).", metavar="NAME"),
    FlagSpec("--flows", "flows", f"Number of flows (1 to {MAX_FLOWS:,}; default 10; pause-storm: per sending host, default 1; "
             "deadlock: per leaf pair of the routes that close the cycle, default 8).", kind="int"),
    FlagSpec("--load", "load_text", "all-to-all: offered load of every host link (default 60%).", metavar="PERCENT"),
    FlagSpec("--flow-size-dist", "flow_size_dist", "all-to-all: flow sizes, web-search (default) or data-mining (or a CDF file of 'bytes probability' lines).",
             metavar="NAME|FILE"),
    FlagSpec("--fail-link", "fail_links", "deadlock: a link to fail (repeat for several), by its two switches or one end; routes go around it.",
             metavar="A-B|SWITCH:PORT", multiple=True),
    FlagSpec("--no-watchdog", "no_watchdog", "deadlock: run without the PFC watchdog the intent configures (the deadlock then stays).", kind="switch"),
    FlagSpec("--stall", "stall_text", "pause-storm: how long the stalled host stops draining (default 2ms).", metavar="TIME"),
    FlagSpec("--transport", "transport", "dumbbell: required; incast and fabric scenarios: overrides the class's transport.", kind="choice",
             choices=tuple(sorted(TRANSPORTS))),
    FlagSpec("--speed", "bandwidth", "dumbbell: bottleneck link rate.", metavar="RATE", default="10G", show_default=True),
    FlagSpec("--rtt", "rtt", "dumbbell: base round-trip time.", metavar="TIME", default="100us", show_default=True),
    FlagSpec("--queue-limit", "buffer_text", "dumbbell: bottleneck queue limit.", metavar="SIZE", default="1000pkt", show_default=True),
    FlagSpec("--ecn-threshold", "ecn_threshold", "dumbbell: DCTCP step marking at K (RED min = max = K, 100%).", metavar="SIZE"),
    FlagSpec("--red-min", "red_min", "dumbbell: RED minimum threshold.", metavar="SIZE"),
    FlagSpec("--red-max", "red_max", "dumbbell: RED maximum threshold.", metavar="SIZE"),
    FlagSpec("--red-pmax", "red_pmax", "dumbbell: RED probability P_max at the maximum, a percentage with its % sign, e.g. 10%.", metavar="PERCENT"),
    FlagSpec("--packet", "packet_text", "Packet (MSS-sized frame) size; also the unit of 'pkt' (default 1500B; in a lossless class the intent's lossless MTU, "
             "the frame its PFC headroom is sized for).", metavar="SIZE"),
    FlagSpec("--flow-size", "flow_size", "Bytes per flow (default: long-lived).", metavar="SIZE"),
    FlagSpec("--beta", "beta", "TBTCP RAI beta (TBTCP §4.3).", kind="float", default=0.1, show_default=True),
    FlagSpec("--r", "window_r", "TBTCP QCD window reduction r (TBTCP §6.2).", kind="float", default=float(DEFAULT_TBTCP_R), show_default=True),
    FlagSpec("--rto-min", "rto_min", "Minimum retransmission timeout of the TCP hosts (default: "
             "the intent's hosts.rto_min, else Linux's 200ms; dumbbell 4ms, TLT §2.1); whole "
             "milliseconds from 1ms to 120s, as hosts.rto_min.",
             metavar="TIME", checked=False),
    FlagSpec("--duration", "duration", "Simulated time (default 0.3s; fabric-incast 20ms, all-to-all 3ms, pause-storm 1ms + stall + 1ms).", metavar="TIME",
             checked=False),
    FlagSpec("--warmup", "warmup", "Statistics start after this (default a third of --duration, at most 0.1s; fabric-incast 10ms, other fabric scenarios 0).",
             metavar="TIME"),
    FlagSpec("--seed", "seed", f"Random seed, 0 to {MAX_SEED} (2**32-1).", kind="seed", default=1, show_default=True, checked=False),
    FlagSpec("--assume", "assumptions", "incast and fabric scenarios (every scenario that compiles INTENT): a vendor-profile value the profile leaves unknown "
             "(e.g. red.steps=8).", metavar="FIELD=VALUE", multiple=True),
    FlagSpec("--hosts", "hosts_path", "incast: run the hosts as a host settings document configures them (host_settings.json from compile --target host): "
             "each flow's NIC priority, the CNPs' priority and DCQCN's parameters.", kind="path", metavar="FILE"),
)

#: The order the refusal table has always checked typed flags in (the first unread one is named).
REFUSAL_ORDER = ("switch_names", "measure_text", "sample_text", "timeseries_path", "warmup", "transport", "packet_text", "class_name", "port_name",
                 "flows", "fail_links", "no_watchdog", "load_text", "flow_size_dist", "stall_text", "bandwidth", "rtt", "buffer_text", "ecn_threshold",
                 "red_min", "red_max", "red_pmax", "flow_size", "beta", "window_r", "assumptions", "hosts_path")

#: The dumbbell's own link and host flags: a scenario on a compiled intent takes them from it.
DUMBBELL_ONLY = ("bandwidth", "rtt", "buffer_text", "ecn_threshold", "red_min", "red_max", "red_pmax", "beta", "window_r")
COMPILED_INSTEAD = {name: "the compiled intent sets it" for name in DUMBBELL_ONLY}

__all__ = ["COMPILED_INSTEAD", "DUMBBELL_ONLY", "LEADING", "REFUSAL_ORDER", "TRANSPORTS"]
