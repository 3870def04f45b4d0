// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpInterfaceToward: which of a node's interfaces its routing uses now toward an address,
// so that a LEOTP node can tell its hop neighbours on the route of the moment (spec section
// 1.10; cpp/doc/leotp.md, "Fixes from the issue 18 audit").

#ifndef LEOTP_ROUTE_INTERFACE_H
#define LEOTP_ROUTE_INTERFACE_H

#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup leotp
 * The IPv4 interface index through which @p node's routing protocol sends a UDP packet from
 * @p src to @p dst now (on a hop topology: the link to the route's next node), or -1 if the
 * node has no IPv4, no routing protocol or no route.
 */
int64_t LeotpInterfaceToward(Ptr<Node> node, Ipv4Address src, Ipv4Address dst);

} // namespace ns3

#endif // LEOTP_ROUTE_INTERFACE_H
