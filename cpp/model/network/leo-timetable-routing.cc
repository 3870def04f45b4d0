// SPDX-License-Identifier: GPL-2.0-only

#include "leo-timetable-routing.h"

#include "ns3/ipv4-header.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <ostream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeoTimetableRouting);

Ipv4Address
LeoRouteAddressBook::ClientAddress(uint32_t route)
{
    return Ipv4Address(kRouteBase + 2 * route + 1);
}

Ipv4Address
LeoRouteAddressBook::ServerAddress(uint32_t route)
{
    return Ipv4Address(kRouteBase + 2 * route + 2);
}

void
LeoRouteAddressBook::Add(Ipv4Address address, const LeoRouteAddress& entry)
{
    m_entries[address.Get()] = entry;
}

const LeoRouteAddress*
LeoRouteAddressBook::Find(Ipv4Address address) const
{
    auto it = m_entries.find(address.Get());
    return it == m_entries.end() ? nullptr : &it->second;
}

TypeId
LeoTimetableRouting::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeoTimetableRouting")
            .SetParent<Ipv4RoutingProtocol>()
            .SetGroupName("Leo")
            .AddConstructor<LeoTimetableRouting>()
            .AddTraceSource("RouteDrop",
                            "A transit packet had no next hop on its route (drop cause ROUTE).",
                            MakeTraceSourceAccessor(&LeoTimetableRouting::m_routeDropTrace),
                            "ns3::LeoTimetableRouting::RouteDropTracedCallback");
    return tid;
}

LeoTimetableRouting::LeoTimetableRouting() = default;
LeoTimetableRouting::~LeoTimetableRouting() = default;

void
LeoTimetableRouting::Configure(Ptr<const LeoRouteTable> table,
                               Ptr<const LeoRouteAddressBook> book,
                               uint32_t node,
                               std::unordered_map<uint32_t, uint32_t> neighbours,
                               std::unordered_map<uint32_t, Ipv4Address> gateways)
{
    m_table = table;
    m_book = book;
    m_node = node;
    m_neighbours = std::move(neighbours);
    m_gateways = std::move(gateways);
    m_forward.clear();
}

Ptr<Ipv4Route>
LeoTimetableRouting::Toward(int64_t next)
{
    if (next < 0)
    {
        return nullptr;
    }
    const auto key = static_cast<uint32_t>(next);
    auto cached = m_forward.find(key);
    if (cached != m_forward.end())
    {
        return cached->second;
    }
    auto nb = m_neighbours.find(key);
    if (nb == m_neighbours.end())
    {
        return nullptr; // checked when the topology was built; defensive
    }
    Ptr<Ipv4Route> r = Create<Ipv4Route>();
    r->SetGateway(m_gateways[key]);
    r->SetOutputDevice(m_ipv4->GetNetDevice(nb->second));
    r->SetSource(m_ipv4->GetAddress(nb->second, 0).GetLocal());
    m_forward[key] = r;
    return r;
}

Ptr<Ipv4Route>
LeoTimetableRouting::RouteOutput(Ptr<Packet> p,
                                 const Ipv4Header& header,
                                 Ptr<NetDevice> oif,
                                 Socket::SocketErrno& sockerr)
{
    const LeoRouteAddress* e = m_book ? m_book->Find(header.GetDestination()) : nullptr;
    if (!e)
    {
        sockerr = Socket::ERROR_NOROUTETOHOST;
        return nullptr;
    }
    const double now = Simulator::Now().GetSeconds();
    Ptr<Ipv4Route> via = Toward(m_table->NextNode(e->route, e->towardSink, m_node, now));
    if (!via)
    {
        sockerr = Socket::ERROR_NOROUTETOHOST;
        return nullptr;
    }
    // The source is this route's address at this end, so replies come back on the route.
    const uint32_t peerEnd =
        e->towardSink ? m_table->GetSource(e->route) : m_table->GetSink(e->route);
    Ptr<Ipv4Route> r = Create<Ipv4Route>();
    r->SetDestination(header.GetDestination());
    r->SetGateway(via->GetGateway());
    r->SetOutputDevice(via->GetOutputDevice());
    r->SetSource(peerEnd == m_node ? (e->towardSink ? LeoRouteAddressBook::ServerAddress(e->route)
                                                    : LeoRouteAddressBook::ClientAddress(e->route))
                                   : via->GetSource());
    sockerr = Socket::ERROR_NOTERROR;
    return r;
}

bool
LeoTimetableRouting::RouteInput(Ptr<const Packet> p,
                                const Ipv4Header& header,
                                Ptr<const NetDevice> idev,
                                const UnicastForwardCallback& ucb,
                                const MulticastForwardCallback& mcb,
                                const LocalDeliverCallback& lcb,
                                const ErrorCallback& ecb)
{
    const Ipv4Address dst = header.GetDestination();
    const int32_t iif = m_ipv4->GetInterfaceForDevice(idev);
    const LeoRouteAddress* e = m_book ? m_book->Find(dst) : nullptr;
    if (!e)
    {
        if (m_ipv4->IsDestinationAddress(dst, iif))
        {
            lcb(p, header, iif); // a link address of this node
            return true;
        }
        return false;
    }
    if (e->owner == m_node)
    {
        lcb(p, header, iif);
        return true;
    }
    if (!m_intercept.IsNull() && m_intercept(p, header, static_cast<uint32_t>(iif)))
    {
        return true; // taken by the node's transport (a LEOTP Midnode)
    }
    const double now = Simulator::Now().GetSeconds();
    Ptr<Ipv4Route> via = Toward(m_table->NextNode(e->route, e->towardSink, m_node, now));
    if (!via)
    {
        m_routeDropTrace(e->route);
        return false; // Ipv4L3Protocol drops it (no route)
    }
    ucb(via, p, header);
    return true;
}

LeoTimetableRouting::Hop
LeoTimetableRouting::NextHop(Ipv4Address destination, bool transit, Ptr<NetDevice>& device)
{
    const LeoRouteAddress* e = m_book ? m_book->Find(destination) : nullptr;
    if (!e)
    {
        return Hop::UNKNOWN;
    }
    if (e->owner == m_node)
    {
        return Hop::LOCAL;
    }
    const double now = Simulator::Now().GetSeconds();
    Ptr<Ipv4Route> via = Toward(m_table->NextNode(e->route, e->towardSink, m_node, now));
    if (!via)
    {
        if (transit)
        {
            m_routeDropTrace(e->route);
        }
        return Hop::NO_ROUTE;
    }
    device = via->GetOutputDevice();
    return Hop::FORWARD;
}

void
LeoTimetableRouting::SetInterceptor(InterceptCallback cb)
{
    m_intercept = cb;
}

void
LeoTimetableRouting::NotifyInterfaceUp(uint32_t interface)
{
}

void
LeoTimetableRouting::NotifyInterfaceDown(uint32_t interface)
{
}

void
LeoTimetableRouting::NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
}

void
LeoTimetableRouting::NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
}

void
LeoTimetableRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    m_ipv4 = ipv4;
}

void
LeoTimetableRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const
{
    std::ostream& os = *stream->GetStream();
    os << "LeoTimetableRouting on node " << m_node << ": " << m_neighbours.size() << " neighbours, "
       << (m_table ? m_table->GetNRoutes() : 0) << " routes\n";
}

void
LeoTimetableRouting::DoDispose()
{
    m_forward.clear();
    m_intercept = InterceptCallback();
    m_ipv4 = nullptr;
    m_table = nullptr;
    m_book = nullptr;
    Ipv4RoutingProtocol::DoDispose();
}

} // namespace ns3
