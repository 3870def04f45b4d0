// SPDX-License-Identifier: GPL-2.0-only
//
// MpRecoveryPeriod: QUIC's congestion recovery period (RFC 9002 section 7.3.2).

#ifndef MP_RECOVERY_PERIOD_H
#define MP_RECOVERY_PERIOD_H

#include "mp-congestion-ops.h"

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup mp-cc
 * The recovery period of RFC 9002 section 7.3.2, shared by the window-based controllers.
 * It begins when a loss is detected (congestion_recovery_start_time = now) and covers every
 * packet sent up to that time: losses of those packets do not reduce the window again, and
 * acknowledging them does not grow it. Persistent congestion ends it.
 */
class MpRecoveryPeriod
{
  public:
    /// A congestion event at `now` begins a new period.
    void Begin(Time now)
    {
        m_start = now;
        m_active = true;
    }

    /// Forget the period (Init, persistent congestion).
    void Reset()
    {
        m_active = false;
    }

    /// True if a packet sent at `sentTime` belongs to the current period.
    bool Covers(Time sentTime) const
    {
        return m_active && sentTime <= m_start;
    }

    /**
     * Bytes of an ACK that may grow the window: newly acknowledged in-flight packets that
     * were not declared lost and were sent after the period began (RFC 9002 Appendix B.5).
     */
    uint64_t EligibleAckedBytes(const MpAckEvent& ev) const
    {
        uint64_t eligible = 0;
        for (std::size_t i = 0; i < ev.nAcked; ++i)
        {
            const MpSentPacket& p = ev.acked[i];
            if (!p.wasLost && p.inFlight && !Covers(p.sentTime))
            {
                eligible += p.bytes;
            }
        }
        return eligible;
    }

  private:
    Time m_start{0};
    bool m_active{false};
};

} // namespace ns3

#endif // MP_RECOVERY_PERIOD_H
