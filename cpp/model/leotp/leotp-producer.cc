// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-producer.h"

#include "leotp-route-interface.h"
#include "leotp-trace-tag.h"

#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-packet-info-tag.h"
#include "ns3/simulator.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeotpProducer);

namespace
{
/// Slots of the first-transmission ring (a chunk sent again after 2^16 later chunks is timed
/// from its own earlier send: a flow that far behind is not what the metric is about).
constexpr std::size_t kRingSlots = 1 << 16;
/// Largest byte offset a 32-bit range can name.
constexpr uint64_t kMaxOffset = 0xffffffffULL;
} // namespace

TypeId
LeotpProducer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeotpProducer")
            .SetParent<Application>()
            .SetGroupName("Leogym")
            .AddConstructor<LeotpProducer>()
            .AddAttribute("FlowId",
                          "FlowID of the flow (paper Table I).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&LeotpProducer::m_flowId),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Port",
                          "UDP port of the flow (both ends).",
                          UintegerValue(9),
                          MakeUintegerAccessor(&LeotpProducer::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PayloadBytes",
                          "Data payload of a chunk (MSS), bytes.",
                          UintegerValue(1451),
                          MakeUintegerAccessor(&LeotpProducer::m_payloadBytes),
                          MakeUintegerChecker<uint32_t>(1, 65486))
            .AddAttribute("TargetBufferPackets",
                          "BL_tar of the backlog report, in full packets.",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&LeotpProducer::m_targetPackets),
                          MakeDoubleChecker<double>(1.0, 1e6))
            .AddAttribute("FileBytes",
                          "Size of the object served (bytes); 0 = unbounded (bulk, up to the "
                          "32-bit range of the header).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&LeotpProducer::m_fileBytes),
                          MakeUintegerChecker<uint64_t>(0, kMaxOffset));
    return tid;
}

LeotpProducer::LeotpProducer()
    : m_firstSentKey(kRingSlots, 0),
      m_firstSentTicks(kRingSlots, 0)
{
}

LeotpProducer::~LeotpProducer() = default;

void
LeotpProducer::SetSettings(const LeotpFlowSettings& settings)
{
    m_settings = settings;
    m_payloadBytes = settings.payloadBytes;
    m_targetPackets = settings.targetBufferPackets;
}

void
LeotpProducer::SetEndpoints(Ipv4Address local, Ipv4Address peer)
{
    m_local = local;
    m_peer = peer;
}

void
LeotpProducer::DoDispose()
{
    m_buffer.reset();
    m_socket = nullptr;
    Application::DoDispose();
}

void
LeotpProducer::StartApplication()
{
    m_settings.payloadBytes = m_payloadBytes;
    m_settings.targetBufferPackets = m_targetPackets;
    m_settings.Finalize();
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    if (m_socket->Bind(InetSocketAddress(m_local, m_port)) != 0 ||
        m_socket->Connect(InetSocketAddress(m_peer, m_port)) != 0)
    {
        throw std::runtime_error("LeotpProducer: cannot bind/connect its UDP socket");
    }
    m_socket->SetRecvCallback(MakeCallback(&LeotpProducer::HandleRead, this));
    m_socket->SetRecvPktInfo(true); // the hop an Interest came up (OWD_I's hop)
    m_buffer =
        std::make_unique<LeotpSendBuffer>(m_settings.hop.initialRateBps,
                                          m_settings.WirePacketBytes(),
                                          m_settings.maxBufferBytes,
                                          true,
                                          [this](LeotpQueued&& q) { Transmit(std::move(q)); });
}

void
LeotpProducer::StopApplication()
{
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->Close();
    }
    if (m_buffer)
    {
        m_buffer->Clear();
    }
}

void
LeotpProducer::HandleRead(Ptr<Socket> socket)
{
    while (Ptr<Packet> p = socket->Recv())
    {
        if (p->GetSize() < LeotpHeader::kSize)
        {
            continue;
        }
        Ipv4PacketInfoTag info;
        const bool hasIf = p->RemovePacketTag(info);
        LeotpHeader h;
        p->RemoveHeader(h);
        if (h.valid && h.IsInterest() && h.flowId == m_flowId)
        {
            if (h.rateOrLength > 0)
            {
                m_interestIf = hasIf ? static_cast<int64_t>(info.GetRecvIf()) : -1;
            }
            OnInterest(h);
        }
    }
}

void
LeotpProducer::OnInterest(const LeotpHeader& h)
{
    ++m_stats.interests;
    m_buffer->OnInterest(h, LeotpHeader::TimestampUs(Simulator::Now().GetSeconds()));
    uint64_t end = h.rangeEnd;
    if (m_fileBytes > 0)
    {
        end = std::min<uint64_t>(end, m_fileBytes); // never serve beyond the file [REC]
    }
    if (h.rangeStart >= end)
    {
        return; // empty: a rate notification only
    }
    for (const LeotpRange& r : LeotpHoleDetector::SplitChunks(h.rangeStart, end, m_payloadBytes))
    {
        const auto a = static_cast<uint32_t>(r.first);
        const auto b = static_cast<uint32_t>(r.second);
        if (m_buffer->HoldsData(a, b))
        {
            ++m_stats.duplicateRequests; // already waiting: skip the duplicate [REC]
            continue;
        }
        LeotpQueued q;
        q.header = LeotpHeader::Data(m_flowId, a, b, 0, true);
        q.payload = Create<Packet>(b - a);
        q.enqueuedS = Simulator::Now().GetSeconds();
        q.wireBytes = LeotpFlowSettings::WireBytes(b - a, true);
        m_buffer->Enqueue(std::move(q));
    }
}

bool
LeotpProducer::MarkSent(uint64_t chunk, int64_t& firstSentTicks)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    if (chunk >= m_sentBefore.size())
    {
        m_sentBefore.resize(std::max<std::size_t>(chunk + 1, 2 * m_sentBefore.size()), false);
    }
    const std::size_t slot = chunk % kRingSlots;
    if (!m_sentBefore[chunk])
    {
        m_sentBefore[chunk] = true;
        m_firstSentKey[slot] = chunk + 1;
        m_firstSentTicks[slot] = now;
        firstSentTicks = now;
        return false;
    }
    firstSentTicks = m_firstSentKey[slot] == chunk + 1 ? m_firstSentTicks[slot] : now;
    return true;
}

void
LeotpProducer::Transmit(LeotpQueued&& q)
{
    const double now = Simulator::Now().GetSeconds();
    // OWD_I is the latest Interest's "on this hop" (cpp/doc/leotp.md, "Hop-by-hop congestion
    // control"): after a route change that gives the Producer another downstream neighbour, none
    // until that one's Interest.
    const bool sameHop =
        m_interestIf < 0 || m_interestIf == LeotpInterfaceToward(GetNode(), m_local, m_peer);
    q.header.timestamp = sameHop ? m_buffer->DataTimestamp(LeotpHeader::TimestampUs(now))
                                 : LeotpHeader::kNoTimestamp;
    // srcBacklog: (BL_tar - BL) / packet, rounded, as 16 signed bits (0 reads "no report").
    const double backlog =
        std::round((m_settings.TargetBytes() - static_cast<double>(m_buffer->GetBytes())) /
                   m_settings.WirePacketBytes());
    q.header.srcBacklog = static_cast<int16_t>(std::clamp(backlog, -32768.0, 32767.0));
    const uint32_t len = q.header.rangeEnd - q.header.rangeStart;
    LeotpTraceTag tag;
    const bool again = MarkSent(q.header.rangeStart / m_payloadBytes, tag.firstSentTicks);
    tag.retransmitted = again ? 1 : 0;
    q.payload->ReplacePacketTag(tag);
    q.payload->AddHeader(q.header);
    ++m_stats.packetsSent;
    m_stats.payloadBytesSent += len;
    if (again)
    {
        ++m_stats.retransmittedPackets;
        m_stats.retransmittedBytes += len;
    }
    m_socket->Send(q.payload);
}

LeotpProducer::Stats
LeotpProducer::GetStats() const
{
    Stats s = m_stats;
    if (m_buffer)
    {
        s.bufferBytes = m_buffer->GetBytes();
        s.bufferDrops = m_buffer->GetDrops();
        s.rateBps = m_buffer->GetRate();
    }
    return s;
}

} // namespace ns3
