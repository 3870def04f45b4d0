// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpCache: a Midnode's cache of byte ranges, in 4096-byte blocks with LRU replacement
// (LEOTP, ICDCS 2023, section IV.A).

#ifndef LEOTP_CACHE_H
#define LEOTP_CACHE_H

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @ingroup leotp
 * What the cache keeps of the packet a byte range came in: the data are zero-filled in the
 * simulation, so only this metadata is stored (cpp/doc/leotp.md, "Cache"). The Midnode uses it
 * to measure the one-way delay of data it serves again from its cache.
 */
struct LeotpCacheStamp
{
    int64_t firstSentTicks{0}; //!< when the Producer first sent the bytes (ns-3 Time steps)
    int64_t sentTicks{0};      //!< the delay tag's send time (the packet's own transmission)
    int64_t queueTicks{0};     //!< time they had waited in queues when they reached this node
    int64_t arrivalTicks{0};   //!< when they reached this node
    bool traced{false};        //!< the packet carried a LeotpTraceTag
    bool measured{false};      //!< the packet carried a delay tag (LeoDelayTag)

    bool operator==(const LeotpCacheStamp& o) const = default;
};

/**
 * @ingroup leotp
 * The Midnode cache of LEOTP section IV.A: "a hash map with LRU replacement, keyed by FlowID
 * and byte range; every 4096 consecutive bytes of a flow form one block, so a lookup touches
 * O(1) blocks". The capacity counts blocks (the paper: "a few hundred MB"; our default, 65536
 * blocks, is 256 MB). A block holds the sorted, disjoint byte intervals of it that are cached,
 * each with the stamp of the packet it came in (adjacent intervals with equal stamps merge).
 *
 * Insert() and a hit of LookupPrefix() make the touched blocks the most recently used; when
 * the cache holds more blocks than its capacity, the least recently used block is evicted.
 * A lookup serves the longest contiguous cached prefix of the asked range (the authors'
 * code; the rest is a miss, forwarded upstream by the Midnode).
 */
class LeotpCache
{
  public:
    static constexpr uint32_t kBlockBytes = 4096;

    /// @throws std::invalid_argument ("cache_blocks: ...") for a capacity of 0 blocks
    explicit LeotpCache(uint64_t capacityBlocks);

    /// Cache the bytes [start, end) of @p flow (already cached bytes keep their stamps).
    void Insert(uint32_t flow, uint64_t start, uint64_t end, const LeotpCacheStamp& stamp);
    /**
     * The longest cached prefix of [start, end).
     * @param stamp if not null, receives the stamp of the byte at @p start (on a hit)
     * @return the prefix's end: @p start on a miss, @p end when all is cached
     */
    uint64_t LookupPrefix(uint32_t flow, uint64_t start, uint64_t end, LeotpCacheStamp* stamp);
    /// Whether every byte of [start, end) is cached (no LRU update).
    bool Contains(uint32_t flow, uint64_t start, uint64_t end) const;

    uint64_t GetCapacityBlocks() const;
    uint64_t GetNBlocks() const;
    uint64_t GetEvictions() const;
    /// Lookups that served at least one byte / none.
    uint64_t GetHits() const;
    uint64_t GetMisses() const;

  private:
    struct Interval
    {
        uint32_t lo;
        uint32_t hi; //!< [lo, hi) within the block, 0 < hi <= kBlockBytes
        LeotpCacheStamp stamp;
    };

    struct Block
    {
        std::vector<Interval> intervals; //!< sorted, disjoint
        std::list<uint64_t>::iterator lru;
    };

    static uint64_t Key(uint32_t flow, uint64_t block);
    Block& Touch(uint64_t key);
    void Evict();

    uint64_t m_capacity;
    std::unordered_map<uint64_t, Block> m_blocks;
    std::list<uint64_t> m_lru; //!< most recently used first
    uint64_t m_evictions{0};
    uint64_t m_hits{0};
    uint64_t m_misses{0};
};

} // namespace ns3

#endif // LEOTP_CACHE_H
