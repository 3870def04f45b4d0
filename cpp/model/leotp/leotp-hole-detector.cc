// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-hole-detector.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

void
LeotpHoleParams::Check(const std::string& prefix) const
{
    if (threshold < 1 || threshold > 1000)
    {
        throw std::invalid_argument(prefix + ".hole_threshold: must be in [1, 1000]");
    }
    if (chunkBytes < 1 || chunkBytes > 65535)
    {
        throw std::invalid_argument(prefix + ".chunk_bytes: must be in [1, 65535]");
    }
    if (resyncChunks < 1 || resyncChunks > 1000000)
    {
        throw std::invalid_argument(prefix + ".resync_chunks: must be in [1, 1e6]");
    }
    if (!std::isfinite(expiryS) || expiryS < 0 || expiryS > 60)
    {
        throw std::invalid_argument(prefix + ".hole_expiry_s: must be in [0, 60] s");
    }
}

LeotpHoleDetector::LeotpHoleDetector(const LeotpHoleParams& params)
    : m_params(params)
{
}

LeotpHoleDetector::Result
LeotpHoleDetector::OnPacket(uint64_t start, uint64_t end, double nowS)
{
    Result r;
    if (!m_hasState)
    {
        // A node that joins a flow mid-stream opens no hole for what came before [REC].
        m_hasState = true;
        m_lastByte = end;
        return r;
    }
    if (start > m_lastByte)
    {
        if (start - m_lastByte > static_cast<uint64_t>(m_params.resyncChunks) * m_params.chunkBytes)
        {
            r.resync = true; // the authors' "abnormal hole": resynchronise, open nothing
            m_lastByte = end;
            return r;
        }
        r.vph = true;
        r.vphRange = {m_lastByte, start};
        m_holes.push_back({m_lastByte, start, 0, nowS});
    }
    else if (start < m_lastByte)
    {
        Delete(start, end);
    }
    // Count the later packets that skip each hole; the packet that reveals a hole has start
    // == hole.end and does not count (strict "rs > hole.end").
    for (auto it = m_holes.begin(); it != m_holes.end();)
    {
        if (start > it->end)
        {
            ++it->count;
            if (it->count > m_params.threshold)
            {
                r.requests.emplace_back(it->start, it->end);
                it = m_holes.erase(it);
                continue;
            }
        }
        ++it;
    }
    m_lastByte = std::max(m_lastByte, end);
    return r;
}

void
LeotpHoleDetector::Delete(uint64_t start, uint64_t end)
{
    std::vector<Hole> out;
    out.reserve(m_holes.size() + 1);
    for (const Hole& h : m_holes)
    {
        if (end <= h.start || start >= h.end)
        {
            out.push_back(h);
            continue;
        }
        if (h.start < start)
        {
            out.push_back({h.start, start, h.count, h.openedS});
        }
        if (end < h.end)
        {
            out.push_back({end, h.end, h.count, h.openedS});
        }
    }
    m_holes.swap(out);
}

std::vector<LeotpRange>
LeotpHoleDetector::Expire(double nowS)
{
    std::vector<LeotpRange> out;
    if (m_params.expiryS <= 0)
    {
        return out;
    }
    for (auto it = m_holes.begin(); it != m_holes.end();)
    {
        if (it->openedS + m_params.expiryS <= nowS + kClockToleranceS)
        {
            out.emplace_back(it->start, it->end);
            it = m_holes.erase(it);
        }
        else
        {
            ++it;
        }
    }
    return out;
}

double
LeotpHoleDetector::NextExpiryS() const
{
    double t = std::numeric_limits<double>::infinity();
    if (m_params.expiryS <= 0)
    {
        return t;
    }
    for (const Hole& h : m_holes)
    {
        t = std::min(t, h.openedS + m_params.expiryS);
    }
    return t;
}

bool
LeotpHoleDetector::HasState() const
{
    return m_hasState;
}

uint64_t
LeotpHoleDetector::GetLastByte() const
{
    return m_lastByte;
}

const std::vector<LeotpHoleDetector::Hole>&
LeotpHoleDetector::GetHoles() const
{
    return m_holes;
}

const LeotpHoleParams&
LeotpHoleDetector::GetParams() const
{
    return m_params;
}

std::vector<LeotpRange>
LeotpHoleDetector::SplitChunks(uint64_t start, uint64_t end, uint64_t chunk)
{
    std::vector<LeotpRange> out;
    if (chunk == 0)
    {
        if (start < end)
        {
            out.emplace_back(start, end);
        }
        return out;
    }
    for (uint64_t pos = start; pos < end;)
    {
        const uint64_t next = std::min(end, (pos / chunk + 1) * chunk);
        out.emplace_back(pos, next);
        pos = next;
    }
    return out;
}

} // namespace ns3
