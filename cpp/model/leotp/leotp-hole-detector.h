// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpHoleDetector: sequence-hole detection of LEOTP, Algorithm 1 (SHR and VPH; LEOTP, ICDCS
// 2023, section III.B, "Reliable Transmission").

#ifndef LEOTP_HOLE_DETECTOR_H
#define LEOTP_HOLE_DETECTOR_H

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// A byte range [first, second).
using LeotpRange = std::pair<uint64_t, uint64_t>;

/**
 * @ingroup leotp
 * Parameters of the hole detector (cpp/doc/leotp.md, "Loss detection").
 */
struct LeotpHoleParams
{
    /// N of Algorithm 1: a hole is requested when more than N later packets skipped it.
    /// The paper's Fig. 8b (confirmed after packets 4 and 5) fixes N = 1 under `count > N`.
    uint32_t threshold{1};
    /// Chunk size (bytes, the Data payload MSS): holes are requested and announced per chunk.
    uint32_t chunkBytes{1451};
    /// A jump of more than this many chunks is a resynchronisation, not a loss [REC, code].
    uint32_t resyncChunks{100};
    /// A hole still open after this long is requested anyway (s); 0 = never [REC].
    double expiryS{0.2};

    /// @throws std::invalid_argument naming "<prefix>.<field>" for a value out of range
    void Check(const std::string& prefix) const;
};

/**
 * @ingroup leotp
 * Algorithm 1 of the paper, run by every node that receives Data (Midnodes and the
 * Consumer), on every Data packet **or void header** [rs, re) from upstream:
 *
 *   if rs > lastByte:                     a hole appears
 *       emit VPH [lastByte, rs) downstream, before this packet        (Midnodes only)
 *       insert hole {lastByte, rs, count = 0}
 *   else if rs < lastByte:                retransmission or late packet
 *       delete [rs, re) from the holes    (trim or split; the pieces keep their count)
 *   for each hole: if rs > hole.end:
 *       hole.count += 1
 *       if hole.count > N: send Interest [hole.start, hole.end) upstream; remove the hole
 *   lastByte = max(lastByte, re)
 *
 * [REC] details: a node with no state takes lastByte = re from its first packet and opens no
 * hole; a jump rs - lastByte of more than resyncChunks chunks is a resynchronisation (lastByte
 * = re, no hole); a hole open for expiryS is requested anyway (Expire()). The caller splits
 * VPHs and Interests into chunks (SplitChunks).
 *
 * Positions are 64-bit here (the wire carries 32 bits).
 */
class LeotpHoleDetector
{
  public:
    /// One open hole.
    struct Hole
    {
        uint64_t start;
        uint64_t end;
        uint32_t count;
        double openedS;
    };

    /// What one packet caused.
    struct Result
    {
        bool vph{false}; //!< a hole opened: announce [vphRange) before this packet
        LeotpRange vphRange{0, 0};
        std::vector<LeotpRange> requests; //!< holes confirmed: request them upstream
        bool resync{false};               //!< a jump too large to be a loss
    };

    explicit LeotpHoleDetector(const LeotpHoleParams& params = LeotpHoleParams());

    /// Algorithm 1 on the packet [start, end) received at @p nowS.
    Result OnPacket(uint64_t start, uint64_t end, double nowS);
    /// Holes opened at or before nowS - expiryS: removed and returned (request them).
    /// A deadline within kClockToleranceS after nowS counts as due: the simulator's clock
    /// ticks in whole nanoseconds, so a timer set for NextExpiryS() can fire up to half a
    /// tick early, and a strict comparison then finds nothing due, and the timer, re-armed
    /// for the same deadline, fires again at the same instant without end.
    std::vector<LeotpRange> Expire(double nowS);
    /// The slack of Expire(): one tick of the simulator's clock (1 ns).
    static constexpr double kClockToleranceS = 1e-9;
    /// When the oldest hole expires (+inf without holes or without expiry).
    double NextExpiryS() const;

    bool HasState() const;
    uint64_t GetLastByte() const;
    const std::vector<Hole>& GetHoles() const;
    const LeotpHoleParams& GetParams() const;

    /// [start, end) cut at multiples of @p chunk (the protocol's chunks).
    static std::vector<LeotpRange> SplitChunks(uint64_t start, uint64_t end, uint64_t chunk);

  private:
    /// Remove [start, end) from the holes: trim or split; the pieces keep count and age.
    void Delete(uint64_t start, uint64_t end);

    LeotpHoleParams m_params;
    bool m_hasState{false};
    uint64_t m_lastByte{0};
    std::vector<Hole> m_holes; //!< in opening order (and so in byte order)
};

} // namespace ns3

#endif // LEOTP_HOLE_DETECTOR_H
