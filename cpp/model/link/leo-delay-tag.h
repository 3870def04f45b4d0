// SPDX-License-Identifier: GPL-2.0-only
//
// LeoDelayTag: the send time of a packet and the time it has waited in device queues.

#ifndef LEO_DELAY_TAG_H
#define LEO_DELAY_TAG_H

#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup leo-link
 * A packet tag for one-way-delay measurement. The flow monitor (LeoFlowMonitor) adds it when
 * the source's IPv4 layer sends a data packet of a monitored flow; every LeoNetDevice that
 * held the packet in its drop-tail queue adds the wait (dequeue time - enqueue time) to
 * queueTicks; the monitor reads both when the packet is delivered at the sink. Times are
 * kept in ns-3 Time steps (integers: no conversion to seconds per packet).
 * Serialization and propagation are not queueing: OWD = propagation + serialization + queueing.
 */
class LeoDelayTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer buf) const override;
    void Deserialize(TagBuffer buf) override;
    void Print(std::ostream& os) const override;

    int64_t sentTicks{0};  //!< simulation time the source sent the packet (Time steps)
    int64_t queueTicks{0}; //!< time spent waiting in device queues so far (Time steps)
};

} // namespace ns3

#endif // LEO_DELAY_TAG_H
