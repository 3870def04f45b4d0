// SPDX-License-Identifier: GPL-2.0-only

#include "mp-reassembly.h"

namespace ns3
{

uint64_t
MpReassembly::OnFrame(uint64_t offset, uint32_t length, bool fin, Time now)
{
    uint64_t end = offset + length;
    if (fin)
    {
        m_finKnown = true;
        m_finOffset = end;
    }
    if (end <= m_delivered)
    {
        m_duplicateBytes += length;
        return 0;
    }
    if (end > m_delivered + m_window)
    {
        m_refusedBytes += length;
        return 0;
    }
    if (offset > m_delivered)
    {
        auto it = m_segments.find(offset);
        if (it != m_segments.end())
        {
            if (it->second.length >= length)
            {
                m_duplicateBytes += length;
                return 0;
            }
            m_buffered += length - it->second.length;
            it->second.length = length;
            return 0;
        }
        m_segments.emplace_hint(it, offset, Segment{length, now});
        m_buffered += length;
        return 0;
    }
    // In order (possibly overlapping what was delivered): deliver the new part at once.
    uint64_t before = m_delivered;
    m_delivered = end;
    // Then everything the buffer now makes contiguous.
    double nowS = now.GetSeconds();
    auto it = m_segments.begin();
    while (it != m_segments.end() && it->first <= m_delivered)
    {
        uint64_t segEnd = it->first + it->second.length;
        m_buffered -= it->second.length;
        if (segEnd > m_delivered)
        {
            uint64_t fresh = segEnd - m_delivered;
            double waited = nowS - it->second.arrival.GetSeconds();
            m_holByteSeconds += static_cast<double>(fresh) * waited;
            m_delivered = segEnd;
        }
        else
        {
            m_duplicateBytes += it->second.length;
        }
        it = m_segments.erase(it);
    }
    return m_delivered - before;
}

} // namespace ns3
