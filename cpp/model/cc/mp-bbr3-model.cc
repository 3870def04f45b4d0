// SPDX-License-Identifier: GPL-2.0-only
//
// BBRv3 per draft-ietf-ccwg-bbr-04, the model, initialisation, state transitions and per-transmit
// steps (5.2-5.5) (mp-bbr3.cc has the overview).

#include "mp-bbr3.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{
/// Packets older than this many packet numbers below the largest acknowledged one are
/// resolved (RFC 9002's packet threshold is 3): their records can go.
constexpr uint64_t kRecordLag = 64;
/// Upper bound on the per-packet records kept (a safety net; never reached in practice).
constexpr std::size_t kMaxRecords = 1u << 20;
} // namespace

// ---- model helpers (draft 5.5, 5.6.4) ------------------------------------------------------

double
MpBbr3::Smss() const
{
    return static_cast<double>(m_mss);
}

double
MpBbr3::MinPipeCwnd() const
{
    return static_cast<double>(m_minPipeCwndPackets) * Smss();
}

double
MpBbr3::InitialCwnd() const
{
    return static_cast<double>(m_initialWindowPackets > 0
                                   ? static_cast<uint64_t>(m_initialWindowPackets) * m_mss
                                   : InitialWindow(m_mss));
}

bool
MpBbr3::HasMinRtt() const
{
    return m_minRtt != Time::Max();
}

void
MpBbr3::UpdateBdp()
{
    m_bdp = HasMinRtt() ? m_bw * m_minRtt.GetSeconds() : InitialCwnd();
}

/// BBRBDPMultiple (5.6.4.2): gain * bw * min_rtt, or the initial window before an RTT sample.
double
MpBbr3::BdpMultiple(double gain) const
{
    if (!HasMinRtt())
    {
        return InitialCwnd();
    }
    return gain * m_bw * m_minRtt.GetSeconds();
}

/// BBRQuantizationBudget (5.6.4.2): at least the offload budget (QUIC: one send quantum) and
/// MinPipeCwnd, plus 2 SMSS in ProbeBW_UP.
double
MpBbr3::QuantizationBudget(double inflightCap) const
{
    inflightCap = std::max(inflightCap, m_sendQuantum);
    inflightCap = std::max(inflightCap, MinPipeCwnd());
    if (m_state == State::PROBE_BW_UP)
    {
        inflightCap += 2 * Smss();
    }
    return inflightCap;
}

double
MpBbr3::Inflight(double gain) const
{
    return QuantizationBudget(BdpMultiple(gain));
}

/// BBRInflightWithHeadroom (5.3.3.6): inflight_longterm less max(1 SMSS, Headroom * it).
double
MpBbr3::InflightWithHeadroom() const
{
    if (m_inflightLongterm == kInf)
    {
        return kInf;
    }
    double headroom = std::max(Smss(), m_headroom * m_inflightLongterm);
    return std::max(m_inflightLongterm - headroom, MinPipeCwnd());
}

/// BBRTargetInflight (5.3.3.5): the BDP unless congestion cut cwnd below it.
double
MpBbr3::TargetInflight() const
{
    return std::min(m_bdp, static_cast<double>(m_cwnd));
}

/// BBRProbeRTTCwnd (5.6.4.5): max(ProbeRTTCwndGain * bdp, MinPipeCwnd).
double
MpBbr3::ProbeRttCwnd() const
{
    return std::max(BdpMultiple(m_probeRttCwndGain), MinPipeCwnd());
}

bool
MpBbr3::IsInAProbeBwState() const
{
    return m_state == State::PROBE_BW_DOWN || m_state == State::PROBE_BW_CRUISE ||
           m_state == State::PROBE_BW_REFILL || m_state == State::PROBE_BW_UP;
}

bool
MpBbr3::IsProbingBw() const
{
    return m_state == State::STARTUP || m_state == State::PROBE_BW_REFILL ||
           m_state == State::PROBE_BW_UP;
}

bool
MpBbr3::InLossRecovery() const
{
    return m_inRecovery || m_inRto;
}

/// C.is_cwnd_limited (2.2): cwnd was fully used at some point in the last round trip.
bool
MpBbr3::IsCwndLimited() const
{
    return m_cwndLimitedSeen && m_roundCount <= m_cwndLimitedRound + 1;
}

/// IsInflightTooHigh (5.5.10.2). QUIC has selective ACKs, so only the rate test applies; the
/// picoquic variant also wants more than 3 packets lost in the round.
bool
MpBbr3::IsInflightTooHigh(const Sample& rs) const
{
    if (m_lostPacketsInRound < m_minLostPackets)
    {
        return false;
    }
    return rs.lost > rs.txInFlight * m_lossThresh;
}

/// BBRInflightAtLoss (5.5.10.2): the in-flight volume at which the loss rate crossed
/// LossThresh, solving (lost_prev + x) / (inflight_prev + x) = LossThresh for x within P.
double
MpBbr3::InflightAtLoss(const Sample& rs, double size) const
{
    double inflightPrev = std::max(rs.txInFlight - size, 0.0);
    double lostPrev = std::max(rs.lost - size, 0.0);
    double lostPrefix = (m_lossThresh * inflightPrev - lostPrev) / (1.0 - m_lossThresh);
    lostPrefix = std::max(lostPrefix, 0.0);
    return inflightPrev + lostPrefix;
}

// ---- initialisation (5.2.1) -------------------------------------------------------------------

void
MpBbr3::Init(const MpCcContext& ctx)
{
    MpCongestionOps::Init(ctx);
    m_now = ctx.Now();
    const MpPathInfo& path = ctx.Path();
    m_maxBw = 0;
    m_bwHi[0] = m_bwHi[1] = 0;
    m_bw = 0;
    m_cycleCount = 0;
    m_minRtt = path.HasRttSample() ? path.Srtt() : Time::Max();
    m_minRttStamp = m_now;
    m_probeRttMinDelay = m_minRtt;
    m_probeRttMinStamp = m_now;
    m_probeRttExpired = false;
    m_probeRttDoneSet = false;
    m_probeRttRoundDone = false;
    m_priorCwnd = 0;
    m_haveUndoState = false;
    m_undoBwShortterm = 0;
    m_undoInflightShortterm = 0;
    m_undoInflightLongterm = 0;
    m_idleRestart = false;
    m_extraAckedIntervalStart = m_now;
    m_extraAckedDelivered = 0;
    m_extraAckedFilter.Reset(0, 0);
    m_extraAcked = 0;
    m_fullBwReached = false;
    m_inflightLongterm = kInf;
    m_probeUpAckedPerInc = kInf;
    m_bwProbeUpAcked = 0;
    m_bwProbeUpRounds = 0;
    m_roundsSinceProbeUp = 0;
    m_isBwProbeSample = false;
    m_prevProbeTooHigh = false;
    m_prevProbePrecautionary = false;
    m_ackPhase = AckPhase::INIT;
    m_cycleStamp = Time(0);
    m_bwProbeWait = Time(0);
    m_lossRoundDelivered = 0;
    m_lostPacketsInRound = 0;
    m_startupLossRanges = 0;
    m_startupLostBytes = 0;
    m_startupRoundDeliveredBase = 0;
    m_haveLastLostPn = false;
    m_inRecovery = false;
    m_inRto = false;
    m_lostBytes = 0;
    m_appLimitedUntil = 0;
    m_cwndLimitedSeen = false;
    m_records.clear();
    m_recordBase = 0;
    m_ecnEligible = false;
    m_ecnAlpha = m_ecnAlphaInit;
    m_lastCeRatio = -1;
    m_deliveredCe = 0;
    m_alphaLastDelivered = 0;
    m_alphaLastDeliveredCe = 0;
    m_startupEcnRounds = 0;
    m_ecnRoundPending = false;
    m_ecnLossRoundPending = false;
    m_ecnSampleValid = false;
    m_ecnTooHigh = 0;
    m_ecnShorttermCuts = 0;
    ResetCongestionSignals();
    ResetShortTermModel();
    // InitRoundCounting
    m_nextRoundDelivered = 0;
    m_roundStart = false;
    m_roundCount = 0;
    ResetFullBw();
    // InitPacingRate (5.6.2): StartupPacingGain * InitialCwnd / (SRTT or 1 ms).
    m_hasSeenRtt = path.HasRttSample();
    double srtt = m_hasSeenRtt ? path.Srtt().GetSeconds() : 0.001;
    m_pacingRateBytes = m_startupPacingGain * static_cast<double>(m_cwnd) / srtt;
    m_state = State::STARTUP;
    EnterStartup();
    UpdateBdp();
    SetSendQuantum();
    m_maxInflight = static_cast<double>(m_cwnd);
    Publish();
}

void
MpBbr3::Publish()
{
    m_pacingRate = 8.0 * m_pacingRateBytes;
}

// ---- state transitions (5.3) ------------------------------------------------------------------

void
MpBbr3::SetState(State s, double pacingGain, double cwndGain)
{
    if (s != m_state)
    {
        State old = m_state;
        m_state = s;
        ++m_transitions;
        m_stateTrace(static_cast<uint8_t>(old), static_cast<uint8_t>(s));
    }
    m_pacingGain = pacingGain;
    m_cwndGain = cwndGain;
}

/// BBREnterStartup (5.3.1.1).
void
MpBbr3::EnterStartup()
{
    SetState(State::STARTUP, m_startupPacingGain, m_defaultCwndGain);
}

/// BBREnterDrain (5.3.2).
void
MpBbr3::EnterDrain()
{
    SetState(State::DRAIN, m_drainPacingGain, m_defaultCwndGain);
    m_drainStartRound = m_roundCount;
}

/// BBREnterProbeBW (5.3.3.6).
void
MpBbr3::EnterProbeBw()
{
    m_cwndGain = m_defaultCwndGain;
    StartProbeBwDown();
}

/// BBRStartProbeBW_DOWN (5.3.3.6).
void
MpBbr3::StartProbeBwDown()
{
    ResetCongestionSignals();
    m_probeUpAckedPerInc = kInf;
    PickProbeWait();
    m_cycleStamp = m_now;
    m_ackPhase = AckPhase::PROBE_STOPPING;
    StartRound();
    SetState(State::PROBE_BW_DOWN, m_probeDownPacingGain, m_defaultCwndGain);
}

/// BBRStartProbeBW_CRUISE (5.3.3.6).
void
MpBbr3::StartProbeBwCruise()
{
    SetState(State::PROBE_BW_CRUISE, 1.0, m_defaultCwndGain);
}

/// BBRStartProbeBW_REFILL (5.3.3.6): forget the short-term model, refill the pipe one round.
void
MpBbr3::StartProbeBwRefill(uint32_t probeUpRounds)
{
    ResetShortTermModel();
    m_bwProbeUpRounds = probeUpRounds;
    m_bwProbeUpAcked = 0;
    m_prevProbePrecautionary = false;
    m_ackPhase = AckPhase::REFILLING;
    StartRound();
    SetState(State::PROBE_BW_REFILL, 1.0, m_defaultCwndGain);
}

/// BBRStartProbeBW_UP (5.3.3.6).
void
MpBbr3::StartProbeBwUp(const Sample& rs)
{
    m_ackPhase = AckPhase::PROBE_STARTING;
    StartRound();
    ResetFullBw();
    m_fullBw = rs.deliveryRate;
    SetState(State::PROBE_BW_UP, m_probeUpPacingGain, m_probeUpCwndGain);
    RaiseInflightLongtermSlope();
}

/// BBREnterProbeRTT (5.3.4.4).
void
MpBbr3::EnterProbeRtt()
{
    SetState(State::PROBE_RTT, 1.0, m_probeRttCwndGain);
}

/// BBRExitProbeRTT (5.3.4.5): reset the short-term model; the probe clock restarts in DOWN,
/// and since inflight is already below the BDP, CRUISE follows at once.
void
MpBbr3::ExitProbeRtt()
{
    ResetShortTermModel();
    if (m_fullBwReached)
    {
        StartProbeBwDown();
        StartProbeBwCruise();
    }
    else
    {
        EnterStartup();
    }
}

/// BBRPickProbeWait (5.3.3.5): a random start of 0 or 1 for the round count (so the round
/// bound is 62 or 63) and T_bbr = 2 + U(0, 1) s.
void
MpBbr3::PickProbeWait()
{
    m_roundsSinceProbeUp = static_cast<uint64_t>(m_uv->GetInteger(0, 1));
    m_bwProbeWait = m_probeWaitBase + Seconds(m_uv->GetValue(0.0, m_probeWaitRange.GetSeconds()));
}

/// BBRStartRound (5.5.1): the round ends when a packet sent from now on is acknowledged.
void
MpBbr3::StartRound()
{
    m_nextRoundDelivered = m_delivered;
}

// ---- per-transmit steps (5.2.2, 5.4) ----------------------------------------------------------

void
MpBbr3::OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p)
{
    m_now = ctx.Now();
    const MpPathInfo& path = ctx.Path();
    m_inflight = static_cast<double>(path.bytesInFlight);
    m_delivered = path.deliveredBytes;
    HandleRestartFromIdle(p);
    // Remember P.lost (and BBR's own app-limited mark) under the packet number.
    if (m_records.empty())
    {
        m_recordBase = p.pn;
    }
    if (p.pn >= m_recordBase)
    {
        while (m_recordBase + m_records.size() < p.pn)
        {
            m_records.push_back(SentRecord{m_lostBytes, false, true, m_deliveredCe});
        }
        if (m_recordBase + m_records.size() == p.pn)
        {
            m_records.push_back(
                SentRecord{m_lostBytes, m_appLimitedUntil != 0, false, m_deliveredCe});
        }
    }
    if (m_records.size() > kMaxRecords)
    {
        m_records.pop_front();
        ++m_recordBase;
    }
    // C.is_cwnd_limited: the window is full once this packet is out.
    if (path.bytesInFlight + m_mss > m_cwnd)
    {
        m_cwndLimitedRound = m_roundCount;
        m_cwndLimitedSeen = true;
    }
}

/// BBRHandleRestartFromIdle (5.4.1): pace at exactly bw when restarting an idle ProbeBW flow.
void
MpBbr3::HandleRestartFromIdle(const MpSentPacket& p)
{
    // C.inflight before this packet is 0 and the transport marked the connection app-limited.
    double before = m_inflight - static_cast<double>(p.bytes);
    if (before <= 0 && p.isAppLimited)
    {
        m_idleRestart = true;
        m_extraAckedIntervalStart = m_now;
        if (IsInAProbeBwState())
        {
            SetPacingRateWithGain(1.0);
            Publish();
        }
        else if (m_state == State::PROBE_RTT)
        {
            CheckProbeRttDone();
            Publish();
        }
    }
}

MpBbr3::SentRecord*
MpBbr3::Record(uint64_t pn)
{
    if (pn < m_recordBase || pn - m_recordBase >= m_records.size())
    {
        return nullptr;
    }
    return &m_records[pn - m_recordBase];
}

void
MpBbr3::TrimRecords(uint64_t largestAcked)
{
    while (!m_records.empty() &&
           (m_records.front().done || m_recordBase + kRecordLag < largestAcked))
    {
        m_records.pop_front();
        ++m_recordBase;
    }
}

} // namespace ns3
