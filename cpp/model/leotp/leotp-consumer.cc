// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpConsumer (cpp/model/leotp/leotp-consumer.h). This file: the type, the attributes, the
// set-up, start and stop, and the statistics; the Interests and their timers are in
// leotp-consumer-interests.cc, the data received in leotp-consumer-data.cc.

#include "leotp-consumer.h"

#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/simulator.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <limits>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeotpConsumer);

namespace
{
/// Largest byte offset a 32-bit range can name.
constexpr uint64_t kMaxOffset = 0xffffffffULL;
} // namespace

TypeId
LeotpConsumer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeotpConsumer")
            .SetParent<Application>()
            .SetGroupName("Leogym")
            .AddConstructor<LeotpConsumer>()
            .AddAttribute("FlowId",
                          "FlowID of the flow (paper Table I).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&LeotpConsumer::m_flowId),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Port",
                          "UDP port of the flow (both ends).",
                          UintegerValue(9),
                          MakeUintegerAccessor(&LeotpConsumer::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PayloadBytes",
                          "Data payload of a chunk (MSS), bytes; one Interest asks for one chunk.",
                          UintegerValue(1451),
                          MakeUintegerAccessor(&LeotpConsumer::m_payloadBytes),
                          MakeUintegerChecker<uint32_t>(1, 65486))
            .AddAttribute("TargetBufferPackets",
                          "BL_tar of (C1), in full packets: also the Interests sent before the "
                          "first RTT sample.",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&LeotpConsumer::m_targetPackets),
                          MakeDoubleChecker<double>(1.0, 1e6))
            .AddAttribute("FileBytes",
                          "Bytes to fetch; 0 = bulk (until stopped, at most the 32-bit range of "
                          "the header).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&LeotpConsumer::m_fileBytes),
                          MakeUintegerChecker<uint64_t>(0, kMaxOffset));
    return tid;
}

LeotpConsumer::LeotpConsumer() = default;
LeotpConsumer::~LeotpConsumer() = default;

void
LeotpConsumer::SetSettings(const LeotpFlowSettings& settings)
{
    m_settings = settings;
    m_payloadBytes = settings.payloadBytes;
    m_targetPackets = settings.targetBufferPackets;
}

void
LeotpConsumer::SetEndpoints(Ipv4Address local, Ipv4Address peer)
{
    m_local = local;
    m_peer = peer;
}

void
LeotpConsumer::DoDispose()
{
    m_sendEvent.Cancel();
    m_timer.Cancel();
    m_holeTimer.Cancel();
    m_socket = nullptr;
    Application::DoDispose();
}

void
LeotpConsumer::StartApplication()
{
    m_settings.payloadBytes = m_payloadBytes;
    m_settings.targetBufferPackets = m_targetPackets;
    m_settings.Finalize();
    m_ctrl = std::make_unique<LeotpHopController>(m_settings.hop);
    m_detector = std::make_unique<LeotpHoleDetector>(m_settings.hole);
    m_pacer = std::make_unique<LeotpInterestPacer>(m_settings.WirePacketBytes(),
                                                   m_settings.TargetBytes());
    m_rto = std::make_unique<LeotpRto>(m_settings.rto);
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    if (m_socket->Bind(InetSocketAddress(m_local, m_port)) != 0 ||
        m_socket->Connect(InetSocketAddress(m_peer, m_port)) != 0)
    {
        throw std::runtime_error("LeotpConsumer: cannot bind/connect its UDP socket");
    }
    m_socket->SetRecvCallback(MakeCallback(&LeotpConsumer::HandleRead, this));
    m_socket->SetRecvPktInfo(true); // the receiving interface: the last hop's upstream end
    m_running = true;
    // R_int >= R_min from the start: TR re-sends can go even before the first RTT sample.
    m_pacer->SetRate(Simulator::Now().GetSeconds(), m_settings.minInterestRateBps);
    TrySend();
}

void
LeotpConsumer::StopApplication()
{
    m_running = false;
    m_sendEvent.Cancel();
    m_timer.Cancel();
    m_holeTimer.Cancel();
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->Close();
    }
}

uint64_t
LeotpConsumer::Limit() const
{
    return m_fileBytes > 0 ? m_fileBytes : kMaxOffset;
}

LeotpConsumer::Stats
LeotpConsumer::GetStats() const
{
    Stats s = m_stats;
    s.deliveredBytes = m_rcvNxt;
    s.pending = m_pending.size();
    if (m_rto)
    {
        s.srttS = m_rto->GetEstimator().HasSample()
                      ? m_rto->GetEstimator().GetSmoothed().GetSeconds()
                      : std::numeric_limits<double>::quiet_NaN();
        s.rtoS = m_rto->GetRto().GetSeconds();
        s.backoffRounds = m_rto->GetBackoffRounds();
    }
    if (m_pacer)
    {
        s.interestRateBps = m_pacer->GetRate();
    }
    if (m_ctrl)
    {
        s.cwnd = m_ctrl->GetCwnd();
        s.hopRttS =
            m_ctrl->HasSample() ? m_ctrl->GetHopRttS() : std::numeric_limits<double>::quiet_NaN();
        s.throughputBps = m_ctrl->GetThroughputBps();
        s.rateBps = m_ctrl->Rate(false, 0, 0, 0);
    }
    return s;
}

uint64_t
LeotpConsumer::GetDeliveredBytes() const
{
    return m_rcvNxt;
}

bool
LeotpConsumer::IsComplete() const
{
    return m_stats.completed;
}

const std::vector<double>&
LeotpConsumer::GetOwdSamples() const
{
    return m_owd;
}

const std::vector<double>&
LeotpConsumer::GetRecoveredOwdSamples() const
{
    return m_owdRecovered;
}

} // namespace ns3
