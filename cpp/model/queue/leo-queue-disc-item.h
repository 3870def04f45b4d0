// SPDX-License-Identifier: GPL-2.0-only
//
// LeoQueueDiscItem: a packet in a LeoNetDevice's queue disc, of any protocol the device
// carries (IPv4 or leogym's shim).

#ifndef LEO_QUEUE_DISC_ITEM_H
#define LEO_QUEUE_DISC_ITEM_H

#include "ns3/queue-item.h"

namespace ns3
{

/**
 * @ingroup leo-link
 * A queue disc item holding a packet as the device sends it (its network header included:
 * an IPv4 header, or a LeoShimHeader for protocol 0x88B5). Hash() covers the flow's
 * addresses and ports read from the header bytes (FQ-CoDel's flow classification without
 * packet filters); Mark() sets ECN CE on ECN-capable packets (IPv4 ECN field, or the shim's
 * two ECN bits), GetEcnCodepoint() reads them (DualPI2's classification). AddHeader() has nothing
 * to do (the header is in the packet).
 */
class LeoQueueDiscItem : public QueueDiscItem
{
  public:
    /// Protocol number of leogym's shim (LeoShimProtocol).
    static constexpr uint16_t kShimProtocol = 0x88B5;
    /// Protocol number of IPv4.
    static constexpr uint16_t kIpv4Protocol = 0x0800;

    LeoQueueDiscItem(Ptr<Packet> packet, uint16_t protocol);

    /**
     * The packet's ECN codepoint (RFC 3168: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE): the IPv4
     * header's ECN field or the shim's two ECN bits; 0 for other protocols.
     */
    uint8_t GetEcnCodepoint() const;

    void AddHeader() override;
    bool Mark() override;
    uint32_t Hash(uint32_t perturbation) const override;
};

} // namespace ns3

#endif // LEO_QUEUE_DISC_ITEM_H
