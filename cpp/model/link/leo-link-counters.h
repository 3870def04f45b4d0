// SPDX-License-Identifier: GPL-2.0-only
//
// Drop causes and cheap per-direction link counters.

#ifndef LEO_LINK_COUNTERS_H
#define LEO_LINK_COUNTERS_H

#include <cstddef>
#include <cstdint>

namespace ns3
{

/**
 * @ingroup leo-link
 * Why a LeoNetDevice dropped a packet. The values are those of the "Drop" trace's uint8_t
 * argument and of the probe's drop_cause array.
 */
enum LeoDropCause : uint8_t
{
    LEO_DROP_OUTAGE = 0,   //!< sent/queued during an outage, or its flight overlapped one
    LEO_DROP_RANDOM = 1,   //!< Bernoulli random loss (LossAt)
    LEO_DROP_OVERFLOW = 2, //!< queue full (drop-tail, or an AQM's limit)
    LEO_DROP_AQM = 3,      //!< an AQM's own decision (RED early/forced, CoDel, PIE)
    LEO_DROP_ECN = 4,      //!< an ECN-capable packet on a link whose ecn_handling is "drop"
};

/// Number of drop causes.
constexpr std::size_t LEO_N_DROP_CAUSES = 5;

/// "OUTAGE", "RANDOM", "OVERFLOW", "AQM" or "ECN" ("UNKNOWN" otherwise).
const char* LeoDropCauseName(uint8_t cause);

/**
 * @ingroup leo-link
 * Monotone counters of one direction of one path. Bytes are IP packet bytes (the device adds
 * no framing). A packet is counted once in tx when it starts serialization, and ends either
 * in rx (delivered to the peer device) or in exactly one drop cause. Overflow drops and drops
 * of packets arriving during an outage are never counted in tx.
 */
struct LeoDirectionCounters
{
    uint64_t enqueuedPackets{0}; //!< packets accepted by Send() (queued or sent at once)
    uint64_t txPackets{0};       //!< packets that started serialization
    uint64_t txBytes{0};
    uint64_t rxPackets{0}; //!< packets delivered to the receiving device
    uint64_t rxBytes{0};
    uint64_t dropPackets[LEO_N_DROP_CAUSES]{}; //!< indexed by LeoDropCause
    uint64_t dropBytes[LEO_N_DROP_CAUSES]{};
    uint64_t markPackets{0}; //!< packets an AQM marked ECN CE instead of dropping them
    uint64_t markBytes{0};
    /// Summed time in the queue (the device's FIFO or its queue disc) of the packets that
    /// started serialization (counted in txPackets), in ns-3 time steps: the mean sojourn of
    /// an interval is its increase over txPackets' increase.
    int64_t sojournTicks{0};

    uint64_t TotalDropPackets() const
    {
        uint64_t n = 0;
        for (uint64_t d : dropPackets)
        {
            n += d;
        }
        return n;
    }
};

} // namespace ns3

#endif // LEO_LINK_COUNTERS_H
