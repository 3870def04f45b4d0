// SPDX-License-Identifier: GPL-2.0-only

#include "mp-hystart.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{

Time
MpHyStart::MinRttThresh()
{
    return MilliSeconds(4); // RFC 9406 section 4.3
}

Time
MpHyStart::MaxRttThresh()
{
    return MilliSeconds(16); // RFC 9406 section 4.3
}

Time
MpHyStart::RttThresh(Time lastRoundMinRtt)
{
    // RFC 9406 section 4.2:
    // RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH))
    Time scaled = lastRoundMinRtt / static_cast<int64_t>(kMinRttDivisor);
    return std::max(MinRttThresh(), std::min(scaled, MaxRttThresh()));
}

MpHyStart::MpHyStart()
{
    Reset();
}

void
MpHyStart::Reset()
{
    m_phase = Phase::SLOW_START;
    m_windowEnd = 0;
    m_windowEndValid = false;
    m_lastRoundMinRtt = Time::Max();
    m_currentRoundMinRtt = Time::Max();
    m_cssBaselineMinRtt = Time::Max();
    m_rttSampleCount = 0;
    m_round = 1;
    m_cssRoundsDone = 0;
    m_cssEntries = 0;
    m_cssReturns = 0;
}

void
MpHyStart::OnPacketSent(uint64_t pn)
{
    // Section 4.2: a round lasts from the first packet sent in it until that packet is
    // acknowledged (TCP: windowEnd = SND.NXT at the round start, the round ends when
    // SND.UNA >= windowEnd; here in packet numbers).
    if (!m_windowEndValid && IsActive())
    {
        m_windowEnd = pn;
        m_windowEndValid = true;
    }
}

void
MpHyStart::StartRound()
{
    // Section 4.2, at the start of each round during standard slow start and CSS.
    m_lastRoundMinRtt = m_currentRoundMinRtt;
    m_currentRoundMinRtt = Time::Max();
    m_rttSampleCount = 0;
    m_windowEndValid = false;
    ++m_round;
}

MpHyStart::AckOutcome
MpHyStart::OnAck(uint64_t largestAckedPn,
                 bool rttSampled,
                 Time rtt,
                 uint64_t bytes,
                 uint32_t mss,
                 bool paced)
{
    AckOutcome out;
    if (!IsActive())
    {
        return out;
    }
    if (m_windowEndValid && largestAckedPn >= m_windowEnd)
    {
        StartRound();
        if (m_phase == Phase::CSS)
        {
            // "CSS lasts at most CSS_ROUNDS rounds. If the transition into CSS happens in the
            // middle of a round, that partial round counts towards the limit." Then "enter
            // congestion avoidance by setting the ssthresh to the current cwnd".
            ++m_cssRoundsDone;
            if (m_cssRoundsDone >= kCssRounds)
            {
                m_phase = Phase::DONE;
                out.enterAvoidance = true;
                return out;
            }
        }
    }

    // cwnd += min(N, L * SMSS) in slow start, that / CSS_GROWTH_DIVISOR in CSS.
    double n = static_cast<double>(bytes);
    if (!paced)
    {
        n = std::min(n, static_cast<double>(kNonPacedL) * static_cast<double>(mss));
    }
    out.increase = m_phase == Phase::CSS ? n / static_cast<double>(kCssGrowthDivisor) : n;

    if (!rttSampled)
    {
        return out;
    }
    m_currentRoundMinRtt = std::min(m_currentRoundMinRtt, rtt);
    ++m_rttSampleCount;
    if (m_rttSampleCount < kNRttSample)
    {
        return out;
    }
    if (m_phase == Phase::SLOW_START)
    {
        // The delay-increase test: leave slow start for CSS.
        if (m_currentRoundMinRtt != Time::Max() && m_lastRoundMinRtt != Time::Max() &&
            m_currentRoundMinRtt >= m_lastRoundMinRtt + RttThresh(m_lastRoundMinRtt))
        {
            m_cssBaselineMinRtt = m_currentRoundMinRtt;
            m_phase = Phase::CSS;
            m_cssRoundsDone = 0;
            ++m_cssEntries;
        }
    }
    else if (m_currentRoundMinRtt < m_cssBaselineMinRtt)
    {
        // The exit was spurious (the RTT came back down): resume slow start, HyStart++ on.
        m_cssBaselineMinRtt = Time::Max();
        m_phase = Phase::SLOW_START;
        m_cssRoundsDone = 0;
        ++m_cssReturns;
    }
    return out;
}

void
MpHyStart::OnCongestionEvent()
{
    m_phase = Phase::DONE;
    m_cssBaselineMinRtt = Time::Max();
}

MpHyStart::Phase
MpHyStart::GetPhase() const
{
    return m_phase;
}

bool
MpHyStart::IsActive() const
{
    return m_phase != Phase::DONE;
}

Time
MpHyStart::GetLastRoundMinRtt() const
{
    return m_lastRoundMinRtt;
}

Time
MpHyStart::GetCurrentRoundMinRtt() const
{
    return m_currentRoundMinRtt;
}

Time
MpHyStart::GetCssBaselineMinRtt() const
{
    return m_cssBaselineMinRtt;
}

uint32_t
MpHyStart::GetRttSampleCount() const
{
    return m_rttSampleCount;
}

uint32_t
MpHyStart::GetRound() const
{
    return m_round;
}

uint32_t
MpHyStart::GetCssRoundsDone() const
{
    return m_cssRoundsDone;
}

uint32_t
MpHyStart::GetCssEntries() const
{
    return m_cssEntries;
}

uint32_t
MpHyStart::GetCssReturns() const
{
    return m_cssReturns;
}

} // namespace ns3
