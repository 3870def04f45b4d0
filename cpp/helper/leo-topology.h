// SPDX-License-Identifier: GPL-2.0-only
//
// LeoTopology: client and server nodes joined by one LeoChannel per path, with IPv4.

#ifndef LEO_TOPOLOGY_H
#define LEO_TOPOLOGY_H

#include "helper/leo-network.h"
#include "model/link/leo-channel.h"
#include "model/link/leo-link-counters.h"
#include "model/link/leo-net-device.h"
#include "model/link/leo-path-schedule.h"

#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * Builds the LEO scenario's network: a client node (the user terminal, data receiver) and a
 * server node (data sender), one LeoChannel with a client-side and a server-side LeoNetDevice
 * per path, the ns-3 internet stack (IPv4 only, static routing, no queue disc in front of the
 * devices so the device's drop-tail queue is the bottleneck queue), and addresses:
 *
 *   path i: client 10.(i+1).0.1/24, server 10.(i+1).0.2/24 (assigned by hand, no address
 *   generator), so traffic to a path's address leaves on that path's device.
 *
 * Both nodes also carry LeoShimProtocol (leogym's transport on the link devices, beside
 * IPv4), with a direct route per path: the other end's address on path i leaves on path i.
 *
 * Build right after SimContext::Acquire / Reset (on a fresh simulator); the topology is
 * destroyed with the simulator. Ports >= 50000 are reserved for cross traffic
 * (50000 + index).
 */
class LeoTopology : public LeoNetwork
{
  public:
    /// Most paths: one /24 each under 10.0.0.0/8.
    static constexpr std::size_t kMaxPaths = 254;

    /**
     * @param paths one schedule per path (1..254 paths)
     * @param options MTU and stream base
     * @throws std::invalid_argument for an empty / too long path list, a null schedule or a bad
     *         option
     */
    explicit LeoTopology(const std::vector<Ptr<const LeoPathSchedule>>& paths,
                         const LeoTopologyOptions& options = LeoTopologyOptions());

    uint32_t GetNPaths() const;
    Ptr<Node> GetClientNode() const;
    Ptr<Node> GetServerNode() const;
    // GetClientAddress(path) is 10.(i+1).0.1, GetServerAddress(path) 10.(i+1).0.2.
    Ptr<LeoNetDevice> GetClientDevice(uint32_t path) const;
    Ptr<LeoNetDevice> GetServerDevice(uint32_t path) const;
    Ptr<LeoChannel> GetChannel(uint32_t path) const;
    Ptr<const LeoPathSchedule> GetSchedule(uint32_t path) const;
    /// Counters of one direction of one path (DOWN = server -> client).
    const LeoDirectionCounters& GetCounters(uint32_t path, LeoDirection dir) const;

    // LeoNetwork: a route is a path, one link long.
    uint32_t GetNRoutes() const override;
    Ptr<Node> GetRouteServer(uint32_t route) const override;
    Ptr<Node> GetRouteClient(uint32_t route) const override;
    Ipv4Address GetServerAddress(uint32_t path) const override;
    Ipv4Address GetClientAddress(uint32_t path) const override;
    uint64_t GetRouteDrops(uint32_t route, LeoDropCause cause) const override;
    uint32_t GetNLinks() const override;
    Ptr<LeoChannel> GetLink(uint32_t link) const override;
    std::pair<uint32_t, uint32_t> GetLinkEnds(uint32_t link) const override;

  private:
    /// @throws std::out_of_range for a bad path index
    void CheckPath(uint32_t path) const;

    Ptr<Node> m_client;
    Ptr<Node> m_server;
    std::vector<Ptr<const LeoPathSchedule>> m_schedules;
    std::vector<Ptr<LeoChannel>> m_channels;
    std::vector<Ptr<LeoNetDevice>> m_clientDevices;
    std::vector<Ptr<LeoNetDevice>> m_serverDevices;
};

} // namespace ns3

#endif // LEO_TOPOLOGY_H
