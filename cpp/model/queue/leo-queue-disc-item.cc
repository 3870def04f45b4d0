// SPDX-License-Identifier: GPL-2.0-only

#include "leo-queue-disc-item.h"

#include "model/network/leo-shim-header.h"

#include "ns3/address.h"
#include "ns3/hash.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"

#include <cstring>

namespace ns3
{

LeoQueueDiscItem::LeoQueueDiscItem(Ptr<Packet> packet, uint16_t protocol)
    : QueueDiscItem(packet, Address(), protocol)
{
}

uint8_t
LeoQueueDiscItem::GetEcnCodepoint() const
{
    // IPv4: the low two bits of byte 1 (TOS); the shim: the low two bits of byte 0.
    uint8_t head[2];
    const uint32_t n = GetPacket()->CopyData(head, sizeof(head));
    if (GetProtocol() == kIpv4Protocol && n >= 2 && (head[0] >> 4) == 4)
    {
        return head[1] & 0x03;
    }
    if (GetProtocol() == kShimProtocol && n >= 1 && LeoShimHeader::IsShim(head[0]))
    {
        return head[0] & 0x03;
    }
    return 0;
}

void
LeoQueueDiscItem::AddHeader()
{
}

bool
LeoQueueDiscItem::Mark()
{
    Ptr<Packet> p = GetPacket();
    if (GetProtocol() == kIpv4Protocol)
    {
        Ipv4Header h;
        if (p->PeekHeader(h) == 0)
        {
            return false;
        }
        const Ipv4Header::EcnType ecn = h.GetEcn();
        if (ecn == Ipv4Header::ECN_NotECT)
        {
            return false;
        }
        if (ecn != Ipv4Header::ECN_CE)
        {
            p->RemoveHeader(h);
            h.SetEcn(Ipv4Header::ECN_CE);
            p->AddHeader(h);
        }
        return true;
    }
    if (GetProtocol() == kShimProtocol)
    {
        LeoShimHeader h;
        if (p->PeekHeader(h) == 0 || !h.valid)
        {
            return false;
        }
        if (h.ecn == 0)
        {
            return false; // Not-ECT
        }
        if (h.ecn != 3)
        {
            p->RemoveHeader(h);
            h.ecn = 3; // CE
            p->AddHeader(h);
        }
        return true;
    }
    return false;
}

uint32_t
LeoQueueDiscItem::Hash(uint32_t perturbation) const
{
    // The flow key: for IPv4 source, destination, protocol and (TCP/UDP, first fragment)
    // ports; for the shim source, destination, ports and flow id.
    uint8_t head[64];
    const uint32_t n = GetPacket()->CopyData(head, sizeof(head));
    uint8_t key[20]{};
    std::size_t k = 0;
    if (GetProtocol() == kIpv4Protocol && n >= 20)
    {
        const uint32_t ihl = 4u * (head[0] & 0x0f);
        std::memcpy(key, head + 12, 8); // addresses
        key[8] = head[9];               // protocol
        k = 9;
        const bool firstFragment = ((head[6] & 0x1f) | head[7]) == 0;
        if ((head[9] == 6 || head[9] == 17) && firstFragment && n >= ihl + 4)
        {
            std::memcpy(key + 9, head + ihl, 4); // ports
            k = 13;
        }
    }
    else if (GetProtocol() == kShimProtocol && n >= 18)
    {
        std::memcpy(key, head + 4, 14); // addresses, ports, flow id
        k = 14;
    }
    std::memcpy(key + k, &perturbation, sizeof(perturbation));
    k += sizeof(perturbation);
    return Hash32(reinterpret_cast<const char*>(key), k);
}

} // namespace ns3
