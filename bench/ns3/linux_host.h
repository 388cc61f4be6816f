// The Linux hosts on Ethernet that qosforge models, for the ns-3 referees of bench/ (dumbbell.cc
// and dctcp_fig17.cc include it): DCTCP's window on Linux's arithmetic (TcpDctcpLinuxWindow,
// --linuxWindow) and Ethernet's line time per frame on a point-to-point link (UseEthernetFraming,
// --ethernet). ns-3 3.37 (Debian's libns3-dev); docs/dctcp-ce-marks.md measures what each moves.

#ifndef QOSFORGE_BENCH_NS3_LINUX_HOST_H
#define QOSFORGE_BENCH_NS3_LINUX_HOST_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <cmath>
#include <string>

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
} // namespace ns3

#endif
