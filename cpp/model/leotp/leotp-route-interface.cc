// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-route-interface.h"

#include "ns3/ipv4-header.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/udp-l4-protocol.h"

namespace ns3
{

int64_t
LeotpInterfaceToward(Ptr<Node> node, Ipv4Address src, Ipv4Address dst)
{
    Ptr<Ipv4> ipv4 = node ? node->GetObject<Ipv4>() : nullptr;
    if (!ipv4 || !ipv4->GetRoutingProtocol())
    {
        return -1;
    }
    Ipv4Header h;
    h.SetSource(src);
    h.SetDestination(dst);
    h.SetProtocol(UdpL4Protocol::PROT_NUMBER);
    Socket::SocketErrno err;
    Ptr<Ipv4Route> route = ipv4->GetRoutingProtocol()->RouteOutput(nullptr, h, nullptr, err);
    if (!route || !route->GetOutputDevice())
    {
        return -1;
    }
    return ipv4->GetInterfaceForDevice(route->GetOutputDevice());
}

} // namespace ns3
