// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-hop-controller.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

namespace
{
void
CheckRange(double v, double lo, double hi, const std::string& field, bool loOpen = false)
{
    if (!std::isfinite(v) || v < lo || v > hi || (loOpen && v <= lo))
    {
        throw std::invalid_argument(field + ": must be in " + (loOpen ? "(" : "[") +
                                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
}
} // namespace

void
LeotpHopParams::Check(const std::string& prefix) const
{
    CheckRange(k, 0.0, 1.0, prefix + ".k", true);
    CheckRange(queueThresholdBytes, 0.0, 1e9, prefix + ".queue_threshold_bytes");
    CheckRange(packetBytes, 1.0, 65535.0, prefix + ".packet_bytes");
    CheckRange(minCwnd, 0.0, 1e6, prefix + ".min_cwnd", true);
    CheckRange(initialCwnd, minCwnd, 1e6, prefix + ".initial_cwnd");
    CheckRange(minRttWindowS, 0.0, 3600.0, prefix + ".min_rtt_window_s", true);
    CheckRange(gain, 0.0, 1.0, prefix + ".gain", true);
    CheckRange(cutGuardRtts, 0.0, 100.0, prefix + ".cut_guard_rtts");
    CheckRange(limitedFraction, 0.0, 1.0, prefix + ".limited_fraction");
    CheckRange(slowStartCap, 0.0, 1e6, prefix + ".slow_start_cap");
    CheckRange(additiveIncrease, 0.0, 1e6, prefix + ".additive_increase", true);
    CheckRange(minRateBps, 0.0, 1e12, prefix + ".min_rate_bps", true);
    CheckRange(maxRateBps, minRateBps, 1e12, prefix + ".max_rate_bps");
    CheckRange(initialRateBps, minRateBps, maxRateBps, prefix + ".initial_rate_bps");
}

LeotpHopController::LeotpHopController(const LeotpHopParams& params)
    : m_params(params)
{
    Reset();
}

void
LeotpHopController::Reset()
{
    m_hasSample = false;
    m_hopRtt = 0;
    m_minWindow.clear();
    m_lastSnapshotS = -std::numeric_limits<double>::infinity();
    m_periodStarted = false;
    m_periodStartS = 0;
    m_periodBytes = 0;
    m_throughput = 0;
    m_cwnd = m_params.initialCwnd;
    m_phase = LeotpPhase::SLOW_START;
    m_lastCutS = -std::numeric_limits<double>::infinity();
}

void
LeotpHopController::OnSample(double nowS, double sampleS)
{
    if (!(sampleS >= 0) || !std::isfinite(sampleS))
    {
        return;
    }
    // A hop shorter than the timestamp's resolution (a zero-delay link in the model) measures
    // 0: take one resolution step, so that rates and queue estimates stay finite.
    sampleS = std::max(sampleS, kMinSampleS);
    if (!m_hasSample)
    {
        m_hasSample = true;
        m_hopRtt = sampleS; // the first sample initialises the EWMA
    }
    else
    {
        m_hopRtt = (1.0 - m_params.gain) * m_hopRtt + m_params.gain * sampleS;
    }
    // hopRTT_min: the smoothed value snapshotted every hopRTT / 2 [REC, code], kept in a
    // monotone deque (values increase from the front), so the window's minimum is its front.
    if (nowS - m_lastSnapshotS >= m_hopRtt / 2)
    {
        m_lastSnapshotS = nowS;
        while (!m_minWindow.empty() && m_minWindow.back().second >= m_hopRtt)
        {
            m_minWindow.pop_back();
        }
        m_minWindow.emplace_back(nowS, m_hopRtt);
    }
    while (!m_minWindow.empty() && m_minWindow.front().first < nowS - m_params.minRttWindowS)
    {
        m_minWindow.pop_front();
    }
}

bool
LeotpHopController::OnReceive(double nowS, double bytes)
{
    if (!m_periodStarted)
    {
        m_periodStarted = true;
        m_periodStartS = nowS;
        m_periodBytes = 0;
    }
    m_periodBytes += bytes;
    if (!m_hasSample || nowS - m_periodStartS < m_hopRtt || nowS <= m_periodStartS)
    {
        return false;
    }
    // throughput: bytes received in the last hopRTT period over its length [REC, code]
    m_throughput = 8.0 * m_periodBytes / (nowS - m_periodStartS);
    m_periodBytes = 0;
    m_periodStartS = nowS;
    UpdateWindow(nowS, m_throughput, m_hopRtt, GetHopRttMinS(nowS));
    return true;
}

LeotpHopController::Update
LeotpHopController::UpdateWindow(double nowS,
                                 double throughputBps,
                                 double hopRttS,
                                 double hopRttMinS)
{
    Update u;
    const double bytesPerS = throughputBps / 8.0;
    u.bdpBytes = bytesPerS * hopRttMinS;                  // (6)
    u.queueLenBytes = bytesPerS * (hopRttS - hopRttMinS); // (7)
    const double windowRate = hopRttS > 0 ? m_cwnd * m_params.packetBytes * 8.0 / hopRttS : 0;
    u.limited = throughputBps >= m_params.limitedFraction * windowRate;
    const bool congested = u.queueLenBytes > m_params.queueThresholdBytes;
    if (congested &&
        (m_phase == LeotpPhase::SLOW_START || nowS - m_lastCutS >= m_params.cutGuardRtts * hopRttS))
    {
        // (8), third case: cut to k BDP; this also ends SlowStart
        m_cwnd = std::max(m_params.minCwnd, m_params.k * u.bdpBytes / m_params.packetBytes);
        m_phase = LeotpPhase::CONG_AVOID;
        m_lastCutS = nowS;
        u.cut = true;
    }
    else if (u.limited)
    {
        if (m_phase == LeotpPhase::SLOW_START)
        {
            m_cwnd = std::min(2 * m_cwnd, kMaxCwnd); // (8), first case
            u.grew = true;
            if (m_params.slowStartCap > 0 && m_cwnd >= m_params.slowStartCap)
            {
                m_phase = LeotpPhase::CONG_AVOID;
            }
        }
        else if (!congested)
        {
            m_cwnd = std::min(m_cwnd + m_params.additiveIncrease, kMaxCwnd); // (8), second case
            u.grew = true;
        }
    }
    return u;
}

double
LeotpHopController::BackpressureRate(double rateNextHopBps,
                                     double bufferBytes,
                                     double targetBytes,
                                     double hopRttS)
{
    return rateNextHopBps - 8.0 * (bufferBytes - targetBytes) / hopRttS; // (9), corrected
}

double
LeotpHopController::Rate(bool hasBuffer,
                         double bufferBytes,
                         double targetBytes,
                         double rateNextHopBps) const
{
    if (!m_hasSample || !(m_hopRtt > 0))
    {
        return m_params.initialRateBps;
    }
    double r = m_cwnd * m_params.packetBytes * 8.0 / m_hopRtt; // cwnd / hopRTT
    if (hasBuffer)
    {
        r = std::min(r,
                     BackpressureRate(rateNextHopBps, bufferBytes, targetBytes, m_hopRtt)); // (10)
    }
    return std::clamp(r, m_params.minRateBps, m_params.maxRateBps);
}

bool
LeotpHopController::HasSample() const
{
    return m_hasSample;
}

double
LeotpHopController::GetHopRttS() const
{
    return m_hopRtt;
}

double
LeotpHopController::GetHopRttMinS(double nowS) const
{
    double m = m_hopRtt;
    for (const auto& [t, v] : m_minWindow)
    {
        if (t >= nowS - m_params.minRttWindowS)
        {
            m = std::min(m, v);
            break; // the deque's values increase: the first one inside the window is the min
        }
    }
    return m;
}

double
LeotpHopController::GetThroughputBps() const
{
    return m_throughput;
}

double
LeotpHopController::GetCwnd() const
{
    return m_cwnd;
}

LeotpPhase
LeotpHopController::GetPhase() const
{
    return m_phase;
}

const LeotpHopParams&
LeotpHopController::GetParams() const
{
    return m_params;
}

void
LeotpHopController::SetState(double cwnd, LeotpPhase phase, double lastCutS)
{
    m_cwnd = cwnd;
    m_phase = phase;
    m_lastCutS = lastCutS;
}

} // namespace ns3
