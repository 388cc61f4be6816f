// The Linux hosts on Ethernet that qosforge models, for the ns-3 referees of bench/ (dumbbell.cc
// and dctcp_fig17.cc include it): DCTCP's window on Linux's arithmetic (TcpDctcpLinuxWindow,
// --linuxWindow), Ethernet's line time per frame on a point-to-point link (UseEthernetFraming,
// --ethernet), Linux's tail loss probe on the sender (TcpSocketLinuxProbe under ProbeBulkSender,
// --tlp) and Linux's immediate ACKs on the receiver (the same socket under LinuxReceiverSink,
// --linuxReceiver). ns-3 3.37 (Debian's libns3-dev); docs/dctcp-ce-marks.md measures what each
// moves.

#ifndef QOSFORGE_BENCH_NS3_LINUX_HOST_H
#define QOSFORGE_BENCH_NS3_LINUX_HOST_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace ns3
{
/**
 * ns-3's TcpDctcp with Linux's window arithmetic and Linux's order of DCTCP's two steps on one
 * ACK (qosforge's softswitch/engine/window.py keeps DCTCP's window so).
 *
 * Growth: tcp_cong_avoid_ai (net/ipv4/tcp_cong.c) counts segments ACKed in tp->snd_cwnd_cnt and
 * adds one packet per cwnd of them; tcp_init_cwnd_reduction (net/ipv4/tcp_input.c) zeroes the
 * count when a reduction starts. ns-3's TcpLinuxReno counts the same way but keeps its count
 * across the cut, so credit earned at the larger window is spent right after it.
 *
 * The cut: Linux's dctcp_ssthresh (net/ipv4/tcp_dctcp.c) is max(cwnd - ((cwnd * alpha) >> 11), 2)
 * on a whole-packet cwnd, the cut rounded down to whole packets; TcpDctcp::GetSsThresh computes
 * (1 - alpha/2) * cWnd in bytes. Here the cut is TcpDctcp's alpha on whole segments, rounded down.
 *
 * The order: Linux updates alpha before it computes ssthresh on the same ACK. tcp_ack calls
 * tcp_in_ack_event (DCTCP's in_ack_event is dctcp_update_alpha, which closes an observation
 * window once snd_una passes next_seq) before tcp_fastretrans_alert -> tcp_try_to_open ->
 * tcp_enter_cwr -> tcp_init_cwnd_reduction -> dctcp_ssthresh. ns-3 cuts first:
 * TcpSocketBase::ReceivedAck calls EnterCwr (GetSsThresh) and only then ProcessAck, whose
 * PktsAcked updates TcpDctcp's alpha. So GetSsThresh notes the window it cut, and PktsAcked on
 * the same ACK (ProcessAck's CA_CWR branch, before PRR's DoRecovery) recomputes ssthresh from
 * that window with the alpha this ACK produced, which PRR then brings cwnd down to.
 *
 * TcpDctcp keeps alpha private; its own GetSsThresh on a probe window of 2^30 bytes returns
 * (1 - alpha/2) 2^30, which gives alpha/2 to within 2^-30. The attribute AlphaFirst=false
 * (--ns3::TcpDctcpLinuxWindow::AlphaFirst=false on either program's command line) keeps ns-3's
 * order, to measure what the order moves.
 */
class TcpDctcpLinuxWindow : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpDctcpLinuxWindow")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpDctcpLinuxWindow>()
                                .AddAttribute("AlphaFirst",
                                              "Linux's order: alpha updated before the cut on one ACK (false: ns-3's, cut first)",
                                              BooleanValue(true), MakeBooleanAccessor(&TcpDctcpLinuxWindow::m_alphaFirst),
                                              MakeBooleanChecker());
        return tid;
    }

    TcpDctcpLinuxWindow()
        : m_probe(CreateObject<TcpSocketState>())
    {
        m_probe->m_cWnd = PROBE_BYTES;
    }

    TcpDctcpLinuxWindow(const TcpDctcpLinuxWindow& sock) = default;

    std::string GetName() const override
    {
        return "TcpDctcpLinuxWindow";
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        m_ackedCount = 0;  // tcp_init_cwnd_reduction: tp->snd_cwnd_cnt = 0
        m_cutPackets = tcb->m_cWnd / tcb->m_segmentSize;
        m_cutPending = true;
        return LinuxSsThresh(tcb->m_segmentSize);
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        TcpDctcp::PktsAcked(tcb, segmentsAcked, rtt);
        if (m_cutPending)
        {
            m_cutPending = false;
            if (m_alphaFirst && tcb->m_congState == TcpSocketState::CA_CWR)
            {
                tcb->m_ssThresh = LinuxSsThresh(tcb->m_segmentSize);
                tcb->m_cWndInfl = tcb->m_ssThresh;
            }
        }
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpDctcpLinuxWindow>(this);
    }

  protected:
    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        // tcp_cong_avoid_ai(tp, w = snd_cwnd, acked)
        uint32_t w = std::max<uint32_t>(tcb->m_cWnd / tcb->m_segmentSize, 1);
        if (m_ackedCount >= w)
        {
            m_ackedCount = 0;
            tcb->m_cWnd += tcb->m_segmentSize;
        }
        m_ackedCount += segmentsAcked;
        if (m_ackedCount >= w)
        {
            uint32_t delta = m_ackedCount / w;
            m_ackedCount -= delta * w;
            tcb->m_cWnd += delta * tcb->m_segmentSize;
        }
    }

  private:
    static constexpr uint32_t PROBE_BYTES = 1u << 30;

    /** dctcp_ssthresh on the window noted at the cut, with alpha as it is now. */
    uint32_t LinuxSsThresh(uint32_t segmentSize)
    {
        double halfAlpha = 1.0 - double(TcpDctcp::GetSsThresh(m_probe, 0)) / PROBE_BYTES;
        auto cut = static_cast<uint32_t>(std::floor(m_cutPackets * halfAlpha + 1e-9));
        return std::max<uint32_t>(m_cutPackets - cut, 2) * segmentSize;
    }

    uint32_t m_ackedCount{0};
    uint32_t m_cutPackets{0};
    bool m_cutPending{false};
    bool m_alphaFirst{true};
    Ptr<TcpSocketState> m_probe;
};

NS_OBJECT_ENSURE_REGISTERED(TcpDctcpLinuxWindow);

/**
 * Every frame on the link takes the line time of an Ethernet frame instead of a PPP one.
 * ns-3's point-to-point device serialises the IP datagram plus a 2 B PPP header; an Ethernet
 * frame adds MAC header 14 B + FCS 4 B to the datagram and preamble/SFD 8 B + inter-frame gap
 * 12 B between frames (IEEE Std 802.3 clauses 3.1.1 and 4.4.2), 38 B, so 36 B more than PPP.
 * The device's InterframeGap of 36 B at the link rate makes it start its next frame (and the
 * queue disc hand it one) 36 B later, so a link drains 1,538 B of line time per full 1,500 B
 * datagram, as Ethernet and qosforge do (softswitch/engine/ports.py wire_bytes). A constant gap
 * is exact per frame where scaling DataRate by 1502/1538 would be exact only for full frames (a
 * 54 B ACK would take 55 B of line time instead of 90 B); the frames ns-3 sends here are all at
 * least Ethernet's 64 B minimum (a 52 B IP ACK is a 70 B frame), so no padding is missing. What
 * the gap does not move: the last bit of a frame reaches the far end 24 B of line time earlier
 * than Ethernet's (192 ns at 1G per hop), a constant offset in the base round trip.
 */
inline void
UseEthernetFraming(PointToPointHelper& link, const std::string& rate)
{
    const uint32_t extraBytes = 38 - 2;
    link.SetDeviceAttribute("InterframeGap", TimeValue(DataRate(rate).CalculateBytesTxTime(extraBytes)));
}

/**
 * A sender socket with Linux's tail loss probe where ns-3 3.37 has none (--tlp; bench/ns3_compare.py and
 * bench/bench_dctcp_fig17.py pass it). Linux arms a probe timeout instead of the retransmission timer while the sender is
 * in Open or CWR (tcp_schedule_loss_probe, RFC 8985 §7.2): 2 SRTT, and with one segment
 * outstanding at least 1.5 SRTT + TCP_DELACK_MAX (200 ms), both capped at the RTO still to run.
 * With one segment outstanding and a minimum RTO below 200 ms the probe therefore fires when the
 * retransmission timer would, and it sends one new segment (tcp_send_loss_probe, RFC 8985 §7.3,
 * beyond cwnd: tcp_write_xmit's push_one == 2) and re-arms the timer, where ns-3 times out: cwnd
 * one segment, and on the ACK that ends the loss no growth (ProcessAck counts only segments above
 * m_recover), so the next lone segment waits on the receiver's delayed ACK again and the flow
 * times out every minimum RTO (docs/dctcp-ce-marks.md, the 64-flow dumbbell). Only that probe is
 * modelled, with exactly one segment outstanding, where Linux's timing is the retransmission
 * timer's: with two or more outstanding Linux probes after 2 SRTT, which ns-3's retransmission
 * timer (and so this socket) does not; there the receiver ACKs every second segment at once, so
 * without a loss the probe has nothing to find, and a tail-drop run keeps ns-3's timeout. One
 * probe at a time (tp->tlp_high_seq), until an ACK covers it.
 */
class TcpSocketLinuxProbe : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpSocketLinuxProbe")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpSocketLinuxProbe>();
        return tid;
    }

    TcpSocketLinuxProbe() = default;

    TcpSocketLinuxProbe(const TcpSocketLinuxProbe& sock) = default;

    uint64_t probes = 0;    // probes sent over the whole run
    uint64_t timeouts = 0;  // retransmission timeouts of data over the whole run
    // --linuxReceiver (both referees' MATCH_LINUX pass it): a DCTCP receiver ACKs
    // at once a segment that changes its CE state, as Linux's dctcp_ece_ack_update
    // (net/ipv4/tcp_dctcp.h, ICSK_ACK_NOW) does where TcpDctcp::CeState0to1 ACKs only the held
    // ones, and ACKs the first TCP_MAX_QUICKACKS (16) segments of a connection and the 16 after
    // a duplicate segment at once, as Linux's tcp_event_data_recv -> tcp_incr_quickack and
    // tcp_data_queue -> tcp_enter_quickack_mode (include/net/tcp.h; qosforge's
    // traffic/spec.py QUICKACK_SEGMENTS). Forked sockets inherit it.
    bool linuxReceiver = false;
    // With linuxReceiver, false leaves a CE change to ns-3's TcpDctcp (the segments held before
    // it ACKed, the changing one held), to measure what dctcp_ece_ack_update's ACK moves.
    bool ceChangeAck = true;
    uint64_t delayedAckTimeouts = 0;  // ACKs the delayed-ACK timer sent, over the whole run

  protected:
    Ptr<TcpSocketBase> Fork() override
    {
        return CopyObject<TcpSocketLinuxProbe>(this);
    }

    void ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader) override
    {
        TcpSocketBase::ReceivedAck(packet, tcpHeader);
        if (m_probeHigh != SequenceNumber32(0) && m_txBuffer->HeadSequence() >= m_probeHigh)
        {
            m_probeHigh = SequenceNumber32(0);  // tcp_process_tlp_ack
        }
    }

    void ReTxTimeout() override
    {
        auto state = m_tcb->m_congState;
        bool open = state == TcpSocketState::CA_OPEN || state == TcpSocketState::CA_CWR;
        uint32_t inFlight = BytesInFlight();
        if (m_state == ESTABLISHED && open && m_probeHigh == SequenceNumber32(0) && inFlight > 0 &&
            inFlight <= m_tcb->m_segmentSize && m_txBuffer->SizeFromSequence(m_tcb->m_nextTxSequence) > 0)
        {
            uint32_t sent = SendDataPacket(m_tcb->m_nextTxSequence, m_tcb->m_segmentSize, true);
            m_tcb->m_nextTxSequence += sent;
            m_probeHigh = m_tcb->m_nextTxSequence;
            ++probes;
            if (!m_retxEvent.IsRunning())
            {
                m_retxEvent = Simulator::Schedule(m_rto, &TcpSocketLinuxProbe::ReTxTimeout, this);
            }
            return;
        }
        if (m_state == ESTABLISHED && BytesInFlight() > 0)
        {
            ++timeouts;
        }
        TcpSocketBase::ReTxTimeout();
    }

    void ReceivedData(Ptr<Packet> packet, const TcpHeader& tcpHeader) override
    {
        if (linuxReceiver)
        {
            SequenceNumber32 next = m_tcb->m_rxBuffer->NextRxSequence();
            auto ecn = m_tcb->m_ecnState;
            bool ce = ecn == TcpSocketState::ECN_CE_RCVD || ecn == TcpSocketState::ECN_SENDING_ECE;
            // DoForwardUp ran the CE event before this. dctcp_ece_ack_update is DCTCP's own: an
            // RFC 3168 receiver's state lasts until the sender's CWR, and is not ACKed so.
            bool changed = ceChangeAck && ce != m_ceSeen &&
                           m_congestionControl->GetName().find("Dctcp") != std::string::npos;
            m_ceSeen = ce;
            if (tcpHeader.GetSequenceNumber() + packet->GetSize() <= next)
            {
                m_quickAcks = 16;  // the base ACKs the duplicate itself
            }
            else if (tcpHeader.GetSequenceNumber() == next && packet->GetSize() > 0 &&
                     (changed || m_quickAcks > 0))
            {
                if (!changed)
                {
                    --m_quickAcks;
                }
                m_delAckCount = m_delAckMaxCount > 0 ? m_delAckMaxCount - 1 : 0;  // ACK now
                ++immediateAcks;
            }
        }
        TcpSocketBase::ReceivedData(packet, tcpHeader);
    }

    void DelAckTimeout() override
    {
        ++delayedAckTimeouts;
        TcpSocketBase::DelAckTimeout();
    }

  public:
    uint64_t immediateAcks = 0;

  private:
    SequenceNumber32 m_probeHigh{0};
    bool m_ceSeen{false};
    uint32_t m_quickAcks{16};  // a connection starts in quick-ACK mode (tcp_incr_quickack)
};

NS_OBJECT_ENSURE_REGISTERED(TcpSocketLinuxProbe);

/** A TcpSocketLinuxProbe on ``node`` with the congestion control, recovery and RTT estimator
 * types its TcpL4Protocol would give a socket of its own (TcpL4Protocol::CreateSocket creates
 * only TcpSocketBase). */
inline Ptr<TcpSocketLinuxProbe>
CreateLinuxProbeSocket(Ptr<Node> node)
{
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    ObjectFactory factory;
    TypeIdValue type;
    Ptr<TcpSocketLinuxProbe> socket = CreateObject<TcpSocketLinuxProbe>();
    socket->SetNode(node);
    socket->SetTcp(tcp);
    tcp->GetAttribute("RttEstimatorType", type);
    factory.SetTypeId(type.Get());
    socket->SetRtt(factory.Create<RttEstimator>());
    tcp->GetAttribute("SocketType", type);
    factory.SetTypeId(type.Get());
    socket->SetCongestionControlAlgorithm(factory.Create<TcpCongestionOps>());
    tcp->GetAttribute("RecoveryType", type);
    factory.SetTypeId(type.Get());
    socket->SetRecoveryAlgorithm(factory.Create<TcpRecoveryOps>());
    return socket;
}

/** BulkSendApplication's endless sender on a TcpSocketLinuxProbe. */
class ProbeBulkSender : public Application
{
  public:
    ProbeBulkSender(Address peer, uint32_t sendSize)
        : m_peer(peer),
          m_sendSize(sendSize)
    {
    }

    Ptr<TcpSocketLinuxProbe> socket;

  private:
    void StartApplication() override
    {
        socket = CreateLinuxProbeSocket(GetNode());
        socket->Bind();
        socket->Connect(m_peer);
        socket->ShutdownRecv();
        socket->SetConnectCallback(MakeCallback(&ProbeBulkSender::Connected, this),
                                   MakeNullCallback<void, Ptr<Socket>>());
        socket->SetSendCallback(MakeCallback(&ProbeBulkSender::Room, this));
    }

    void StopApplication() override
    {
    }

    void Connected(Ptr<Socket>)
    {
        Fill();
    }

    void Room(Ptr<Socket>, uint32_t)
    {
        Fill();
    }

    void Fill()
    {
        while (socket->GetTxAvailable() >= m_sendSize && socket->Send(Create<Packet>(m_sendSize), 0) > 0)
        {
        }
    }

    Address m_peer;
    uint32_t m_sendSize;
};

/** PacketSink's counting on a listening TcpSocketLinuxProbe with --linuxReceiver set (forks
 * inherit it), so the receiving sockets are Linux-like. */
class LinuxReceiverSink : public Application
{
  public:
    explicit LinuxReceiverSink(uint16_t port)
        : m_port(port)
    {
    }

    uint64_t received = 0;
    std::vector<Ptr<TcpSocketLinuxProbe>> accepted;
    // Called with the bytes of each read while the application runs, as PacketSink's Rx trace.
    Callback<void, uint32_t> onReceive;
    bool ceChangeAck = true;  // TcpSocketLinuxProbe::ceChangeAck of the listener (set before start)

  private:
    void StartApplication() override
    {
        m_listener = CreateLinuxProbeSocket(GetNode());
        m_listener->linuxReceiver = true;
        m_listener->ceChangeAck = ceChangeAck;
        m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
        m_listener->Listen();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeCallback(&LinuxReceiverSink::Accepted, this));
    }

    void StopApplication() override
    {
        m_running = false;  // PacketSink closes its sockets at its stop: count nothing after it
    }

    void Accepted(Ptr<Socket> socket, const Address&)
    {
        accepted.push_back(DynamicCast<TcpSocketLinuxProbe>(socket));
        socket->SetRecvCallback(MakeCallback(&LinuxReceiverSink::Read, this));
    }

    void Read(Ptr<Socket> socket)
    {
        while (Ptr<Packet> packet = socket->Recv())
        {
            if (packet->GetSize() == 0)
            {
                break;
            }
            if (m_running)
            {
                received += packet->GetSize();
                if (!onReceive.IsNull())
                {
                    onReceive(packet->GetSize());
                }
            }
        }
    }

    uint16_t m_port;
    bool m_running{true};
    Ptr<TcpSocketLinuxProbe> m_listener;
};

/** The four flags that make a referee's hosts the Linux hosts on Ethernet that qosforge models,
 * defined once for both programs (bench/ns3_compare.py and bench/bench_dctcp_fig17.py pass all
 * four): the same names, meanings and help in dumbbell.cc and dctcp_fig17.cc. */
struct LinuxHostFlags
{
    bool linuxWindow{false};
    bool ethernet{false};
    bool tlp{false};
    bool linuxReceiver{false};

    void AddTo(CommandLine& cmd)
    {
        cmd.AddValue("linuxWindow",
                     "dctcp with Linux's window arithmetic and order (TcpDctcpLinuxWindow: count reset at a cut, "
                     "whole-packet cut, alpha updated before it, two-segment floor)",
                     linuxWindow);
        cmd.AddValue("ethernet", "frames take Ethernet's line time (36 B more per frame than PPP, as an InterframeGap)",
                     ethernet);
        cmd.AddValue("tlp",
                     "senders probe a lone outstanding segment at the retransmission timer, as Linux's tail loss "
                     "probe (TcpSocketLinuxProbe under ProbeBulkSender, an endless sender)",
                     tlp);
        cmd.AddValue("linuxReceiver",
                     "receivers ACK a CE change, a connection's first 16 segments and 16 after a duplicate at once, "
                     "as Linux (TcpSocketLinuxProbe)",
                     linuxReceiver);
    }
};
} // namespace ns3

#endif
