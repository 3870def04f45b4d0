// SPDX-License-Identifier: GPL-2.0-only
//
// DCTCP per RFC 8257 section 3.3 (step numbers in the comments), over RFC 9002 NewReno.

#include "mp-dctcp.h"

#include "model/registry/mp-algorithm-registry.h"
#include "mp-ecn-marks.h"

#include "ns3/double.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpDctcp);

static MpAlgorithmRegistrar g_dctcpRegistrar(MpAlgorithmRegistry::Cc(), "dctcp", "ns3::MpDctcp");

TypeId
MpDctcp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpDctcp")
            .SetParent<MpNewReno>()
            .SetGroupName("Leogym")
            .AddConstructor<MpDctcp>()
            .AddAttribute("G",
                          "Estimation gain g of alpha = (1 - g) alpha + g M (RFC 8257 section "
                          "3.3: 1/16).",
                          DoubleValue(1.0 / 16.0),
                          MakeDoubleAccessor(&MpDctcp::m_g),
                          MakeDoubleChecker<double>(1.0 / 1024.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "alpha before the first observation window closes (RFC 8257 "
                          "section 3.3: 1, so the first marks halve the window).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&MpDctcp::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0));
    return tid;
}

MpDctcp::MpDctcp()
    : m_g(1.0 / 16.0),
      m_initialAlpha(1.0)
{
}

std::string
MpDctcp::GetName() const
{
    return "dctcp";
}

MpEcnCodepoint
MpDctcp::GetEcnCodepoint() const
{
    return MpEcnCodepoint::ECT0;
}

void
MpDctcp::Init(const MpCcContext& ctx)
{
    MpNewReno::Init(ctx);
    m_alpha = m_initialAlpha;
    m_status = EcnStatus{};
    m_bytesAcked = 0;
    m_bytesMarked = 0;
    m_anySent = false;
    m_windowEndSet = false;
    m_windowDone = false;
    m_nextWindowEndSet = false;
}

MpDctcp::EcnStatus
MpDctcp::GetEcnStatus() const
{
    EcnStatus s = m_status;
    s.alpha = m_alpha;
    s.windowAcked = m_bytesAcked;
    s.windowMarked = m_bytesMarked;
    return s;
}

void
MpDctcp::OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p)
{
    MpNewReno::OnPacketSent(ctx, p);
    if (!m_anySent || p.pn > m_lastSentPn)
    {
        m_lastSentPn = p.pn;
    }
    m_anySent = true;
}

void
MpDctcp::AccountAck(const MpAckEvent& ev)
{
    m_bytesAcked += ev.bytesAcked; // steps 1-2
    if (ev.nAcked == 0)
    {
        return;
    }
    uint64_t largest = ev.acked[ev.nAcked - 1].pn;
    if (!m_windowDone && (!m_windowEndSet || largest > m_windowEndPn))
    {
        m_windowDone = true; // step 4: the end of the observation window was reached
    }
    if (m_windowDone)
    {
        // Step 7's SND.NXT as of this frame (the window closes with this frame's marks).
        m_nextWindowEndPn = m_lastSentPn;
        m_nextWindowEndSet = m_anySent;
    }
}

bool
MpDctcp::MayCloseWindow(const MpCcContext&) const
{
    return true;
}

bool
MpDctcp::UpdatesAlpha() const
{
    return true;
}

void
MpDctcp::OnWindowClosed(const MpCcContext&)
{
}

void
MpDctcp::CloseWindowIfDue(const MpCcContext& ctx)
{
    if (!m_windowDone || !MayCloseWindow(ctx))
    {
        return;
    }
    // Step 5: M, the fraction of the window's bytes that carried CE.
    double m =
        m_bytesAcked > 0
            ? std::min(1.0, static_cast<double>(m_bytesMarked) / static_cast<double>(m_bytesAcked))
            : 0.0;
    if (UpdatesAlpha())
    {
        m_alpha = (1.0 - m_g) * m_alpha + m_g * m; // step 6
        m_alpha = std::clamp(m_alpha, 0.0, 1.0);
        ++m_status.alphaUpdates;
    }
    ++m_status.windows;
    m_status.lastFraction = m;
    m_windowEndPn = m_nextWindowEndPn; // step 7
    m_windowEndSet = m_nextWindowEndSet;
    m_bytesAcked = 0; // step 8
    m_bytesMarked = 0;
    m_windowDone = false;
    OnWindowClosed(ctx);
}

void
MpDctcp::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    // A window whose last frame brought no ECN feedback closes now, before this frame counts.
    CloseWindowIfDue(ctx);
    AccountAck(ev);
    MpNewReno::OnAck(ctx, ev);
}

void
MpDctcp::OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev)
{
    uint64_t marked = MpEcnMarkedBytes(ev, m_mss);
    m_bytesMarked += marked; // step 3
    m_status.markedBytes += marked;
    CloseWindowIfDue(ctx);
    if (ev.ceIncrease > 0)
    {
        RespondToMarks(ctx, ev);
    }
}

void
MpDctcp::RespondToMarks(const MpCcContext&, const MpEcnEvent& ev)
{
    // Once per window of data: marks on packets sent before the last reduction (the RFC 9002
    // recovery period, which losses share) do not reduce again.
    if (InRecovery(ev.largestAckedSentTime))
    {
        return;
    }
    m_recovery.Begin(ev.now);
    ReduceForMarks();
}

void
MpDctcp::ReduceForMarks()
{
    double reduced = m_cwndD * (1.0 - m_alpha / 2.0);
    m_ssthresh = static_cast<uint64_t>(std::max(reduced, 0.0));
    m_cwndD = std::max(reduced, static_cast<double>(MinimumWindow(m_mss)));
    CommitRealWindow(m_cwndD);
    ++m_status.ecnReductions;
}

} // namespace ns3
