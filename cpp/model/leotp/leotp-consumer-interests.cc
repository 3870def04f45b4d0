// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpConsumer, its Interests: sending them within the budget, the timeout re-sends (TR) and
// their timers, and the hole requests (SHR) (leotp-consumer.cc has the type and the set-up).

#include "leotp-consumer.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

namespace
{
/// Slack when comparing a deadline with the clock (s).
constexpr double kEps = 1e-9;
} // namespace

uint64_t
LeotpConsumer::ChunkEnd(uint64_t chunk) const
{
    return std::min<uint64_t>((chunk + 1) * m_payloadBytes, Limit());
}

void
LeotpConsumer::Schedule(uint64_t chunk, const Entry& e)
{
    m_due[e.nTx].emplace(e.tSent, chunk);
}

void
LeotpConsumer::Unschedule(uint64_t chunk, const Entry& e)
{
    auto it = m_due.find(e.nTx);
    if (it != m_due.end())
    {
        it->second.erase({e.tSent, chunk});
        if (it->second.empty())
        {
            m_due.erase(it);
        }
    }
}

void
LeotpConsumer::SendInterest(uint64_t start, uint64_t end)
{
    const double now = Simulator::Now().GetSeconds();
    // The Consumer has no sending buffer: Rate = cwnd / hopRTT (eq. (10) without eq. (9)).
    const double rate = m_ctrl->Rate(false, 0, 0, 0);
    LeotpHeader h = LeotpHeader::Interest(m_flowId,
                                          static_cast<uint32_t>(start),
                                          static_cast<uint32_t>(end),
                                          LeotpHeader::TimestampUs(now),
                                          LeotpHeader::RateField(rate));
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    m_socket->Send(p);
    m_lastInterestS = now;
    ++m_stats.interests;
}

void
LeotpConsumer::TrySend()
{
    if (!m_running || m_stats.completed || m_sendEvent.IsPending())
    {
        return;
    }
    const double now = Simulator::Now().GetSeconds();
    while (true)
    {
        while (!m_retx.empty())
        {
            auto it = m_pending.find(m_retx.front());
            if (it != m_pending.end() && it->second.queued)
            {
                break;
            }
            m_retx.pop_front(); // satisfied (or requested otherwise) meanwhile
        }
        const bool retx = !m_retx.empty();
        if (!retx && m_nextChunk * m_payloadBytes >= Limit())
        {
            break; // nothing left to request
        }
        if (!m_pacer->TryConsume(now))
        {
            const double w = m_pacer->WaitS(now);
            if (std::isfinite(w))
            {
                Time wait = Seconds(w);
                m_sendEvent = Simulator::Schedule(wait > Time(0) ? wait : TimeStep(1),
                                                  &LeotpConsumer::TrySend,
                                                  this);
            }
            break;
        }
        uint64_t chunk;
        if (retx)
        {
            chunk = m_retx.front();
            m_retx.pop_front();
            Entry& e = m_pending[chunk];
            e.queued = false;
            ++e.nTx;
            e.tSent = now;
            e.sampleable = false; // Karn: a re-sent Interest gives no RTT sample
            Schedule(chunk, e);
            ++m_stats.trRetransmissions;
        }
        else
        {
            chunk = m_nextChunk++;
            Entry e;
            e.tSent = now;
            e.nTx = 1;
            m_pending[chunk] = e;
            Schedule(chunk, e);
            ++m_stats.newInterests;
        }
        SendInterest(chunk * m_payloadBytes, ChunkEnd(chunk));
    }
    ArmTimer();
}

void
LeotpConsumer::ArmTimer()
{
    double earliest = std::numeric_limits<double>::infinity();
    for (const auto& [n, set] : m_due)
    {
        if (!set.empty())
        {
            earliest =
                std::min(earliest, set.begin()->first + m_rto->GetBackoffInterval(n).GetSeconds());
        }
    }
    if (!std::isfinite(earliest) || !m_running || m_stats.completed)
    {
        m_timer.Cancel();
        return;
    }
    const Time at = Seconds(earliest);
    if (m_timer.IsPending() && m_timerAt == at)
    {
        return;
    }
    m_timer.Cancel();
    const Time now = Simulator::Now();
    m_timerAt = at;
    m_timer = Simulator::Schedule(at > now ? at - now : Time(0), &LeotpConsumer::TimerFired, this);
}

void
LeotpConsumer::TimerFired()
{
    const double now = Simulator::Now().GetSeconds();
    // The latest send time among the Interests that time out now: one backoff round if it is
    // at or after the previous round (LeotpRto::OnTimeout). Collected first, so that every
    // Interest due now is judged with the intervals in force when it came due.
    double latestSent = -std::numeric_limits<double>::infinity();
    for (auto it = m_due.begin(); it != m_due.end();)
    {
        const double interval = m_rto->GetBackoffInterval(it->first).GetSeconds();
        auto& set = it->second;
        while (!set.empty() && set.begin()->first + interval <= now + kEps)
        {
            const uint64_t chunk = set.begin()->second;
            latestSent = std::max(latestSent, set.begin()->first);
            set.erase(set.begin());
            m_pending[chunk].queued = true; // TR: due again; sent when the budget allows
            m_retx.push_back(chunk);
            ++m_stats.timeouts;
        }
        it = set.empty() ? m_due.erase(it) : std::next(it);
    }
    if (std::isfinite(latestSent))
    {
        m_rto->OnTimeout(Seconds(latestSent), Simulator::Now()); // RFC 6298 rule 5.5, Karn
    }
    TrySend();
    ArmTimer();
}

void
LeotpConsumer::ResetTimers(uint64_t start, uint64_t end)
{
    if (end <= start)
    {
        return;
    }
    const double now = Simulator::Now().GetSeconds();
    for (uint64_t j = start / m_payloadBytes; j * m_payloadBytes < end; ++j)
    {
        auto it = m_pending.find(j);
        if (it == m_pending.end() || it->second.queued)
        {
            continue;
        }
        Unschedule(j, it->second);
        it->second.tSent = now;
        it->second.sampleable = false;
        Schedule(j, it->second);
    }
}

void
LeotpConsumer::RequestHole(uint64_t start, uint64_t end)
{
    for (const LeotpRange& r : LeotpHoleDetector::SplitChunks(start, end, m_payloadBytes))
    {
        const uint64_t chunk = r.first / m_payloadBytes;
        if (!m_pending.count(chunk) || ChunkReceived(chunk))
        {
            continue; // nothing outstanding there (received meanwhile, or never asked)
        }
        SendInterest(r.first, r.second); // SHR bypasses the Interest budget [REC, code]
        ++m_stats.shrInterests;
        ResetTimers(r.first, r.second);
    }
}

void
LeotpConsumer::ArmHoleTimer()
{
    const double t = m_detector->NextExpiryS();
    if (!std::isfinite(t))
    {
        m_holeTimer.Cancel();
        return;
    }
    if (m_holeTimer.IsPending())
    {
        return; // it re-arms itself for the next expiry
    }
    const double now = Simulator::Now().GetSeconds();
    m_holeTimer =
        Simulator::Schedule(Seconds(std::max(0.0, t - now)), &LeotpConsumer::HoleTimerFired, this);
}

void
LeotpConsumer::HoleTimerFired()
{
    for (const LeotpRange& r : m_detector->Expire(Simulator::Now().GetSeconds()))
    {
        RequestHole(r.first, r.second);
    }
    ArmHoleTimer();
}

} // namespace ns3
