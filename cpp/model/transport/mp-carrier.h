// SPDX-License-Identifier: GPL-2.0-only
//
// MpCarrier: what carries one path of the multipath transport between its two ends, either
// leogym's own network layer on the link devices (LeoShimProtocol) or an ns-3 UDP socket.

#ifndef MP_CARRIER_H
#define MP_CARRIER_H

#include "ns3/callback.h"
#include "ns3/enum.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup mp-transport
 * How the transport's packets travel.
 *
 * LEO (the default): LeoShimProtocol, its own protocol number on the link devices, a
 * 28-byte header in place of IPv4 + UDP (same wire size), no sockets and no IPv4 stack.
 * UDP: an ns-3 UDP socket over IPv4, as before issue 19 (kept as the reference the LEO
 * carrier is tested against: trajectories are bit-identical).
 */
enum class MpCarrierKind : uint8_t
{
    LEO = 0,
    UDP = 1,
};

/// Help text of the sender's and the receiver's "Carrier" attribute (one place for both).
inline constexpr const char* kMpCarrierAttributeHelp =
    "What carries the packets: leo (LeoShimProtocol on the link devices, a 28-byte header in "
    "place of IPv4 + UDP) or udp (ns-3 UDP sockets over IPv4, the reference).";

/// The checker of the "Carrier" attribute: the names "leo" and "udp".
inline Ptr<const AttributeChecker>
MakeMpCarrierChecker()
{
    return MakeEnumChecker(MpCarrierKind::LEO, "leo", MpCarrierKind::UDP, "udp");
}

/**
 * @ingroup mp-transport
 * One path's endpoint: sends the transport's packets to the peer and hands every packet
 * received from it to a callback with the path's index. Both ends use the same port.
 */
class MpCarrier : public SimpleRefCount<MpCarrier>
{
  public:
    /// Receiver: the path index given to Open, the packet (transport header first) and the
    /// ECN codepoint it arrived with (RFC 3168's two bits; 0 unless Open was asked for them).
    typedef Callback<void, uint32_t, Ptr<Packet>, uint8_t> ReceiveCallback;

    /**
     * Open the endpoint of path @p index on @p node: @p local and @p peer are the path's
     * addresses, @p port the port on both ends, @p flow the flow id the LEO header carries.
     * With @p readEcn the receive callback gets each packet's ECN codepoint (LEO: the shim
     * header's ECN bits, always available; UDP: the IPv4 TOS byte through
     * Socket::SetIpRecvTos and SocketIpTosTag); without it UDP reports 0.
     * @throws std::runtime_error if the port cannot be bound (or, LEO, the node has no
     *         LeoShimProtocol)
     */
    static Ptr<MpCarrier> Open(MpCarrierKind kind,
                               Ptr<Node> node,
                               uint32_t index,
                               Ipv4Address local,
                               Ipv4Address peer,
                               uint16_t port,
                               uint16_t flow,
                               ReceiveCallback cb,
                               bool readEcn = false);

    virtual ~MpCarrier();
    /**
     * Send a packet to the peer (a packet without a route is dropped, as by a socket) with
     * ECN codepoint @p ecn (0 Not-ECT; LEO: the shim header's ECN bits, UDP: the IPv4 TOS
     * byte's, through a SocketIpTosTag).
     */
    virtual void Send(Ptr<Packet> packet, uint8_t ecn = 0) = 0;
    /// Stop receiving (later packets are dropped); idempotent.
    virtual void Close() = 0;
};

} // namespace ns3

#endif // MP_CARRIER_H
