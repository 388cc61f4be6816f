// The qosforge `simulate --scenario dumbbell` scenario in ns-3 (3.37, Debian's libns3-dev), for
// bench/ns3_compare.py. N senders, each on its own access link, share one bottleneck toward one
// receiver; every link runs at the bottleneck rate with a quarter of the base RTT one way, as
// softswitch/scenarios.py builds it. The bottleneck queue is a queue disc on the router's port
// (the device queue holds one packet, so the disc is the queue): RED with min = max = K, QW = 1
// and ECN marking, not gentle (DCTCP's step at K, DCTCP §3.1), or a
// FIFO tail-drop queue when K = 0. Output: one JSON object on stdout.
//
// Mixed round trips: the last --flows2 senders get base RTT --rttUs2 (their access link one way
// carries rttUs2/2 - rttUs/4, the bottleneck link rttUs/4 as for the others). --trace FILE writes
// one line per packet joining the bottleneck queue in the measured window ("E time_s sender
// queue_packets_before marked") and one per ssthresh change of a sender ("S time_s sender
// ssthresh_segments cwnd_segments"), each advance of a sender's highest ACK ("A time_s sender 0
// ack_segments"), each segment it sends ("T time_s sender seq_segments") and each change of its
// congestion state ("C time_s sender state", TcpSocketState::TcpCongState_t), for the per-packet comparison in docs/dctcp-ce-marks.md.
//
// --ethernet: every frame takes Ethernet's line time instead of PPP's (linux_host.h
// UseEthernetFraming says how and what it leaves). --linuxWindow: DCTCP on Linux's window
// arithmetic and order (linux_host.h TcpDctcpLinuxWindow). --tlp: Linux's tail loss probe on the
// senders; --linuxReceiver: Linux's immediate ACKs on the receiver (linux_host.h
// TcpSocketLinuxProbe); the JSON then counts probes, timeouts and immediate ACKs.
// --mtu M: every device's MTU (PointToPointNetDevice::Mtu, default 1500), for jumbo frames; pass
// --segment M - 52 with it (IPv4 20 B + TCP 20 B + timestamps 12 B, as qosforge's
// traffic/spec.py HEADER_BYTES), so every data packet is one M-byte datagram.
// --joiners N --joinSpacingUs S: the last N senders join one after another, the k-th of them
// (k = 1..N) at k * S us; the others start spread over the first round trip (sender i at
// i * rttUs / flows us, as the qosforge dumbbell starts them). At least two senders start
// together: a lone sender whose access link runs at the bottleneck's rate meets no queue and no
// mark, so its window grows until the sender's own buffers stop it (here 64 MiB, far beyond
// Linux's TCP small queues), and the experiment would measure that backlog draining.
// --accessSkewNs S: sender i's access link is i * S ns longer one way. With every cable equally
// long, packets of different senders reach the router at the same nanosecond and ns-3 orders the
// tie by scheduling order, which lines them up into trains of one sender's packets
// (docs/dctcp-ce-marks.md); 1 ns of skew breaks the ties without moving any round trip.
//
// Build: g++ -O2 -std=c++17 dumbbell.cc $(pkg-config --cflags --libs ns3-core ns3-network
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
#include <vector>

using namespace ns3;

namespace
{
Ptr<QueueDisc> g_queue;
std::map<uint32_t, uint64_t> g_histogram;  // packets in queue -> samples
double g_sum = 0;
uint64_t g_samples = 0;
double g_step = 10e-6;
double g_end = 0.3;

void
Sample()
{
    uint32_t packets = g_queue->GetNPackets();
    g_histogram[packets] += 1;
    g_sum += packets;
    g_samples += 1;
    if (Simulator::Now().GetSeconds() + g_step <= g_end + 1e-12)
    {
        Simulator::Schedule(Seconds(g_step), &Sample);
    }
}

struct Snapshot
{
    uint64_t rxBytes = 0;
    uint64_t marks = 0;
    uint64_t drops = 0;
};

std::vector<Ptr<PacketSink>> g_sinks;
std::vector<Ptr<ProbeBulkSender>> g_probeSenders;  // --tlp's senders, in sender order
std::vector<Ptr<LinuxReceiverSink>> g_linuxSinks;  // --linuxReceiver's sinks
double g_atWarmupTime = 0;

Snapshot
Take()
{
    Snapshot s;
    for (auto& sink : g_sinks)
    {
        s.rxBytes += sink->GetTotalRx();
    }
    for (auto& sink : g_linuxSinks)
    {
        s.rxBytes += sink->received;
    }
    const QueueDisc::Stats& stats = g_queue->GetStats();
    s.marks = stats.nTotalMarkedPackets;
    s.drops = stats.nTotalDroppedPackets;
    return s;
}

Snapshot g_atWarmup;

std::FILE* g_trace = nullptr;
uint32_t g_segment = 1448;
const QueueDiscItem* g_lastMarked = nullptr;
std::vector<uint32_t> g_cwnd;

uint32_t
SenderOf(Ptr<const QueueDiscItem> item)
{
    // Sender i's address is 10.1.i.1 (one /24 per access link, assigned in order).
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    return ip ? (ip->GetHeader().GetSource().Get() >> 8) & 0xff : 0xffff;
}

void
OnMark(Ptr<const QueueDiscItem> item, const char*)
{
    g_lastMarked = PeekPointer(item);
}

void
OnEnqueue(Ptr<const QueueDiscItem> item)
{
    bool marked = PeekPointer(item) == g_lastMarked;
    g_lastMarked = nullptr;
    if (Simulator::Now().GetSeconds() < g_atWarmupTime)
    {
        return;
    }
    std::fprintf(g_trace, "E %.9f %u %u %d\n", Simulator::Now().GetSeconds(), SenderOf(item),
                 g_queue->GetNPackets() - 1, marked ? 1 : 0);
}

uint32_t
NodeOf(const std::string& context)
{
    return std::stoul(context.substr(10, context.find('/', 10) - 10));  // "/NodeList/N/..."
}

void
OnCwnd(std::string context, uint32_t, uint32_t cwnd)
{
    uint32_t node = NodeOf(context);
    if (node < g_cwnd.size())
    {
        g_cwnd[node] = cwnd;
    }
}

void
OnSsthresh(std::string context, uint32_t, uint32_t ssthresh)
{
    uint32_t node = NodeOf(context);
    if (node < g_cwnd.size() && Simulator::Now().GetSeconds() >= g_atWarmupTime)
    {
        std::fprintf(g_trace, "S %.9f %u %.3f %.3f\n", Simulator::Now().GetSeconds(), node,
                     ssthresh / double(g_segment), g_cwnd[node] / double(g_segment));
    }
}

void
OnHighestRxAck(std::string context, SequenceNumber32, SequenceNumber32 ack)
{
    uint32_t node = NodeOf(context);
    if (node < g_cwnd.size() && Simulator::Now().GetSeconds() >= g_atWarmupTime)
    {
        std::fprintf(g_trace, "A %.9f %u 0 %u\n", Simulator::Now().GetSeconds(), node, ack.GetValue() / g_segment);
    }
}

void
OnTx(std::string context, Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    uint32_t node = NodeOf(context);
    if (node < g_cwnd.size() && packet->GetSize() > 0 && Simulator::Now().GetSeconds() >= g_atWarmupTime)
    {
        std::fprintf(g_trace, "T %.9f %u %u\n", Simulator::Now().GetSeconds(), node, header.GetSequenceNumber().GetValue() / g_segment);
    }
}

void
OnCongState(std::string context, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state)
{
    uint32_t node = NodeOf(context);
    if (node < g_cwnd.size() && Simulator::Now().GetSeconds() >= g_atWarmupTime)
    {
        std::fprintf(g_trace, "C %.9f %u %d\n", Simulator::Now().GetSeconds(), node, int(state));
    }
}

void
ConnectSockets()
{
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState", MakeCallback(&OnCongState));
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/HighestRxAck", MakeCallback(&OnHighestRxAck));
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/Tx", MakeCallback(&OnTx));
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongestionWindow", MakeCallback(&OnCwnd));
    Config::Connect("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/SlowStartThreshold", MakeCallback(&OnSsthresh));
    // --tlp's sockets are not in TcpL4Protocol's SocketList: connect them one by one.
    for (uint32_t i = 0; i < g_probeSenders.size(); ++i)
    {
        Ptr<TcpSocketLinuxProbe> socket = g_probeSenders[i]->socket;
        std::string context = "/NodeList/" + std::to_string(i) + "/";
        socket->TraceConnect("CongState", context, MakeCallback(&OnCongState));
        socket->TraceConnect("HighestRxAck", context, MakeCallback(&OnHighestRxAck));
        socket->TraceConnect("Tx", context, MakeCallback(&OnTx));
        socket->TraceConnect("CongestionWindow", context, MakeCallback(&OnCwnd));
        socket->TraceConnect("SlowStartThreshold", context, MakeCallback(&OnSsthresh));
    }
}

void
AtWarmup()
{
    g_atWarmup = Take();
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string transport = "dctcp";
    uint32_t flows = 10;
    std::string bandwidth = "10Gbps";
    double rttUs = 100;
    uint32_t kPackets = 65;
    uint32_t bufferPackets = 1000;
    double duration = 0.3;
    double warmup = 0.1;
    bool sack = true;
    double rtoMinMs = 4.0;
    uint32_t segment = 1448;
    uint32_t delAck = 0;
    std::string reno = "ns3";
    double delAckTimeoutMs = 200;  // ns-3's TcpSocket::DelAckTimeout default
    uint32_t flows2 = 0;
    double rttUs2 = 0;
    std::string trace;
    double accessSkewNs = 0;
    uint32_t mtu = 1500;
    uint32_t joiners = 0;
    double joinSpacingUs = 0;
    LinuxHostFlags linuxHost;
    CommandLine cmd(__FILE__);
    linuxHost.AddTo(cmd);
    cmd.AddValue("transport", "dctcp, cubic, newreno or tcp-ecn", transport);
    cmd.AddValue("flows", "long-lived senders", flows);
    cmd.AddValue("bandwidth", "every link's rate", bandwidth);
    cmd.AddValue("rttUs", "base round-trip time, microseconds", rttUs);
    cmd.AddValue("k", "ECN step threshold K in packets (0: FIFO tail drop)", kPackets);
    cmd.AddValue("buffer", "bottleneck queue limit, packets", bufferPackets);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "statistics start, seconds", warmup);
    cmd.AddValue("sack", "TCP SACK (RFC 2018)", sack);
    cmd.AddValue("rtoMinMs", "minimum RTO, ms (qosforge: 4 ms)", rtoMinMs);
    cmd.AddValue("segment", "TCP payload per segment, bytes", segment);
    cmd.AddValue("reno", "newreno and tcp-ecn as ns3 (TcpNewReno: +1 MSS per RTT counted per ACK) or linux (TcpLinuxReno: "
                         "per segment ACKed, as Linux's tcp_cong_avoid_ai and RFC 3465)", reno);
    cmd.AddValue("delAck", "TcpSocket::DelAckCount (0: ns-3's default, 2 segments)", delAck);
    cmd.AddValue("delAckTimeoutMs", "TcpSocket::DelAckTimeout, ms (ns-3's default 200; Linux's TCP_DELACK_MIN 40)", delAckTimeoutMs);
    cmd.AddValue("flows2", "of the flows, this many (the last) with base RTT rttUs2", flows2);
    cmd.AddValue("rttUs2", "base round-trip time of the last flows2 flows, microseconds", rttUs2);
    cmd.AddValue("trace", "write the per-packet trace of the bottleneck and the senders' ssthresh here", trace);
    cmd.AddValue("accessSkewNs", "sender i's access link is i times this longer one way, ns (cables of unequal length)", accessSkewNs);
    cmd.AddValue("mtu", "every device's MTU, bytes (jumbo frames: 9000 with --segment=8948)", mtu);
    cmd.AddValue("joiners", "of the flows, this many (the last) join one after another", joiners);
    cmd.AddValue("joinSpacingUs", "the k-th joiner starts at k times this, us", joinSpacingUs);
    cmd.Parse(argc, argv);
    g_end = duration;
    g_atWarmupTime = warmup;
    g_segment = segment;
    if (joiners + 2 > flows && joiners > 0)
    {
        std::fprintf(stderr, "--joiners must leave at least two flows starting together\n");
        return 2;
    }
    if (flows2 > flows || (flows2 > 0 && rttUs2 < rttUs / 2))
    {
        std::fprintf(stderr, "--flows2 must be at most --flows and --rttUs2 at least rttUs/2\n");
        return 2;
    }

    if (transport == "dctcp")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           linuxHost.linuxWindow ? TypeIdValue(TcpDctcpLinuxWindow::GetTypeId()) : TypeIdValue(TcpDctcp::GetTypeId()));
    }
    else if (transport == "cubic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpCubic::GetTypeId()));
    }
    else
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", reno == "linux" ? TypeIdValue(TcpLinuxReno::GetTypeId())
                                                                              : TypeIdValue(TcpNewReno::GetTypeId()));
        if (transport == "tcp-ecn")
        {
            Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
        }
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(delAckTimeoutMs * 1000)));
    if (delAck > 0)
    {
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAck));
    }
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));  // RFC 6928
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 26));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(rtoMinMs * 1000)));
    Config::SetDefault("ns3::RedQueueDisc::UseEcn", BooleanValue(true));
    Config::SetDefault("ns3::RedQueueDisc::UseHardDrop", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::MeanPktSize", UintegerValue(segment + 52));
    Config::SetDefault("ns3::RedQueueDisc::QW", DoubleValue(1.0));
    // Not gentle: above MaxTh every packet is marked (a step at K). Gentle RED would instead mark
    // with a probability rising from LInterm at MaxTh to 1 at 2 MaxTh.
    Config::SetDefault("ns3::RedQueueDisc::Gentle", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::MaxSize", QueueSizeValue(QueueSize(std::to_string(bufferPackets) + "p")));

    NodeContainer senders;
    senders.Create(flows);
    Ptr<Node> router = CreateObject<Node>();
    Ptr<Node> receiver = CreateObject<Node>();
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue(bandwidth));
    link.SetChannelAttribute("Delay", TimeValue(NanoSeconds(rttUs * 1000 / 4)));
    link.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    link.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    if (linuxHost.ethernet)
    {
        UseEthernetFraming(link, bandwidth);
    }

    InternetStackHelper stack;
    stack.InstallAll();
    Ipv4AddressHelper address;
    address.SetBase("10.1.0.0", "255.255.255.0");
    TrafficControlHelper senderSide;
    senderSide.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100000p"));
    for (uint32_t i = 0; i < flows; ++i)
    {
        PointToPointHelper access = link;
        double accessNs = i >= flows - flows2 ? rttUs2 * 1000 / 2 - rttUs * 1000 / 4 : rttUs * 1000 / 4;
        access.SetChannelAttribute("Delay", TimeValue(NanoSeconds(accessNs + i * accessSkewNs)));
        NetDeviceContainer devices = access.Install(senders.Get(i), router);
        senderSide.Install(devices);
        address.Assign(devices);
        address.NewNetwork();
    }
    NetDeviceContainer bottleneck = link.Install(router, receiver);
    TrafficControlHelper queueSide;
    if (kPackets > 0)
    {
        queueSide.SetRootQueueDisc("ns3::RedQueueDisc", "MinTh", DoubleValue(kPackets), "MaxTh", DoubleValue(kPackets));
    }
    else
    {
        queueSide.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(std::to_string(bufferPackets) + "p"));
    }
    QueueDiscContainer discs = queueSide.Install(bottleneck);
    g_queue = discs.Get(0);
    Ipv4InterfaceContainer sinkSide = address.Assign(bottleneck);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    uint16_t port = 50000;
    for (uint32_t i = 0; i < flows; ++i)
    {
        if (linuxHost.linuxReceiver)
        {
            Ptr<LinuxReceiverSink> sink = CreateObject<LinuxReceiverSink>(port + i);
            receiver->AddApplication(sink);
            sink->SetStartTime(Seconds(0));
            g_linuxSinks.push_back(sink);
        }
        else
        {
            PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port + i));
            ApplicationContainer sink = sinkHelper.Install(receiver);
            sink.Start(Seconds(0));
            g_sinks.push_back(DynamicCast<PacketSink>(sink.Get(0)));
        }
        ApplicationContainer app;
        if (linuxHost.tlp)
        {
            Ptr<ProbeBulkSender> sender = CreateObject<ProbeBulkSender>(InetSocketAddress(sinkSide.GetAddress(1), port + i), segment);
            senders.Get(i)->AddApplication(sender);
            g_probeSenders.push_back(sender);
            app.Add(sender);
        }
        else
        {
            BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(sinkSide.GetAddress(1), port + i));
            source.SetAttribute("MaxBytes", UintegerValue(0));
            source.SetAttribute("SendSize", UintegerValue(segment));
            app = source.Install(senders.Get(i));
        }
        // Staggered as the qosforge dumbbell (bench/ns3_compare.py passes the same spacing).
        uint32_t firstJoiner = flows - joiners;
        app.Start(MicroSeconds(i >= firstJoiner ? joinSpacingUs * (i - firstJoiner + 1) : rttUs * i / flows));
    }
    double lastStartUs = joiners > 0 ? joinSpacingUs * joiners : rttUs;
    Simulator::Schedule(Seconds(warmup), &AtWarmup);
    if (!trace.empty())
    {
        g_trace = std::fopen(trace.c_str(), "w");
        g_cwnd.assign(flows, 0);
        g_queue->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
        g_queue->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
        Simulator::Schedule(MicroSeconds(lastStartUs + rttUs), &ConnectSockets);  // every sender has started
    }
    Simulator::Schedule(Seconds(warmup), &Sample);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    Snapshot end = Take();

    uint64_t rank = static_cast<uint64_t>(std::ceil(0.99 * g_samples));
    uint64_t cumulative = 0;
    uint32_t p99 = 0;
    for (auto& [packets, count] : g_histogram)
    {
        cumulative += count;
        if (cumulative >= rank)
        {
            p99 = packets;
            break;
        }
    }
    double measured = duration - warmup;
    uint64_t probes = 0;
    uint64_t timeouts = 0;
    uint64_t immediateAcks = 0;
    for (auto& sender : g_probeSenders)
    {
        probes += sender->socket->probes;
        timeouts += sender->socket->timeouts;
    }
    for (auto& sink : g_linuxSinks)
    {
        for (auto& socket : sink->accepted)
        {
            immediateAcks += socket->immediateAcks;
        }
    }
    std::printf("{\"queue_mean_packets\": %.6f, \"queue_p99_packets\": %u, \"goodput_gbps\": %.6f, \"marks\": %llu, \"drops\": %llu, "
                "\"queue_samples\": %llu, \"tlp_probes\": %llu, \"tlp_timeouts\": %llu, \"linux_receiver_acks\": %llu}\n",
                g_samples ? g_sum / g_samples : 0.0, p99, (end.rxBytes - g_atWarmup.rxBytes) * 8.0 / measured / 1e9,
                (unsigned long long)(end.marks - g_atWarmup.marks), (unsigned long long)(end.drops - g_atWarmup.drops),
                (unsigned long long)g_samples, (unsigned long long)probes, (unsigned long long)timeouts,
                (unsigned long long)immediateAcks);
    if (g_trace)
    {
        std::fclose(g_trace);
    }
    Simulator::Destroy();
    return 0;
}
