// SPDX-License-Identifier: GPL-2.0-only
//
// MpLossRecovery: RFC 9002 loss detection for one path's packet-number space. This file: sent
// packets, ACKs and loss detection; the timers (PTO, RTO, TLP) and their expiry are in
// mp-loss-recovery-timers.cc.

#include "mp-loss-recovery.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace ns3
{

const char*
MpPathStateName(MpPathState s)
{
    switch (s)
    {
    case MpPathState::ACTIVE:
        return "active";
    case MpPathState::STANDBY:
        return "standby";
    case MpPathState::DEACTIVATED:
        return "deactivated";
    }
    return "unknown";
}

MpLossRecovery::MpLossRecovery()
    : MpLossRecovery(Params())
{
}

MpLossRecovery::MpLossRecovery(const Params& params)
    : m_params(params),
      m_rtt(params.initialRtt)
{
    m_newlyAcked.reserve(64);
    m_lost.reserve(64);
    m_lostAckedBetween.reserve(64);
}

void
MpLossRecovery::OnPacketSent(const MpSentPacket& p)
{
    if (p.pn != m_nextPn)
    {
        throw std::invalid_argument("MpLossRecovery: packet number " + std::to_string(p.pn) +
                                    " sent, expected " + std::to_string(m_nextPn));
    }
    m_sent.push_back(p);
    MpSentPacket& rec = m_sent.back();
    rec.state = MpSentPacket::OUTSTANDING;
    rec.wasLost = false;
    ++m_nextPn;
    if (rec.inFlight)
    {
        m_bytesInFlight += rec.bytes;
    }
    if (rec.ackEliciting)
    {
        if (m_ackElicitingInFlight == 0)
        {
            m_rtoAnchor = rec.sentTime; // RFC 6298 5.1: start the timer if it is not running
        }
        ++m_ackElicitingInFlight;
        m_timeOfLastAckEliciting = rec.sentTime;
    }
}

const MpLossRecovery::AckOutcome&
MpLossRecovery::OnAckReceived(const MpAckRange* ranges, std::size_t n, Time ackDelay, Time now)
{
    m_newlyAcked.clear();
    m_lost.clear();
    m_lostAckedBetween.clear();
    m_outcome = AckOutcome();
    if (n == 0 || m_nextPn == 0)
    {
        return m_outcome;
    }

    // Clip the ranges to packet numbers that were sent, sort them ascending.
    constexpr std::size_t kMaxLocal = 64;
    std::array<MpAckRange, kMaxLocal> local;
    std::size_t m = 0;
    int64_t ackLargest = -1;
    for (std::size_t i = 0; i < n && m < kMaxLocal; ++i)
    {
        MpAckRange r = ranges[i];
        if (r.smallest > r.largest || r.smallest >= m_nextPn)
        {
            continue;
        }
        if (r.largest >= m_nextPn)
        {
            r.largest = m_nextPn - 1;
        }
        ackLargest = std::max<int64_t>(ackLargest, static_cast<int64_t>(r.largest));
        local[m++] = r;
    }
    if (ackLargest < 0)
    {
        return m_outcome;
    }
    // ACK frames list ranges largest first: reverse them; sort only other orders.
    bool descending = true;
    for (std::size_t i = 1; i < m && descending; ++i)
    {
        descending = local[i].largest < local[i - 1].smallest;
    }
    if (descending)
    {
        std::reverse(local.begin(), local.begin() + m);
    }
    else
    {
        std::sort(local.begin(), local.begin() + m, [](const MpAckRange& a, const MpAckRange& b) {
            return a.smallest < b.smallest;
        });
    }
    if (ackLargest > m_largestAcked)
    {
        m_largestAcked = ackLargest;
    }

    // A.7 DetectAndRemoveAckedPackets.
    bool anyAckEliciting = false;
    int64_t largestNewly = -1;
    for (std::size_t i = 0; i < m; ++i)
    {
        uint64_t lo = std::max(local[i].smallest, m_basePn);
        uint64_t hi = local[i].largest;
        for (uint64_t pn = lo; pn <= hi; ++pn)
        {
            MpSentPacket& p = m_sent[pn - m_basePn];
            if (p.state == MpSentPacket::OUTSTANDING)
            {
                p.state = MpSentPacket::ACKED;
                if (p.inFlight)
                {
                    m_bytesInFlight -= p.bytes;
                    m_outcome.ackedInFlightBytes += p.bytes;
                }
                if (p.ackEliciting)
                {
                    --m_ackElicitingInFlight;
                    anyAckEliciting = true;
                }
                largestNewly = static_cast<int64_t>(pn);
                m_outcome.largestNewlyAckedSentTime = p.sentTime;
                m_newlyAcked.push_back(p);
            }
        }
    }
    // Late ACKs of packets already declared lost (RFC 9002 A.1: lost packets are remembered
    // for a while to detect spurious losses). They left bytes_in_flight when declared lost.
    // m_recentLost is in packet-number order, and so in send-time order (packets are declared
    // lost front to back, and numbered in send order): each range is found by binary search,
    // and the forgotten entries (sent more than 4 RTT ago) form a prefix.
    bool anyLate = false;
    int64_t largestLate = -1;
    if (!m_recentLost.empty())
    {
        for (std::size_t i = 0; i < m; ++i)
        {
            auto it =
                std::lower_bound(m_recentLost.begin(),
                                 m_recentLost.end(),
                                 local[i].smallest,
                                 [](const MpSentPacket& p, uint64_t pn) { return p.pn < pn; });
            for (; it != m_recentLost.end() && it->pn <= local[i].largest; ++it)
            {
                if (it->state == MpSentPacket::ACKED)
                {
                    continue; // already matched by an overlapping range
                }
                it->state = MpSentPacket::ACKED;
                it->wasLost = true;
                m_newlyAcked.push_back(*it);
                anyLate = true;
                largestLate = std::max<int64_t>(largestLate, static_cast<int64_t>(it->pn));
            }
        }
        Time keep = std::max(m_rtt.GetSmoothed(), m_rtt.GetLatest()) * 4;
        std::size_t expired = 0;
        while (expired < m_recentLost.size() && now - m_recentLost[expired].sentTime > keep)
        {
            ++expired;
        }
        if (anyLate)
        {
            // Acknowledged entries are reported above and forgotten, expired or not.
            std::size_t w = 0;
            for (std::size_t r = expired; r < m_recentLost.size(); ++r)
            {
                if (m_recentLost[r].state != MpSentPacket::ACKED)
                {
                    m_recentLost[w++] = m_recentLost[r];
                }
            }
            m_recentLost.resize(w);
        }
        else if (expired > 0)
        {
            m_recentLost.erase(m_recentLost.begin(),
                               m_recentLost.begin() + static_cast<std::ptrdiff_t>(expired));
        }
    }
    if (largestNewly < 0)
    {
        if (IsTimerBased())
        {
            OnAckTimerBased(largestLate, now);
        }
        PopResolved();
        return m_outcome;
    }
    m_outcome.anyNewlyAcked = true;

    // A.7: RTT sample when the largest acknowledged is newly acknowledged.
    if (largestNewly == ackLargest && anyAckEliciting)
    {
        const MpSentPacket& largest = m_sent[static_cast<uint64_t>(largestNewly) - m_basePn];
        m_rtt.Update(now - largest.sentTime,
                     m_params.subtractAckDelay ? ackDelay : Time(0),
                     m_params.maxAckDelay,
                     now);
        m_outcome.rttSampled = true;
    }

    DetectLostPackets(now, MpLossKind::TIME_THRESHOLD);
    if (!m_lost.empty() && m_params.persistentCongestion)
    {
        m_outcome.persistentCongestion = InPersistentCongestion();
    }
    m_ptoCount = 0;
    if (IsTimerBased())
    {
        OnAckTimerBased(std::max(largestNewly, largestLate), now);
    }
    PopResolved();
    return m_outcome;
}

void
MpLossRecovery::OnAckTimerBased(int64_t largestAckedNow, Time)
{
    if (largestAckedNow < 0)
    {
        return;
    }
    if (m_rtoEpisode)
    {
        m_rtoEpisode = false;
        m_outcome.rtoEpisodeEnded = true;
        bool verified = largestAckedNow >= static_cast<int64_t>(m_rtoEpisodeFirstPn);
        m_outcome.rtoSpurious = !verified;
        if (verified && m_params.recovery == Recovery::QUIC_DRAFT)
        {
            // OnRetransmissionTimeoutVerified: every packet before the acknowledged one is
            // lost.
            MarkOutstandingLost(static_cast<uint64_t>(largestAckedNow));
        }
    }
    // An ACK of new data resets the backoff and the probe count (RFC 6298 section 5.7 with
    // timestamps; the drafts' OnPacketAcked). The TCP timer restarts only when the cumulative
    // acknowledgement point advances (section 5.3), which the caller knows: it calls
    // RestartRetransmissionTimer. A lost retransmission therefore times out while later data
    // keeps being acknowledged, as in TCP without RACK.
    m_rtoCount = 0;
    m_tlpCount = 0;
}

void
MpLossRecovery::RestartRetransmissionTimer(Time now)
{
    m_rtoAnchor = now;
}

void
MpLossRecovery::DeclareLost(MpSentPacket& p, MpLossKind kind, bool ackedBefore)
{
    p.state = MpSentPacket::LOST;
    p.lossKind = static_cast<uint8_t>(kind);
    if (p.inFlight)
    {
        m_bytesInFlight -= p.bytes;
        m_outcome.lostBytes += p.bytes;
    }
    if (p.ackEliciting)
    {
        --m_ackElicitingInFlight;
    }
    m_lost.push_back(p);
    m_lostAckedBetween.push_back(ackedBefore ? 1 : 0);
    if (m_recentLost.size() < kMaxRecentLost)
    {
        m_recentLost.push_back(p);
    }
}

void
MpLossRecovery::MarkOutstandingLost(uint64_t below)
{
    bool unordered = false;
    for (auto& p : m_sent)
    {
        if (p.pn >= below)
        {
            break;
        }
        if (p.state != MpSentPacket::OUTSTANDING)
        {
            continue;
        }
        unordered = unordered || (!m_recentLost.empty() && m_recentLost.back().pn > p.pn);
        DeclareLost(p, MpLossKind::RETRANSMISSION_TIMEOUT, false);
    }
    if (unordered)
    {
        // Retransmissions skipped by the thresholds were declared lost after later packets.
        std::sort(m_recentLost.begin(),
                  m_recentLost.end(),
                  [](const MpSentPacket& a, const MpSentPacket& b) { return a.pn < b.pn; });
    }
}

void
MpLossRecovery::DetectLostPackets(Time now, MpLossKind timeKind)
{
    m_lossTimeSet = false;
    if (m_largestAcked < 0)
    {
        return;
    }
    Time base = std::max(m_rtt.GetLatest(), m_rtt.GetSmoothed());
    Time lossDelay(
        static_cast<int64_t>(static_cast<double>(base.GetTimeStep()) * m_params.timeThreshold));
    if (lossDelay < m_params.granularity)
    {
        lossDelay = m_params.granularity;
    }
    Time lostSendTime = now - lossDelay;
    uint64_t largest = static_cast<uint64_t>(m_largestAcked);
    bool ackedSeen = false;
    for (auto& p : m_sent)
    {
        if (p.pn > largest)
        {
            break;
        }
        if (p.state == MpSentPacket::ACKED)
        {
            ackedSeen = true;
            continue;
        }
        if (p.state != MpSentPacket::OUTSTANDING)
        {
            continue;
        }
        if (p.retransmission && !m_params.detectLostRetransmissions)
        {
            continue; // without RACK a lost retransmission waits for the timer
        }
        bool byPacket = largest >= p.pn + m_params.packetThreshold;
        bool byTime = m_params.timeThresholdLoss && p.sentTime <= lostSendTime;
        if (!byPacket && !byTime)
        {
            if (!m_params.timeThresholdLoss)
            {
                break; // later packets are not lost by the packet threshold either
            }
            // Packets are in send order: none of the later ones is lost either.
            m_lossTime = p.sentTime + lossDelay;
            m_lossTimeSet = true;
            break;
        }
        DeclareLost(p, byPacket ? MpLossKind::PACKET_THRESHOLD : timeKind, ackedSeen);
        ackedSeen = false;
    }
}

bool
MpLossRecovery::InPersistentCongestion() const
{
    if (!m_rtt.HasSample())
    {
        return false;
    }
    Time duration = GetPersistentCongestionDuration();
    Time firstSample = m_rtt.GetFirstSampleTime();
    const MpSentPacket* start = nullptr;
    for (std::size_t i = 0; i < m_lost.size(); ++i)
    {
        const MpSentPacket& p = m_lost[i];
        if (m_lostAckedBetween[i])
        {
            start = nullptr; // an acknowledged packet lies between: the period restarts
        }
        bool eligible = p.ackEliciting && p.sentTime > firstSample &&
                        (m_pcFilter == nullptr || m_pcFilter(m_pcFilterCtx, p));
        if (!eligible)
        {
            continue;
        }
        if (start == nullptr)
        {
            start = &p;
        }
        else if (p.sentTime - start->sentTime > duration)
        {
            return true;
        }
    }
    return false;
}

void
MpLossRecovery::PopResolved()
{
    while (!m_sent.empty() && m_sent.front().state != MpSentPacket::OUTSTANDING)
    {
        m_sent.pop_front();
        ++m_basePn;
    }
}

} // namespace ns3
