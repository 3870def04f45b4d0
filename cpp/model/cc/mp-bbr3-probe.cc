// SPDX-License-Identifier: GPL-2.0-only
//
// BBRv3 per draft-ietf-ccwg-bbr-04, ProbeBW's cycle, the long-term model and ProbeRTT
// (5.3.3-5.3.4, 5.5) (mp-bbr3.cc has the overview).

#include "mp-bbr3.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{
/// ProbeBW_UP's in-flight slope doubles per round up to 2^30 SMSS (draft 5.3.3.6).
constexpr uint32_t kMaxProbeUpRounds = 30;
} // namespace

/// BBRUpdateProbeBWCyclePhase (5.3.3.6).
void
MpBbr3::UpdateProbeBwCyclePhase(const Sample& rs)
{
    if (!m_fullBwReached)
    {
        return; // only steady-state behaviour here
    }
    if (AdaptLongTermModel(rs))
    {
        return; // a state transition was decided
    }
    if (!IsInAProbeBwState())
    {
        return;
    }
    switch (m_state)
    {
    case State::PROBE_BW_DOWN:
        if (IsTimeToProbeBw())
        {
            return;
        }
        if (IsTimeToCruise())
        {
            StartProbeBwCruise();
        }
        break;
    case State::PROBE_BW_CRUISE:
        IsTimeToProbeBw();
        break;
    case State::PROBE_BW_REFILL:
        // After one round of REFILL, start UP.
        if (m_roundStart)
        {
            m_isBwProbeSample = true;
            StartProbeBwUp(rs);
        }
        break;
    case State::PROBE_BW_UP:
        if (IsTimeToGoDown(rs))
        {
            m_prevProbeTooHigh = false; // no high loss (yet)
            StartProbeBwDown();
        }
        break;
    default:
        break;
    }
}

/// BBRAdaptLongTermModel (5.3.3.6): track the ACK phase, advance the max_bw filter one round
/// after a probe, and raise inflight_longterm while the loss rate is safe.
bool
MpBbr3::AdaptLongTermModel(const Sample& rs)
{
    if (m_ackPhase == AckPhase::PROBE_STARTING && m_roundStart)
    {
        m_ackPhase = AckPhase::PROBE_FEEDBACK; // samples from the probe start arriving
    }
    if (m_ackPhase == AckPhase::PROBE_STOPPING && m_roundStart)
    {
        // The end of the samples from the bandwidth probe.
        m_isBwProbeSample = false;
        m_ackPhase = AckPhase::INIT;
        if (IsInAProbeBwState() && !rs.isAppLimited)
        {
            AdvanceMaxBwFilter();
        }
        // Precautionary probing, acceleration: the cautious probe found no excess loss.
        if (IsInAProbeBwState() && m_prevProbePrecautionary && !m_prevProbeTooHigh)
        {
            StartProbeBwRefill();
            return true;
        }
    }
    if (!IsInflightTooHigh(rs))
    {
        // Loss rate is safe: adjust the upper bound upward.
        if (m_inflightLongterm == kInf)
        {
            return false;
        }
        if (rs.txInFlight > m_inflightLongterm)
        {
            m_inflightLongterm = rs.txInFlight;
        }
        if (m_state == State::PROBE_BW_UP)
        {
            ProbeInflightLongtermUpward(rs);
        }
    }
    return false;
}

/// BBRIsTimeToProbeBW (5.3.3.5): T_probe = min(T_bbr, T_reno) has passed.
bool
MpBbr3::IsTimeToProbeBw()
{
    // Linux bbr_check_time_to_probe_bw: CE but no loss in this cycle, probe again at once.
    if (m_ecnReprobeGain > 0 && m_ecnEligible && m_ecnInCycle && !m_lossInCycle &&
        !InLossRecovery())
    {
        uint32_t n = kMaxProbeUpRounds;
        if (m_inflightLongterm != kInf)
        {
            double packets = m_ecnReprobeGain * m_inflightLongterm / Smss();
            n = packets >= 1.0 ? static_cast<uint32_t>(std::floor(std::log2(packets))) : 0;
        }
        StartProbeBwRefill(std::min(n, kMaxProbeUpRounds));
        return true;
    }
    if (m_now > m_cycleStamp + m_bwProbeWait || IsRenoCoexistenceProbeTime())
    {
        StartProbeBwRefill();
        return true;
    }
    return false;
}

/// BBRIsRenoCoexistenceProbeTime (5.3.3.5): min(TargetInflight in packets, 63) rounds.
bool
MpBbr3::IsRenoCoexistenceProbeTime() const
{
    double renoRounds = std::floor(TargetInflight() / Smss());
    double rounds = std::min(renoRounds, static_cast<double>(m_renoRoundsMax));
    return static_cast<double>(m_roundsSinceProbeUp) >= rounds;
}

/// BBRIsTimeToCruise (5.3.3.6): headroom left below inflight_longterm and no queue.
bool
MpBbr3::IsTimeToCruise() const
{
    if (m_inflight > InflightWithHeadroom())
    {
        return false;
    }
    if (m_inflight > Inflight(1.0))
    {
        return false;
    }
    return true;
}

/// BBRIsTimeToGoDown (5.3.3.6).
bool
MpBbr3::IsTimeToGoDown(const Sample& rs)
{
    // Precautionary probing, deceleration: stop at the level that lost too much last time.
    if (m_prevProbeTooHigh && m_inflight >= m_inflightLongterm)
    {
        m_prevProbePrecautionary = true;
        return true;
    }
    if (IsCwndLimited() && static_cast<double>(m_cwnd) >= m_inflightLongterm)
    {
        // Bandwidth is limited by inflight_longterm: the plateau test starts over.
        ResetFullBw();
        m_fullBw = rs.deliveryRate;
    }
    else if (m_fullBwNow)
    {
        return true; // the path's bandwidth is fully used
    }
    return false;
}

/// BBRRaiseInflightLongtermSlope (5.3.3.6): this round inflight_longterm grows by
/// 2^bw_probe_up_rounds SMSS, spread over a cwnd of ACKs.
void
MpBbr3::RaiseInflightLongtermSlope()
{
    double growthThisRound = std::ldexp(1.0, static_cast<int>(m_bwProbeUpRounds));
    m_bwProbeUpRounds = std::min(m_bwProbeUpRounds + 1, kMaxProbeUpRounds);
    m_probeUpAckedPerInc = std::max(static_cast<double>(m_cwnd) / growthThisRound, Smss());
}

/// BBRProbeInflightLongtermUpward (5.3.3.6).
void
MpBbr3::ProbeInflightLongtermUpward(const Sample& rs)
{
    if (!IsCwndLimited() || static_cast<double>(m_cwnd) < m_inflightLongterm)
    {
        return; // inflight_longterm is not fully used: do not grow it
    }
    m_bwProbeUpAcked += rs.newlyAcked;
    if (m_bwProbeUpAcked >= m_probeUpAckedPerInc)
    {
        double delta = std::floor(m_bwProbeUpAcked / m_probeUpAckedPerInc);
        m_bwProbeUpAcked -= delta * m_probeUpAckedPerInc;
        m_inflightLongterm += delta * Smss();
    }
    if (m_roundStart)
    {
        RaiseInflightLongtermSlope();
    }
}

/// BBRUpdateMinRTT (5.3.4.4, draft-04): the 5 s ProbeRTT min filter feeds the 10 s min_rtt.
void
MpBbr3::UpdateMinRtt(const Sample& rs)
{
    m_probeRttExpired = m_now > m_probeRttMinStamp + m_probeRttInterval;
    if (rs.hasRtt && (rs.rtt < m_probeRttMinDelay || m_probeRttExpired))
    {
        m_probeRttMinDelay = rs.rtt;
        m_probeRttMinStamp = m_now;
    }
    bool minRttExpired = m_now > m_minRttStamp + m_minRttFilterLen;
    if (m_probeRttMinDelay < m_minRtt || minRttExpired)
    {
        m_minRtt = m_probeRttMinDelay;
        m_minRttStamp = m_probeRttMinStamp;
    }
}

/// BBRCheckProbeRTT (5.3.4.4).
void
MpBbr3::CheckProbeRtt(const Sample& rs)
{
    if (m_state != State::PROBE_RTT && m_probeRttExpired && !m_idleRestart)
    {
        EnterProbeRtt();
        SaveCwnd();
        m_probeRttDoneSet = false;
        m_ackPhase = AckPhase::PROBE_STOPPING;
        StartRound();
    }
    if (m_state == State::PROBE_RTT)
    {
        HandleProbeRtt();
    }
    if (rs.delivered > 0)
    {
        m_idleRestart = false;
    }
}

/// BBRHandleProbeRTT (5.3.4.4): hold inflight at the ProbeRTT cwnd for 200 ms and a round.
void
MpBbr3::HandleProbeRtt()
{
    // Ignore low rate samples during ProbeRTT.
    MarkConnectionAppLimited();
    if (!m_probeRttDoneSet && m_inflight <= ProbeRttCwnd())
    {
        m_probeRttDoneStamp = m_now + m_probeRttDuration;
        m_probeRttDoneSet = true;
        m_probeRttRoundDone = false;
        StartRound();
    }
    else if (m_probeRttDoneSet)
    {
        if (m_roundStart)
        {
            m_probeRttRoundDone = true;
        }
        if (m_probeRttRoundDone)
        {
            CheckProbeRttDone();
        }
    }
}

/// BBRCheckProbeRTTDone (5.3.4.4).
void
MpBbr3::CheckProbeRttDone()
{
    if (m_probeRttDoneSet && m_now > m_probeRttDoneStamp)
    {
        m_probeRttMinStamp = m_now; // schedule the next ProbeRTT
        RestoreCwnd();
        ExitProbeRtt();
    }
}

/// MarkConnectionAppLimited (4.1.2.4), kept by BBR itself: packets sent until C.delivered
/// passes C.delivered + C.inflight give app-limited samples.
void
MpBbr3::MarkConnectionAppLimited()
{
    uint64_t v = m_delivered + static_cast<uint64_t>(m_inflight);
    m_appLimitedUntil = v > 0 ? v : 1;
}

/// BBRAdvanceLatestDeliverySignals (5.5.10.3).
void
MpBbr3::AdvanceLatestDeliverySignals(const Sample& rs)
{
    if (m_lossRoundStart)
    {
        m_bwLatest = rs.deliveryRate;
        m_inflightLatest = rs.delivered;
    }
}

/// BBRBoundBWForModel (5.5.10.3): bw = min(max_bw, bw_shortterm).
void
MpBbr3::BoundBwForModel()
{
    m_bw = std::min(m_maxBw, m_bwShortterm);
    UpdateBdp();
}

/// BBRResetCongestionSignals (5.5.10.3).
void
MpBbr3::ResetCongestionSignals()
{
    m_isLossInRound = false;
    m_lostPacketsInRound = 0;
    m_bwLatest = 0;
    m_inflightLatest = 0;
    m_ecnInRound = false;
    m_ecnInCycle = false;
    m_lossInCycle = false;
}

/// BBRResetShortTermModel (5.5.10.3).
void
MpBbr3::ResetShortTermModel()
{
    m_bwShortterm = kInf;
    m_inflightShortterm = kInf;
}

} // namespace ns3
