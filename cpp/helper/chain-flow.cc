// SPDX-License-Identifier: GPL-2.0-only

#include "chain-flow.h"

#include "helper/leo-hop-topology.h"
#include "helper/sim-context.h"

#include "ns3/data-rate.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/onoff-application.h"
#include "ns3/packet-sink.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <stdexcept>

namespace ns3
{

namespace
{

constexpr uint16_t kChainPort = 9000;

LeoPathArrays
ConstantLink(const ChainFlowOptions& o)
{
    LeoPathArrays a;
    a.t0S = 0.0;
    a.dtS = o.durationS + 1.0;
    const std::size_t n = 2;
    a.delayDownS.assign(n, o.delayS);
    a.delayUpS.assign(n, o.delayS);
    a.rateDownBps.assign(n, o.rateBps);
    a.rateUpBps.assign(n, o.rateBps);
    a.lossDown.assign(n, 0.0);
    a.lossUp.assign(n, 0.0);
    a.queuePackets = o.queuePackets;
    return a;
}

/// ns-3's own chain: PointToPoint links, one /30 each, a host route per node toward the sink.
std::pair<Ptr<Node>, Ptr<Node>>
BuildP2pChain(const ChainFlowOptions& o, Ipv4Address& sinkAddress)
{
    NodeContainer nodes;
    nodes.Create(o.hops + 1);
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    Ipv4StaticRoutingHelper staticRouting;
    stack.SetRoutingHelper(staticRouting);
    stack.Install(nodes);
    PointToPointHelper p2p;
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, o.queuePackets)));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(o.delayS)));
    // The PPP header adds 2 bytes per packet: scale the rate so full packets take as long as
    // on a LeoChannel of rateBps.
    const double ipBytes = o.payloadBytes + 28.0;
    p2p.SetDeviceAttribute("DataRate",
                           DataRateValue(DataRate(static_cast<uint64_t>(
                               std::llround(o.rateBps * (ipBytes + 2.0) / ipBytes)))));
    std::vector<Ipv4Address> right(o.hops); // address of node l+1 on link l
    for (uint32_t l = 0; l < o.hops; ++l)
    {
        NetDeviceContainer devs = p2p.Install(nodes.Get(l), nodes.Get(l + 1));
        const uint32_t net = (100u << 24) | (64u << 16) | (4 * l);
        for (uint32_t k = 0; k < 2; ++k)
        {
            Ptr<Ipv4> ip = nodes.Get(l + k)->GetObject<Ipv4>();
            const int32_t i = ip->AddInterface(devs.Get(k));
            ip->AddAddress(i, Ipv4InterfaceAddress(Ipv4Address(net + 1 + k), "255.255.255.252"));
            ip->SetUp(i);
        }
        right[l] = Ipv4Address(net + 2);
    }
    sinkAddress = right.back();
    for (uint32_t l = 0; l + 1 < o.hops; ++l)
    {
        Ptr<Ipv4> ip = nodes.Get(l)->GetObject<Ipv4>();
        Ptr<Ipv4StaticRouting> rt = staticRouting.GetStaticRouting(ip);
        // The interface toward node l+1 is the last one added on node l's side of link l.
        const int32_t iface =
            ip->GetInterfaceForAddress(Ipv4Address((100u << 24) | (64u << 16) | (4 * l + 1)));
        rt->AddHostRouteTo(sinkAddress, right[l], static_cast<uint32_t>(iface));
    }
    stack.AssignStreams(nodes, 900000);
    return {nodes.Get(0), nodes.Get(o.hops)};
}

} // namespace

ChainFlowResult
RunChainFlow(const ChainFlowOptions& o)
{
    if (o.link != "leo" && o.link != "p2p")
    {
        throw std::invalid_argument("link: must be 'leo' or 'p2p'");
    }
    if (o.hops < 1 || o.hops > 1024)
    {
        throw std::invalid_argument("hops: must be in [1, 1024]");
    }
    if (!std::isfinite(o.rateBps) || o.rateBps < 1e3 || o.rateBps > 1e11)
    {
        throw std::invalid_argument("rate_bps: must be in [1e3, 1e11]");
    }
    if (!std::isfinite(o.delayS) || o.delayS < 0 || o.delayS > 10)
    {
        throw std::invalid_argument("delay_s: must be in [0, 10]");
    }
    if (!std::isfinite(o.durationS) || o.durationS <= 0 || o.durationS > 1e5)
    {
        throw std::invalid_argument("duration_s: must be in (0, 1e5]");
    }
    if (o.payloadBytes < 1 || o.payloadBytes > 1472)
    {
        throw std::invalid_argument("payload_bytes: must be in [1, 1472]");
    }
    if (o.queuePackets < 1)
    {
        throw std::invalid_argument("queue_packets: must be >= 1");
    }
    const double offered = o.offeredBps > 0 ? o.offeredBps : 0.95 * o.rateBps;

    std::unique_ptr<SimLease> lease = SimContext::Acquire("run_chain_flow", 1, 1);
    std::unique_ptr<LeoHopTopology> hop;
    Ptr<Node> src;
    Ptr<Node> dst;
    Ipv4Address sinkAddress;
    if (o.link == "leo")
    {
        LeoHopNetworkSpec spec;
        LeoRouteSteps route;
        route.startS = {0.0};
        route.nodes.emplace_back();
        for (uint32_t i = 0; i <= o.hops; ++i)
        {
            spec.nodeNames.push_back("n" + std::to_string(i));
            route.nodes[0].push_back(i);
        }
        Ptr<const LeoPathSchedule> sch = Create<LeoPathSchedule>(ConstantLink(o), "link");
        for (uint32_t l = 0; l < o.hops; ++l)
        {
            spec.links.push_back({l, l + 1, sch});
        }
        spec.routes.push_back(route);
        hop = std::make_unique<LeoHopTopology>(spec);
        src = hop->GetRouteServer(0);
        dst = hop->GetRouteClient(0);
        sinkAddress = hop->GetClientAddress(0);
    }
    else
    {
        std::tie(src, dst) = BuildP2pChain(o, sinkAddress);
    }
    Ptr<PacketSink> sink = CreateObject<PacketSink>();
    sink->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName("ns3::UdpSocketFactory")));
    sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), kChainPort)));
    dst->AddApplication(sink);
    Ptr<OnOffApplication> app = CreateObject<OnOffApplication>();
    app->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName("ns3::UdpSocketFactory")));
    app->SetAttribute("Remote", AddressValue(InetSocketAddress(sinkAddress, kChainPort)));
    app->SetAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(offered))));
    app->SetAttribute("PacketSize", UintegerValue(o.payloadBytes));
    app->SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1e9]"));
    app->SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
    src->AddApplication(app);

    Simulator::Stop(Seconds(o.durationS));
    const std::clock_t c0 = std::clock();
    const auto w0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto w1 = std::chrono::steady_clock::now();
    const std::clock_t c1 = std::clock();
    ChainFlowResult r;
    r.wallSeconds = std::chrono::duration<double>(w1 - w0).count();
    r.cpuSeconds = static_cast<double>(c1 - c0) / CLOCKS_PER_SEC;
    r.events = Simulator::GetEventCount();
    r.rxPackets = sink->GetTotalRx() / o.payloadBytes;
    hop.reset();
    return r;
}

} // namespace ns3
