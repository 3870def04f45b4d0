// SPDX-License-Identifier: GPL-2.0-only

#include "leo-hop-topology.h"

#include "model/network/leo-shim-protocol.h"

#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/mac48-address.h"

#include <map>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Gives every node a LeoTimetableRouting (configured once the links exist).
class TimetableRoutingHelper : public Ipv4RoutingHelper
{
  public:
    TimetableRoutingHelper* Copy() const override
    {
        return new TimetableRoutingHelper(*this);
    }

    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override
    {
        return CreateObject<LeoTimetableRouting>();
    }
};

constexpr uint32_t kLinkAddressBase = (100u << 24) | (64u << 16); // 100.64.0.0/10

std::string
NodeLabel(const std::vector<std::string>& names, uint32_t i)
{
    return i < names.size() && !names[i].empty() ? "'" + names[i] + "'"
                                                 : "node " + std::to_string(i);
}

} // namespace

LeoHopTopology::LeoHopTopology(const LeoHopNetworkSpec& spec, const LeoTopologyOptions& options)
    : LeoNetwork(options),
      m_names(spec.nodeNames),
      m_kinds(spec.nodeKinds)
{
    const auto nNodes = static_cast<uint32_t>(spec.nodeNames.size());
    if (!m_kinds.empty() && m_kinds.size() != spec.nodeNames.size())
    {
        throw std::invalid_argument("network.kinds: one kind per node expected");
    }
    m_kinds.resize(spec.nodeNames.size(), "router");
    if (nNodes < 2 || nNodes > kMaxNodes)
    {
        throw std::invalid_argument("network.nodes: need 2.." + std::to_string(kMaxNodes) +
                                    " nodes, got " + std::to_string(nNodes));
    }
    if (spec.links.empty() || spec.links.size() > kMaxLinks)
    {
        throw std::invalid_argument("network.links: need 1.." + std::to_string(kMaxLinks) +
                                    " links, got " + std::to_string(spec.links.size()));
    }
    if (spec.routes.empty() || spec.routes.size() > LeoRouteAddressBook::kMaxRoutes)
    {
        throw std::invalid_argument("network.routes: need at least one route");
    }
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> pair;
    for (std::size_t l = 0; l < spec.links.size(); ++l)
    {
        const LeoHopLinkSpec& ln = spec.links[l];
        const std::string f = "network.links[" + std::to_string(l) + "]";
        if (ln.a >= nNodes || ln.b >= nNodes)
        {
            throw std::invalid_argument(f + ": unknown node " +
                                        std::to_string(ln.a >= nNodes ? ln.a : ln.b));
        }
        if (ln.a == ln.b)
        {
            throw std::invalid_argument(f + ": joins " + NodeLabel(m_names, ln.a) + " to itself");
        }
        if (!ln.schedule)
        {
            throw std::invalid_argument(f + ": no schedule");
        }
        auto key = std::minmax(ln.a, ln.b);
        if (!pair.emplace(key, static_cast<uint32_t>(l)).second)
        {
            throw std::invalid_argument(f + ": a second link between " + NodeLabel(m_names, ln.a) +
                                        " and " + NodeLabel(m_names, ln.b));
        }
    }
    // Routes: the table checks steps, nodes and loops; here every hop must be a link.
    try
    {
        m_table = Create<LeoRouteTable>(spec.routes, nNodes);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string("network.") + e.what());
    }
    for (std::size_t r = 0; r < spec.routes.size(); ++r)
    {
        const auto& rt = spec.routes[r];
        for (std::size_t k = 0; k < rt.nodes.size(); ++k)
        {
            const auto& nodes = rt.nodes[k];
            for (std::size_t j = 0; j + 1 < nodes.size(); ++j)
            {
                if (!pair.count(std::minmax(nodes[j], nodes[j + 1])))
                {
                    throw std::invalid_argument("network.routes[" + std::to_string(r) + "].steps[" +
                                                std::to_string(k) + "]: no link between " +
                                                NodeLabel(m_names, nodes[j]) + " and " +
                                                NodeLabel(m_names, nodes[j + 1]));
                }
            }
        }
    }
    ApplyTcpDefaults();

    // ---- build ------------------------------------------------------------------------------
    NodeContainer all;
    for (uint32_t i = 0; i < nNodes; ++i)
    {
        m_nodes.push_back(CreateObject<Node>());
        all.Add(m_nodes.back());
    }
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    TimetableRoutingHelper routing;
    stack.SetRoutingHelper(routing);
    stack.Install(all);

    std::vector<std::unordered_map<uint32_t, uint32_t>> neighbours(nNodes);
    std::vector<std::unordered_map<uint32_t, Ipv4Address>> gateways(nNodes);
    const Ipv4Mask mask("255.255.255.252");
    for (std::size_t l = 0; l < spec.links.size(); ++l)
    {
        const LeoHopLinkSpec& ln = spec.links[l];
        Ptr<LeoNetDevice> da = CreateObject<LeoNetDevice>(); // transmits DOWN (a -> b)
        Ptr<LeoNetDevice> db = CreateObject<LeoNetDevice>(); // transmits UP (b -> a)
        for (const auto& dev : {da, db})
        {
            dev->SetAddress(Mac48Address::Allocate());
            dev->SetMtu(options.mtu);
        }
        m_nodes[ln.a]->AddDevice(da);
        m_nodes[ln.b]->AddDevice(db);
        Ptr<LeoChannel> ch = CreateObject<LeoChannel>();
        ch->Connect(db, da, ln.schedule);
        const int64_t s = options.streamBase + kLinkStreams + 2 * static_cast<int64_t>(l);
        da->AssignStreams(s + static_cast<int>(LeoDirection::DOWN));
        db->AssignStreams(s + static_cast<int>(LeoDirection::UP));
        da->TraceConnectWithoutContext("Drop", MakeCallback(&LeoHopTopology::OnDeviceDrop, this));
        db->TraceConnectWithoutContext("Drop", MakeCallback(&LeoHopTopology::OnDeviceDrop, this));

        const uint32_t net = kLinkAddressBase + 4 * static_cast<uint32_t>(l);
        const Ipv4Address addrA(net + 1);
        const Ipv4Address addrB(net + 2);
        Ptr<Ipv4> ipA = m_nodes[ln.a]->GetObject<Ipv4>();
        Ptr<Ipv4> ipB = m_nodes[ln.b]->GetObject<Ipv4>();
        const int32_t ia = ipA->AddInterface(da);
        ipA->AddAddress(ia, Ipv4InterfaceAddress(addrA, mask));
        ipA->SetUp(ia);
        const int32_t ib = ipB->AddInterface(db);
        ipB->AddAddress(ib, Ipv4InterfaceAddress(addrB, mask));
        ipB->SetUp(ib);
        neighbours[ln.a][ln.b] = static_cast<uint32_t>(ia);
        neighbours[ln.b][ln.a] = static_cast<uint32_t>(ib);
        gateways[ln.a][ln.b] = addrB;
        gateways[ln.b][ln.a] = addrA;
        m_links.push_back(ch);
        m_ends.emplace_back(ln.a, ln.b);
    }

    m_book = Create<LeoRouteAddressBook>();
    const Ipv4Mask host("255.255.255.255");
    for (uint32_t r = 0; r < m_table->GetNRoutes(); ++r)
    {
        const uint32_t src = m_table->GetSource(r);
        const uint32_t snk = m_table->GetSink(r);
        m_book->Add(LeoRouteAddressBook::ClientAddress(r), {r, true, snk});
        m_book->Add(LeoRouteAddressBook::ServerAddress(r), {r, false, src});
        m_nodes[snk]->GetObject<Ipv4>()->AddAddress(
            0,
            Ipv4InterfaceAddress(LeoRouteAddressBook::ClientAddress(r), host));
        m_nodes[src]->GetObject<Ipv4>()->AddAddress(
            0,
            Ipv4InterfaceAddress(LeoRouteAddressBook::ServerAddress(r), host));
    }
    for (uint32_t i = 0; i < nNodes; ++i)
    {
        Ptr<LeoTimetableRouting> rp =
            DynamicCast<LeoTimetableRouting>(m_nodes[i]->GetObject<Ipv4>()->GetRoutingProtocol());
        rp->Configure(m_table, m_book, i, std::move(neighbours[i]), std::move(gateways[i]));
        rp->TraceConnectWithoutContext("RouteDrop", MakeCallback(&LeoHopTopology::OnNoRoute, this));
        // leogym's transport forwards hop by hop from the same timetable, without IPv4.
        LeoShimProtocol::Install(m_nodes[i])->SetRouting(rp);
    }
    m_routeDrops.assign(m_table->GetNRoutes(), {});
    m_noRoute.assign(m_table->GetNRoutes(), 0);
    stack.AssignStreams(all, options.streamBase + kStackStreams);
}

void
LeoHopTopology::OnDeviceDrop(Ptr<const Packet> packet, uint8_t cause)
{
    // An IPv4 header (20 bytes, destination at 16) or a LeoShimHeader (28 bytes, at 8).
    uint8_t ip[LeoShimHeader::kSize];
    const uint32_t n = packet->CopyData(ip, sizeof(ip));
    if (cause >= LEO_N_DROP_CAUSES || n < 20)
    {
        return;
    }
    Ipv4Address dst;
    if (LeoShimHeader::IsShim(ip[0]))
    {
        if (n < LeoShimHeader::kSize)
        {
            return;
        }
        dst = LeoShimHeader::DestinationOf(ip);
    }
    else
    {
        dst = Ipv4Address((uint32_t(ip[16]) << 24) | (uint32_t(ip[17]) << 16) |
                          (uint32_t(ip[18]) << 8) | uint32_t(ip[19]));
    }
    const LeoRouteAddress* e = m_book->Find(dst);
    if (e && e->towardSink)
    {
        ++m_routeDrops[e->route][cause];
    }
}

void
LeoHopTopology::OnNoRoute(uint32_t route)
{
    if (route < m_noRoute.size())
    {
        ++m_noRoute[route];
    }
}

void
LeoHopTopology::CheckRoute(uint32_t route) const
{
    if (route >= m_table->GetNRoutes())
    {
        throw std::out_of_range("route index " + std::to_string(route) + " out of range (" +
                                std::to_string(m_table->GetNRoutes()) + " routes)");
    }
}

uint32_t
LeoHopTopology::GetNNodes() const
{
    return static_cast<uint32_t>(m_nodes.size());
}

Ptr<Node>
LeoHopTopology::GetNode(uint32_t index) const
{
    return m_nodes.at(index);
}

const std::string&
LeoHopTopology::GetNodeName(uint32_t index) const
{
    return m_names.at(index);
}

const std::string&
LeoHopTopology::GetNodeKind(uint32_t index) const
{
    return m_kinds.at(index);
}

Ptr<const LeoRouteTable>
LeoHopTopology::GetRouteTable() const
{
    return m_table;
}

uint64_t
LeoHopTopology::GetRouteNoRouteDrops(uint32_t route) const
{
    CheckRoute(route);
    return m_noRoute[route];
}

uint32_t
LeoHopTopology::GetNRoutes() const
{
    return m_table->GetNRoutes();
}

Ptr<Node>
LeoHopTopology::GetRouteServer(uint32_t route) const
{
    CheckRoute(route);
    return m_nodes[m_table->GetSource(route)];
}

Ptr<Node>
LeoHopTopology::GetRouteClient(uint32_t route) const
{
    CheckRoute(route);
    return m_nodes[m_table->GetSink(route)];
}

Ipv4Address
LeoHopTopology::GetServerAddress(uint32_t route) const
{
    CheckRoute(route);
    return LeoRouteAddressBook::ServerAddress(route);
}

Ipv4Address
LeoHopTopology::GetClientAddress(uint32_t route) const
{
    CheckRoute(route);
    return LeoRouteAddressBook::ClientAddress(route);
}

uint64_t
LeoHopTopology::GetRouteDrops(uint32_t route, LeoDropCause cause) const
{
    CheckRoute(route);
    return m_routeDrops[route][cause];
}

uint32_t
LeoHopTopology::GetNLinks() const
{
    return static_cast<uint32_t>(m_links.size());
}

Ptr<LeoChannel>
LeoHopTopology::GetLink(uint32_t link) const
{
    return m_links.at(link);
}

std::pair<uint32_t, uint32_t>
LeoHopTopology::GetLinkEnds(uint32_t link) const
{
    return m_ends.at(link);
}

} // namespace ns3
