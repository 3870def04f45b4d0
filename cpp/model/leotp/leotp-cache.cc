// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-cache.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

LeotpCache::LeotpCache(uint64_t capacityBlocks)
    : m_capacity(capacityBlocks)
{
    if (capacityBlocks == 0)
    {
        throw std::invalid_argument("cache_blocks: the cache needs at least one block");
    }
}

uint64_t
LeotpCache::Key(uint32_t flow, uint64_t block)
{
    return (static_cast<uint64_t>(flow) << 32) | (block & 0xffffffffu);
}

LeotpCache::Block&
LeotpCache::Touch(uint64_t key)
{
    auto it = m_blocks.find(key);
    if (it != m_blocks.end())
    {
        m_lru.splice(m_lru.begin(), m_lru, it->second.lru);
        return it->second;
    }
    m_lru.push_front(key);
    Block& b = m_blocks[key];
    b.lru = m_lru.begin();
    return b;
}

void
LeotpCache::Evict()
{
    while (m_blocks.size() > m_capacity && !m_lru.empty())
    {
        m_blocks.erase(m_lru.back());
        m_lru.pop_back();
        ++m_evictions;
    }
}

void
LeotpCache::Insert(uint32_t flow, uint64_t start, uint64_t end, const LeotpCacheStamp& stamp)
{
    for (uint64_t pos = start; pos < end;)
    {
        const uint64_t block = pos / kBlockBytes;
        const uint64_t blockEnd = (block + 1) * kBlockBytes;
        const auto lo = static_cast<uint32_t>(pos - block * kBlockBytes);
        const auto hi = static_cast<uint32_t>(std::min(end, blockEnd) - block * kBlockBytes);
        std::vector<Interval>& iv = Touch(Key(flow, block)).intervals;
        // The parts of [lo, hi) not cached yet, with the new stamp; then merge neighbours
        // whose stamps are equal.
        std::vector<Interval> out;
        out.reserve(iv.size() + 2);
        uint32_t cur = lo;
        for (const Interval& x : iv)
        {
            if (x.hi <= cur || x.lo >= hi)
            {
                continue;
            }
            if (x.lo > cur)
            {
                out.push_back({cur, x.lo, stamp});
            }
            cur = std::max(cur, x.hi);
        }
        if (cur < hi)
        {
            out.push_back({cur, hi, stamp});
        }
        out.insert(out.end(), iv.begin(), iv.end());
        std::sort(out.begin(), out.end(), [](const Interval& a, const Interval& b) {
            return a.lo < b.lo;
        });
        iv.clear();
        for (const Interval& x : out)
        {
            if (!iv.empty() && iv.back().hi == x.lo && iv.back().stamp == x.stamp)
            {
                iv.back().hi = x.hi;
            }
            else
            {
                iv.push_back(x);
            }
        }
        pos = std::min(end, blockEnd);
    }
    Evict();
}

uint64_t
LeotpCache::LookupPrefix(uint32_t flow, uint64_t start, uint64_t end, LeotpCacheStamp* stamp)
{
    uint64_t pos = start;
    bool first = true;
    while (pos < end)
    {
        const uint64_t block = pos / kBlockBytes;
        auto it = m_blocks.find(Key(flow, block));
        if (it == m_blocks.end())
        {
            break;
        }
        const auto off = static_cast<uint32_t>(pos - block * kBlockBytes);
        const Interval* hit = nullptr;
        for (const Interval& x : it->second.intervals)
        {
            if (x.lo <= off && off < x.hi)
            {
                hit = &x;
                break;
            }
        }
        if (!hit)
        {
            break;
        }
        if (first && stamp)
        {
            *stamp = hit->stamp;
        }
        first = false;
        m_lru.splice(m_lru.begin(), m_lru, it->second.lru);
        pos = std::min(end, block * kBlockBytes + hit->hi);
        if (hit->hi < kBlockBytes)
        {
            break; // the cached run ends inside this block
        }
    }
    if (pos > start)
    {
        ++m_hits;
    }
    else
    {
        ++m_misses;
    }
    return pos;
}

bool
LeotpCache::Contains(uint32_t flow, uint64_t start, uint64_t end) const
{
    uint64_t pos = start;
    while (pos < end)
    {
        const uint64_t block = pos / kBlockBytes;
        auto it = m_blocks.find(Key(flow, block));
        if (it == m_blocks.end())
        {
            return false;
        }
        const auto off = static_cast<uint32_t>(pos - block * kBlockBytes);
        const Interval* hit = nullptr;
        for (const Interval& x : it->second.intervals)
        {
            if (x.lo <= off && off < x.hi)
            {
                hit = &x;
                break;
            }
        }
        if (!hit)
        {
            return false;
        }
        pos = block * kBlockBytes + hit->hi;
        if (hit->hi < kBlockBytes && pos < end)
        {
            return false;
        }
    }
    return true;
}

uint64_t
LeotpCache::GetCapacityBlocks() const
{
    return m_capacity;
}

uint64_t
LeotpCache::GetNBlocks() const
{
    return m_blocks.size();
}

uint64_t
LeotpCache::GetEvictions() const
{
    return m_evictions;
}

uint64_t
LeotpCache::GetHits() const
{
    return m_hits;
}

uint64_t
LeotpCache::GetMisses() const
{
    return m_misses;
}

} // namespace ns3
