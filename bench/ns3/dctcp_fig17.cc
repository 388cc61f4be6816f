// The DCTCP paper's multi-hop experiment (Alizadeh et al., "Data Center TCP", SIGCOMM 2010,
// §4.2.3, Fig. 17) in ns-3 (3.37, Debian's libns3-dev), parameterised, for
// bench/bench_dctcp_fig17.py and the referee fixture of tests/bench/test_dctcp_fig17_referee.py.
//
//   S1 (n1 hosts)            S3 (n3 hosts)
//        \                  /
//         T1 ---fabric--- T2 --- R1 (one host)
//        /                  \
//   S2 (n2 hosts)            R2 (n2 hosts)
//
// S1 and S3 send to R1, S2[i] to R2[i]; long-lived flows, one per sender. Bottlenecks: T1 -> T2
// (the fabric link) and T2 -> R1. Every switch port toward a host or the other switch has a RED
// queue disc with ECN marking.
//
// The defaults are those of ns-3's own examples/tcp/dctcp-example.cc (ns-3.37): 1 Gb/s host
// links, a 10 Gb/s fabric link, 10 us per link; 10/20/10 senders; RED 20/60 packets on the
// 1G ports and 50/150 on the 10G port, QW = 1 (instantaneous queue), max_p = 1/50 (LInterm 50),
// ns-3's default Gentle = true and Wait = true (--wait=false: p/(1 - count*p)), hard drop off, 2666-packet limit; TcpDctcp with
// 1448-byte segments and DelAckCount 2; OnOff senders at 1 Gb/s with 1000-byte writes, start
// times staggered over the start-up window (sender i at i*window/n + i*5 ms; S3 after S1 in the
// 5 ms term); the PointToPointNetDevice keeps its default 100-packet DropTail device queue below
// the queue disc (flow-controlled: the disc only holds packets once it is full), and the hosts
// get Ipv4AddressHelper's default FqCoDel disc. The flags change one thing each, so a run can be
// made to match a switch model: --deviceQueue=1 puts the whole egress queue in the RED disc
// (what a switch's WRED sees), --gentle=false marks every packet above max_th as SAI and SONiC
// WRED do, --delAck=1 ACKs every segment, --dctcp=linux keeps Linux's two-segment floor on
// DCTCP's window, --delAckTimeoutMs=40 is Linux's TCP_DELACK_MIN, --wred=switch replaces RedQueueDisc with
// SwitchWredQueueDisc below (per-packet marking as SAI WRED does, optionally on an N-step
// staircase, --redSteps), --transport=tcp-ecn / newreno change the senders. The hosts and wire
// qosforge models (linux_host.h, shared with dumbbell.cc): --linuxWindow=true runs DCTCP on
// Linux's window arithmetic and order (TcpDctcpLinuxWindow, which keeps Linux's two-segment floor
// too, so it replaces --dctcp), --ethernet=true gives every frame on every link Ethernet's line
// time (UseEthernetFraming) and --hostSkewNs=1 makes the senders' cables 1 ns apart; --tlp=true
// gives the senders Linux's tail loss probe (TcpSocketLinuxProbe under ProbeBulkSender: an
// endless sender of 1000-byte writes in place of the OnOff application, which at the host's line
// rate keeps its socket backlogged as well, since 1 Gb/s of payload is more than the 0.94 Gb/s a
// 1G link carries) and --linuxReceiver=true the receivers Linux's immediate ACKs (a CE change, a
// connection's first 16 segments and 16 after a duplicate; LinuxReceiverSink), and with it
// --ceChangeAck=false leaves a CE change to ns-3's TcpDctcp, to measure what that ACK moves.
//
// Output: one JSON object on stdout: per-group throughput of every flow over the measurement
// window (application bytes received, Mb/s), Jain's index per group, and for both bottlenecks
// the mean queue-disc length, mean device-queue length and their sum, sampled every --sampleUs
// during the measurement window, marks and drops there; each group's flows' retransmission
// timeouts in the window ("timeouts"), with --tlp their probes ("probes"), and with
// --linuxReceiver their receivers' ACKs sent by the delayed-ACK timer ("delayed_ack_timeouts")
// and all receivers' immediate ACKs there ("linux_receiver_acks").
//
// Build: g++ -O2 -std=c++17 dctcp_fig17.cc $(pkg-config --cflags --libs ns3-core ns3-network
//        ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control)

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "linux_host.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace ns3
{
/**
 * A switch port's WRED/ECN as SAI inc/saiwred.h defines it and qosforge's software switch runs
 * it (softswitch/engine/mmu.py wred_decision, step_curve): each arriving ECT packet is marked
 * with probability f(q) of the instantaneous queue q (packets in the disc when it arrives), drawn
 * independently per packet: 0 at or below min, max_p (q - min)/(max - min) between, 1 above
 * max. With steps > 0 the ramp is the chip's staircase instead (TBTCP §6.2: the interval
 * (min, max] in `steps` equal parts, step i at max_p (i + 0.5)/steps), as the softswitch vendor
 * profile quantises it. ns-3's RedQueueDisc differs in two ways a switch does not: it spaces
 * marks by the count of packets since the last one (Wait: uniform on [1/p, 2/p], so 2/3 as many
 * marks as p; without Wait p/(1 - count p): twice as many), and its gentle mode ramps above max.
 */
class SwitchWredQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::SwitchWredQueueDisc")
                                .SetParent<QueueDisc>()
                                .SetGroupName("TrafficControl")
                                .AddConstructor<SwitchWredQueueDisc>()
                                .AddAttribute("MaxSize", "The most packets the disc holds", QueueSizeValue(QueueSize("2666p")),
                                              MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                                              MakeQueueSizeChecker());
        return tid;
    }

    SwitchWredQueueDisc()
        : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE),
          m_uniform(CreateObject<UniformRandomVariable>())
    {
    }

    void Configure(double minTh, double maxTh, double maxP, uint32_t steps)
    {
        m_minTh = minTh;
        m_maxTh = maxTh;
        m_maxP = maxP;
        m_steps = steps;
    }

    static constexpr const char* MARK = "WRED mark";

  private:
    double Probability(double q) const
    {
        if (q <= m_minTh)
            return 0.0;
        if (q > m_maxTh)
            return 1.0;
        double fraction = (q - m_minTh) / (m_maxTh - m_minTh);
        if (m_steps == 0)
            return m_maxP * fraction;
        // Step i covers (min + i s, min + (i + 1) s]: ceil - 1, as step_curve indexes it.
        int64_t index = static_cast<int64_t>(std::ceil(fraction * m_steps)) - 1;
        index = std::max<int64_t>(0, std::min<int64_t>(index, m_steps - 1));
        return m_maxP * (index + 0.5) / m_steps;
    }

    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        double q = GetInternalQueue(0)->GetCurrentSize().GetValue();
        double p = Probability(q);
        if (p > 0 && m_uniform->GetValue() < p && !Mark(item, MARK))
        {
            DropBeforeEnqueue(item, "WRED drop (not ECN-capable)");
            return false;
        }
        return GetInternalQueue(0)->Enqueue(item);
    }

    Ptr<QueueDiscItem> DoDequeue() override
    {
        return GetInternalQueue(0)->Dequeue();
    }

    bool CheckConfig() override
    {
        if (GetNInternalQueues() == 0)
        {
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>("MaxSize", QueueSizeValue(GetMaxSize())));
        }
        return GetNQueueDiscClasses() == 0 && GetNPacketFilters() == 0 && GetNInternalQueues() == 1;
    }

    void InitializeParams() override
    {
    }

    Ptr<UniformRandomVariable> m_uniform;
    double m_minTh = 0;
    double m_maxTh = 0;
    double m_maxP = 0;
    uint32_t m_steps = 0;
};

NS_OBJECT_ENSURE_REGISTERED(SwitchWredQueueDisc);

/**
 * ns-3's TcpDctcp with Linux's floor on the reduced window (--dctcp=linux). Linux's
 * net/ipv4/tcp_dctcp.c dctcp_ssthresh returns max(cwnd - cwnd*alpha/2, 2): a DCTCP window never
 * falls below two segments. ns-3.37's TcpDctcp::GetSsThresh returns (1 - alpha/2) * cwnd with no
 * floor, so under delayed ACKs (DelAckCount 2) a window of one segment waits for the receiver's
 * delayed-ACK timer every round trip; on Fig. 17's shared 1G port the S1 flows then starve.
 */
class TcpDctcpLinux : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpDctcpLinux")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpDctcpLinux>();
        return tid;
    }

    TcpDctcpLinux() = default;

    TcpDctcpLinux(const TcpDctcpLinux& sock) = default;

    std::string GetName() const override
    {
        return "TcpDctcpLinux";
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return std::max(TcpDctcp::GetSsThresh(tcb, bytesInFlight), 2 * tcb->m_segmentSize);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpDctcpLinux>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpDctcpLinux);
} // namespace ns3

namespace
{
struct Bottleneck
{
    Ptr<QueueDisc> disc;
    Ptr<Queue<Packet>> device;
    double discSum = 0;
    double deviceSum = 0;
    uint64_t samples = 0;
    uint64_t marksAtStart = 0;
    uint64_t dropsAtStart = 0;
};

Bottleneck g_fabric;  // T1 -> T2
Bottleneck g_edge;    // T2 -> R1
double g_sampleS = 100e-6;
double g_endS = 0;
std::vector<std::vector<uint64_t>> g_rxBytes;  // per group, per flow
std::vector<std::vector<Ptr<ProbeBulkSender>>> g_probeSenders;  // --tlp: per group, per flow
std::vector<std::vector<uint64_t>> g_probesAtStart;            // per group, per flow
std::vector<std::vector<uint64_t>> g_timeouts;                 // per group, per flow, in the window
std::map<uint32_t, std::pair<std::size_t, std::size_t>> g_senderOf;  // node id -> group, flow
std::vector<Ptr<LinuxReceiverSink>> g_linuxSinks;              // --linuxReceiver
std::vector<std::vector<Ptr<LinuxReceiverSink>>> g_groupSinks;  // --linuxReceiver: per group, per flow
std::vector<std::vector<uint64_t>> g_delayedAcksAtStart;        // per group, per flow
uint64_t g_immediateAcksAtStart = 0;

uint32_t
NodeOf(const std::string& context)
{
    return std::stoul(context.substr(10, context.find('/', 10) - 10));  // "/NodeList/N/..."
}

/** ns-3's sender enters CA_LOSS on a retransmission timeout and on nothing else
 * (TcpSocketBase::ReTxTimeout), so its entries into CA_LOSS count the flow's timeouts. */
void
OnCongState(std::string context, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state)
{
    auto sender = g_senderOf.find(NodeOf(context));
    if (state == TcpSocketState::CA_LOSS && sender != g_senderOf.end())
    {
        g_timeouts[sender->second.first][sender->second.second] += 1;
    }
}

/** The delayed-ACK timer's ACKs of one flow's receiver so far (it accepts one connection). */
uint64_t
DelayedAcks(const Ptr<LinuxReceiverSink>& sink)
{
    uint64_t acks = 0;
    for (auto& socket : sink->accepted)
    {
        acks += socket->delayedAckTimeouts;
    }
    return acks;
}

uint64_t
ImmediateAcks()
{
    uint64_t acks = 0;
    for (auto& sink : g_linuxSinks)
    {
        for (auto& socket : sink->accepted)
        {
            acks += socket->immediateAcks;
        }
    }
    return acks;
}

void
Sample()
{
    for (Bottleneck* b : {&g_fabric, &g_edge})
    {
        b->discSum += b->disc->GetNPackets();
        b->deviceSum += b->device->GetNPackets();
        b->samples += 1;
    }
    if (Simulator::Now().GetSeconds() + g_sampleS < g_endS)
    {
        Simulator::Schedule(Seconds(g_sampleS), &Sample);
    }
}

uint64_t
Marks(Ptr<QueueDisc> disc)
{
    return disc->GetStats().nTotalMarkedPackets;
}

void
StartMeasuring()
{
    for (auto& group : g_rxBytes)
    {
        std::fill(group.begin(), group.end(), 0);
    }
    for (std::size_t g = 0; g < g_probeSenders.size(); g++)
    {
        for (std::size_t i = 0; i < g_probeSenders[g].size(); i++)
        {
            Ptr<TcpSocketLinuxProbe> socket = g_probeSenders[g][i]->socket;
            g_probesAtStart[g][i] = socket->probes;
            // --tlp's sockets are not in TcpL4Protocol's SocketList: connect them one by one.
            std::string context = "/NodeList/" + std::to_string(socket->GetNode()->GetId()) + "/";
            socket->TraceConnect("CongState", context, MakeCallback(&OnCongState));
        }
    }
    // Every sender has started (the start-up window ends before the measurement).
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState", MakeCallback(&OnCongState));
    g_immediateAcksAtStart = ImmediateAcks();
    for (std::size_t g = 0; g < g_groupSinks.size(); g++)
    {
        for (std::size_t i = 0; i < g_groupSinks[g].size(); i++)
        {
            g_delayedAcksAtStart[g][i] = DelayedAcks(g_groupSinks[g][i]);
        }
    }
    for (Bottleneck* b : {&g_fabric, &g_edge})
    {
        b->marksAtStart = Marks(b->disc);
        b->dropsAtStart = b->disc->GetStats().nTotalDroppedPackets;
    }
    Sample();
}

void
Received(std::size_t group, std::size_t flow, Ptr<const Packet> p, const Address&)
{
    g_rxBytes[group][flow] += p->GetSize();
}

void
ReceivedBytes(std::size_t group, std::size_t flow, uint32_t bytes)
{
    g_rxBytes[group][flow] += bytes;
}

/** ``, "name": [per-flow count]`` */
std::string
CountsJson(const char* name, const std::vector<uint64_t>& counts)
{
    std::string out = std::string(", \"") + name + "\": [";
    for (std::size_t i = 0; i < counts.size(); i++)
    {
        out += (i ? ", " : "") + std::to_string(counts[i]);
    }
    return out + "]";
}

std::string
GroupJson(const char* name, std::size_t group, const std::vector<uint64_t>& bytes, double windowS)
{
    double sum = 0;
    double squares = 0;
    std::string flows;
    for (std::size_t i = 0; i < bytes.size(); i++)
    {
        double mbps = bytes[i] * 8.0 / windowS / 1e6;
        sum += mbps;
        squares += mbps * mbps;
        char item[32];
        std::snprintf(item, sizeof item, "%s%.4f", i ? ", " : "", mbps);
        flows += item;
    }
    double n = static_cast<double>(bytes.size());
    double jain = squares > 0 ? sum * sum / (n * squares) : 0.0;
    char out[256];
    std::snprintf(out, sizeof out, "\"%s\": {\"mean_mbps\": %.4f, \"jain\": %.6f, \"flows_mbps\": [", name, n ? sum / n : 0.0, jain);
    std::string counters = CountsJson("timeouts", g_timeouts[group]);
    if (!g_probeSenders.empty())
    {
        std::vector<uint64_t> probes;
        for (std::size_t i = 0; i < g_probeSenders[group].size(); i++)
        {
            probes.push_back(g_probeSenders[group][i]->socket->probes - g_probesAtStart[group][i]);
        }
        counters += CountsJson("probes", probes);
    }
    if (!g_groupSinks.empty())
    {
        std::vector<uint64_t> delayed;
        for (std::size_t i = 0; i < g_groupSinks[group].size(); i++)
        {
            delayed.push_back(DelayedAcks(g_groupSinks[group][i]) - g_delayedAcksAtStart[group][i]);
        }
        counters += CountsJson("delayed_ack_timeouts", delayed);
    }
    return std::string(out) + flows + "]" + counters + "}";
}

std::string
BottleneckJson(const char* name, const Bottleneck& b, double rateBps, uint32_t packetBytes)
{
    double disc = b.samples ? b.discSum / b.samples : 0.0;
    double device = b.samples ? b.deviceSum / b.samples : 0.0;
    char out[400];
    std::snprintf(out, sizeof out,
                  "\"%s\": {\"disc_mean_packets\": %.4f, \"device_mean_packets\": %.4f, \"total_mean_packets\": %.4f, "
                  "\"total_mean_delay_us\": %.3f, \"marks\": %llu, \"drops\": %llu, \"samples\": %llu}",
                  name, disc, device, disc + device, (disc + device) * packetBytes * 8.0 / rateBps * 1e6,
                  static_cast<unsigned long long>(Marks(b.disc) - b.marksAtStart),
                  static_cast<unsigned long long>(b.disc->GetStats().nTotalDroppedPackets - b.dropsAtStart),
                  static_cast<unsigned long long>(b.samples));
    return out;
}
} // namespace

int
main(int argc, char* argv[])
{
    uint32_t n1 = 10;
    uint32_t n2 = 20;
    uint32_t n3 = 10;
    std::string transport = "dctcp";
    std::string hostRate = "1Gbps";
    std::string fabricRate = "10Gbps";
    double linkDelayUs = 10;
    double hostSkewNs = 0;
    double minTh1 = 20;
    double maxTh1 = 60;
    double minTh10 = 50;
    double maxTh10 = 150;
    double lInterm = 50;
    bool gentle = true;
    bool wait = true;
    std::string wred = "ns3-red";
    uint32_t redSteps = 0;
    uint32_t deviceQueue = 100;
    uint32_t delAck = 2;
    std::string dctcp = "ns3";
    bool ceChangeAck = true;
    uint32_t segment = 1448;
    double minRtoMs = 1000;  // ns-3's TcpSocketBase::MinRto default
    double delAckTimeoutMs = 200;  // ns-3's TcpSocket::DelAckTimeout default
    double startupS = 1;
    double convergenceS = 3;
    double measureS = 1;
    double sampleUs = 100;
    uint32_t seed = 1;

    LinuxHostFlags linuxHost;
    CommandLine cmd(__FILE__);
    linuxHost.AddTo(cmd);
    cmd.AddValue("n1", "S1 senders (T1 -> R1)", n1);
    cmd.AddValue("n2", "S2 senders (T1 -> R2, one receiver each)", n2);
    cmd.AddValue("n3", "S3 senders (T2 -> R1)", n3);
    cmd.AddValue("transport", "dctcp, tcp-ecn (NewReno with RFC 3168 ECN) or newreno", transport);
    cmd.AddValue("hostRate", "rate of every host link", hostRate);
    cmd.AddValue("fabricRate", "rate of the T1-T2 link", fabricRate);
    cmd.AddValue("linkDelayUs", "one-way delay of every link, us", linkDelayUs);
    cmd.AddValue("hostSkewNs",
                 "the k-th sender's host link (S1, S2, S3 in order) is k times this longer one way, ns: cables of unequal "
                 "length, so that no two senders' packets reach a switch at the same nanosecond by construction",
                 hostSkewNs);
    cmd.AddValue("minTh1", "RED min_th on host-facing ports, packets", minTh1);
    cmd.AddValue("maxTh1", "RED max_th on host-facing ports, packets", maxTh1);
    cmd.AddValue("minTh10", "RED min_th on the fabric ports, packets", minTh10);
    cmd.AddValue("maxTh10", "RED max_th on the fabric ports, packets", maxTh10);
    cmd.AddValue("lInterm", "RED 1/max_p", lInterm);
    cmd.AddValue("gentle", "RED gentle mode (ns-3's default true)", gentle);
    cmd.AddValue("wred", "ns3-red (RedQueueDisc) or switch (per-packet WRED as SAI and the software switch run it)", wred);
    cmd.AddValue("redSteps", "--wred=switch: 0 for a linear ramp, N for the chip's N-step staircase", redSteps);
    cmd.AddValue("wait", "RED Wait: space marks by the count since the last one (ns-3's default true)", wait);
    cmd.AddValue("deviceQueue", "packets the PointToPointNetDevice queue holds below the disc (ns-3's default 100)", deviceQueue);
    cmd.AddValue("delAck", "TcpSocket::DelAckCount", delAck);
    cmd.AddValue("dctcp",
                 "ns3 (TcpDctcp) or linux (with Linux's two-segment floor, tcp_dctcp.c dctcp_ssthresh); "
                 "--linuxWindow takes its place",
                 dctcp);
    cmd.AddValue("ceChangeAck",
                 "with --linuxReceiver: false leaves a CE change to ns-3's TcpDctcp (the changing segment held for the "
                 "delayed ACK), to measure what Linux's immediate ACK of it moves",
                 ceChangeAck);
    cmd.AddValue("delAckTimeoutMs", "TcpSocket::DelAckTimeout, ms (ns-3's default 200; Linux's TCP_DELACK_MIN 40)", delAckTimeoutMs);
    cmd.AddValue("segment", "TCP segment size, bytes", segment);
    cmd.AddValue("minRtoMs", "TcpSocketBase::MinRto, ms", minRtoMs);
    cmd.AddValue("startup", "start-up window over which senders start, s", startupS);
    cmd.AddValue("convergence", "time after the start-up window before measuring, s", convergenceS);
    cmd.AddValue("measure", "measurement window, s", measureS);
    cmd.AddValue("sampleUs", "queue sampling interval in the measurement window, us", sampleUs);
    cmd.AddValue("seed", "RngRun", seed);
    cmd.Parse(argc, argv);
    RngSeedManager::SetRun(seed);

    if (transport == "dctcp")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           linuxHost.linuxWindow ? TypeIdValue(TcpDctcpLinuxWindow::GetTypeId())
                           : dctcp == "linux"    ? TypeIdValue(TcpDctcpLinux::GetTypeId())
                                                 : TypeIdValue(TcpDctcp::GetTypeId()));
    }
    else if (transport == "tcp-ecn" || transport == "newreno")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
        if (transport == "tcp-ecn")
        {
            Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
        }
    }
    else
    {
        std::fprintf(stderr, "--transport must be dctcp, tcp-ecn or newreno\n");
        return 2;
    }
    if (dctcp != "ns3" && dctcp != "linux")
    {
        std::fprintf(stderr, "--dctcp must be ns3 or linux\n");
        return 2;
    }
    if (wred != "ns3-red" && wred != "switch")
    {
        std::fprintf(stderr, "--wred must be ns3-red or switch\n");
        return 2;
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAck));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(delAckTimeoutMs * 1000)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(minRtoMs * 1000)));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::UseEcn", BooleanValue(true));
    Config::SetDefault("ns3::RedQueueDisc::UseHardDrop", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::MeanPktSize", UintegerValue(1500));
    Config::SetDefault("ns3::RedQueueDisc::MaxSize", QueueSizeValue(QueueSize("2666p")));
    Config::SetDefault("ns3::RedQueueDisc::QW", DoubleValue(1));
    Config::SetDefault("ns3::RedQueueDisc::LInterm", DoubleValue(lInterm));
    Config::SetDefault("ns3::RedQueueDisc::Gentle", BooleanValue(gentle));
    Config::SetDefault("ns3::RedQueueDisc::Wait", BooleanValue(wait));

    Ptr<Node> t1 = CreateObject<Node>();
    Ptr<Node> t2 = CreateObject<Node>();
    Ptr<Node> r1 = CreateObject<Node>();
    NodeContainer s1, s2, s3, r2;
    s1.Create(n1);
    s2.Create(n2);
    s3.Create(n3);
    r2.Create(n2);

    std::string queueSize = std::to_string(deviceQueue) + "p";
    PointToPointHelper hostLink;
    hostLink.SetDeviceAttribute("DataRate", StringValue(hostRate));
    hostLink.SetChannelAttribute("Delay", TimeValue(MicroSeconds(linkDelayUs)));
    hostLink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(queueSize));
    PointToPointHelper fabricLink;
    fabricLink.SetDeviceAttribute("DataRate", StringValue(fabricRate));
    fabricLink.SetChannelAttribute("Delay", TimeValue(MicroSeconds(linkDelayUs)));
    fabricLink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(queueSize));
    if (linuxHost.ethernet)
    {
        UseEthernetFraming(hostLink, hostRate);
        UseEthernetFraming(fabricLink, fabricRate);
    }

    NetDeviceContainer t1t2 = fabricLink.Install(t1, t2);
    NetDeviceContainer r1t2 = hostLink.Install(r1, t2);
    std::vector<NetDeviceContainer> s1t1, s2t1, s3t2, r2t2;
    uint32_t sendersLinked = 0;
    auto senderLink = [&](Ptr<Node> host, Ptr<Node> tor) {
        PointToPointHelper link = hostLink;
        link.SetChannelAttribute("Delay", TimeValue(NanoSeconds(linkDelayUs * 1000 + hostSkewNs * sendersLinked++)));
        return link.Install(host, tor);
    };
    for (uint32_t i = 0; i < n1; i++)
        s1t1.push_back(senderLink(s1.Get(i), t1));
    for (uint32_t i = 0; i < n2; i++)
        s2t1.push_back(senderLink(s2.Get(i), t1));
    for (uint32_t i = 0; i < n3; i++)
        s3t2.push_back(senderLink(s3.Get(i), t2));
    for (uint32_t i = 0; i < n2; i++)
        r2t2.push_back(hostLink.Install(r2.Get(i), t2));

    InternetStackHelper stack;
    stack.InstallAll();

    // One RED/WRED disc on every switch port (T1 -> T2 and T2 -> R1 are the measured ones).
    auto install = [&](Ptr<NetDevice> device, const std::string& rate, double minTh, double maxTh) -> Ptr<QueueDisc> {
        if (wred == "switch")
        {
            Ptr<SwitchWredQueueDisc> disc = CreateObject<SwitchWredQueueDisc>();
            disc->Configure(minTh, maxTh, 1.0 / lInterm, redSteps);
            device->GetNode()->GetObject<TrafficControlLayer>()->SetRootQueueDiscOnDevice(device, disc);
            return disc;
        }
        TrafficControlHelper red;
        red.SetRootQueueDisc("ns3::RedQueueDisc", "LinkBandwidth", StringValue(rate), "LinkDelay",
                             TimeValue(MicroSeconds(linkDelayUs)), "MinTh", DoubleValue(minTh), "MaxTh", DoubleValue(maxTh));
        return red.Install(device).Get(0);
    };
    Ptr<QueueDisc> fabricDisc = install(t1t2.Get(0), fabricRate, minTh10, maxTh10);
    install(t1t2.Get(1), fabricRate, minTh10, maxTh10);
    Ptr<QueueDisc> edgeDisc = install(r1t2.Get(1), hostRate, minTh1, maxTh1);
    for (auto* links : {&s1t1, &s2t1, &s3t2, &r2t2})
        for (auto& link : *links)
            install(link.Get(1), hostRate, minTh1, maxTh1);

    Ipv4AddressHelper address;
    address.SetBase("172.16.1.0", "255.255.255.0");
    address.Assign(t1t2);
    address.SetBase("192.168.0.0", "255.255.255.0");
    Ipv4InterfaceContainer r1Address = address.Assign(r1t2);
    std::vector<Ipv4InterfaceContainer> r2Address;
    const char* bases[] = {"10.1.0.0", "10.2.0.0", "10.3.0.0", "10.4.0.0"};
    int b = 0;
    for (auto* links : {&s1t1, &s2t1, &s3t2, &r2t2})
    {
        address.SetBase(bases[b], "255.255.255.0");
        for (auto& link : *links)
        {
            Ipv4InterfaceContainer assigned = address.Assign(link);
            if (links == &r2t2)
                r2Address.push_back(assigned);
            address.NewNetwork();
        }
        b++;
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    double stopS = startupS + convergenceS + measureS;
    g_rxBytes = {std::vector<uint64_t>(n1), std::vector<uint64_t>(n2), std::vector<uint64_t>(n3)};
    g_timeouts = g_rxBytes;
    if (linuxHost.tlp)
    {
        g_probeSenders.assign(3, {});
        g_probesAtStart = g_rxBytes;
    }
    if (linuxHost.linuxReceiver)
    {
        g_groupSinks.assign(3, {});
        g_delayedAcksAtStart = g_rxBytes;
    }
    auto flow = [&](Ptr<Node> sender, Ptr<Node> receiver, Address remote, uint16_t port, double startS, std::size_t group, std::size_t index) {
        g_senderOf[sender->GetId()] = {group, index};
        ApplicationContainer sinkApp;
        if (linuxHost.linuxReceiver)
        {
            Ptr<LinuxReceiverSink> sink = CreateObject<LinuxReceiverSink>(port);
            sink->onReceive = MakeBoundCallback(&ReceivedBytes, group, index);
            sink->ceChangeAck = ceChangeAck;
            g_groupSinks[group].push_back(sink);
            receiver->AddApplication(sink);
            g_linuxSinks.push_back(sink);
            sinkApp.Add(sink);
        }
        else
        {
            PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
            sinkApp = sink.Install(receiver);
            sinkApp.Get(0)->GetObject<PacketSink>()->TraceConnectWithoutContext("Rx", MakeBoundCallback(&Received, group, index));
        }
        sinkApp.Start(Seconds(0));
        sinkApp.Stop(Seconds(stopS));
        ApplicationContainer app;
        if (linuxHost.tlp)
        {
            Ptr<ProbeBulkSender> probeSender = CreateObject<ProbeBulkSender>(remote, 1000);
            sender->AddApplication(probeSender);
            g_probeSenders[group].push_back(probeSender);
            app.Add(probeSender);
        }
        else
        {
            OnOffHelper client("ns3::TcpSocketFactory", remote);
            client.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1]"));
            client.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
            client.SetAttribute("DataRate", DataRateValue(DataRate(hostRate)));
            client.SetAttribute("PacketSize", UintegerValue(1000));
            app = client.Install(sender);
        }
        app.Start(Seconds(startS));
        app.Stop(Seconds(stopS));
    };
    // dctcp-example.cc's start times: sender i of a group at i*window/n + i*5 ms, S3's 5 ms term
    // counting on from S1's.
    for (uint32_t i = 0; i < n2; i++)
        flow(s2.Get(i), r2.Get(i), InetSocketAddress(r2Address[i].GetAddress(0), 50000 + i), 50000 + i, i * startupS / n2 + i * 5e-3, 1, i);
    for (uint32_t i = 0; i < n1; i++)
        flow(s1.Get(i), r1, InetSocketAddress(r1Address.GetAddress(0), 50000 + i), 50000 + i, i * startupS / n1 + i * 5e-3, 0, i);
    for (uint32_t i = 0; i < n3; i++)
        flow(s3.Get(i), r1, InetSocketAddress(r1Address.GetAddress(0), 50000 + n1 + i), 50000 + n1 + i,
             i * startupS / n3 + (n1 + i) * 5e-3, 2, i);

    g_fabric.disc = fabricDisc;
    g_fabric.device = DynamicCast<PointToPointNetDevice>(t1t2.Get(0))->GetQueue();
    g_edge.disc = edgeDisc;
    g_edge.device = DynamicCast<PointToPointNetDevice>(r1t2.Get(1))->GetQueue();
    g_sampleS = sampleUs * 1e-6;
    g_endS = stopS;
    Simulator::Schedule(Seconds(startupS + convergenceS), &StartMeasuring);
    Simulator::Stop(Seconds(stopS) + TimeStep(1));
    Simulator::Run();

    double fabricBps = DataRate(fabricRate).GetBitRate();
    double hostBps = DataRate(hostRate).GetBitRate();
    std::string receiverAcks =
        linuxHost.linuxReceiver ? ", \"linux_receiver_acks\": " + std::to_string(ImmediateAcks() - g_immediateAcksAtStart) : "";
    std::printf("{%s, %s, %s, %s, %s%s}\n", GroupJson("s1", 0, g_rxBytes[0], measureS).c_str(),
                GroupJson("s2", 1, g_rxBytes[1], measureS).c_str(), GroupJson("s3", 2, g_rxBytes[2], measureS).c_str(),
                BottleneckJson("t1_t2", g_fabric, fabricBps, 1500).c_str(), BottleneckJson("t2_r1", g_edge, hostBps, 1500).c_str(),
                receiverAcks.c_str());
    Simulator::Destroy();
    return 0;
}
