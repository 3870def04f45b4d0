// SPDX-License-Identifier: GPL-2.0-only
//
// The ECN field of the packets a LeoNetDevice carries (IPv4 and the transport's shim header).

#ifndef LEO_ECN_H
#define LEO_ECN_H

#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup leo-link
 * The ECN codepoint (RFC 3168: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE) of a packet handed to a
 * LeoNetDevice with protocol number @p protocol: the low two bits of the IPv4 TOS byte
 * (0x0800) or of the LeoShimHeader's first byte (0x88B5); 0 for any other protocol.
 */
uint8_t LeoPacketEcn(Ptr<const Packet> packet, uint16_t protocol);

/**
 * Clear the ECN field of @p packet (to Not-ECT), IPv4 or shim header as LeoPacketEcn reads
 * it; the packet keeps its size. Other protocols are left alone.
 */
void LeoClearEcn(Ptr<Packet> packet, uint16_t protocol);

} // namespace ns3

#endif // LEO_ECN_H
