// SPDX-License-Identifier: GPL-2.0-only

#include "reference-flows.h"

#include "helper/reference-tcp-attributes.h"
#include "helper/sim-context.h"
#include "model/apps/leo-tcp-bulk-sender.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/integer.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/onoff-application.h"
#include "ns3/packet-sink.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/rtt-estimator.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace ns3
{

namespace
{

constexpr uint16_t kFlowPort = 9000;

std::vector<Ptr<const LeoPathSchedule>>
MakeSchedules(const std::vector<LeoPathArrays>& paths)
{
    std::vector<Ptr<const LeoPathSchedule>> out;
    out.reserve(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i)
    {
        out.push_back(Create<LeoPathSchedule>(paths[i], "paths[" + std::to_string(i) + "]"));
    }
    return out;
}

double
MaxOf(const std::vector<double>& v)
{
    return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

bool
IsConstant(const std::vector<double>& v)
{
    return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}

/// The "p2p" reference link: ns-3's PointToPointNetDevice pair, same addresses as LeoTopology.
struct P2pNet
{
    Ptr<Node> client;
    Ptr<Node> server;
    Ptr<NetDevice> clientDevice;
};

void
CheckP2pPath(const LeoPathArrays& a, const ReferenceFlowOptions& o)
{
    auto fail = [](const std::string& what) {
        throw std::invalid_argument("link: 'p2p' needs " + what);
    };
    if (!IsConstant(a.rateDownBps) || !IsConstant(a.rateUpBps) || !IsConstant(a.delayDownS) ||
        !IsConstant(a.delayUpS))
    {
        fail("constant rate and delay arrays");
    }
    if (a.delayDownS.front() != a.delayUpS.front())
    {
        fail("delay_down_s == delay_up_s (one channel delay)");
    }
    if (MaxOf(a.lossDown) > 0.0 || MaxOf(a.lossUp) > 0.0 || !a.outages.empty())
    {
        fail("zero loss and no outages");
    }
    if (!o.crossTraffic.empty())
    {
        fail("no cross traffic");
    }
}

P2pNet
BuildP2p(const LeoPathArrays& a, uint16_t mtu, int64_t streamBase)
{
    P2pNet net;
    net.client = CreateObject<Node>();
    net.server = CreateObject<Node>();
    NodeContainer nodes(net.client, net.server);
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    Ipv4StaticRoutingHelper staticRouting;
    stack.SetRoutingHelper(staticRouting);
    stack.Install(nodes);

    PointToPointHelper p2p;
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, a.queuePackets)));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(a.delayDownS.front())));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    NetDeviceContainer devs = p2p.Install(net.client, net.server);
    const double scale = (mtu + 2.0) / mtu; // PPP header
    devs.Get(0)->SetAttribute(
        "DataRate",
        DataRateValue(DataRate(static_cast<uint64_t>(std::llround(a.rateUpBps.front() * scale)))));
    devs.Get(1)->SetAttribute("DataRate",
                              DataRateValue(DataRate(static_cast<uint64_t>(
                                  std::llround(a.rateDownBps.front() * scale)))));
    net.clientDevice = devs.Get(0);

    const Ipv4Mask mask("255.255.255.0");
    const uint32_t netAddr = (10u << 24) | (1u << 16);
    for (uint32_t k = 0; k < 2; ++k)
    {
        Ptr<Ipv4> ip = nodes.Get(k)->GetObject<Ipv4>();
        const int32_t i = ip->AddInterface(devs.Get(k));
        ip->AddAddress(i, Ipv4InterfaceAddress(Ipv4Address(netAddr | (k + 1)), mask));
        ip->SetMetric(i, 1);
        ip->SetUp(i);
    }
    stack.AssignStreams(nodes, streamBase + 2);
    return net;
}

/// Counters of the flow's TCP socket, fed by its trace sources.
struct TcpSocketCounters
{
    uint64_t rtoExpiries{0};
    uint64_t lossEpisodes{0};
    uint64_t recoveryEpisodes{0};
    uint64_t retransmissions{0};
};

void
ConnectTcpCounters(Ptr<Socket> socket, TcpSocketCounters* c)
{
    if (!socket)
    {
        return;
    }
    // TcpSocketBase::ReTxTimeout sets m_rto = min(2 m_rto, 60 s) on every expiry; an RTT
    // sample sets it from the estimator (SRTT + max(G, 4 RTTVAR), floor MinRto).
    socket->TraceConnectWithoutContext("RTO", Callback<void, Time, Time>([c](Time a, Time b) {
                                           if (a.IsStrictlyPositive() &&
                                               b == std::min(a * 2, Seconds(60)) && b != a)
                                           {
                                               ++c->rtoExpiries;
                                           }
                                       }));
    socket->TraceConnectWithoutContext(
        "CongState",
        Callback<void, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t>(
            [c](TcpSocketState::TcpCongState_t a, TcpSocketState::TcpCongState_t b) {
                if (b == TcpSocketState::CA_LOSS && a != b)
                {
                    ++c->lossEpisodes;
                }
                if (b == TcpSocketState::CA_RECOVERY && a != b)
                {
                    ++c->recoveryEpisodes;
                }
            }));
    socket->TraceConnectWithoutContext(
        "Retransmission",
        Callback<void,
                 Ptr<const Packet>,
                 const TcpHeader&,
                 const Address&,
                 const Address&,
                 Ptr<const TcpSocketBase>>(
            [c](Ptr<const Packet>,
                const TcpHeader&,
                const Address&,
                const Address&,
                Ptr<const TcpSocketBase>) { ++c->retransmissions; }));
}

} // namespace

ReferenceFlowResult
RunReferenceFlow(const std::vector<LeoPathArrays>& paths,
                 double durationS,
                 uint32_t seed,
                 uint64_t run,
                 const ReferenceFlowOptions& o)
{
    // --- validate everything before touching ns-3 --------------------------------------
    if (!std::isfinite(durationS) || durationS <= 0.0 || durationS > 1e7)
    {
        throw std::invalid_argument("duration_s: must be in (0, 1e7] s");
    }
    if (seed == 0)
    {
        throw std::invalid_argument("seed: must be >= 1");
    }
    if (paths.empty())
    {
        throw std::invalid_argument("paths: need at least one path");
    }
    if (o.kind != "tcp_bulk" && o.kind != "udp")
    {
        throw std::invalid_argument("kind: must be 'tcp_bulk' or 'udp', got '" + o.kind + "'");
    }
    if (o.path >= paths.size())
    {
        throw std::invalid_argument("path: index " + std::to_string(o.path) + " out of range (" +
                                    std::to_string(paths.size()) + " paths)");
    }
    if (!std::isfinite(o.startS) || o.startS < 0.0 || o.startS >= durationS)
    {
        throw std::invalid_argument("start_s: must be in [0, duration_s)");
    }
    if (o.mtu < 68)
    {
        throw std::invalid_argument("mtu: must be in [68, 65535]");
    }
    if (o.link != "leo" && o.link != "p2p")
    {
        throw std::invalid_argument("link: must be 'leo' or 'p2p', got '" + o.link + "'");
    }
    if (o.link == "p2p")
    {
        if (paths.size() != 1)
        {
            throw std::invalid_argument("link: 'p2p' needs exactly one path");
        }
        CheckP2pPath(paths.front(), o);
    }
    TypeId cc;
    if (o.kind == "tcp_bulk")
    {
        cc = LeoTopology::ResolveTcpVariant(o.tcpVariant, "tcp_variant");
        if (o.segmentBytes < 1 || o.segmentBytes + 40u > o.mtu)
        {
            throw std::invalid_argument("segment_bytes: must be in [1, mtu - 40]");
        }
    }
    else
    {
        if (o.udpPayloadBytes < 1 || o.udpPayloadBytes + 28u > o.mtu)
        {
            throw std::invalid_argument("udp_payload_bytes: must be in [1, mtu - 28]");
        }
        if (!std::isfinite(o.udpRateBps) || o.udpRateBps < 0.0 || o.udpRateBps > 1e12)
        {
            throw std::invalid_argument("udp_rate_bps: must be in [0, 1e12] (0 = auto)");
        }
    }
    const std::vector<ResolvedTcpAttribute> tcpAttributes = ResolveTcpAttributes(o.tcpAttributes);
    const std::vector<Ptr<const LeoPathSchedule>> schedules = MakeSchedules(paths);
    const LeoPathArrays& fp = paths[o.path];

    // Automatic buffers: twice (BDP + queue) so that TCP is limited by the link, not the window.
    const double bdpBytes =
        MaxOf(fp.rateDownBps) * (MaxOf(fp.delayDownS) + MaxOf(fp.delayUpS)) / 8.0;
    const double queueBytes = static_cast<double>(fp.queuePackets) * o.mtu;
    const double autoBuf = std::clamp(2.0 * (bdpBytes + queueBytes), 131072.0, 1073741824.0);
    const uint32_t sndBuf = o.sndBufBytes ? o.sndBufBytes : static_cast<uint32_t>(autoBuf);
    const uint32_t rcvBuf = o.rcvBufBytes ? o.rcvBufBytes : static_cast<uint32_t>(autoBuf);
    double udpRate = o.udpRateBps > 0.0 ? o.udpRateBps : 1.05 * MaxOf(fp.rateDownBps);
    udpRate = std::max(udpRate, 1.0);

    // --- build ---------------------------------------------------------------------------
    std::unique_ptr<SimLease> lease = SimContext::Acquire("run_reference_flow", seed, run);
    // After the reset of Acquire (which would undo them); restored when this scope ends.
    TcpDefaultsScope tcpDefaults;
    for (const auto& a : tcpAttributes)
    {
        tcpDefaults.Set(a);
    }
    std::unique_ptr<LeoTopology> topo;
    P2pNet p2p;
    Ptr<Node> clientNode;
    Ptr<Node> serverNode;
    Ipv4Address clientAddr;
    uint64_t p2pRxPackets = 0;
    if (o.link == "leo")
    {
        LeoTopologyOptions topt;
        topt.mtu = o.mtu;
        topt.streamBase = o.streamBase;
        topt.tcpSegmentBytes = o.segmentBytes;
        topt.tcpSndBufBytes = sndBuf;
        topt.tcpRcvBufBytes = rcvBuf;
        topo = std::make_unique<LeoTopology>(schedules, topt);
        for (const auto& spec : o.crossTraffic)
        {
            topo->AddCrossTraffic(spec);
        }
        clientNode = topo->GetClientNode();
        serverNode = topo->GetServerNode();
        clientAddr = topo->GetClientAddress(o.path);
    }
    else
    {
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(o.segmentBytes));
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
        Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
        p2p = BuildP2p(paths.front(), o.mtu, o.streamBase);
        p2p.clientDevice->TraceConnectWithoutContext(
            "MacRx",
            Callback<void, Ptr<const Packet>>(
                [&p2pRxPackets](Ptr<const Packet>) { ++p2pRxPackets; }));
        clientNode = p2p.client;
        serverNode = p2p.server;
        clientAddr = Ipv4Address((10u << 24) | (1u << 16) | 1);
    }

    const InetSocketAddress remote(clientAddr, kFlowPort);
    Ptr<PacketSink> sink = CreateObject<PacketSink>();
    Ptr<Application> sender;
    uint64_t udpTxBytes = 0;
    TcpSocketCounters tcpCounters;
    if (o.kind == "tcp_bulk")
    {
        sink->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName("ns3::TcpSocketFactory")));
        Ptr<LeoTcpBulkSender> app = CreateObject<LeoTcpBulkSender>();
        app->SetAttribute("Remote", AddressValue(remote));
        app->SetAttribute("CongestionOps", TypeIdValue(cc));
        app->SetAttribute("SendSize", UintegerValue(o.segmentBytes));
        sender = app;
        // The socket exists once the application has started (at start_s, in an event
        // scheduled during the run, so after any event scheduled now for that instant).
        Simulator::Schedule(Seconds(o.startS) + NanoSeconds(1), [app, &tcpCounters]() {
            ConnectTcpCounters(app->GetSocket(), &tcpCounters);
        });
    }
    else
    {
        sink->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName("ns3::UdpSocketFactory")));
        Ptr<OnOffApplication> app = CreateObject<OnOffApplication>();
        app->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName("ns3::UdpSocketFactory")));
        app->SetAttribute("Remote", AddressValue(remote));
        app->SetAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(udpRate))));
        app->SetAttribute("PacketSize", UintegerValue(o.udpPayloadBytes));
        app->SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1e9]"));
        app->SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
        app->AssignStreams(o.streamBase + 9000);
        app->TraceConnectWithoutContext(
            "Tx",
            Callback<void, Ptr<const Packet>>(
                [&udpTxBytes](Ptr<const Packet> p) { udpTxBytes += p->GetSize(); }));
        sender = app;
    }
    sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), kFlowPort)));
    clientNode->AddApplication(sink);
    sink->SetStartTime(Seconds(0));
    serverNode->AddApplication(sender);
    sender->SetStartTime(Seconds(o.startS));

    // --- run -----------------------------------------------------------------------------
    Simulator::Stop(Seconds(durationS));
    const auto w0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto w1 = std::chrono::steady_clock::now();

    ReferenceFlowResult r;
    r.wallSeconds = std::chrono::duration<double>(w1 - w0).count();
    r.simSeconds = Simulator::Now().GetSeconds();
    r.events = Simulator::GetEventCount();
    r.rxBytes = sink->GetTotalRx();
    if (o.kind == "tcp_bulk")
    {
        r.txBytes = DynamicCast<LeoTcpBulkSender>(sender)->GetTotalTx();
        r.maxBufferedBytes = DynamicCast<LeoTcpBulkSender>(sender)->GetMaxBufferedBytes();
    }
    else
    {
        r.txBytes = udpTxBytes;
    }
    r.goodputBps = r.rxBytes * 8.0 / (durationS - o.startS);
    r.rtoExpiries = tcpCounters.rtoExpiries;
    r.lossEpisodes = tcpCounters.lossEpisodes;
    r.recoveryEpisodes = tcpCounters.recoveryEpisodes;
    r.retransmissions = tcpCounters.retransmissions;
    if (topo)
    {
        r.rxPackets = topo->GetCounters(o.path, LeoDirection::DOWN).rxPackets;
        for (uint32_t i = 0; i < topo->GetNPaths(); ++i)
        {
            r.down.push_back(topo->GetCounters(i, LeoDirection::DOWN));
            r.up.push_back(topo->GetCounters(i, LeoDirection::UP));
        }
        for (uint32_t i = 0; i < topo->GetNCrossTraffic(); ++i)
        {
            r.crossRxBytes.push_back(topo->GetCrossTrafficRxBytes(i));
        }
    }
    else
    {
        r.rxPackets = p2pRxPackets;
        r.down.resize(1);
        r.up.resize(1);
    }
    return r;
}

} // namespace ns3
