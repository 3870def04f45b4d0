// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpMidnode (cpp/model/leotp/leotp-midnode.h). This file: the type, the attributes, the
// set-up, the flows' soft state and the statistics; the packets (interception, Interests,
// Data, sending, hole repair) are in leotp-midnode-packets.cc.

#include "leotp-midnode.h"

#include "model/network/leo-timetable-routing.h"

#include "ns3/ipv4.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeotpMidnode);

TypeId
LeotpMidnode::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeotpMidnode")
            .SetParent<Object>()
            .SetGroupName("Leogym")
            .AddConstructor<LeotpMidnode>()
            .AddAttribute("CacheBlocks",
                          "Cache size in 4096-byte blocks (LRU), shared by the node's flows.",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&LeotpMidnode::m_cacheBlocks),
                          MakeUintegerChecker<uint64_t>(1, 1ULL << 40));
    return tid;
}

LeotpMidnode::LeotpMidnode() = default;
LeotpMidnode::~LeotpMidnode() = default;

void
LeotpMidnode::DoDispose()
{
    m_sweep.Cancel();
    for (auto& [port, f] : m_flows)
    {
        f->holeTimer.Cancel();
        f->buf.reset();
    }
    m_flows.clear();
    if (m_routing)
    {
        m_routing->SetInterceptor(LeoTimetableRouting::InterceptCallback());
    }
    m_routing = nullptr;
    m_udp = nullptr;
    m_node = nullptr;
    Object::DoDispose();
}

void
LeotpMidnode::Install(Ptr<Node> node)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    m_routing = ipv4 ? DynamicCast<LeoTimetableRouting>(ipv4->GetRoutingProtocol()) : nullptr;
    m_udp = node->GetObject<UdpL4Protocol>();
    if (!m_routing || !m_udp)
    {
        throw std::invalid_argument("LeotpMidnode: the node needs IPv4 with LeoTimetableRouting "
                                    "and UDP (a hop-topology node)");
    }
    m_node = node;
    m_routing->SetInterceptor(MakeCallback(&LeotpMidnode::Intercept, this));
}

void
LeotpMidnode::AddFlow(uint16_t port, uint32_t flowId, const LeotpFlowSettings& settings)
{
    auto f = std::make_unique<Flow>();
    f->port = port;
    f->flowId = flowId;
    f->s = settings;
    f->s.Finalize();
    m_flows[port] = std::move(f);
}

bool
LeotpMidnode::ServesFlow(uint16_t port) const
{
    return m_flows.count(port) > 0;
}

const LeotpCache*
LeotpMidnode::GetCache() const
{
    return m_cache.get();
}

void
LeotpMidnode::Touch(Flow& f)
{
    f.lastActivityS = Simulator::Now().GetSeconds();
}

void
LeotpMidnode::AccountBuffer(Flow& f)
{
    const double now = Simulator::Now().GetSeconds();
    f.bufArea += f.bufLastBytes * (now - f.bufLastS);
    f.bufLastS = now;
    f.bufLastBytes = f.buf ? static_cast<double>(f.buf->GetBytes()) : 0.0;
}

double
LeotpMidnode::TakeMeanBufferBytes(uint16_t port)
{
    auto it = m_flows.find(port);
    if (it == m_flows.end())
    {
        return 0.0;
    }
    Flow& f = *it->second;
    AccountBuffer(f);
    const double now = Simulator::Now().GetSeconds();
    const double mean = now > f.meanStartS ? f.bufArea / (now - f.meanStartS) : f.bufLastBytes;
    f.bufArea = 0;
    f.meanStartS = now;
    return mean;
}

LeotpMidnode::Flow&
LeotpMidnode::State(Flow& f, const Ipv4Header& ip, bool interest)
{
    if (interest)
    {
        f.server = ip.GetDestination();
        f.client = ip.GetSource();
    }
    else
    {
        f.client = ip.GetDestination();
        f.server = ip.GetSource();
    }
    if (f.active)
    {
        return f;
    }
    // A node that joins a flow starts fresh [REC]: Requester in SlowStart, no hole, Responder
    // at R_init until the first Interest from downstream.
    f.active = true;
    ++f.stats.states;
    f.ctrl = std::make_unique<LeotpHopController>(f.s.hop);
    f.det = std::make_unique<LeotpHoleDetector>(f.s.hole);
    Flow* fp = &f;
    f.buf = std::make_unique<LeotpSendBuffer>(
        f.s.hop.initialRateBps,
        f.s.WirePacketBytes(),
        f.s.maxBufferBytes,
        f.RateControlled(),
        [this, fp](LeotpQueued&& q) { Release(*fp, std::move(q)); });
    f.lastInterestS = -1e300;
    f.upstreamIf = -1;
    f.interestIf = -1;
    const double now = Simulator::Now().GetSeconds();
    f.bufLastS = now;
    f.bufLastBytes = 0;
    if (f.meanStartS == 0 && f.bufArea == 0)
    {
        f.meanStartS = now;
    }
    if (!m_cache && f.Repairs())
    {
        m_cache = std::make_unique<LeotpCache>(m_cacheBlocks);
    }
    if (!m_sweep.IsPending())
    {
        m_sweep = Simulator::Schedule(Seconds(f.s.idleTimeoutS / 2), &LeotpMidnode::Sweep, this);
    }
    return f;
}

void
LeotpMidnode::Sweep()
{
    const double now = Simulator::Now().GetSeconds();
    double next = std::numeric_limits<double>::infinity();
    for (auto& [port, fp] : m_flows)
    {
        Flow& f = *fp;
        if (!f.active)
        {
            continue;
        }
        if (now - f.lastActivityS >= f.s.idleTimeoutS && f.buf->GetPackets() == 0)
        {
            // soft state expires [REC]; counters stay
            AccountBuffer(f);
            f.stats.bufferDrops += f.buf->GetDrops();
            f.holeTimer.Cancel();
            f.buf.reset();
            f.ctrl.reset();
            f.det.reset();
            f.active = false;
            f.bufLastBytes = 0;
            ++f.stats.expiries;
            continue;
        }
        next = std::min(next, f.s.idleTimeoutS / 2);
    }
    if (std::isfinite(next))
    {
        m_sweep = Simulator::Schedule(Seconds(next), &LeotpMidnode::Sweep, this);
    }
}

LeotpMidnode::FlowStats
LeotpMidnode::GetFlowStats(uint16_t port) const
{
    auto it = m_flows.find(port);
    if (it == m_flows.end())
    {
        return FlowStats();
    }
    const Flow& f = *it->second;
    FlowStats s = f.stats;
    s.active = f.active;
    if (f.active)
    {
        s.bufferDrops += f.buf->GetDrops();
        s.rateBps = f.buf->GetRate();
        s.bufferBytes = f.buf->GetBytes();
        s.bufferPackets = f.buf->GetPackets();
        s.cwnd = f.ctrl->GetCwnd();
        s.hopRttS =
            f.ctrl->HasSample() ? f.ctrl->GetHopRttS() : std::numeric_limits<double>::quiet_NaN();
        s.throughputBps = f.ctrl->GetThroughputBps();
    }
    return s;
}

} // namespace ns3
