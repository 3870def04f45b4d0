// SPDX-License-Identifier: GPL-2.0-only
//
// LeoShimProtocol: leogym's transport carried directly on the link devices, with its own
// protocol number, beside (not through) the IPv4 stack.

#ifndef LEO_SHIM_PROTOCOL_H
#define LEO_SHIM_PROTOCOL_H

#include "leo-shim-header.h"
#include "leo-timetable-routing.h"

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <unordered_map>

namespace ns3
{

/**
 * @ingroup leo-network
 * A network layer of its own for leogym's multipath transport: packets carry a
 * LeoShimHeader (28 bytes, the size of the IPv4 and UDP headers they replace) and the
 * protocol number PROT_NUMBER, and go straight to a link device's Send(), the one seam where
 * every packet, IPv4 or shim, enters a link's transmit queue. ns-3's TCP and UDP keep using
 * IPv4 on the same devices.
 *
 * Installed on every node of a topology (Install). Where a packet goes:
 *  - path topology: AddDirectRoute(destination address, device): the path's device;
 *  - hop topology: SetRouting(the node's LeoTimetableRouting): the next node of the route of
 *    the moment (LeoTimetableRouting::NextHop, IPv4's rules: a transit packet without a next
 *    hop is dropped and reported through the routing's RouteDrop trace; a forwarding node
 *    decrements the TTL and drops the packet at 0).
 * At the destination the destination port names the receiving endpoint (Bind); a packet to
 * an unbound port is dropped silently (UDP would answer with an ICMP port unreachable).
 */
class LeoShimProtocol : public Object
{
  public:
    /// IEEE 802 "local experimental" EtherType 1, never IPv4's 0x0800.
    static constexpr uint16_t PROT_NUMBER = 0x88B5;

    /// Receiver of a bound port: the payload (header removed) and the header.
    typedef Callback<void, Ptr<Packet>, const LeoShimHeader&> ReceiveCallback;
    /// Signature of the SendOutgoing and LocalDeliver traces.
    typedef void (*PacketTracedCallback)(const LeoShimHeader& header, Ptr<const Packet> payload);

    static TypeId GetTypeId();
    LeoShimProtocol();
    ~LeoShimProtocol() override;

    /**
     * Create the protocol on @p node (aggregated to it) and register it for PROT_NUMBER on
     * all the node's devices; returns the existing one if there is one.
     */
    static Ptr<LeoShimProtocol> Install(Ptr<Node> node);

    /// Path topology: packets to @p destination leave on @p device.
    void AddDirectRoute(Ipv4Address destination, Ptr<NetDevice> device);
    /// Hop topology: packets follow the node's timetable routing.
    void SetRouting(Ptr<LeoTimetableRouting> routing);

    /**
     * Deliver packets arriving for destination port @p port to @p cb.
     * @throws std::invalid_argument if the port is bound already
     */
    void Bind(uint16_t port, ReceiveCallback cb);
    /// Stop delivering to @p port (later packets to it are dropped).
    void Unbind(uint16_t port);

    /**
     * Send @p payload from this node: fills the header's length and TTL, fires SendOutgoing
     * (the header and the payload), adds the header and hands the packet to the device.
     * @return false if there is no route (nothing is sent, no trace fires) or the device
     *         refused the packet (it counted the drop)
     */
    bool Send(Ptr<Packet> payload, LeoShimHeader& header);

    /// Packets dropped here: TTL expired in transit, or no bound port at the destination.
    uint64_t GetTtlDrops() const;
    uint64_t GetPortDrops() const;

  protected:
    void DoDispose() override;

  private:
    void Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType type);
    /// The device toward @p destination, or null; @p local set when it is this node's.
    Ptr<NetDevice> Resolve(Ipv4Address destination, bool transit, bool& local);
    bool Transmit(Ptr<NetDevice> device, Ptr<Packet> packet);

    Ptr<Node> m_node;
    Ptr<LeoTimetableRouting> m_routing;
    std::unordered_map<uint32_t, Ptr<NetDevice>> m_direct; //!< by destination address
    std::unordered_map<uint16_t, ReceiveCallback> m_ports;
    Address m_broadcast;
    uint64_t m_ttlDrops{0};
    uint64_t m_portDrops{0};
    TracedCallback<const LeoShimHeader&, Ptr<const Packet>> m_sendOutgoingTrace;
    TracedCallback<const LeoShimHeader&, Ptr<const Packet>> m_localDeliverTrace;
};

} // namespace ns3

#endif // LEO_SHIM_PROTOCOL_H
