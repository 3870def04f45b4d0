// SPDX-License-Identifier: GPL-2.0-only
//
// MpLossRecovery, its timers: the PTO, persistent-congestion and retransmission-timeout
// durations, the loss-detection timer (RFC 9002 A.8) and its expiry (A.9)
// (mp-loss-recovery.cc has the sent packets, the ACKs and loss detection).

#include "mp-loss-recovery.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

Time
MpLossRecovery::GetPtoDuration() const
{
    uint32_t e = std::min(m_ptoCount, m_params.maxPtoBackoffExponent);
    return m_rtt.PtoPeriod(m_params.granularity, m_params.maxAckDelay) * (int64_t(1) << e);
}

Time
MpLossRecovery::GetPersistentCongestionDuration() const
{
    return m_rtt.PtoPeriod(m_params.granularity, m_params.maxAckDelay) *
           static_cast<int64_t>(m_params.persistentCongestionThreshold);
}

Time
MpLossRecovery::GetRto() const
{
    if (!m_rtt.HasSample())
    {
        return m_params.initialRto;
    }
    Time srtt = m_rtt.GetSmoothed();
    Time var4 = m_rtt.GetRttVar() * 4;
    Time rto;
    switch (m_params.rtoFormula)
    {
    case RtoFormula::RFC6298:
        rto = std::max(m_params.minRto, srtt + std::max(m_params.granularity, var4));
        break;
    case RtoFormula::LINUX:
        rto = srtt + std::max(var4, m_params.minRto);
        break;
    case RtoFormula::QUIC:
        rto = std::max(m_params.minRto, srtt + var4 + m_params.maxAckDelay);
        break;
    }
    // Never below the clock granularity: a zero timeout (min_rto_s = 0, max_ack_delay_s = 0
    // and a zero RTT estimate) would fire at the same instant forever.
    return std::max(rto, m_params.granularity);
}

Time
MpLossRecovery::GetBackedOffRto() const
{
    Time rto = GetRto();
    uint32_t n = m_rtoCount;
    switch (m_params.rtoBackoff)
    {
    case RtoBackoff::DOUBLE:
        rto = rto * (int64_t(1) << std::min<uint32_t>(n, 30));
        break;
    case RtoBackoff::XOR:
        // The module writes `alarm * (2 ^ rto_count)`: C's exclusive or, not a power.
        rto = rto * static_cast<int64_t>(2U ^ std::min<uint32_t>(n, 1U << 20));
        break;
    case RtoBackoff::PICOQUIC: {
        static constexpr double kSteps[] = {1, 2, 4, 5, 6, 7, 8, 10};
        double m = n < 8 ? kSteps[n] : 10.0 * std::pow(1.25, std::min<uint32_t>(n - 7, 200));
        rto = Time(
            static_cast<int64_t>(std::min(static_cast<double>(rto.GetTimeStep()) * m, 9.0e18)));
        break;
    }
    }
    if (m_params.maxRto.IsStrictlyPositive() && rto > m_params.maxRto)
    {
        rto = m_params.maxRto;
    }
    return rto;
}

MpLossRecovery::TimerKind
MpLossRecovery::GetRetransmissionTimer(Time& deadline) const
{
    Time anchor = m_params.recovery == Recovery::TCP ? m_rtoAnchor : m_timeOfLastAckEliciting;
    Time rtoDeadline = anchor + GetBackedOffRto();
    if (m_tlpCount < m_params.maxTlps && m_rtoCount == 0 && m_rtt.HasSample())
    {
        Time srtt = m_rtt.GetSmoothed();
        Time pto;
        if (m_params.recovery == Recovery::TCP)
        {
            // RFC 8985 section 7.2: PTO = 2 SRTT, plus WCDelAckT with one packet in flight.
            pto = srtt * 2;
            if (m_ackElicitingInFlight == 1)
            {
                pto += m_params.tlpDelayedAckAllowance;
            }
        }
        else
        {
            // draft-ietf-quic-recovery 4.3.2: max(1.5 SRTT + max_ack_delay, kMinTLPTimeout).
            pto = m_params.tlpModuleTiming ? srtt : srtt * 3 / 2 + m_params.maxAckDelay;
            pto = std::max(pto, m_params.minTlpTimeout);
        }
        Time tlpDeadline = m_timeOfLastAckEliciting + pto;
        if (m_params.recovery != Recovery::TCP || tlpDeadline < rtoDeadline)
        {
            deadline = tlpDeadline;
            return TimerKind::TLP;
        }
    }
    deadline = rtoDeadline;
    return TimerKind::RTO;
}

MpLossRecovery::TimerKind
MpLossRecovery::GetTimer(Time& deadline) const
{
    if (m_lossTimeSet)
    {
        deadline = m_lossTime;
        return TimerKind::LOSS_TIME;
    }
    if (m_ackElicitingInFlight == 0)
    {
        return TimerKind::NONE;
    }
    if (IsTimerBased())
    {
        return GetRetransmissionTimer(deadline);
    }
    deadline = m_timeOfLastAckEliciting + GetPtoDuration();
    return TimerKind::PTO;
}

MpLossRecovery::TimerKind
MpLossRecovery::OnLossDetectionTimeout(Time now)
{
    Time deadline;
    TimerKind kind = GetTimer(deadline);
    if (kind == TimerKind::NONE || deadline > now)
    {
        return TimerKind::NONE;
    }
    m_newlyAcked.clear();
    m_lost.clear();
    m_lostAckedBetween.clear();
    m_outcome = AckOutcome();
    if (kind == TimerKind::LOSS_TIME)
    {
        DetectLostPackets(now, MpLossKind::LOSS_TIMER);
        if (!m_lost.empty() && m_params.persistentCongestion)
        {
            m_outcome.persistentCongestion = InPersistentCongestion();
        }
        PopResolved();
        return kind;
    }
    if (kind == TimerKind::TLP)
    {
        ++m_tlpCount;
        m_rtoAnchor = now; // Linux re-arms the retransmission timer after a probe
        return kind;
    }
    if (kind == TimerKind::RTO)
    {
        if (!m_rtoEpisode)
        {
            m_rtoEpisode = true;
            m_rtoEpisodeFirstPn = m_nextPn;
        }
        ++m_rtoCount;
        m_rtoAnchor = now;
        if (m_params.markAllLostOnRto)
        {
            MarkOutstandingLost(m_nextPn);
            PopResolved();
        }
        return kind;
    }
    ++m_ptoCount;
    return kind;
}

} // namespace ns3
