// SPDX-License-Identifier: GPL-2.0-only

#include "leo-network.h"

#include "model/apps/leo-tcp-bulk-sender.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/inet-socket-address.h"
#include "ns3/onoff-application.h"
#include "ns3/packet-sink.h"
#include "ns3/simulator.h"
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

/// ECN on a TCP sink's listening socket (the accepted sockets copy it), once the sink has
/// started; before the first SYN can arrive (the link's serialization time is > 0).
void
EnableSinkEcn(Ptr<PacketSink> sink, TypeId congestionTid, uint32_t tries = 4)
{
    if (Ptr<Socket> socket = sink->GetListeningSocket())
    {
        LeoTcpBulkSender::EnableEcn(socket, congestionTid);
    }
    else if (tries > 0)
    {
        Simulator::ScheduleNow(&EnableSinkEcn, sink, congestionTid, tries - 1);
    }
}

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

LeoNetwork::LeoNetwork(const LeoTopologyOptions& options)
    : m_options(options)
{
    if (options.mtu < 68)
    {
        throw std::invalid_argument("mtu: must be in [68, 65535], got " +
                                    std::to_string(options.mtu));
    }
    if (options.streamBase < 0)
    {
        throw std::invalid_argument("stream_base: must be >= 0");
    }
}

LeoNetwork::~LeoNetwork() = default;

const LeoTopologyOptions&
LeoNetwork::GetOptions() const
{
    return m_options;
}

void
LeoNetwork::ApplyTcpDefaults() const
{
    SetTcpDefault("SegmentSize", m_options.tcpSegmentBytes);
    SetTcpDefault("SndBufSize", m_options.tcpSndBufBytes);
    SetTcpDefault("RcvBufSize", m_options.tcpRcvBufBytes);
}

std::vector<std::string>
LeoNetwork::ListTcpVariants()
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
LeoNetwork::ResolveTcpVariant(const std::string& name, const std::string& field)
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

uint32_t
LeoNetwork::AddCrossTraffic(const LeoCrossTrafficSpec& spec)
{
    const std::string f = "cross_traffic[" + std::to_string(m_cross.size()) + "]";
    if (spec.path >= GetNRoutes())
    {
        throw std::invalid_argument(f + ".path: " + std::to_string(spec.path) + " out of range (" +
                                    std::to_string(GetNRoutes()) + " paths)");
    }
    // The single-key ranges (start_s, stop_s, on_s, off_s) are checked where the spec is
    // parsed (cpp/bindings: CrossTrafficFromDict, FlowFromDict, from config-ranges.h), the
    // only producers of a LeoCrossTrafficSpec.
    if (std::isnan(spec.stopS) || !(spec.stopS > spec.startS))
    {
        throw std::invalid_argument(f + ".stop_s: must be > start_s");
    }
    if (m_cross.size() >= 15000)
    {
        throw std::invalid_argument(f + ": too many cross-traffic flows");
    }
    const uint32_t index = static_cast<uint32_t>(m_cross.size());
    const uint16_t port = static_cast<uint16_t>(kCrossPortBase + index);
    const bool down = spec.direction == LeoDirection::DOWN;
    Ptr<Node> src = down ? GetRouteServer(spec.path) : GetRouteClient(spec.path);
    Ptr<Node> dst = down ? GetRouteClient(spec.path) : GetRouteServer(spec.path);
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
        app->SetAttribute("Ecn", BooleanValue(spec.ecn));
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
    if (spec.kind == LeoCrossTrafficSpec::TCP_BULK && spec.ecn)
    {
        // The receiver: UseEcn On, and a DCTCP sender's receiver runs DCTCP's per-packet
        // CE echo (RFC 8257 section 3.2) instead of RFC 3168's latched ECE.
        Simulator::Schedule(Seconds(0),
                            &EnableSinkEcn,
                            sink,
                            ResolveTcpVariant(spec.tcpVariant, f + ".tcp_variant"),
                            4u);
    }

    src->AddApplication(sender);
    sender->SetStartTime(Seconds(spec.startS));
    if (std::isfinite(spec.stopS))
    {
        sender->SetStopTime(Seconds(spec.stopS));
    }
    m_cross.push_back({sender, sink, dstAddr, port});
    return index;
}

uint32_t
LeoNetwork::GetNCrossTraffic() const
{
    return static_cast<uint32_t>(m_cross.size());
}

uint64_t
LeoNetwork::GetCrossTrafficRxBytes(uint32_t index) const
{
    if (index >= m_cross.size())
    {
        throw std::out_of_range("cross-traffic index out of range");
    }
    return DynamicCast<PacketSink>(m_cross[index].sink)->GetTotalRx();
}

Ptr<Application>
LeoNetwork::GetCrossTrafficSender(uint32_t index) const
{
    if (index >= m_cross.size())
    {
        throw std::out_of_range("cross-traffic index out of range");
    }
    return m_cross[index].sender;
}

Ipv4Address
LeoNetwork::GetCrossTrafficSinkAddress(uint32_t index) const
{
    if (index >= m_cross.size())
    {
        throw std::out_of_range("cross-traffic index out of range");
    }
    return m_cross[index].sinkAddress;
}

uint16_t
LeoNetwork::GetCrossTrafficPort(uint32_t index) const
{
    if (index >= m_cross.size())
    {
        throw std::out_of_range("cross-traffic index out of range");
    }
    return m_cross[index].port;
}

} // namespace ns3
