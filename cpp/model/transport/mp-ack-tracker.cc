// SPDX-License-Identifier: GPL-2.0-only

#include "mp-ack-tracker.h"

namespace ns3
{

bool
MpAckTracker::OnPacketReceived(uint64_t pn, bool ackEliciting, Time now)
{
    bool outOfOrder = false;
    bool isNew = true;
    if (m_ranges.empty())
    {
        m_ranges.push_front({pn, pn});
        m_largestTime = now;
        outOfOrder = pn != 0;
    }
    else
    {
        MpAckRange& top = m_ranges.front();
        if (pn == top.largest + 1)
        {
            top.largest = pn; // the common case: in order
            m_largestTime = now;
        }
        else if (pn > top.largest + 1)
        {
            m_ranges.push_front({pn, pn});
            m_largestTime = now;
            outOfOrder = true;
        }
        else
        {
            outOfOrder = true;
            // pn <= largest: find its place (ranges are descending).
            std::size_t i = 0;
            for (; i < m_ranges.size(); ++i)
            {
                MpAckRange& r = m_ranges[i];
                if (pn >= r.smallest && pn <= r.largest)
                {
                    isNew = false;
                    break;
                }
                if (pn > r.largest)
                {
                    // between range i (below) and range i-1 (above)
                    bool joinsAbove = i > 0 && m_ranges[i - 1].smallest == pn + 1;
                    bool joinsBelow = r.largest + 1 == pn;
                    if (joinsAbove && joinsBelow)
                    {
                        m_ranges[i - 1].smallest = r.smallest;
                        m_ranges.erase(m_ranges.begin() + static_cast<std::ptrdiff_t>(i));
                    }
                    else if (joinsAbove)
                    {
                        m_ranges[i - 1].smallest = pn;
                    }
                    else if (joinsBelow)
                    {
                        r.largest = pn;
                    }
                    else
                    {
                        m_ranges.insert(m_ranges.begin() + static_cast<std::ptrdiff_t>(i),
                                        MpAckRange{pn, pn});
                    }
                    break;
                }
                if (i + 1 == m_ranges.size())
                {
                    // below every kept range
                    if (r.smallest == pn + 1)
                    {
                        r.smallest = pn;
                    }
                    else if (m_ranges.size() < kMaxKeptRanges)
                    {
                        m_ranges.push_back({pn, pn});
                    }
                    i = m_ranges.size();
                    break;
                }
            }
        }
        while (m_ranges.size() > kMaxKeptRanges)
        {
            m_ranges.pop_back();
        }
    }
    if (ackEliciting)
    {
        if (m_pendingEliciting == 0)
        {
            m_firstPendingTime = now;
        }
        ++m_pendingEliciting;
        if (outOfOrder || m_pendingEliciting >= m_ackEvery)
        {
            m_ackNow = true;
        }
    }
    return isNew;
}

void
MpAckTracker::FillAck(MpQuicAckHeader& h, Time now)
{
    std::size_t n = m_ranges.size();
    if (n > MpQuicAckHeader::kMaxRanges)
    {
        n = MpQuicAckHeader::kMaxRanges;
    }
    h.nRanges = static_cast<uint8_t>(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        h.ranges[i] = m_ranges[i];
    }
    Time delay = now - m_largestTime;
    int64_t us = delay.GetMicroSeconds();
    h.ackDelayUs = us < 0 ? 0 : (us > 0xffffffffLL ? 0xffffffffu : static_cast<uint32_t>(us));
    m_pendingEliciting = 0;
    m_ackNow = false;
}

} // namespace ns3
