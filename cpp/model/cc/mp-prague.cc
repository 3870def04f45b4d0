// SPDX-License-Identifier: GPL-2.0-only
//
// Prague (draft-briscoe-iccrg-prague-congestion-control-04, reference tcp_prague.c) over the
// DCTCP estimator of mp-dctcp.cc.

#include "mp-prague.h"

#include "model/registry/mp-algorithm-registry.h"
#include "mp-ecn-marks.h"

#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpPrague);

static MpAlgorithmRegistrar g_pragueRegistrar(MpAlgorithmRegistry::Cc(), "prague", "ns3::MpPrague");

namespace
{
/// tcp_prague.c scales the increase only below this RTT (MAX_SCALED_RTT).
const Time kMaxScaledRtt = MilliSeconds(100);
} // namespace

TypeId
MpPrague::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpPrague")
            .SetParent<MpDctcp>()
            .SetGroupName("Leogym")
            .AddConstructor<MpPrague>()
            .AddAttribute("RttTarget",
                          "RTT independence: a flow with a shorter smoothed RTT grows, updates "
                          "alpha and reduces for CE as one with this RTT would (tcp_prague.c "
                          "prague_rtt_target: 25 ms); 0 turns RTT independence off.",
                          TimeValue(MilliSeconds(25)),
                          MakeTimeAccessor(&MpPrague::m_rttTarget),
                          MakeTimeChecker(Time(0), Seconds(1)))
            .AddAttribute("RttTransitionRounds",
                          "Round trips after slow start before RTT independence applies "
                          "(tcp_prague.c prague_rtt_transition: 500).",
                          UintegerValue(500),
                          MakeUintegerAccessor(&MpPrague::m_rttTransitionRounds),
                          MakeUintegerChecker<uint32_t>(0, 1000000));
    return tid;
}

MpPrague::MpPrague()
    : m_rttTarget(MilliSeconds(25)),
      m_rttTransitionRounds(500)
{
}

std::string
MpPrague::GetName() const
{
    return "prague";
}

MpEcnCodepoint
MpPrague::GetEcnCodepoint() const
{
    return MpEcnCodepoint::ECT1;
}

bool
MpPrague::RequiresPacing() const
{
    return true;
}

bool
MpPrague::IsRttIndependent() const
{
    return m_rttTarget.IsStrictlyPositive() && !InSlowStart() && m_round >= m_rttTransitionRounds;
}

uint64_t
MpPrague::GetRound() const
{
    return m_round;
}

bool
MpPrague::SawCe() const
{
    return m_sawCe;
}

void
MpPrague::Init(const MpCcContext& ctx)
{
    MpDctcp::Init(ctx);
    m_sawCe = false;
    m_round = 0;
    m_alphaStamp = ctx.Now();
    m_cwrStampSet = false;
    m_cwr.Reset();
    m_lastGrowth = 0;
    m_lastGrowthBytes = 0;
    UpdatePacing(ctx);
}

double
MpPrague::CongestionAvoidanceIncrease(const MpCcContext& ctx, const MpAckEvent& ev, uint64_t bytes)
{
    double increase = MpDctcp::CongestionAvoidanceIncrease(ctx, ev, bytes);
    if (!IsRttIndependent() || !ctx.Path().HasRttSample())
    {
        return increase;
    }
    // RTT_CONTROL_RATE: one mss per RttTarget in rate terms, (srtt / target)^2 mss per RTT.
    Time srtt = ctx.Path().Srtt();
    if (srtt >= m_rttTarget || srtt > kMaxScaledRtt || !srtt.IsStrictlyPositive())
    {
        return increase;
    }
    double r = srtt.GetSeconds() / m_rttTarget.GetSeconds();
    return increase * r * r;
}

void
MpPrague::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    double before = m_cwndD;
    m_lastGrowthBytes = ctx.Path().appLimited ? 0 : m_recovery.EligibleAckedBytes(ev);
    MpDctcp::OnAck(ctx, ev);
    m_lastGrowth = std::max(m_cwndD - before, 0.0);
    UpdatePacing(ctx);
}

void
MpPrague::OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev)
{
    if (ev.ceIncrease > 0)
    {
        m_sawCe = true;
        // Additive increase counts unmarked bytes only: the marked ones give back their share
        // of this frame's growth (tcp_prague.c: acked -= ece_delta).
        uint64_t marked = MpEcnMarkedBytes(ev, m_mss);
        if (m_lastGrowth > 0 && m_lastGrowthBytes > 0)
        {
            double share =
                std::min(1.0, static_cast<double>(marked) / static_cast<double>(m_lastGrowthBytes));
            m_cwndD -= m_lastGrowth * share;
            CommitRealWindow(m_cwndD);
        }
    }
    m_lastGrowth = 0;
    m_lastGrowthBytes = 0;
    MpDctcp::OnEcnFeedback(ctx, ev);
    UpdatePacing(ctx);
}

bool
MpPrague::MayCloseWindow(const MpCcContext& ctx) const
{
    // With RTT independence, alpha updates at most once per RttTarget (prague_should_update_ewma).
    return !IsRttIndependent() || ctx.Now() - m_alphaStamp >= m_rttTarget;
}

bool
MpPrague::UpdatesAlpha() const
{
    return m_sawCe; // no AQM seen yet: alpha keeps its initial value
}

void
MpPrague::OnWindowClosed(const MpCcContext& ctx)
{
    m_alphaStamp = ctx.Now();
    if (!InSlowStart())
    {
        ++m_round; // prague_new_round: rounds since slow start ended
    }
}

void
MpPrague::RespondToMarks(const MpCcContext& ctx, const MpEcnEvent& ev)
{
    // At most once per round trip (CWR), not tied to the loss recovery period, which would also
    // stop the window's growth.
    if (m_cwr.Covers(ev.largestAckedSentTime))
    {
        return;
    }
    m_cwr.Begin(ev.now);
    if (IsRttIndependent() && m_cwrStampSet && ctx.Now() - m_cwrStamp < m_rttTarget)
    {
        return; // and at most once per RttTarget (prague_enter_cwr)
    }
    m_cwrStamp = ctx.Now();
    m_cwrStampSet = true;
    ReduceForMarks();
}

void
MpPrague::OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev)
{
    MpDctcp::OnPacketsLost(ctx, ev);
    UpdatePacing(ctx);
}

void
MpPrague::OnPersistentCongestion(const MpCcContext& ctx)
{
    MpDctcp::OnPersistentCongestion(ctx);
    m_cwr.Reset();
    UpdatePacing(ctx);
}

void
MpPrague::UpdatePacing(const MpCcContext& ctx)
{
    const MpPathInfo& path = ctx.Path();
    if (!path.HasRttSample() || !path.Srtt().IsStrictlyPositive())
    {
        m_pacingRate = 0;
        return;
    }
    // prague_update_pacing_rate: 100 % of max(cwnd, inflight) per smoothed RTT, 200 % while
    // cwnd < ssthresh / 2.
    double window = static_cast<double>(std::max<uint64_t>(m_cwnd, path.bytesInFlight));
    double rate = 8.0 * window / path.Srtt().GetSeconds();
    if (static_cast<double>(m_cwnd) < static_cast<double>(m_ssthresh) / 2.0)
    {
        rate *= 2.0;
    }
    m_pacingRate = rate;
}

} // namespace ns3
