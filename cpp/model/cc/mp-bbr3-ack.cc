// SPDX-License-Identifier: GPL-2.0-only
//
// BBRv3 per draft-ietf-ccwg-bbr-04, the per-ACK steps (5.2.3, 5.3, 5.5) (mp-bbr3.cc has the
// overview).

#include "mp-bbr3.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

// ---- per-ACK steps (5.2.3) --------------------------------------------------------------------

void
MpBbr3::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    if (m_ecn)
    {
        ResolveEcnRound(); // the last frame's, if no ECN feedback came with it
        m_ecnSampleValid = false;
    }
    m_now = ev.now;
    const MpPathInfo& path = ctx.Path();
    m_inflight = static_cast<double>(path.bytesInFlight);
    m_delivered = path.deliveredBytes;
    if (m_appLimitedUntil != 0 && m_delivered > m_appLimitedUntil)
    {
        m_appLimitedUntil = 0;
    }

    // The newest in-flight packet acknowledged (ev.acked is in ascending packet numbers).
    const MpSentPacket* newest = nullptr;
    bool leftRecovery = false;
    uint64_t largest = 0;
    for (std::size_t i = 0; i < ev.nAcked; ++i)
    {
        const MpSentPacket& p = ev.acked[i];
        largest = std::max(largest, p.pn);
        if (p.wasLost || !p.inFlight)
        {
            continue;
        }
        newest = &p;
        if (m_inRecovery && p.sentTime > m_recoveryStart)
        {
            leftRecovery = true;
        }
    }
    Sample rs;
    const SentRecord* newestRec = newest ? Record(newest->pn) : nullptr;
    SentRecord newestCopy =
        newestRec ? *newestRec : SentRecord{m_lostBytes, false, false, m_deliveredCe};
    for (std::size_t i = 0; i < ev.nAcked; ++i)
    {
        if (SentRecord* r = Record(ev.acked[i].pn))
        {
            r->done = true;
        }
    }
    TrimRecords(largest);

    // Fast recovery ends once a packet sent after it began is acknowledged (RFC 9002
    // section 7.3.2); BBR then restores the cwnd it saved (5.6.4.4).
    if (leftRecovery)
    {
        m_inRecovery = false;
        RestoreCwnd();
    }
    if (!newest || ev.bytesAcked == 0)
    {
        return; // nothing newly delivered: no rate sample, no model update
    }

    const MpRateSample* r = ev.rate;
    if (r && r->valid)
    {
        rs.deliveryRate = r->deliveryRateBps / 8.0;
    }
    rs.delivered = r ? static_cast<double>(r->delivered) : static_cast<double>(ev.bytesAcked);
    rs.priorDelivered = r ? r->priorDelivered : newest->delivered;
    rs.isAppLimited = (r ? r->isAppLimited : newest->isAppLimited) || newestCopy.appLimited;
    rs.txInFlight = static_cast<double>(newest->txInFlight);
    rs.lost = static_cast<double>(m_lostBytes - std::min(m_lostBytes, newestCopy.lost));
    rs.newlyAcked = static_cast<double>(ev.bytesAcked);
    if (r && r->rtt.IsStrictlyPositive())
    {
        rs.rtt = r->rtt;
        rs.hasRtt = true;
    }
    else if (ev.rttSampled)
    {
        rs.rtt = ev.latestRtt;
        rs.hasRtt = true;
    }

    if (m_ecn)
    {
        // RS.delivered and P.delivered_ce for the frame's ECN feedback (CheckEcnTooHigh).
        m_ecnSampleValid = true;
        m_ecnSampleDelivered = rs.delivered;
        m_ecnSampleTxInFlight = rs.txInFlight;
        m_ecnSampleAppLimited = rs.isAppLimited;
        m_ecnSampleCeAtSend = newestCopy.deliveredCe;
    }

    // BBRUpdateModelAndState
    UpdateLatestDeliverySignals(rs);
    UpdateCongestionSignals(rs);
    UpdateAckAggregation(rs);
    CheckFullBwReached(rs);
    CheckStartupDone();
    CheckDrainDone();
    UpdateProbeBwCyclePhase(rs);
    UpdateMinRtt(rs);
    CheckProbeRtt(rs);
    AdvanceLatestDeliverySignals(rs);
    BoundBwForModel();

    // BBRUpdateControlParameters. Init had no RTT sample when the path opened without a
    // handshake; like Linux (bbr_init_pacing_rate_from_rtt), InitPacingRate runs again with
    // the first smoothed RTT.
    if (!m_hasSeenRtt && path.HasRttSample())
    {
        m_hasSeenRtt = true;
        m_pacingRateBytes =
            m_startupPacingGain * InitialCwnd() / std::max(path.Srtt().GetSeconds(), 1e-6);
    }
    SetPacingRateWithGain(m_pacingGain);
    SetSendQuantum();
    SetCwnd(rs);
    Publish();
}

/// BBRUpdateLatestDeliverySignals (5.5.10.3): 1-round maxima of rate and volume; a loss round
/// ends when a packet sent after its start is acknowledged.
void
MpBbr3::UpdateLatestDeliverySignals(const Sample& rs)
{
    m_lossRoundStart = false;
    m_bwLatest = std::max(m_bwLatest, rs.deliveryRate);
    m_inflightLatest = std::max(m_inflightLatest, rs.delivered);
    if (rs.priorDelivered >= m_lossRoundDelivered)
    {
        m_lossRoundDelivered = m_delivered;
        m_lossRoundStart = true;
    }
}

/// BBRUpdateCongestionSignals (5.5.10.3).
void
MpBbr3::UpdateCongestionSignals(const Sample& rs)
{
    UpdateMaxBw(rs);
    if (m_ecn && m_roundStart)
    {
        m_ecnRoundPending = true; // bbr_update_ecn_alpha, with this frame's CE counts
    }
    if (!m_lossRoundStart)
    {
        return; // wait for the end of the round trip
    }
    if (m_ecn)
    {
        // The ECN cut starts from inflight_shortterm before this round's loss cut.
        m_ecnLossRoundPending = true;
        m_ecnLossRoundProbing = IsProbingBw();
        m_ecnShorttermBase =
            m_inflightShortterm == kInf ? static_cast<double>(m_cwnd) : m_inflightShortterm;
    }
    AdaptLowerBoundsFromCongestion();
    m_isLossInRound = false;
    m_lostPacketsInRound = 0;
}

/// BBRUpdateRound (5.5.1).
void
MpBbr3::UpdateRound(const Sample& rs)
{
    if (rs.priorDelivered >= m_nextRoundDelivered)
    {
        StartRound();
        ++m_roundCount;
        ++m_roundsSinceProbeUp;
        m_roundStart = true;
    }
    else
    {
        m_roundStart = false;
    }
}

/// BBRUpdateMaxBw (5.5.4): max over the current and the previous ProbeBW cycle (the two
/// slots of MaxBwFilterLen = 2); app-limited samples only if they raise the estimate.
void
MpBbr3::UpdateMaxBw(const Sample& rs)
{
    UpdateRound(rs);
    if (rs.deliveryRate > 0 && (rs.deliveryRate >= m_maxBw || !rs.isAppLimited))
    {
        m_bwHi[1] = std::max(m_bwHi[1], rs.deliveryRate);
        m_maxBw = std::max(m_bwHi[0], m_bwHi[1]);
    }
}

/// BBRAdvanceMaxBwFilter (5.5.5): a new cycle slot; the older one drops out.
void
MpBbr3::AdvanceMaxBwFilter()
{
    ++m_cycleCount;
    if (m_bwHi[1] <= 0)
    {
        return; // an empty cycle (app-limited throughout) keeps the previous one
    }
    m_bwHi[0] = m_bwHi[1];
    m_bwHi[1] = 0;
    m_maxBw = m_bwHi[0];
}

/// BBRAdaptLowerBoundsFromCongestion, BBRInitLowerBounds, BBRLossLowerBounds (5.5.10.3):
/// once per round with loss, when not probing, x_shortterm = max(x_latest, Beta x_shortterm).
void
MpBbr3::AdaptLowerBoundsFromCongestion()
{
    if (IsProbingBw())
    {
        return;
    }
    if (!m_isLossInRound || m_lostPacketsInRound < m_minLostPackets)
    {
        return;
    }
    if (m_bwShortterm == kInf)
    {
        m_bwShortterm = m_maxBw;
    }
    if (m_inflightShortterm == kInf)
    {
        m_inflightShortterm = static_cast<double>(m_cwnd);
    }
    m_bwShortterm = std::max(m_bwLatest, m_beta * m_bwShortterm);
    m_inflightShortterm = std::max(m_inflightLatest, m_beta * m_inflightShortterm);
}

/// BBRUpdateACKAggregation (5.5.9).
void
MpBbr3::UpdateAckAggregation(const Sample& rs)
{
    double interval = (m_now - m_extraAckedIntervalStart).GetSeconds();
    double expected = m_bw * interval;
    if (m_extraAckedDelivered <= expected)
    {
        // The ACK rate fell below the expected rate: a new aggregation epoch.
        m_extraAckedDelivered = 0;
        m_extraAckedIntervalStart = m_now;
        expected = 0;
    }
    m_extraAckedDelivered += rs.newlyAcked;
    double extra = std::min(m_extraAckedDelivered - expected, static_cast<double>(m_cwnd));
    uint64_t window = m_fullBwReached ? m_extraAckedFilterLen : 1;
    m_extraAcked = m_extraAckedFilter.Update(std::max(extra, 0.0), m_roundCount, window);
}

/// BBRResetFullBW (5.3.1.2).
void
MpBbr3::ResetFullBw()
{
    m_fullBw = 0;
    m_fullBwCount = 0;
    m_fullBwNow = false;
}

/// BBRCheckFullBWReached (5.3.1.2): three rounds in a row with less than 25 % growth of the
/// delivery rate. Rounds without a valid (non-app-limited) sample do not count.
void
MpBbr3::CheckFullBwReached(const Sample& rs)
{
    if (m_fullBwNow || !m_roundStart || rs.isAppLimited || rs.deliveryRate <= 0)
    {
        return;
    }
    if (rs.deliveryRate >= m_fullBw * m_fullBwThresh)
    {
        ResetFullBw();
        m_fullBw = rs.deliveryRate;
        return;
    }
    ++m_fullBwCount;
    m_fullBwNow = m_fullBwCount >= m_fullBwCountThresh;
    if (m_fullBwNow)
    {
        m_fullBwReached = true;
    }
}

/// BBRCheckStartupDone (5.3.1).
void
MpBbr3::CheckStartupDone()
{
    CheckStartupHighLoss();
    if (m_state == State::STARTUP && m_fullBwReached)
    {
        EnterDrain();
    }
}

/// BBRCheckStartupHighLoss (5.3.1.3): at the end of a loss round, after a full round in
/// recovery, a loss rate above LossThresh over at least StartupFullLossCount discontiguous
/// lost ranges ends Startup. The loss rate is lost / (delivered + lost) over the round.
void
MpBbr3::CheckStartupHighLoss()
{
    if (!m_lossRoundStart)
    {
        return;
    }
    if (!m_fullBwReached && m_state == State::STARTUP && m_inRecovery &&
        m_roundCount > m_recoveryStartRound && m_startupLossRanges >= m_startupFullLossCnt)
    {
        double delivered =
            static_cast<double>(m_delivered - std::min(m_delivered, m_startupRoundDeliveredBase));
        double lost = static_cast<double>(m_startupLostBytes);
        if (lost > m_lossThresh * (delivered + lost))
        {
            HandleQueueTooHighInStartup();
        }
    }
    m_startupLossRanges = 0;
    m_startupLostBytes = 0;
    m_startupRoundDeliveredBase = m_delivered;
    m_haveLastLostPn = false;
}

/// The Startup loss exit (5.3.1.3): undo_state = Startup, full_bw_reached, and
/// inflight_longterm = max(bdp, inflight_latest).
void
MpBbr3::HandleQueueTooHighInStartup()
{
    m_haveUndoState = true;
    m_undoState = State::STARTUP;
    m_fullBwReached = true;
    m_fullBwNow = true;
    UpdateBdp();
    m_inflightLongterm = std::max(m_bdp, m_inflightLatest);
}

/// BBRCheckDrainDone (5.3.2): inflight down to the BDP, or 3 rounds in Drain.
void
MpBbr3::CheckDrainDone()
{
    if (m_state == State::DRAIN &&
        (m_inflight <= Inflight(1.0) || m_roundCount > m_drainStartRound + 3))
    {
        EnterProbeBw();
    }
}

} // namespace ns3
