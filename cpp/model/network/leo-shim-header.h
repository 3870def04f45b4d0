// SPDX-License-Identifier: GPL-2.0-only
//
// LeoShimHeader: the 28-byte network header of leogym's transport carried directly on the
// link devices (LeoShimProtocol), in place of the IPv4 (20 B) and UDP (8 B) headers.

#ifndef LEO_SHIM_HEADER_H
#define LEO_SHIM_HEADER_H

#include "ns3/header.h"
#include "ns3/ipv4-address.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup leo-network
 * Header of a LeoShimProtocol packet: 28 bytes, as many as the IPv4 and UDP headers it
 * replaces, so serialization times, queue occupancy in bytes and every rate are unchanged.
 *
 *   byte 0      version (high 4 bits, = 1; an IPv4 header starts with 4) | reserved (2 bits, 0)
 *               | ECN (low 2 bits, the RFC 3168 codepoint, as in IPv4's TOS byte: the
 *               transport's ECT codepoint when its ECN is on, else 0 = Not-ECT; an AQM sets CE)
 *   byte 1      TTL (64 at the source; a forwarding node decrements it and drops at 0, as IPv4)
 *   bytes 2-3   payload length (bytes after this header)
 *   bytes 4-7   source address (the sending end's path or route address)
 *   bytes 8-11  destination address (names the path, or the route and direction)
 *   bytes 12-13 source port
 *   bytes 14-15 destination port (demultiplexes at the destination node)
 *   bytes 16-17 flow id (0: the connection under study; f + 1: the config's flow f)
 *   bytes 18-27 reserved (zero)
 *
 * Multi-byte fields in network byte order. The destination address is at bytes 8-11 here,
 * at 16-19 in IPv4; a reader tells the two apart by the version nibble (IsShim()).
 */
class LeoShimHeader : public Header
{
  public:
    static constexpr uint32_t kSize = 28;
    static constexpr uint8_t kVersion = 1;
    static constexpr uint8_t kDefaultTtl = 64;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// True if @p firstByte starts a shim header (version 1), false for IPv4 (version 4).
    static bool IsShim(uint8_t firstByte);
    /// The destination address of a serialized shim header (at least kSize bytes).
    static Ipv4Address DestinationOf(const uint8_t* bytes);

    uint8_t ecn{0}; //!< 2 bits
    uint8_t ttl{kDefaultTtl};
    uint16_t length{0};
    Ipv4Address source;
    Ipv4Address destination;
    uint16_t sourcePort{0};
    uint16_t destinationPort{0};
    uint16_t flow{0};
    bool valid{true}; //!< false after Deserialize() read a wrong version
};

} // namespace ns3

#endif // LEO_SHIM_HEADER_H
