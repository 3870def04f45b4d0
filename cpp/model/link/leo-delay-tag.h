// SPDX-License-Identifier: GPL-2.0-only
//
// LeoDelayTag: the send time of a packet and the time it has waited in device queues.

#ifndef LEO_DELAY_TAG_H
#define LEO_DELAY_TAG_H

#include "ns3/tag.h"

namespace ns3
{

/**
 * @ingroup leo-link
 * A packet tag for one-way-delay measurement. The flow monitor (LeoFlowMonitor) adds it when
 * the source's IPv4 layer sends a data packet of a monitored flow; every LeoNetDevice that
 * held the packet in its drop-tail queue adds the wait (dequeue time - enqueue time) to
 * queueS; the monitor reads both when the packet is delivered at the sink.
 * Serialization and propagation are not queueing: OWD = propagation + serialization + queueS.
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

    double sentS{0.0};  //!< simulation time the source sent the packet (s)
    double queueS{0.0}; //!< total time spent waiting in device queues so far (s)
};

} // namespace ns3

#endif // LEO_DELAY_TAG_H
