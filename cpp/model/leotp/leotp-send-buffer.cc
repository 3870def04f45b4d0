// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-send-buffer.h"

#include "ns3/simulator.h"

namespace ns3
{

namespace
{
uint64_t
RangeKey(const LeotpHeader& h)
{
    return (static_cast<uint64_t>(h.rangeStart) << 32) | h.rangeEnd;
}

bool
IsPayloadData(const LeotpHeader& h)
{
    return h.IsData() && !h.IsVph();
}
} // namespace

LeotpSendBuffer::LeotpSendBuffer(double initialRateBps,
                                 double mtuBytes,
                                 uint64_t maxBytes,
                                 bool rateLimited,
                                 SendFn send)
    : m_bucket(initialRateBps, mtuBytes),
      m_maxBytes(maxBytes),
      m_rateLimited(rateLimited),
      m_send(std::move(send))
{
}

LeotpSendBuffer::~LeotpSendBuffer()
{
    m_event.Cancel();
}

void
LeotpSendBuffer::OnInterest(const LeotpHeader& interest, uint32_t nowUs)
{
    // Only Interests that carry a rate describe this hop: in variant C a Midnode's own repair
    // Interests carry none (0) and must not replace the Consumer's stamp (cpp/doc/leotp.md).
    if (interest.rateOrLength > 0)
    {
        m_owdUs = nowUs - interest.timestamp; // modulo 2^32
        m_hasInterest = true;
        const double before = m_bucket.GetRate();
        const double rate = LeotpHeader::FieldRate(interest.rateOrLength);
        m_bucket.SetRate(Simulator::Now().GetSeconds(), rate);
        if (rate > before && m_event.IsPending())
        {
            // a faster rate may release the head earlier than planned
            m_event.Cancel();
            Release();
        }
    }
}

bool
LeotpSendBuffer::Enqueue(LeotpQueued&& item)
{
    if (m_bytes + item.wireBytes > m_maxBytes)
    {
        ++m_drops;
        return false;
    }
    m_bytes += item.wireBytes;
    if (IsPayloadData(item.header))
    {
        ++m_dataRanges[RangeKey(item.header)];
    }
    m_queue.push_back(std::move(item));
    if (!m_event.IsPending())
    {
        Release();
    }
    return true;
}

uint32_t
LeotpSendBuffer::DataTimestamp(uint32_t nowUs) const
{
    if (!m_hasInterest)
    {
        // No Interest has come up this hop yet: half a round trip is no hop-RTT sample.
        return LeotpHeader::kNoTimestamp;
    }
    const uint32_t stamp = nowUs - m_owdUs; // modulo 2^32
    return stamp == LeotpHeader::kNoTimestamp ? 1 : stamp;
}

void
LeotpSendBuffer::Release()
{
    const double now = Simulator::Now().GetSeconds();
    while (!m_queue.empty())
    {
        const uint32_t bytes = m_queue.front().wireBytes;
        if (m_rateLimited && !m_bucket.TryConsume(now, bytes))
        {
            Arm(m_bucket.WaitS(now, bytes));
            return;
        }
        LeotpQueued item = std::move(m_queue.front());
        m_queue.pop_front();
        m_bytes -= bytes;
        if (IsPayloadData(item.header))
        {
            auto it = m_dataRanges.find(RangeKey(item.header));
            if (it != m_dataRanges.end() && --it->second == 0)
            {
                m_dataRanges.erase(it);
            }
        }
        m_send(std::move(item));
    }
}

void
LeotpSendBuffer::Arm(double waitS)
{
    // at least one time step ahead, so that a rounding residue cannot stall the release
    Time wait = Seconds(waitS);
    if (wait <= Time(0))
    {
        wait = TimeStep(1);
    }
    m_event = Simulator::Schedule(wait, &LeotpSendBuffer::Release, this);
}

uint64_t
LeotpSendBuffer::GetBytes() const
{
    return m_bytes;
}

std::size_t
LeotpSendBuffer::GetPackets() const
{
    return m_queue.size();
}

double
LeotpSendBuffer::GetRate() const
{
    return m_bucket.GetRate();
}

bool
LeotpSendBuffer::HasInterest() const
{
    return m_hasInterest;
}

uint64_t
LeotpSendBuffer::GetDrops() const
{
    return m_drops;
}

bool
LeotpSendBuffer::HoldsData(uint32_t start, uint32_t end) const
{
    return m_dataRanges.count((static_cast<uint64_t>(start) << 32) | end) > 0;
}

void
LeotpSendBuffer::Clear()
{
    m_event.Cancel();
    m_queue.clear();
    m_dataRanges.clear();
    m_bytes = 0;
}

} // namespace ns3
