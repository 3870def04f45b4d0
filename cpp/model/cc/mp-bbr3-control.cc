// SPDX-License-Identifier: GPL-2.0-only
//
// BBRv3 per draft-ietf-ccwg-bbr-04, control parameters, loss and ECN (5.5.10-5.6; ECN from Linux)
// (mp-bbr3.cc has the overview).

#include "mp-bbr3.h"
#include "mp-ecn-marks.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

// ---- control parameters (5.6) -----------------------------------------------------------------

/// BBRSetPacingRateWithGain (5.6.2): gain * bw less the pacing margin; before the pipe is
/// full the rate never falls.
void
MpBbr3::SetPacingRateWithGain(double gain)
{
    double rate = gain * m_bw * (100.0 - m_pacingMarginPercent) / 100.0;
    if (rate <= 0)
    {
        return;
    }
    if (m_fullBwReached || rate > m_pacingRateBytes)
    {
        m_pacingRateBytes = rate;
    }
}

/// BBRSetSendQuantum (5.6.3): pacing_rate * 1 ms within [2 SMSS, 64 KB].
void
MpBbr3::SetSendQuantum()
{
    double q = m_pacingRateBytes * 1e-3;
    q = std::min(q, 65536.0);
    m_sendQuantum = std::max(q, 2 * Smss());
}

/// BBRUpdateMaxInflight (5.6.4.2).
void
MpBbr3::UpdateMaxInflight()
{
    double cap = BdpMultiple(m_cwndGain) + m_extraAcked;
    m_maxInflight = QuantizationBudget(cap);
}

/// BBRSetCwnd (5.6.4.6): towards max_inflight by at most the newly acked bytes per ACK.
void
MpBbr3::SetCwnd(const Sample& rs)
{
    UpdateMaxInflight();
    double cwnd = static_cast<double>(m_cwnd);
    if (m_fullBwReached)
    {
        cwnd = std::min(cwnd + rs.newlyAcked, m_maxInflight);
    }
    else if (cwnd < m_maxInflight || static_cast<double>(m_delivered) < InitialCwnd())
    {
        cwnd += rs.newlyAcked;
    }
    cwnd = std::max(cwnd, MinPipeCwnd());
    m_cwnd = static_cast<uint64_t>(cwnd);
    BoundCwndForProbeRtt();
    BoundCwndForModel();
}

/// BBRBoundCwndForProbeRTT (5.6.4.5).
void
MpBbr3::BoundCwndForProbeRtt()
{
    if (m_state == State::PROBE_RTT)
    {
        m_cwnd = std::min(m_cwnd, static_cast<uint64_t>(ProbeRttCwnd()));
    }
}

/// BBRBoundCwndForModel (5.6.4.7): inflight_longterm in DOWN, REFILL and UP,
/// InflightWithHeadroom in CRUISE and ProbeRTT, and inflight_shortterm always.
void
MpBbr3::BoundCwndForModel()
{
    double cap = kInf;
    if (IsInAProbeBwState() && m_state != State::PROBE_BW_CRUISE)
    {
        cap = m_inflightLongterm;
    }
    else if (m_state == State::PROBE_RTT || m_state == State::PROBE_BW_CRUISE)
    {
        cap = InflightWithHeadroom();
    }
    cap = std::min(cap, m_inflightShortterm);
    cap = std::max(cap, MinPipeCwnd());
    if (cap < static_cast<double>(m_cwnd))
    {
        m_cwnd = static_cast<uint64_t>(cap);
    }
}

// ---- loss (5.5.10, 5.5.11, 5.6.4.4) -----------------------------------------------------------

void
MpBbr3::OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev)
{
    m_now = ev.now;
    const MpPathInfo& path = ctx.Path();
    m_inflight = static_cast<double>(path.bytesInFlight);
    m_delivered = path.deliveredBytes;
    if (ev.nLost == 0)
    {
        return;
    }
    // A loss of a packet sent after the current recovery began starts a new episode
    // (RFC 9002 section 7.3.2). BBROnEnterFastRecovery (5.6.4.4): save cwnd and the model.
    if (!m_inRecovery || ev.largestLostSentTime > m_recoveryStart)
    {
        SaveCwnd();
        SaveStateUponLoss();
        m_inRecovery = true;
        m_recoveryStart = ev.now;
        m_recoveryStartRound = m_roundCount;
    }
    for (std::size_t i = 0; i < ev.nLost; ++i)
    {
        const MpSentPacket& p = ev.lost[i];
        if (!p.inFlight)
        {
            continue;
        }
        m_lostBytes += p.bytes;
        ++m_lostPacketsInRound;
        // Startup's loss exit counts discontiguous lost ranges and lost bytes per round.
        if (!m_haveLastLostPn || p.pn != m_lastLostPn + 1)
        {
            ++m_startupLossRanges;
        }
        m_haveLastLostPn = true;
        m_lastLostPn = p.pn;
        m_startupLostBytes += p.bytes;
        SentRecord rec{m_lostBytes - p.bytes, p.isAppLimited, true};
        if (SentRecord* r = Record(p.pn))
        {
            rec.lost = r->lost;
            rec.appLimited = rec.appLimited || r->appLimited;
            r->done = true;
        }
        HandleLostPacket(p, rec);
    }
}

/// BBRNoteLoss (5.5.10.2).
void
MpBbr3::NoteLoss()
{
    if (!m_isLossInRound)
    {
        m_lossRoundDelivered = m_delivered; // the first loss in this round trip
        SaveStateUponLoss();
    }
    m_isLossInRound = true;
    m_lossInCycle = true;
}

/// BBRHandleLostPacket (5.5.10.2): while probing, a loss rate above LossThresh since P was
/// sent caps inflight_longterm at the in-flight volume where the rate crossed it.
void
MpBbr3::HandleLostPacket(const MpSentPacket& p, const SentRecord& rec)
{
    NoteLoss();
    if (!m_isBwProbeSample)
    {
        return; // not a packet sent while probing bandwidth
    }
    Sample rs;
    rs.txInFlight = static_cast<double>(p.txInFlight);
    rs.lost = static_cast<double>(m_lostBytes - std::min(m_lostBytes, rec.lost));
    rs.isAppLimited = rec.appLimited;
    if (IsInflightTooHigh(rs))
    {
        rs.txInFlight = InflightAtLoss(rs, static_cast<double>(p.bytes));
        HandleInflightTooHigh(rs);
    }
}

/// BBRHandleInflightTooHigh (5.5.10.2): react once per probe; UP goes DOWN.
void
MpBbr3::HandleInflightTooHigh(const Sample& rs)
{
    m_prevProbeTooHigh = true;
    m_isBwProbeSample = false; // only react once per bandwidth probe
    if (!rs.isAppLimited)
    {
        UpdateBdp();
        m_inflightLongterm = std::max(rs.txInFlight, TargetInflight() * m_beta);
    }
    if (m_state == State::PROBE_BW_UP)
    {
        m_haveUndoState = true;
        m_undoState = State::PROBE_BW_UP;
        StartProbeBwDown();
    }
}

/// BBRSaveStateUponLoss (5.5.11.1).
void
MpBbr3::SaveStateUponLoss()
{
    SaveCwnd();
    m_haveUndoState = false;
    m_undoBwShortterm = m_bwShortterm;
    m_undoInflightShortterm = m_inflightShortterm;
    m_undoInflightLongterm = m_inflightLongterm;
}

/// BBRHandleSpuriousLossDetection (5.5.11.2): restore cwnd and the bounds; return to
/// Startup or to the bandwidth probe the loss ended.
void
MpBbr3::HandleSpuriousLossDetection()
{
    RestoreCwnd();
    m_isLossInRound = false;
    ResetFullBw();
    m_bwShortterm = std::max(m_bwShortterm, m_undoBwShortterm);
    m_inflightShortterm = std::max(m_inflightShortterm, m_undoInflightShortterm);
    m_inflightLongterm = std::max(m_inflightLongterm, m_undoInflightLongterm);
    if (m_haveUndoState && m_undoState == State::STARTUP && m_state != State::STARTUP)
    {
        m_fullBwReached = false;
        if (m_state != State::PROBE_RTT)
        {
            EnterStartup();
        }
    }
    else if (m_haveUndoState && m_undoState == State::PROBE_BW_UP && m_state != State::PROBE_BW_UP)
    {
        if (m_state != State::PROBE_RTT)
        {
            StartProbeBwRefill();
        }
    }
    m_haveUndoState = false;
}

/// BBRSaveCwnd (5.6.4.4): the last cwnd not modulated by loss recovery or ProbeRTT.
void
MpBbr3::SaveCwnd()
{
    if (!InLossRecovery() && m_state != State::PROBE_RTT)
    {
        m_priorCwnd = m_cwnd;
    }
    else
    {
        m_priorCwnd = std::max(m_priorCwnd, m_cwnd);
    }
}

/// BBRRestoreCwnd (5.6.4.4).
void
MpBbr3::RestoreCwnd()
{
    m_cwnd = std::max(m_cwnd, m_priorCwnd);
}

/// RFC 9002 section 7.6.2 persistent congestion, answered as the draft answers an RTO
/// (5.6.4.4): save cwnd and the model, cwnd = inflight + 1 SMSS (at least kMinimumWindow);
/// the saved cwnd returns when the recovery period ends.
void
MpBbr3::OnPersistentCongestion(const MpCcContext& ctx)
{
    m_now = ctx.Now();
    SaveCwnd();
    SaveStateUponLoss();
    m_inRecovery = true;
    m_recoveryStart = m_now;
    m_recoveryStartRound = m_roundCount;
    m_cwnd = std::max<uint64_t>(ctx.Path().bytesInFlight + m_mss, MinimumWindow(m_mss));
    Publish();
}

/// BBROnEnterRTO (5.6.4.4): SaveCwnd, SaveStateUponLoss on the first expiry of an episode;
/// cwnd = C.inflight + 1 SMSS on every expiry.
void
MpBbr3::OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev)
{
    m_now = ev.now;
    if (ev.first || !m_inRto)
    {
        SaveCwnd();
        m_priorCwnd = std::max(m_priorCwnd, ev.priorCwnd);
        SaveStateUponLoss();
        m_inRto = true;
    }
    m_cwnd = ev.bytesInFlight + m_mss;
    Publish();
}

/// The end of the timeout episode (5.6.4.4): the saved cwnd returns; a spurious timeout also
/// undoes the model (5.5.11.2). The picoquic variant re-enters Startup.
void
MpBbr3::OnRtoEpisodeEnd(const MpCcContext& ctx, const MpRtoEnd& ev)
{
    m_now = ev.now;
    m_inRto = false;
    if (ev.spurious)
    {
        HandleSpuriousLossDetection();
    }
    else
    {
        RestoreCwnd();
    }
    if (m_startupOnRtoEnd)
    {
        ResetShortTermModel();
        ResetFullBw();
        m_fullBwReached = false;
        EnterStartup();
    }
    Publish();
}

void
MpBbr3::OnIdleRestart(const MpCcContext&, Time, Time)
{
}

// ---- ECN (Linux BBRv3, tcp_bbr.c; the draft has none) ---------------------------------------

void
MpBbr3::OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev)
{
    if (!m_ecn)
    {
        return; // Linux without ecn_low: CE changes nothing
    }
    m_now = ev.now;
    uint64_t marked = MpEcnMarkedBytes(ev, m_mss);
    m_deliveredCe += marked;
    if (ev.ceIncrease > 0)
    {
        m_ecnInCycle = true;
        if (m_ecnEligible)
        {
            m_ecnInRound = true;
        }
    }
    bool changed = m_ecnRoundPending || m_ecnLossRoundPending;
    ResolveEcnRound();
    uint64_t tooHigh = m_ecnTooHigh;
    CheckEcnTooHigh();
    if (changed || m_ecnTooHigh != tooHigh)
    {
        m_inflight = static_cast<double>(ctx.Path().bytesInFlight);
        ApplyEcnControl();
    }
}

MpEcnCodepoint
MpBbr3::GetEcnCodepoint() const
{
    return m_ecn ? MpEcnCodepoint::ECT0 : MpEcnCodepoint::NOT_ECT;
}

void
MpBbr3::ResolveEcnRound()
{
    if (m_ecnRoundPending)
    {
        m_ecnRoundPending = false;
        UpdateEcnAlpha();
        if (m_state == State::STARTUP && m_fullBwReached)
        {
            EnterDrain(); // BBRCheckStartupDone, for the ECN exit
        }
    }
    if (m_ecnLossRoundPending)
    {
        m_ecnLossRoundPending = false;
        EcnLowerBounds();
        m_ecnInRound = false;
    }
}

/// bbr_update_ecn_alpha: eligibility (sticky), then the per-round EWMA of the CE ratio.
void
MpBbr3::UpdateEcnAlpha()
{
    if (!m_ecnEligible && m_ecnFactor > 0 && HasMinRtt() &&
        (m_ecnMaxRtt.IsZero() || m_minRtt <= m_ecnMaxRtt))
    {
        m_ecnEligible = true;
    }
    if (!m_ecnEligible)
    {
        return;
    }
    uint64_t delivered = m_delivered - std::min(m_delivered, m_alphaLastDelivered);
    uint64_t ce = m_deliveredCe - std::min(m_deliveredCe, m_alphaLastDeliveredCe);
    if (delivered == 0)
    {
        return;
    }
    double ratio = std::min(1.0, static_cast<double>(ce) / static_cast<double>(delivered));
    m_ecnAlpha = std::min(1.0, (1.0 - m_ecnAlphaGain) * m_ecnAlpha + m_ecnAlphaGain * ratio);
    m_alphaLastDelivered = m_delivered;
    m_alphaLastDeliveredCe = m_deliveredCe;
    m_lastCeRatio = ratio;
    // bbr_check_ecn_too_high_in_startup
    if (m_fullBwReached || m_ecnFullCount == 0 || m_ecnThresh <= 0)
    {
        return;
    }
    m_startupEcnRounds = ratio >= m_ecnThresh ? m_startupEcnRounds + 1 : 0;
    if (m_startupEcnRounds >= m_ecnFullCount)
    {
        HandleQueueTooHighInStartup();
    }
}

/// bbr_ecn_lower_bounds: once per loss round with CE, when not probing,
/// inflight_shortterm = min(its loss cut, base (1 - EcnFactor ecn_alpha)).
void
MpBbr3::EcnLowerBounds()
{
    if (m_ecnLossRoundProbing || !m_ecnInRound || m_ecnFactor <= 0)
    {
        return;
    }
    if (m_inflightShortterm == kInf)
    {
        m_inflightShortterm = m_ecnShorttermBase; // bbr_init_lower_bounds
    }
    double cut = m_ecnShorttermBase * (1.0 - m_ecnFactor * m_ecnAlpha);
    m_inflightShortterm = std::min(m_inflightShortterm, cut);
    ++m_ecnShorttermCuts;
}

/// The ECN clause of bbr_is_inflight_too_high on the frame's rate sample: while the ACKs are
/// samples of a bandwidth probe, RS.delivered_ce > EcnThresh RS.delivered is too high.
void
MpBbr3::CheckEcnTooHigh()
{
    if (!m_ecnEligible || m_ecnThresh <= 0 || !m_ecnSampleValid || !m_fullBwReached ||
        !m_isBwProbeSample)
    {
        return;
    }
    double ce = static_cast<double>(m_deliveredCe - std::min(m_deliveredCe, m_ecnSampleCeAtSend));
    if (ce <= 0 || m_ecnSampleDelivered <= 0 || ce <= m_ecnThresh * m_ecnSampleDelivered)
    {
        return;
    }
    Sample rs;
    rs.txInFlight = m_ecnSampleTxInFlight;
    rs.isAppLimited = m_ecnSampleAppLimited;
    ++m_ecnTooHigh;
    HandleInflightTooHigh(rs);
}

void
MpBbr3::ApplyEcnControl()
{
    BoundBwForModel();
    SetPacingRateWithGain(m_pacingGain);
    SetSendQuantum();
    UpdateMaxInflight();
    BoundCwndForProbeRtt();
    BoundCwndForModel();
    Publish();
}

} // namespace ns3
