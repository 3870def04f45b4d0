// SPDX-License-Identifier: GPL-2.0-only

#include "leo-shim-protocol.h"

#include "ns3/mac48-address.h"
#include "ns3/trace-source-accessor.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeoShimProtocol);

TypeId
LeoShimProtocol::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeoShimProtocol")
            .SetParent<Object>()
            .SetGroupName("Leo")
            .AddConstructor<LeoShimProtocol>()
            .AddTraceSource("SendOutgoing",
                            "A packet originated here is about to be sent (header, payload).",
                            MakeTraceSourceAccessor(&LeoShimProtocol::m_sendOutgoingTrace),
                            "ns3::LeoShimProtocol::PacketTracedCallback")
            .AddTraceSource("LocalDeliver",
                            "A packet arrived at its destination node (header, payload).",
                            MakeTraceSourceAccessor(&LeoShimProtocol::m_localDeliverTrace),
                            "ns3::LeoShimProtocol::PacketTracedCallback");
    return tid;
}

LeoShimProtocol::LeoShimProtocol()
    : m_broadcast(Mac48Address::GetBroadcast())
{
}

LeoShimProtocol::~LeoShimProtocol() = default;

Ptr<LeoShimProtocol>
LeoShimProtocol::Install(Ptr<Node> node)
{
    Ptr<LeoShimProtocol> shim = node->GetObject<LeoShimProtocol>();
    if (shim)
    {
        return shim;
    }
    shim = CreateObject<LeoShimProtocol>();
    shim->m_node = node;
    node->AggregateObject(shim);
    node->RegisterProtocolHandler(MakeCallback(&LeoShimProtocol::Receive, PeekPointer(shim)),
                                  PROT_NUMBER,
                                  nullptr);
    return shim;
}

void
LeoShimProtocol::AddDirectRoute(Ipv4Address destination, Ptr<NetDevice> device)
{
    m_direct[destination.Get()] = device;
}

void
LeoShimProtocol::SetRouting(Ptr<LeoTimetableRouting> routing)
{
    m_routing = routing;
}

void
LeoShimProtocol::Bind(uint16_t port, ReceiveCallback cb)
{
    if (!m_ports.emplace(port, cb).second)
    {
        throw std::invalid_argument("LeoShimProtocol: port " + std::to_string(port) +
                                    " is bound already");
    }
}

void
LeoShimProtocol::Unbind(uint16_t port)
{
    m_ports.erase(port);
}

uint64_t
LeoShimProtocol::GetTtlDrops() const
{
    return m_ttlDrops;
}

uint64_t
LeoShimProtocol::GetPortDrops() const
{
    return m_portDrops;
}

Ptr<NetDevice>
LeoShimProtocol::Resolve(Ipv4Address destination, bool transit, bool& local)
{
    local = false;
    if (m_routing)
    {
        Ptr<NetDevice> device;
        switch (m_routing->NextHop(destination, transit, device))
        {
        case LeoTimetableRouting::Hop::LOCAL:
            local = true;
            return nullptr;
        case LeoTimetableRouting::Hop::FORWARD:
            return device;
        default:
            return nullptr;
        }
    }
    if (transit)
    {
        local = true; // path topology: every arriving packet is for this node
        return nullptr;
    }
    auto it = m_direct.find(destination.Get());
    return it == m_direct.end() ? nullptr : it->second;
}

bool
LeoShimProtocol::Transmit(Ptr<NetDevice> device, Ptr<Packet> packet)
{
    return device->Send(packet, m_broadcast, PROT_NUMBER);
}

bool
LeoShimProtocol::Send(Ptr<Packet> payload, LeoShimHeader& header)
{
    bool local = false;
    Ptr<NetDevice> device = Resolve(header.destination, false, local);
    if (!device)
    {
        return false; // as a UDP socket without a route: nothing leaves, nothing is traced
    }
    header.length = static_cast<uint16_t>(payload->GetSize());
    header.ttl = LeoShimHeader::kDefaultTtl;
    m_sendOutgoingTrace(header, payload);
    payload->AddHeader(header);
    return Transmit(device, payload);
}

void
LeoShimProtocol::Receive(Ptr<NetDevice> device,
                         Ptr<const Packet> p,
                         uint16_t protocol,
                         const Address& from,
                         const Address& to,
                         NetDevice::PacketType type)
{
    if (p->GetSize() < LeoShimHeader::kSize)
    {
        return;
    }
    Ptr<Packet> packet = p->Copy();
    LeoShimHeader h;
    packet->RemoveHeader(h);
    if (!h.valid)
    {
        return;
    }
    bool local = false;
    Ptr<NetDevice> next = Resolve(h.destination, true, local);
    if (local)
    {
        auto it = m_ports.find(h.destinationPort);
        if (it == m_ports.end() || it->second.IsNull())
        {
            ++m_portDrops;
            return;
        }
        m_localDeliverTrace(h, packet);
        it->second(packet, h);
        return;
    }
    if (!next)
    {
        return; // no next hop (counted by the routing's RouteDrop trace) or unknown address
    }
    // Forwarding, as IPv4's IpForward: the TTL goes down by one; at 0 the packet is dropped.
    --h.ttl;
    if (h.ttl == 0)
    {
        ++m_ttlDrops;
        return;
    }
    packet->AddHeader(h);
    Transmit(next, packet);
}

void
LeoShimProtocol::DoDispose()
{
    m_ports.clear();
    m_direct.clear();
    m_routing = nullptr;
    m_node = nullptr;
    Object::DoDispose();
}

} // namespace ns3
