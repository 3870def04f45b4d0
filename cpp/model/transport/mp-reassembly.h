// SPDX-License-Identifier: GPL-2.0-only
//
// MpReassembly: the receiver's stream reassembly (reordering) buffer.

#ifndef MP_REASSEMBLY_H
#define MP_REASSEMBLY_H

#include "ns3/nstime.h"

#include <cstdint>
#include <map>

namespace ns3
{

/**
 * @ingroup mp-transport
 * Reassembles the byte stream from frames arriving on any path and delivers it in order.
 *
 * Bytes that arrive in order are delivered at once; others wait in the reordering buffer
 * until the gap before them is filled. For each delivered byte the time it waited
 * (delivery - arrival) is summed, so the head-of-line delay the application sees is
 * sum(bytes * wait) / sum(bytes) over an interval. Frames wholly below the delivered point are
 * duplicates. The buffer is limited by the connection's flow-control window: frames beyond
 * delivered + window are refused (a well-behaved sender never sends them).
 */
class MpReassembly
{
  public:
    /// @param window connection-level receive window (bytes)
    explicit MpReassembly(uint64_t window)
        : m_window(window)
    {
    }

    /**
     * Take one stream frame.
     * @return bytes newly delivered in order to the application
     */
    uint64_t OnFrame(uint64_t offset, uint32_t length, bool fin, Time now);

    /// Bytes delivered in order so far.
    uint64_t GetDelivered() const
    {
        return m_delivered;
    }

    /// Bytes waiting in the reordering buffer.
    uint64_t GetBufferedBytes() const
    {
        return m_buffered;
    }

    /// The flow-control limit to advertise: delivered + window (RFC 9000 MAX_DATA).
    uint64_t GetMaxData() const
    {
        return m_delivered + m_window;
    }

    /// Sum over delivered bytes of the time they waited (byte-seconds).
    double GetHolByteSeconds() const
    {
        return m_holByteSeconds;
    }

    /// Duplicate bytes received (already delivered or already buffered).
    uint64_t GetDuplicateBytes() const
    {
        return m_duplicateBytes;
    }

    /// Bytes refused because they exceeded the window.
    uint64_t GetRefusedBytes() const
    {
        return m_refusedBytes;
    }

    /// The stream end is known and everything before it was delivered.
    bool IsComplete() const
    {
        return m_finKnown && m_delivered >= m_finOffset;
    }

  private:
    struct Segment
    {
        uint32_t length;
        Time arrival;
    };

    uint64_t m_window;
    uint64_t m_delivered{0};
    uint64_t m_buffered{0};
    double m_holByteSeconds{0};
    uint64_t m_duplicateBytes{0};
    uint64_t m_refusedBytes{0};
    bool m_finKnown{false};
    uint64_t m_finOffset{0};
    std::map<uint64_t, Segment> m_segments; //!< keyed by offset, all above m_delivered
};

} // namespace ns3

#endif // MP_REASSEMBLY_H
