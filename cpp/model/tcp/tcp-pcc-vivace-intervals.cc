// SPDX-License-Identifier: GPL-2.0-only
//
// TcpPccVivace, its monitor intervals and state machine: starting and closing MIs, using their
// results (slow start, probing pairs, gradient steps), the rate and the window
// (tcp-pcc-vivace.cc has the type and the attributes).

#include "tcp-pcc-vivace.h"

#include "ns3/data-rate.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

namespace
{

/// Results awaited at most this many MIs deep (a guard: bulk senders stay far below).
constexpr std::size_t kMaxPendingIntervals = 4096;

/// The utility gradient a stalled probe stands for: large enough that the step is the
/// change boundary (utility per Mbit/s).
constexpr double kStallGradient = 1e9;

/// A retransmission timeout counts as congestion when the smoothed RTT exceeds the minimum
/// RTT by more than this fraction (a standing queue).
constexpr double kRtoQueueFraction = 0.1;

} // namespace

// --- monitor intervals and the state machine ------------------------------------------

void
TcpPccVivace::OnRetransmissionTimeout()
{
    // The socket stalled: the MIs in flight no longer measure their rates (UtilityOf).
    // Slow start ends. In probing, a timeout that comes with a standing queue (smoothed RTT
    // above the minimum by more than kRtoQueueFraction) means the rate could not be
    // sustained: a rate-based sender would resume at that rate after the timeout (TCP
    // restarts from one segment), so the rate steps down as far as the change boundary lets
    // it (consecutive timeouts widen the boundary). A timeout without a queue (a random loss
    // of a retransmission) only restarts probing.
    ++m_rtoCount;
    if (m_mode == Mode::STARTING)
    {
        BeginProbing(m_havePrevStart ? m_prevStartRateBps : 0.5 * m_rateBps);
    }
    else if (m_mode == Mode::PROBING)
    {
        if (m_srttS > (1.0 + kRtoQueueFraction) * m_minRttS)
        {
            m_baseRateBps = ClampRate(m_control.Step(m_baseRateBps, -kStallGradient));
            ++m_decisions;
        }
        NewProbeBatch();
        m_restart = true;
        SetRate(m_baseRateBps);
    }
}

void
TcpPccVivace::MaybeStartInterval(Time now)
{
    if (!m_intervals.empty() && !m_intervals.back().isClosed && !m_restart &&
        now < m_intervals.back().end)
    {
        return;
    }
    if (!m_intervals.empty() && !m_intervals.back().isClosed)
    {
        m_intervals.back().isClosed = true;
        m_intervals.back().closed = now;
        m_intervals.back().stalled = m_rtoCount != m_intervals.back().rtoAtStart;
    }
    m_restart = false;
    StartInterval(now);
}

void
TcpPccVivace::StartInterval(Time now)
{
    Interval mi;
    mi.id = m_nextIntervalId++;
    mi.start = now;
    mi.epoch = m_epoch;
    mi.rtoAtStart = m_rtoCount;
    switch (m_mode)
    {
    case Mode::INITIAL:
        mi.role = Role::IGNORE;
        mi.targetBps = m_rateBps;
        break;
    case Mode::STARTING: {
        mi.role = Role::START;
        mi.targetBps = m_startNextBps;
        const double maxRate = m_control.GetParams().maxRateBps;
        if (mi.targetBps >= maxRate)
        {
            // Nothing left to double: learn from the top.
            BeginProbing(maxRate);
            m_restart = false;
            mi.role = Role::PROBE;
            mi.epoch = m_epoch;
            mi.slot = m_batchNextSlot++;
            mi.targetBps = m_batchRateBps[mi.slot];
        }
        else
        {
            m_startNextBps = ClampRate(2.0 * mi.targetBps);
        }
        break;
    }
    case Mode::PROBING:
        if (m_batchNextSlot < m_batchRateBps.size())
        {
            mi.role = Role::PROBE;
            mi.slot = m_batchNextSlot++;
            mi.targetBps = m_batchRateBps[mi.slot];
        }
        else
        {
            mi.role = Role::IGNORE; // waiting for the batch's results
            mi.targetBps = m_baseRateBps;
        }
        break;
    }
    if (m_mode == Mode::INITIAL || mi.targetBps <= 0.0)
    {
        mi.end = Time::Max(); // ends with the first RTT sample
    }
    else
    {
        const double seg = m_tcb ? m_tcb->m_segmentSize : 1448.0;
        const double d =
            std::max(m_miRtts * SrttSeconds(), m_miMinPackets * seg * 8.0 / mi.targetBps);
        mi.end = now + Seconds(d);
    }
    m_intervals.push_back(std::move(mi));
    if (m_mode != Mode::INITIAL)
    {
        SetRate(m_intervals.back().targetBps);
    }
}

TcpPccVivace::Interval*
TcpPccVivace::FindInterval(uint64_t id)
{
    if (m_intervals.empty() || id < m_intervals.front().id)
    {
        return nullptr;
    }
    const uint64_t k = id - m_intervals.front().id;
    return k < m_intervals.size() ? &m_intervals[k] : nullptr;
}

void
TcpPccVivace::ProcessResults()
{
    // Results are used in MI order: an MI waits for the fates of all its segments and for
    // every earlier MI.
    while (!m_intervals.empty())
    {
        const Interval& front = m_intervals.front();
        const bool complete =
            front.isClosed && front.bytesDelivered + front.bytesLost >= front.bytesSent;
        if (!complete && m_intervals.size() <= kMaxPendingIntervals)
        {
            break;
        }
        Interval done = std::move(m_intervals.front());
        m_intervals.pop_front();
        if (!complete)
        {
            continue; // guard: drop the oldest unfinished MI
        }
        ++m_intervalsDone;
        if (done.epoch != m_epoch)
        {
            continue; // from an earlier slow-start run or probing batch
        }
        const bool start = done.role == Role::START && m_mode == Mode::STARTING;
        const bool probe = done.role == Role::PROBE && m_mode == Mode::PROBING;
        if (!start && !probe)
        {
            continue;
        }
        const double utility = UtilityOf(done);
        if (std::isnan(utility))
        {
            ++m_invalidIntervals;
        }
        if (start)
        {
            OnStartResult(done, utility);
        }
        else
        {
            OnProbeResult(done, utility);
        }
    }
}

double
TcpPccVivace::UtilityOf(const Interval& mi) const
{
    const double duration = (mi.closed - mi.start).GetSeconds();
    if (!(duration > 0.0) || mi.bytesSent == 0)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    // An MI measures the utility of its rate only if it was sent at that rate: not when a
    // retransmission timeout stalled the socket during it, nor when the sender fell short of
    // the target by more than the probing step and one segment (window- or application-
    // limited).
    const double xBps = static_cast<double>(mi.bytesTx) * 8.0 / duration;
    const double mss = m_tcb ? m_tcb->m_segmentSize : 1448.0;
    if (mi.stalled || (static_cast<double>(mi.bytesTx) + mss) * 8.0 <
                          (1.0 - m_probeEpsilon) * mi.targetBps * duration)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    PccVivaceUtilityParams p;
    p.exponent = m_exponent;
    p.latencyCoef = m_latencyCoef;
    p.lossCoef = m_lossCoef;
    p.rttGradientTolerance = m_rttGradientTolerance;
    const double xMbps = xBps / 1e6;
    const double loss = static_cast<double>(mi.bytesLost) / static_cast<double>(mi.bytesSent);
    const double gradient = PccRttGradient(mi.sampleT, mi.sampleRtt);
    return PccVivaceUtility(xMbps, gradient, std::min(loss, 1.0), p);
}

void
TcpPccVivace::OnStartResult(const Interval& mi, double utility)
{
    if (std::isnan(utility))
    {
        // The sender could not keep up the doubled rate (a retransmission timeout, or it fell
        // short of the target): as good as a fall in utility.
        BeginProbing(m_havePrevStart ? m_prevStartRateBps : 0.5 * mi.targetBps);
        return;
    }
    if (m_havePrevStart && utility < m_prevStartUtility)
    {
        // The utility fell: the previous rate was the better one; learn from there.
        BeginProbing(m_prevStartRateBps);
        return;
    }
    m_havePrevStart = true;
    m_prevStartUtility = utility;
    m_prevStartRateBps = mi.targetBps;
}

void
TcpPccVivace::OnProbeResult(const Interval& mi, double utility)
{
    if (mi.slot >= m_batchUtility.size())
    {
        return;
    }
    if (std::isnan(utility))
    {
        NewProbeBatch(); // nothing was measured: probe again around the same rate
        m_restart = true;
        return;
    }
    if (std::isnan(m_batchUtility[mi.slot]))
    {
        ++m_batchKnown;
    }
    m_batchUtility[mi.slot] = utility;
    if (m_batchKnown < m_batchUtility.size())
    {
        return;
    }
    // gamma = (u(r(1+eps)) - u(r(1-eps))) / (2 eps r), r in Mbit/s; the mean over the pairs.
    double gradient = 0;
    const std::size_t pairs = m_batchUtility.size() / 2;
    for (std::size_t k = 0; k < pairs; ++k)
    {
        const double du = m_batchUtility[2 * k] - m_batchUtility[2 * k + 1];
        const double dx = (m_batchRateBps[2 * k] - m_batchRateBps[2 * k + 1]) / 1e6;
        gradient += dx != 0.0 ? du / dx : 0.0;
    }
    gradient /= static_cast<double>(pairs);
    m_baseRateBps = ClampRate(m_control.Step(m_baseRateBps, gradient));
    ++m_decisions;
    NewProbeBatch();
    m_restart = true;
    SetRate(m_baseRateBps);
}

void
TcpPccVivace::BeginProbing(double baseBps)
{
    m_mode = Mode::PROBING;
    m_baseRateBps = ClampRate(baseBps);
    m_control.Reset();
    NewProbeBatch();
    m_restart = true;
    SetRate(m_baseRateBps);
}

void
TcpPccVivace::NewProbeBatch()
{
    ++m_epoch;
    const std::size_t n = 2 * static_cast<std::size_t>(m_probePairs);
    m_batchUtility.assign(n, std::numeric_limits<double>::quiet_NaN());
    m_batchRateBps.assign(n, 0.0);
    const double up = ClampRate(m_baseRateBps * (1.0 + m_probeEpsilon));
    const double down = ClampRate(m_baseRateBps * (1.0 - m_probeEpsilon));
    for (std::size_t k = 0; k < m_probePairs; ++k)
    {
        // Each pair in random order, so that competing senders' probes do not line up.
        const bool upFirst = NextRandomBit();
        m_batchRateBps[2 * k] = upFirst ? up : down;
        m_batchRateBps[2 * k + 1] = upFirst ? down : up;
    }
    m_batchNextSlot = 0;
    m_batchKnown = 0;
}

void
TcpPccVivace::SetRate(double bps)
{
    m_rateBps = ClampRate(bps);
    if (!m_tcb)
    {
        return;
    }
    m_tcb->m_pacingRate = DataRate(static_cast<uint64_t>(std::llround(m_rateBps)));
    UpdateWindow();
}

void
TcpPccVivace::UpdateWindow()
{
    if (!m_tcb || m_mode == Mode::INITIAL)
    {
        return;
    }
    // Rate-based: the window only bounds the data in flight, generously, so that pacing and
    // not the window sets the rate (CwndGain x rate x SRTT, at least 4 segments).
    const double seg = m_tcb->m_segmentSize;
    double w = m_cwndGain * m_rateBps / 8.0 * SrttSeconds();
    w = std::clamp(w, 4.0 * seg, 1073741824.0);
    const auto cwnd = static_cast<uint32_t>(w);
    m_tcb->m_cWnd = cwnd;
    m_tcb->m_cWndInfl = cwnd;
}

double
TcpPccVivace::SrttSeconds() const
{
    if (m_srttS > 0.0)
    {
        return m_srttS;
    }
    return m_tcb ? std::max(m_tcb->m_srtt.Get().GetSeconds(), 1e-3) : 1e-3;
}

double
TcpPccVivace::ClampRate(double bps) const
{
    const auto& p = m_control.GetParams();
    if (!std::isfinite(bps))
    {
        return p.minRateBps;
    }
    return std::clamp(bps, p.minRateBps, p.maxRateBps);
}

bool
TcpPccVivace::NextRandomBit()
{
    return (SplitMix64(m_rng) >> 63) != 0;
}

} // namespace ns3
