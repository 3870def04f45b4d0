// SPDX-License-Identifier: GPL-2.0-only

#include "leo-tcp-bulk-sender.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/packet.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeoTcpBulkSender");
NS_OBJECT_ENSURE_REGISTERED(LeoTcpBulkSender);

TypeId
LeoTcpBulkSender::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeoTcpBulkSender")
            .SetParent<Application>()
            .SetGroupName("Leo")
            .AddConstructor<LeoTcpBulkSender>()
            .AddAttribute("Remote",
                          "The address of the destination (InetSocketAddress).",
                          AddressValue(),
                          MakeAddressAccessor(&LeoTcpBulkSender::m_remote),
                          MakeAddressChecker())
            .AddAttribute("CongestionOps",
                          "TypeId of the congestion control (a TcpCongestionOps subclass).",
                          TypeIdValue(TcpNewReno::GetTypeId()),
                          MakeTypeIdAccessor(&LeoTcpBulkSender::m_congestionTid),
                          MakeTypeIdChecker())
            .AddAttribute("MaxBytes",
                          "Total bytes to send; 0 = unlimited.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&LeoTcpBulkSender::m_maxBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("SendSize",
                          "Bytes handed to the socket per Send() call.",
                          UintegerValue(1448),
                          MakeUintegerAccessor(&LeoTcpBulkSender::m_sendSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("SndBufSize",
                          "Socket send buffer (bytes); 0 = the TcpSocket default.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&LeoTcpBulkSender::m_sndBufBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SegmentSize",
                          "Socket SegmentSize (bytes); 0 = the TcpSocket default.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&LeoTcpBulkSender::m_segmentBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MinRto",
                          "Socket MinRto (the retransmission timer's floor); 0 = the "
                          "TcpSocketBase default (1 s, RFC 6298; Linux uses 200 ms).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&LeoTcpBulkSender::m_minRto),
                          MakeTimeChecker(Seconds(0), Seconds(60)))
            .AddAttribute("ClockGranularity",
                          "Socket ClockGranularity, RFC 6298's G in RTO = SRTT + max(G, 4 "
                          "RTTVAR); 0 = the TcpSocketBase default (1 ms). Linux's rto_min "
                          "(200 ms) acts as G.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&LeoTcpBulkSender::m_clockGranularity),
                          MakeTimeChecker(Seconds(0), Seconds(60)))
            .AddAttribute("Ecn",
                          "ECN on the socket (EnableEcn: UseEcn On; ECT(1) for TcpDctcp).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&LeoTcpBulkSender::m_ecn),
                          MakeBooleanChecker());
    return tid;
}

LeoTcpBulkSender::LeoTcpBulkSender() = default;

LeoTcpBulkSender::~LeoTcpBulkSender() = default;

uint64_t
LeoTcpBulkSender::GetTotalTx() const
{
    return m_totalTx;
}

Ptr<Socket>
LeoTcpBulkSender::GetSocket() const
{
    return m_socket;
}

void
LeoTcpBulkSender::DoDispose()
{
    m_socket = nullptr;
    Application::DoDispose();
}

void
LeoTcpBulkSender::StartApplication()
{
    if (m_socket)
    {
        return;
    }
    Ptr<TcpL4Protocol> tcp = GetNode()->GetObject<TcpL4Protocol>();
    m_socket = tcp->CreateSocket(m_congestionTid);
    if (m_sndBufBytes > 0)
    {
        m_socket->SetAttribute("SndBufSize", UintegerValue(m_sndBufBytes));
    }
    if (m_segmentBytes > 0)
    {
        m_socket->SetAttribute("SegmentSize", UintegerValue(m_segmentBytes));
    }
    if (m_minRto.IsStrictlyPositive())
    {
        m_socket->SetAttribute("MinRto", TimeValue(m_minRto));
    }
    if (m_clockGranularity.IsStrictlyPositive())
    {
        m_socket->SetAttribute("ClockGranularity", TimeValue(m_clockGranularity));
    }
    if (m_ecn)
    {
        EnableEcn(m_socket, m_congestionTid);
    }
    m_socket->Bind();
    m_socket->Connect(m_remote);
    m_socket->ShutdownRecv();
    m_socket->SetConnectCallback(MakeCallback(&LeoTcpBulkSender::ConnectionSucceeded, this),
                                 MakeCallback(&LeoTcpBulkSender::ConnectionFailed, this));
    m_socket->SetSendCallback(MakeCallback(&LeoTcpBulkSender::DataSend, this));
    m_socket->TraceConnectWithoutContext("CongestionWindow",
                                         MakeCallback(&LeoTcpBulkSender::OnCwnd, this));
    m_socket->TraceConnectWithoutContext("RTT", MakeCallback(&LeoTcpBulkSender::OnRtt, this));
}

void
LeoTcpBulkSender::EnableEcn(Ptr<Socket> socket, TypeId congestionTid)
{
    Ptr<TcpSocketBase> base = DynamicCast<TcpSocketBase>(socket);
    if (!base)
    {
        return;
    }
    TypeId::AttributeInformation info;
    if (congestionTid.LookupAttributeByName("UseEct0", &info))
    {
        // TcpDctcp::Init (run by SetCongestionControlAlgorithm) turns ECN on in DCTCP mode
        // and takes the codepoint from UseEct0.
        ObjectFactory factory(congestionTid.GetName());
        factory.Set("UseEct0", BooleanValue(false));
        base->SetCongestionControlAlgorithm(factory.Create<TcpCongestionOps>());
    }
    base->SetAttribute("UseEcn", EnumValue(TcpSocketState::On));
}

void
LeoTcpBulkSender::OnCwnd(uint32_t oldValue, uint32_t newValue)
{
    m_cwnd = newValue;
}

void
LeoTcpBulkSender::OnRtt(Time oldValue, Time newValue)
{
    m_latestRttS = newValue.GetSeconds();
}

uint32_t
LeoTcpBulkSender::GetCwnd() const
{
    return m_cwnd;
}

double
LeoTcpBulkSender::GetLatestRttS() const
{
    return m_latestRttS;
}

uint32_t
LeoTcpBulkSender::GetMaxBufferedBytes() const
{
    return m_maxBuffered;
}

void
LeoTcpBulkSender::StopApplication()
{
    if (m_socket && !m_closed)
    {
        m_socket->Close();
        m_closed = true;
    }
}

void
LeoTcpBulkSender::ConnectionSucceeded(Ptr<Socket> socket)
{
    m_connected = true;
    SendData();
}

void
LeoTcpBulkSender::ConnectionFailed(Ptr<Socket> socket)
{
    NS_LOG_WARN("LeoTcpBulkSender: connection failed");
}

void
LeoTcpBulkSender::DataSend(Ptr<Socket> socket, uint32_t available)
{
    if (m_connected)
    {
        SendData();
    }
}

void
LeoTcpBulkSender::SendData()
{
    while (!m_closed && (m_maxBytes == 0 || m_totalTx < m_maxBytes))
    {
        uint64_t want = m_sendSize;
        if (m_maxBytes > 0)
        {
            want = std::min<uint64_t>(want, m_maxBytes - m_totalTx);
        }
        if (m_socket->GetTxAvailable() < want)
        {
            break;
        }
        const int sent = m_socket->Send(Create<Packet>(static_cast<uint32_t>(want)));
        if (sent <= 0)
        {
            break;
        }
        m_totalTx += static_cast<uint64_t>(sent);
    }
    if (Ptr<TcpSocketBase> base = DynamicCast<TcpSocketBase>(m_socket))
    {
        m_maxBuffered = std::max(m_maxBuffered, base->GetTxBuffer()->Size());
    }
    if (m_maxBytes > 0 && m_totalTx >= m_maxBytes && !m_closed)
    {
        m_socket->Close();
        m_closed = true;
    }
}

} // namespace ns3
