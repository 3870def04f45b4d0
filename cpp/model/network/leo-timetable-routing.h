// SPDX-License-Identifier: GPL-2.0-only
//
// LeoTimetableRouting: IPv4 forwarding along the route of the moment (LeoRouteTable).

#ifndef LEO_TIMETABLE_ROUTING_H
#define LEO_TIMETABLE_ROUTING_H

#include "leo-route-table.h"

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-network
 * Which route an address belongs to. Every route has two addresses of its own: its client
 * (sink) end's and its server (source) end's. A packet to the client end's address travels
 * the route toward the sink, one to the server end's address toward the source, so the
 * destination address alone names the route and the direction.
 */
struct LeoRouteAddress
{
    uint32_t route{0};
    bool towardSink{true}; //!< the address is the route's client (sink) end
    uint32_t owner{0};     //!< node that owns the address (the route's end node)
};

/**
 * @ingroup leo-network
 * The addresses of all routes, shared by every node's LeoTimetableRouting.
 */
class LeoRouteAddressBook : public SimpleRefCount<LeoRouteAddressBook>
{
  public:
    /// Route addresses live in 10.64.0.0/10 (up to 2^21 routes).
    static constexpr uint32_t kRouteBase = (10u << 24) | (64u << 16);
    static constexpr uint32_t kMaxRoutes = 1u << 21;
    /// Route r's client end: 10.64.0.0 + 2r + 1.
    static Ipv4Address ClientAddress(uint32_t route);
    /// Route r's server end: 10.64.0.0 + 2r + 2.
    static Ipv4Address ServerAddress(uint32_t route);

    void Add(Ipv4Address address, const LeoRouteAddress& entry);
    /// nullptr if the address is no route's.
    const LeoRouteAddress* Find(Ipv4Address address) const;

  private:
    std::unordered_map<uint32_t, LeoRouteAddress> m_entries;
};

/**
 * @ingroup leo-network
 * An Ipv4RoutingProtocol that reads a LeoRouteTable: installed on every node of a hop
 * topology, it sends locally originated packets (RouteOutput) and forwards transit packets
 * (RouteInput) to the next node of their route at the current simulation time, so any IPv4
 * transport (leogym's multipath transport, ns-3's TCP and UDP applications) runs end to end
 * over the chain unchanged. Route changes need no events: every lookup reads the timetable.
 *
 * A transit packet without a next hop (its node is on no recent step of its route) is
 * dropped and reported through the RouteDrop trace with its route.
 */
class LeoTimetableRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId();
    LeoTimetableRouting();
    ~LeoTimetableRouting() override;

    /**
     * Configure the protocol once the topology is built.
     * @param table the routes
     * @param book the routes' addresses
     * @param node this node's index in the table
     * @param neighbours interface index toward each neighbour node (node index -> interface)
     * @param gateways the neighbour's address on that link (node index -> address)
     */
    void Configure(Ptr<const LeoRouteTable> table,
                   Ptr<const LeoRouteAddressBook> book,
                   uint32_t node,
                   std::unordered_map<uint32_t, uint32_t> neighbours,
                   std::unordered_map<uint32_t, Ipv4Address> gateways);

    /// Signature of the RouteDrop trace: the packet's route.
    typedef void (*RouteDropTracedCallback)(uint32_t route);

    /**
     * A transport that intercepts transit packets on this node (LEOTP's Midnode: the ns-3
     * analogue of the paper's netfilter redirect). Called for every transit packet of a route
     * (not for packets this node owns) with the packet (starting at its IPv4 payload), its
     * IPv4 header and the input interface; returning true consumes the packet, false lets it
     * be forwarded as usual.
     */
    typedef Callback<bool, Ptr<const Packet>, const Ipv4Header&, uint32_t> InterceptCallback;

    /// Install (or, with a null callback, remove) the interceptor.
    void SetInterceptor(InterceptCallback cb);

    /// What NextHop found for a destination.
    enum class Hop
    {
        LOCAL,    //!< the address is this node's (deliver here)
        FORWARD,  //!< send on the device returned
        NO_ROUTE, //!< this node has no next hop on the route at this time
        UNKNOWN,  //!< the address is no route's
    };

    /**
     * The forwarding decision of RouteOutput (@p transit false: a packet originated here) and
     * RouteInput (@p transit true) without the IPv4 objects, for LeoShimProtocol: the next
     * node of the route of the moment, with the same look-back to earlier steps. A transit
     * packet without a next hop is reported through RouteDrop, as RouteInput does.
     */
    Hop NextHop(Ipv4Address destination, bool transit, Ptr<NetDevice>& device);

    // Ipv4RoutingProtocol
    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    const UnicastForwardCallback& ucb,
                    const MulticastForwardCallback& mcb,
                    const LocalDeliverCallback& lcb,
                    const ErrorCallback& ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

  protected:
    void DoDispose() override;

  private:
    /// The cached route toward a neighbour (-1: none).
    Ptr<Ipv4Route> Toward(int64_t next);

    Ptr<Ipv4> m_ipv4;
    Ptr<const LeoRouteTable> m_table;
    Ptr<const LeoRouteAddressBook> m_book;
    uint32_t m_node{0};
    std::unordered_map<uint32_t, uint32_t> m_neighbours;
    std::unordered_map<uint32_t, Ipv4Address> m_gateways;
    std::unordered_map<uint32_t, Ptr<Ipv4Route>> m_forward; //!< per neighbour, built lazily
    InterceptCallback m_intercept;
    TracedCallback<uint32_t> m_routeDropTrace;
};

} // namespace ns3

#endif // LEO_TIMETABLE_ROUTING_H
