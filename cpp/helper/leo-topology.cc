// SPDX-License-Identifier: GPL-2.0-only

#include "leo-topology.h"

#include "model/apps/leo-tcp-bulk-sender.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/mac48-address.h"
#include "ns3/onoff-application.h"
#include "ns3/packet-sink.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

constexpr uint16_t kCrossPortBase = 50000;
constexpr int64_t kCrossStreamOffset = 10000;

std::string
Lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

void
SetTcpDefault(const char* name, uint32_t value)
{
    if (value == 0)
    {
        return;
    }
    if (!Config::SetDefaultFailSafe(std::string("ns3::TcpSocket::") + name, UintegerValue(value)))
    {
        throw std::invalid_argument(std::string("tcp option ") + name + ": rejected by ns-3");
    }
}

} // namespace

std::vector<std::string>
LeoTopology::ListTcpVariants()
{
    const TypeId base = TcpCongestionOps::GetTypeId();
    std::vector<std::string> names;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        TypeId tid = TypeId::GetRegistered(i);
        if (tid != base && tid.IsChildOf(base) && tid.HasConstructor())
        {
            const std::string full = tid.GetName();
            names.push_back(full.substr(full.rfind(':') + 1));
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

TypeId
LeoTopology::ResolveTcpVariant(const std::string& name, const std::string& field)
{
    const TypeId base = TcpCongestionOps::GetTypeId();
    const std::string want = Lower(name);
    std::vector<std::string> known;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        TypeId tid = TypeId::GetRegistered(i);
        if (tid == base || !tid.IsChildOf(base) || !tid.HasConstructor())
        {
            continue;
        }
        const std::string full = tid.GetName(); // "ns3::TcpCubic"
        const std::string shortName = full.substr(full.rfind(':') + 1);
        known.push_back(shortName);
        const std::string bare = Lower(shortName);
        const std::string noTcp = bare.rfind("tcp", 0) == 0 ? bare.substr(3) : bare;
        if (want == Lower(full) || want == bare || want == noTcp)
        {
            return tid;
        }
    }
    std::sort(known.begin(), known.end());
    std::ostringstream os;
    os << field << ": unknown TCP congestion control '" << name << "'; known:";
    for (const auto& k : known)
    {
        os << " " << k;
    }
    throw std::invalid_argument(os.str());
}

LeoTopology::LeoTopology(const std::vector<Ptr<const LeoPathSchedule>>& paths,
                         const LeoTopologyOptions& options)
    : m_options(options)
{
    if (paths.empty() || paths.size() > 254)
    {
        throw std::invalid_argument("paths: need 1..254 paths, got " +
                                    std::to_string(paths.size()));
    }
    for (std::size_t i = 0; i < paths.size(); ++i)
    {
        if (!paths[i])
        {
            throw std::invalid_argument("paths[" + std::to_string(i) + "]: null schedule");
        }
    }
    if (options.mtu < 68)
    {
        throw std::invalid_argument("mtu: must be in [68, 65535], got " +
                                    std::to_string(options.mtu));
    }
    if (options.streamBase < 0)
    {
        throw std::invalid_argument("stream_base: must be >= 0");
    }
    SetTcpDefault("SegmentSize", options.tcpSegmentBytes);
    SetTcpDefault("SndBufSize", options.tcpSndBufBytes);
    SetTcpDefault("RcvBufSize", options.tcpRcvBufBytes);

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
LeoTopology::AddCrossTraffic(const LeoCrossTrafficSpec& spec)
{
    const std::string f = "cross_traffic[" + std::to_string(m_cross.size()) + "]";
    if (spec.path >= m_channels.size())
    {
        throw std::invalid_argument(f + ".path: " + std::to_string(spec.path) + " out of range (" +
                                    std::to_string(m_channels.size()) + " paths)");
    }
    if (!std::isfinite(spec.startS) || spec.startS < 0.0 || spec.startS > 1e7)
    {
        throw std::invalid_argument(f + ".start_s: must be in [0, 1e7] s");
    }
    if (std::isnan(spec.stopS) || !(spec.stopS > spec.startS) ||
        (std::isfinite(spec.stopS) && spec.stopS > 1e7))
    {
        throw std::invalid_argument(f + ".stop_s: must be > start_s and <= 1e7 s (or inf)");
    }
    if (m_cross.size() >= 15000)
    {
        throw std::invalid_argument(f + ": too many cross-traffic flows");
    }
    const uint32_t index = static_cast<uint32_t>(m_cross.size());
    const uint16_t port = static_cast<uint16_t>(kCrossPortBase + index);
    const bool down = spec.direction == LeoDirection::DOWN;
    Ptr<Node> src = down ? m_server : m_client;
    Ptr<Node> dst = down ? m_client : m_server;
    const Ipv4Address dstAddr = down ? GetClientAddress(spec.path) : GetServerAddress(spec.path);
    const InetSocketAddress remote(dstAddr, port);
    const int64_t stream = m_options.streamBase + kCrossStreamOffset + 16 * index;

    Ptr<Application> sender;
    std::string factory;
    if (spec.kind == LeoCrossTrafficSpec::TCP_BULK)
    {
        const TypeId cc = ResolveTcpVariant(spec.tcpVariant, f + ".tcp_variant");
        Ptr<LeoTcpBulkSender> app = CreateObject<LeoTcpBulkSender>();
        app->SetAttribute("Remote", AddressValue(remote));
        app->SetAttribute("CongestionOps", TypeIdValue(cc));
        app->SetAttribute("MaxBytes", UintegerValue(spec.maxBytes));
        app->SetAttribute("SndBufSize", UintegerValue(spec.sndBufBytes));
        app->SetAttribute("SegmentSize", UintegerValue(spec.segmentBytes));
        sender = app;
        factory = "ns3::TcpSocketFactory";
    }
    else if (spec.kind == LeoCrossTrafficSpec::UDP_ONOFF)
    {
        if (!std::isfinite(spec.rateBps) || spec.rateBps < 1.0)
        {
            throw std::invalid_argument(f + ".rate_bps: must be finite and >= 1");
        }
        if (spec.packetBytes < 1 || spec.packetBytes + 28u > m_options.mtu)
        {
            throw std::invalid_argument(f + ".packet_bytes: must be in [1, mtu - 28]");
        }
        if (!std::isfinite(spec.onS) || spec.onS <= 0.0 || spec.onS > 1e7)
        {
            throw std::invalid_argument(f + ".on_s: must be in (0, 1e7] s");
        }
        if (!std::isfinite(spec.offS) || spec.offS < 0.0 || spec.offS > 1e7)
        {
            throw std::invalid_argument(f + ".off_s: must be in [0, 1e7] s");
        }
        if (spec.rateBps > 1e12)
        {
            throw std::invalid_argument(f + ".rate_bps: must be <= 1e12");
        }
        const double on = spec.offS == 0.0 ? 1e9 : spec.onS;
        Ptr<OnOffApplication> app = CreateObject<OnOffApplication>();
        app->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName("ns3::UdpSocketFactory")));
        app->SetAttribute("Remote", AddressValue(remote));
        app->SetAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(spec.rateBps))));
        app->SetAttribute("PacketSize", UintegerValue(spec.packetBytes));
        std::ostringstream onStr;
        onStr << "ns3::ConstantRandomVariable[Constant=" << on << "]";
        std::ostringstream offStr;
        offStr << "ns3::ConstantRandomVariable[Constant=" << spec.offS << "]";
        app->SetAttribute("OnTime", StringValue(onStr.str()));
        app->SetAttribute("OffTime", StringValue(offStr.str()));
        app->SetAttribute("MaxBytes", UintegerValue(spec.maxBytes));
        app->AssignStreams(stream);
        sender = app;
        factory = "ns3::UdpSocketFactory";
    }
    else
    {
        throw std::invalid_argument(f + ".kind: unknown kind");
    }

    Ptr<PacketSink> sink = CreateObject<PacketSink>();
    sink->SetAttribute("Protocol", TypeIdValue(TypeId::LookupByName(factory)));
    sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), port)));
    dst->AddApplication(sink);
    sink->SetStartTime(Seconds(0));

    src->AddApplication(sender);
    sender->SetStartTime(Seconds(spec.startS));
    if (std::isfinite(spec.stopS))
    {
        sender->SetStopTime(Seconds(spec.stopS));
    }
    m_cross.push_back({sender, sink});
    return index;
}

uint32_t
LeoTopology::GetNCrossTraffic() const
{
    return static_cast<uint32_t>(m_cross.size());
}

uint64_t
LeoTopology::GetCrossTrafficRxBytes(uint32_t index) const
{
    if (index >= m_cross.size())
    {
        throw std::out_of_range("cross-traffic index out of range");
    }
    return DynamicCast<PacketSink>(m_cross[index].sink)->GetTotalRx();
}

Ptr<Application>
LeoTopology::GetCrossTrafficSender(uint32_t index) const
{
    if (index >= m_cross.size())
    {
        throw std::out_of_range("cross-traffic index out of range");
    }
    return m_cross[index].sender;
}

} // namespace ns3
