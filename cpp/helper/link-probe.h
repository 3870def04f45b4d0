// SPDX-License-Identifier: GPL-2.0-only
//
// Link probe: raw packets through one LeoChannel at chosen times, for physics tests.

#ifndef LEO_LINK_PROBE_H
#define LEO_LINK_PROBE_H

#include "model/link/leo-link-counters.h"
#include "model/link/leo-path-schedule.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * Per-packet outcome of a link probe (index = probe packet).
 */
struct LinkProbeResult
{
    std::vector<double> sendTimeS; //!< when the packet was handed to the device
    std::vector<double> recvTimeS; //!< arrival at the peer device, NaN if dropped
    std::vector<int8_t> dropCause; //!< -1 delivered, else LeoDropCause
    std::vector<double> dropTimeS; //!< when it was dropped, NaN if delivered
    LeoDirectionCounters counters; //!< counters of the probed direction
};

/**
 * Send raw packets (no IP stack) through one path's device pair in direction @p dir and
 * record, per packet, its arrival time or drop cause. Runs until every packet has left the
 * link; acquires and releases the process SimContext.
 *
 * @param sendTimesS send instants (s), finite, >= 0, non-decreasing
 * @param sizesBytes packet sizes, same length, each in [1, mtu]
 * @throws std::invalid_argument naming the field for bad input
 * @throws std::runtime_error if another simulation is open in this process
 */
LinkProbeResult RunLinkProbe(const LeoPathArrays& path,
                             LeoDirection dir,
                             const std::vector<double>& sendTimesS,
                             const std::vector<uint32_t>& sizesBytes,
                             uint32_t seed,
                             uint64_t run,
                             uint16_t mtu = 1500,
                             int64_t stream = 1000);

} // namespace ns3

#endif // LEO_LINK_PROBE_H
