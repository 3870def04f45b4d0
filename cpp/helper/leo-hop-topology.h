// SPDX-License-Identifier: GPL-2.0-only
//
// LeoHopTopology: one ns-3 node per graph node, one LeoChannel per graph link, forwarding
// along timetabled routes.

#ifndef LEO_HOP_TOPOLOGY_H
#define LEO_HOP_TOPOLOGY_H

#include "helper/leo-network.h"
#include "model/link/leo-channel.h"
#include "model/link/leo-net-device.h"
#include "model/link/leo-path-schedule.h"
#include "model/network/leo-route-table.h"
#include "model/network/leo-timetable-routing.h"

#include "ns3/node.h"
#include "ns3/packet.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * One link of a hop network: nodes @c a and @c b and the schedule of its two directions
 * (DOWN = a -> b, UP = b -> a).
 */
struct LeoHopLinkSpec
{
    uint32_t a{0};
    uint32_t b{0};
    Ptr<const LeoPathSchedule> schedule;
};

/**
 * @ingroup leo-helper
 * A hop network: nodes, links (at most one per node pair) and routes.
 */
struct LeoHopNetworkSpec
{
    std::vector<std::string> nodeNames;
    /// Node kinds ("terminal", "satellite", "ground_station", "server", "router"); empty:
    /// unknown (every node "router"). LEOTP places its Midnodes by kind.
    std::vector<std::string> nodeKinds;
    std::vector<LeoHopLinkSpec> links;
    std::vector<LeoRouteSteps> routes;
};

/**
 * @ingroup leo-helper
 * Builds a hop network (docs/scenario.md, "Path and hop topologies"; cpp/doc/hops.md):
 *
 *  - one ns-3 Node per graph node, with the internet stack (IPv4 only, no queue disc: each
 *    device's drop-tail queue is the link's queue) and LeoTimetableRouting;
 *  - one LeoChannel per link with a LeoNetDevice on each end, exactly as the path topology
 *    builds a path (the device on @c a transmits DOWN); link l's devices get addresses
 *    100.64.0.0 + 4 l + 1 (a) and + 2 (b), /30, and loss streams streamBase +
 *    kLinkStreams + 2 l + dir;
 *  - per route r, the client end's address 10.64.0.0 + 2 r + 1 on its sink node and the server
 *    end's 10.64.0.0 + 2 r + 2 on its source node (on the loopback interface), so that a
 *    packet's destination names its route and direction.
 *
 * Links are shared by every route that crosses them: their queues, rates and losses are the
 * physical link's. Drops are attributed to routes by the dropped packet's destination
 * (GetRouteDrops counts the data direction only).
 *
 * Build right after SimContext::Acquire / Reset.
 */
class LeoHopTopology : public LeoNetwork
{
  public:
    static constexpr int64_t kLinkStreams = 1000000;
    static constexpr int64_t kStackStreams = 900000;
    static constexpr uint32_t kMaxNodes = 4096;
    static constexpr uint32_t kMaxLinks = 8192;

    /**
     * @throws std::invalid_argument naming "network.<field>" for a bad node, link or route
     *         (unknown node, a link joining a node to itself, two links between one pair, a
     *         route step between nodes with no link, a loop, too many nodes or links)
     */
    LeoHopTopology(const LeoHopNetworkSpec& spec,
                   const LeoTopologyOptions& options = LeoTopologyOptions());

    uint32_t GetNNodes() const;
    Ptr<Node> GetNode(uint32_t index) const;
    const std::string& GetNodeName(uint32_t index) const;
    /// The node's kind ("router" when the spec gave none).
    const std::string& GetNodeKind(uint32_t index) const;
    Ptr<const LeoRouteTable> GetRouteTable() const;
    /// Transit packets of a route dropped for want of a next hop (cause ROUTE), both directions.
    uint64_t GetRouteNoRouteDrops(uint32_t route) const;

    // LeoNetwork
    uint32_t GetNRoutes() const override;
    Ptr<Node> GetRouteServer(uint32_t route) const override;
    Ptr<Node> GetRouteClient(uint32_t route) const override;
    Ipv4Address GetServerAddress(uint32_t route) const override;
    Ipv4Address GetClientAddress(uint32_t route) const override;
    uint64_t GetRouteDrops(uint32_t route, LeoDropCause cause) const override;
    uint32_t GetNLinks() const override;
    Ptr<LeoChannel> GetLink(uint32_t link) const override;
    std::pair<uint32_t, uint32_t> GetLinkEnds(uint32_t link) const override;

  private:
    void CheckRoute(uint32_t route) const;
    void OnDeviceDrop(Ptr<const Packet> packet, uint8_t cause);
    void OnNoRoute(uint32_t route);

    std::vector<std::string> m_names;
    std::vector<std::string> m_kinds;
    std::vector<Ptr<Node>> m_nodes;
    std::vector<Ptr<LeoChannel>> m_links;
    std::vector<std::pair<uint32_t, uint32_t>> m_ends;
    Ptr<LeoRouteTable> m_table;
    Ptr<LeoRouteAddressBook> m_book;
    std::vector<std::array<uint64_t, LEO_N_DROP_CAUSES>> m_routeDrops;
    std::vector<uint64_t> m_noRoute;
};

} // namespace ns3

#endif // LEO_HOP_TOPOLOGY_H
