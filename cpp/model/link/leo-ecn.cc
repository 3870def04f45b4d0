// SPDX-License-Identifier: GPL-2.0-only

#include "leo-ecn.h"

#include "model/network/leo-shim-header.h"
#include "model/network/leo-shim-protocol.h"

#include "ns3/ipv4-header.h"

namespace ns3
{

namespace
{

constexpr uint16_t kIpv4 = 0x0800;

} // namespace

uint8_t
LeoPacketEcn(Ptr<const Packet> packet, uint16_t protocol)
{
    uint8_t head[2];
    if ((protocol != kIpv4 && protocol != LeoShimProtocol::PROT_NUMBER) ||
        packet->CopyData(head, sizeof(head)) < sizeof(head))
    {
        return 0;
    }
    if (protocol == kIpv4)
    {
        return (head[0] >> 4) == 4 ? head[1] & 3 : 0; // TOS byte, after version and IHL
    }
    return LeoShimHeader::IsShim(head[0]) ? head[0] & 3 : 0;
}

void
LeoClearEcn(Ptr<Packet> packet, uint16_t protocol)
{
    if (LeoPacketEcn(packet, protocol) == 0)
    {
        return;
    }
    if (protocol == kIpv4)
    {
        Ipv4Header h;
        packet->RemoveHeader(h);
        h.SetEcn(Ipv4Header::ECN_NotECT);
        packet->AddHeader(h);
        return;
    }
    LeoShimHeader h;
    packet->RemoveHeader(h);
    h.ecn = 0;
    packet->AddHeader(h);
}

} // namespace ns3
