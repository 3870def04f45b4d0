// SPDX-License-Identifier: GPL-2.0-only
//
// MpAckTracker: the receiver side of one path's packet-number space (received ranges and the
// ACK policy).

#ifndef MP_ACK_TRACKER_H
#define MP_ACK_TRACKER_H

#include "mp-quic-header.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <deque>

namespace ns3
{

/**
 * @ingroup mp-transport
 * Received packet numbers of one path and when to acknowledge them.
 *
 * ACK policy (RFC 9000 section 13.2.1 and 13.2.2, with the ack frequency as a parameter):
 * an ACK frame is sent
 *   - immediately once `ackEvery` ack-eliciting packets arrived since the last ACK,
 *   - immediately when an ack-eliciting packet arrives out of order (its number is below the
 *     largest received, or above it with missing numbers in between),
 *   - otherwise at most max_ack_delay after the first unacknowledged ack-eliciting packet.
 * Ranges are kept largest first; at most kMaxKeptRanges are kept (the oldest are forgotten,
 * as a QUIC receiver may once its ACKs are acknowledged) and at most
 * MpQuicAckHeader::kMaxRanges are reported.
 */
class MpAckTracker
{
  public:
    static constexpr std::size_t kMaxKeptRanges = 64;

    MpAckTracker(uint32_t ackEvery, Time maxAckDelay)
        : m_ackEvery(ackEvery),
          m_maxAckDelay(maxAckDelay)
    {
    }

    /**
     * Record a received packet.
     * @return false for a duplicate packet number (already received)
     */
    bool OnPacketReceived(uint64_t pn, bool ackEliciting, Time now);

    /// An ACK should be sent now.
    bool ShouldAckNow() const
    {
        return m_ackNow;
    }

    /// Ack-eliciting packets wait for an ACK.
    bool AckPending() const
    {
        return m_pendingEliciting > 0;
    }

    /// Latest time the pending ACK may be sent (valid when AckPending()).
    Time AckDeadline() const
    {
        return m_firstPendingTime + m_maxAckDelay;
    }

    /// Fill an ACK frame (ranges, ack delay) and reset the ACK policy state.
    void FillAck(MpQuicAckHeader& h, Time now);

    /// The largest received packet number (-1 if none).
    int64_t GetLargest() const
    {
        return m_ranges.empty() ? -1 : static_cast<int64_t>(m_ranges.front().largest);
    }

    std::size_t GetRangeCount() const
    {
        return m_ranges.size();
    }

  private:
    uint32_t m_ackEvery;
    Time m_maxAckDelay;
    std::deque<MpAckRange> m_ranges; //!< descending, disjoint, non-adjacent
    Time m_largestTime{0};           //!< arrival time of the largest packet number
    uint32_t m_pendingEliciting{0};
    Time m_firstPendingTime{0};
    bool m_ackNow{false};
};

} // namespace ns3

#endif // MP_ACK_TRACKER_H
