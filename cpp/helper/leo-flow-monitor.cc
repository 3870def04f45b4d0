// SPDX-License-Identifier: GPL-2.0-only

#include "leo-flow-monitor.h"

#include "model/link/leo-delay-tag.h"
#include "model/network/leo-shim-protocol.h"

#include "ns3/ipv4-l3-protocol.h"
#include "ns3/simulator.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/udp-l4-protocol.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

LeoFlowMonitor::LeoFlowMonitor(uint32_t nFlows)
    : m_owd(nFlows),
      m_queueSum(nFlows, 0.0),
      m_sent(nFlows, 0),
      m_segments(nFlows),
      m_recovery(nFlows)
{
}

uint64_t
LeoFlowMonitor::Key(Ipv4Address address, uint16_t port)
{
    return (static_cast<uint64_t>(address.Get()) << 16) | port;
}

void
LeoFlowMonitor::AddFlowKey(uint32_t flow, Ipv4Address sink, uint16_t port)
{
    if (flow < m_owd.size())
    {
        m_flows[Key(sink, port)] = flow;
    }
}

void
LeoFlowMonitor::InstallSource(Ptr<Node> node)
{
    if (m_sources.insert(node->GetId()).second)
    {
        node->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "SendOutgoing",
            MakeCallback(&LeoFlowMonitor::OnSend, this));
        if (Ptr<LeoShimProtocol> shim = node->GetObject<LeoShimProtocol>())
        {
            shim->TraceConnectWithoutContext("SendOutgoing",
                                             MakeCallback(&LeoFlowMonitor::OnShimSend, this));
        }
    }
}

void
LeoFlowMonitor::InstallSink(Ptr<Node> node)
{
    if (m_sinks.insert(node->GetId()).second)
    {
        node->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "LocalDeliver",
            MakeCallback(&LeoFlowMonitor::OnDeliver, this));
        if (Ptr<LeoShimProtocol> shim = node->GetObject<LeoShimProtocol>())
        {
            shim->TraceConnectWithoutContext("LocalDeliver",
                                             MakeCallback(&LeoFlowMonitor::OnShimDeliver, this));
        }
    }
}

int64_t
LeoFlowMonitor::FlowOf(const Ipv4Header& header, Ptr<const Packet> packet) const
{
    const uint8_t proto = header.GetProtocol();
    if (proto != UdpL4Protocol::PROT_NUMBER && proto != TcpL4Protocol::PROT_NUMBER)
    {
        return -1;
    }
    uint8_t ports[4];
    if (packet->CopyData(ports, 4) < 4)
    {
        return -1;
    }
    const auto dstPort = static_cast<uint16_t>((ports[2] << 8) | ports[3]);
    auto it = m_flows.find(Key(header.GetDestination(), dstPort));
    return it == m_flows.end() ? -1 : static_cast<int64_t>(it->second);
}

void
LeoFlowMonitor::OnSend(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t iface)
{
    const int64_t flow = FlowOf(header, packet);
    if (flow < 0)
    {
        return;
    }
    if (header.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
    {
        TcpSent(static_cast<uint32_t>(flow), packet);
    }
    Sent(static_cast<uint32_t>(flow), packet);
}

void
LeoFlowMonitor::OnShimSend(const LeoShimHeader& header, Ptr<const Packet> packet)
{
    auto it = m_flows.find(Key(header.destination, header.destinationPort));
    if (it != m_flows.end())
    {
        Sent(it->second, packet);
    }
}

void
LeoFlowMonitor::OnShimDeliver(const LeoShimHeader& header, Ptr<const Packet> packet)
{
    auto it = m_flows.find(Key(header.destination, header.destinationPort));
    if (it != m_flows.end())
    {
        Arrived(it->second, packet);
    }
}

void
LeoFlowMonitor::Sent(uint32_t flow, Ptr<const Packet> packet)
{
    ++m_sent[flow];
    LeoDelayTag tag;
    tag.sentTicks = Simulator::Now().GetTimeStep();
    // Packet tags are metadata (ns-3's FlowMonitor tags const packets too). ReplacePacketTag
    // adds the tag, or overwrites it on a packet sent again, which is then timed anew.
    ConstCast<Packet>(packet)->ReplacePacketTag(tag);
}

void
LeoFlowMonitor::OnDeliver(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t iface)
{
    const int64_t flow = FlowOf(header, packet);
    if (flow < 0)
    {
        return;
    }
    if (!Arrived(static_cast<uint32_t>(flow), packet))
    {
        return;
    }
    if (header.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
    {
        TcpArrived(static_cast<uint32_t>(flow), packet);
    }
}

bool
LeoFlowMonitor::Arrived(uint32_t flow, Ptr<const Packet> packet)
{
    LeoDelayTag tag;
    if (!packet->PeekPacketTag(tag))
    {
        return false;
    }
    m_owd[flow].push_back(Time(Simulator::Now().GetTimeStep() - tag.sentTicks).GetSeconds());
    m_queueSum[flow] += Time(tag.queueTicks).GetSeconds();
    return true;
}

bool
LeoFlowMonitor::TcpData(Ptr<const Packet> packet, uint32_t& seq)
{
    // RFC 9293 section 3.1: ports (4 bytes), sequence number (4), acknowledgment number (4),
    // data offset (the high 4 bits of byte 12, in 32-bit words).
    uint8_t b[13];
    if (packet->CopyData(b, 13) < 13)
    {
        return false;
    }
    const uint32_t headerBytes = 4u * (b[12] >> 4);
    if (headerBytes < 20 || packet->GetSize() <= headerBytes)
    {
        return false; // no payload: SYN, FIN, pure ACK
    }
    seq = (uint32_t(b[4]) << 24) | (uint32_t(b[5]) << 16) | (uint32_t(b[6]) << 8) | b[7];
    return true;
}

void
LeoFlowMonitor::TcpSent(uint32_t flow, Ptr<const Packet> packet)
{
    uint32_t seq = 0;
    if (!TcpData(packet, seq))
    {
        return;
    }
    auto [it, fresh] = m_segments[flow].try_emplace(seq);
    if (fresh)
    {
        it->second.firstTicks = Simulator::Now().GetTimeStep();
    }
    else
    {
        it->second.retransmitted = true;
    }
}

void
LeoFlowMonitor::TcpArrived(uint32_t flow, Ptr<const Packet> packet)
{
    uint32_t seq = 0;
    if (!TcpData(packet, seq))
    {
        return;
    }
    auto it = m_segments[flow].find(seq);
    if (it == m_segments[flow].end())
    {
        return; // a later copy of a segment that arrived already
    }
    const double owd = Time(Simulator::Now().GetTimeStep() - it->second.firstTicks).GetSeconds();
    Recovery& r = m_recovery[flow];
    if (it->second.retransmitted)
    {
        ++r.retransmitted;
        if (r.retxOwdS.size() < kMaxRecoverySamples)
        {
            r.retxOwdS.push_back(owd);
        }
    }
    else
    {
        ++r.clean;
        if (r.cleanOwdS.size() < kMaxRecoverySamples)
        {
            r.cleanOwdS.push_back(owd);
        }
    }
    m_segments[flow].erase(it);
}

const LeoFlowMonitor::Recovery&
LeoFlowMonitor::GetRecovery(uint32_t flow) const
{
    return m_recovery.at(flow);
}

LeoFlowMonitor::Summary
LeoFlowMonitor::TakeInterval(uint32_t flow)
{
    Summary s;
    std::vector<double>& v = m_owd.at(flow);
    s.packets = v.size();
    s.sent = m_sent.at(flow);
    m_sent[flow] = 0;
    if (v.empty())
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        s.owdMeanS = s.owdP50S = s.owdP99S = s.owdMaxS = s.queueMeanS = nan;
        return s;
    }
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    const auto n = static_cast<double>(v.size());
    s.owdMeanS = sum / n;
    s.queueMeanS = m_queueSum[flow] / n;
    // Nearest-rank percentiles: the ceil(q n)-th smallest sample.
    auto rank = [&](double q) {
        auto k = static_cast<std::size_t>(std::ceil(q * n));
        k = std::min(std::max<std::size_t>(k, 1), v.size()) - 1;
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
        return v[k];
    };
    s.owdP50S = rank(0.50);
    s.owdP99S = rank(0.99);
    s.owdMaxS = *std::max_element(v.begin(), v.end());
    v.clear();
    m_queueSum[flow] = 0.0;
    return s;
}

uint32_t
LeoFlowMonitor::GetNFlows() const
{
    return static_cast<uint32_t>(m_owd.size());
}

} // namespace ns3
