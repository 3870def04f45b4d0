// SPDX-License-Identifier: GPL-2.0-only

#include "mp-cubic.h"

#include "ns3/boolean.h"
#include "ns3/double.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpCubic);

TypeId
MpCubic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpCubic")
            .SetParent<MpCongestionOps>()
            .SetGroupName("Leogym")
            .AddConstructor<MpCubic>()
            .AddAttribute("C",
                          "CUBIC's C (segments / s^3).",
                          DoubleValue(0.4),
                          MakeDoubleAccessor(&MpCubic::m_c),
                          MakeDoubleChecker<double>(0.01, 10.0))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor beta_cubic.",
                          DoubleValue(0.7),
                          MakeDoubleAccessor(&MpCubic::m_beta),
                          MakeDoubleChecker<double>(0.1, 0.95))
            .AddAttribute("FastConvergence",
                          "Release bandwidth faster when W_max shrinks (RFC 9438 4.7).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpCubic::m_fastConvergence),
                          MakeBooleanChecker())
            .AddAttribute("RenoFriendly",
                          "Use the Reno-friendly region (RFC 9438 4.3).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpCubic::m_renoFriendly),
                          MakeBooleanChecker())
            .AddAttribute("HyStart",
                          "HyStart++ (RFC 9406) in the initial slow start: a delay increase "
                          "leads to Conservative Slow Start, then congestion avoidance. Off by "
                          "default: RFC 9002's controller has no HyStart, so every existing "
                          "figure stands (ns-3's TcpCubic and Linux run their own HyStart).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpCubic::m_hyStartOn),
                          MakeBooleanChecker());
    return tid;
}

MpCubic::MpCubic()
    : m_c(0.4),
      m_beta(0.7),
      m_fastConvergence(true),
      m_renoFriendly(true)
{
}

std::string
MpCubic::GetName() const
{
    return "cubic";
}

void
MpCubic::Init(const MpCcContext& ctx)
{
    MpCongestionOps::Init(ctx);
    m_cwndD = static_cast<double>(m_cwnd);
    m_wMax = 0;
    m_epochValid = false;
    m_recovery.Reset();
    m_hyStart.Reset();
}

const MpHyStart*
MpCubic::GetHyStart() const
{
    return m_hyStartOn ? &m_hyStart : nullptr;
}

void
MpCubic::OnPacketSent(const MpCcContext&, const MpSentPacket& p)
{
    if (m_hyStartOn && m_hyStart.IsActive())
    {
        m_hyStart.OnPacketSent(p.pn);
    }
}

double
MpCubic::GetWMax() const
{
    return m_wMax;
}

double
MpCubic::GetK() const
{
    return m_k;
}

void
MpCubic::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    if (ctx.Path().appLimited)
    {
        return;
    }
    uint64_t eligible = m_recovery.EligibleAckedBytes(ev);
    if (eligible == 0)
    {
        return;
    }
    double acked = static_cast<double>(eligible);
    if (m_cwnd < m_ssthresh && m_hyStartOn && m_hyStart.IsActive() &&
        m_ssthresh == std::numeric_limits<uint64_t>::max())
    {
        // RFC 9406 (MpHyStart): slow start or CSS growth, or the CSS exit to avoidance.
        uint64_t largest = ev.nAcked > 0 ? ev.acked[ev.nAcked - 1].pn : 0;
        auto hs = m_hyStart.OnAck(largest,
                                  ev.rttSampled,
                                  ev.latestRtt,
                                  eligible,
                                  m_mss,
                                  ctx.Path().pacingRateBps > 0);
        if (!hs.enterAvoidance)
        {
            m_cwndD += hs.increase;
            CommitRealWindow(m_cwndD);
            return;
        }
        m_ssthresh = m_cwnd; // section 4.2: after CSS_ROUNDS rounds, ssthresh = cwnd
    }
    if (m_cwnd < m_ssthresh)
    {
        double room = static_cast<double>(m_ssthresh) - m_cwndD;
        double ss = std::min(acked, std::max(room, 0.0));
        m_cwndD += ss;
        acked -= ss;
        if (acked <= 0 || m_cwndD < static_cast<double>(m_ssthresh))
        {
            CommitRealWindow(m_cwndD);
            return;
        }
    }
    // Congestion avoidance.
    double mss = static_cast<double>(m_mss);
    Time now = ev.now;
    if (!m_epochValid)
    {
        m_epochValid = true;
        m_epochStart = now;
        if (m_wMax > m_cwndD)
        {
            m_k = std::cbrt((m_wMax - m_cwndD) / mss / m_c);
        }
        else
        {
            m_k = 0;
            m_wMax = m_cwndD;
        }
        m_wEst = m_cwndD;
    }
    double t = (now - m_epochStart).GetSeconds();
    double rtt = ctx.Path().Srtt().GetSeconds();
    auto wCubic = [&](double tt) {
        double d = tt - m_k;
        return (m_c * d * d * d) * mss + m_wMax; // bytes
    };
    double target = wCubic(t + rtt);
    target = std::clamp(target, m_cwndD, 1.5 * m_cwndD);
    if (m_renoFriendly)
    {
        double alpha = 3.0 * (1.0 - m_beta) / (1.0 + m_beta);
        if (m_wEst >= m_cwndPrior)
        {
            alpha = 1.0;
        }
        m_wEst += alpha * acked / m_cwndD * mss;
    }
    if (m_renoFriendly && wCubic(t) < m_wEst)
    {
        m_cwndD = std::max(m_cwndD, m_wEst);
    }
    else
    {
        m_cwndD += (target - m_cwndD) * acked / m_cwndD;
    }
    CommitRealWindow(m_cwndD);
}

void
MpCubic::OnPacketsLost(const MpCcContext&, const MpLossEvent& ev)
{
    // nLost == 0: an ECN CE increase (RFC 9002 section 7.1; RFC 9438 section 4.6 reduces the
    // same way on ECN-Echo), a congestion event all the same.
    if (m_recovery.Covers(ev.largestLostSentTime))
    {
        return;
    }
    m_recovery.Begin(ev.now);
    m_hyStart.OnCongestionEvent(); // RFC 9406 section 4.3: the initial slow start only
    m_cwndPrior = m_cwndD;
    if (m_fastConvergence && m_cwndD < m_wMax)
    {
        m_wMax = m_cwndD * (1.0 + m_beta) / 2.0;
    }
    else
    {
        m_wMax = m_cwndD;
    }
    double minW = static_cast<double>(MinimumWindow(m_mss));
    double ss = std::max(m_cwndD * m_beta, minW);
    m_ssthresh = static_cast<uint64_t>(ss);
    m_cwndD = ss;
    m_epochValid = false;
    CommitRealWindow(m_cwndD);
}

void
MpCubic::SetWindow(uint64_t bytes)
{
    m_cwndD = static_cast<double>(bytes);
    m_cwnd = bytes;
    m_epochValid = false;
}

void
MpCubic::OnPersistentCongestion(const MpCcContext&)
{
    m_cwndD = static_cast<double>(MinimumWindow(m_mss));
    m_epochValid = false;
    m_recovery.Reset();
    m_hyStart.OnCongestionEvent();
    CommitRealWindow(m_cwndD);
}

} // namespace ns3
