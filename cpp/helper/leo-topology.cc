// SPDX-License-Identifier: GPL-2.0-only

#include "leo-topology.h"

#include "model/network/leo-shim-protocol.h"

#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/mac48-address.h"

#include <stdexcept>

namespace ns3
{

LeoTopology::LeoTopology(const std::vector<Ptr<const LeoPathSchedule>>& paths,
                         const LeoTopologyOptions& options)
    : LeoNetwork(options)
{
    if (paths.empty() || paths.size() > kMaxPaths)
    {
        throw std::invalid_argument("paths: need 1.." + std::to_string(kMaxPaths) + " paths, got " +
                                    std::to_string(paths.size()));
    }
    for (std::size_t i = 0; i < paths.size(); ++i)
    {
        if (!paths[i])
        {
            throw std::invalid_argument("paths[" + std::to_string(i) + "]: null schedule");
        }
    }
    ApplyTcpDefaults();

    m_schedules = paths;
    m_client = CreateObject<Node>();
    m_server = CreateObject<Node>();
    NodeContainer nodes(m_client, m_server);

    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    Ipv4StaticRoutingHelper staticRouting;
    stack.SetRoutingHelper(staticRouting);
    stack.Install(nodes);

    const uint32_t n = static_cast<uint32_t>(paths.size());
    Ptr<Ipv4> clientIp = m_client->GetObject<Ipv4>();
    Ptr<Ipv4> serverIp = m_server->GetObject<Ipv4>();
    Ptr<LeoShimProtocol> clientShim = LeoShimProtocol::Install(m_client);
    Ptr<LeoShimProtocol> serverShim = LeoShimProtocol::Install(m_server);
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<LeoNetDevice> cd = CreateObject<LeoNetDevice>();
        Ptr<LeoNetDevice> sd = CreateObject<LeoNetDevice>();
        for (const auto& dev : {cd, sd})
        {
            dev->SetAddress(Mac48Address::Allocate());
            dev->SetMtu(options.mtu);
        }
        m_client->AddDevice(cd);
        m_server->AddDevice(sd);
        Ptr<LeoChannel> ch = CreateObject<LeoChannel>();
        ch->Connect(cd, sd, paths[i]);
        sd->AssignStreams(options.streamBase + 2 * i + static_cast<int>(LeoDirection::DOWN));
        cd->AssignStreams(options.streamBase + 2 * i + static_cast<int>(LeoDirection::UP));

        const Ipv4Mask mask("255.255.255.0");
        const uint32_t net = (10u << 24) | ((i + 1) << 16);
        const int32_t ci = clientIp->AddInterface(cd);
        clientIp->AddAddress(ci, Ipv4InterfaceAddress(Ipv4Address(net | 1), mask));
        clientIp->SetMetric(ci, 1);
        clientIp->SetUp(ci);
        const int32_t si = serverIp->AddInterface(sd);
        serverIp->AddAddress(si, Ipv4InterfaceAddress(Ipv4Address(net | 2), mask));
        serverIp->SetMetric(si, 1);
        serverIp->SetUp(si);
        // leogym's transport: each path's address is reached over the path's device.
        clientShim->AddDirectRoute(Ipv4Address(net | 2), cd);
        serverShim->AddDirectRoute(Ipv4Address(net | 1), sd);

        m_channels.push_back(ch);
        m_clientDevices.push_back(cd);
        m_serverDevices.push_back(sd);
    }
    stack.AssignStreams(nodes, options.streamBase + 2 * n);
}

void
LeoTopology::CheckPath(uint32_t path) const
{
    if (path >= m_channels.size())
    {
        throw std::out_of_range("path index " + std::to_string(path) + " out of range (" +
                                std::to_string(m_channels.size()) + " paths)");
    }
}

uint32_t
LeoTopology::GetNPaths() const
{
    return static_cast<uint32_t>(m_channels.size());
}

Ptr<Node>
LeoTopology::GetClientNode() const
{
    return m_client;
}

Ptr<Node>
LeoTopology::GetServerNode() const
{
    return m_server;
}

Ipv4Address
LeoTopology::GetClientAddress(uint32_t path) const
{
    CheckPath(path);
    return Ipv4Address((10u << 24) | ((path + 1) << 16) | 1);
}

Ipv4Address
LeoTopology::GetServerAddress(uint32_t path) const
{
    CheckPath(path);
    return Ipv4Address((10u << 24) | ((path + 1) << 16) | 2);
}

Ptr<LeoNetDevice>
LeoTopology::GetClientDevice(uint32_t path) const
{
    CheckPath(path);
    return m_clientDevices[path];
}

Ptr<LeoNetDevice>
LeoTopology::GetServerDevice(uint32_t path) const
{
    CheckPath(path);
    return m_serverDevices[path];
}

Ptr<LeoChannel>
LeoTopology::GetChannel(uint32_t path) const
{
    CheckPath(path);
    return m_channels[path];
}

Ptr<const LeoPathSchedule>
LeoTopology::GetSchedule(uint32_t path) const
{
    CheckPath(path);
    return m_schedules[path];
}

const LeoDirectionCounters&
LeoTopology::GetCounters(uint32_t path, LeoDirection dir) const
{
    CheckPath(path);
    return m_channels[path]->GetCounters(dir);
}

uint32_t
LeoTopology::GetNRoutes() const
{
    return GetNPaths();
}

Ptr<Node>
LeoTopology::GetRouteServer(uint32_t route) const
{
    CheckPath(route);
    return m_server;
}

Ptr<Node>
LeoTopology::GetRouteClient(uint32_t route) const
{
    CheckPath(route);
    return m_client;
}

uint64_t
LeoTopology::GetRouteDrops(uint32_t route, LeoDropCause cause) const
{
    return GetCounters(route, LeoDirection::DOWN).dropPackets[cause];
}

uint32_t
LeoTopology::GetNLinks() const
{
    return GetNPaths();
}

Ptr<LeoChannel>
LeoTopology::GetLink(uint32_t link) const
{
    return GetChannel(link);
}

std::pair<uint32_t, uint32_t>
LeoTopology::GetLinkEnds(uint32_t link) const
{
    CheckPath(link);
    return {1, 0}; // node 0 is the client, node 1 the server (DOWN: server -> client)
}

} // namespace ns3
