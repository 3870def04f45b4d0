// SPDX-License-Identifier: GPL-2.0-only

#include "mp-quic-receiver.h"

#include "model/link/leo-delay-tag.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MpQuicReceiver");
NS_OBJECT_ENSURE_REGISTERED(MpQuicReceiver);

TypeId
MpQuicReceiver::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpQuicReceiver")
            .SetParent<Application>()
            .SetGroupName("Leogym")
            .AddConstructor<MpQuicReceiver>()
            .AddAttribute("AckEvery",
                          "Send an ACK after this many ack-eliciting packets.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&MpQuicReceiver::m_ackEvery),
                          MakeUintegerChecker<uint32_t>(1, 1000))
            .AddAttribute("MaxAckDelay",
                          "max_ack_delay: longest wait before acknowledging.",
                          TimeValue(MilliSeconds(25)),
                          MakeTimeAccessor(&MpQuicReceiver::m_maxAckDelay),
                          MakeTimeChecker(Time(0), Seconds(10)))
            .AddAttribute("ReceiveWindow",
                          "Connection-level flow-control window (bytes): MAX_DATA = delivered "
                          "+ ReceiveWindow.",
                          UintegerValue(6 * 1024 * 1024),
                          MakeUintegerAccessor(&MpQuicReceiver::m_receiveWindow),
                          MakeUintegerChecker<uint64_t>(1024, uint64_t(1) << 40))
            .AddAttribute("Carrier",
                          kMpCarrierAttributeHelp,
                          EnumValue(MpCarrierKind::LEO),
                          MakeEnumAccessor<MpCarrierKind>(&MpQuicReceiver::m_carrier),
                          MakeMpCarrierChecker())
            .AddAttribute("FlowId",
                          "Flow id carried in the leo carrier's header (0: the connection).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpQuicReceiver::m_flowId),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("Ecn",
                          "The connection's ECN (RFC 9000 section 13.4): report each path's "
                          "ECN counts in ACK_ECN frames once one is non-zero.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpQuicReceiver::m_ecn),
                          MakeBooleanChecker());
    return tid;
}

MpQuicReceiver::MpQuicReceiver()
{
    NS_LOG_FUNCTION(this);
}

MpQuicReceiver::~MpQuicReceiver() = default;

uint32_t
MpQuicReceiver::AddPath(Ipv4Address local, Ipv4Address peer, uint16_t port)
{
    if (m_paths.size() >= 32)
    {
        throw std::invalid_argument("MpQuicReceiver: at most 32 paths");
    }
    auto path = std::make_unique<Path>(m_ackEvery, m_maxAckDelay);
    path->local = local;
    path->peer = peer;
    path->port = port;
    m_paths.push_back(std::move(path));
    return static_cast<uint32_t>(m_paths.size() - 1);
}

const MpQuicReceiver::PathCounters&
MpQuicReceiver::GetCounters(uint32_t i) const
{
    return m_paths.at(i)->counters;
}

uint32_t
MpQuicReceiver::GetNPaths() const
{
    return static_cast<uint32_t>(m_paths.size());
}

uint64_t
MpQuicReceiver::GetDeliveredBytes() const
{
    return m_reasm ? m_reasm->GetDelivered() : 0;
}

uint64_t
MpQuicReceiver::GetReorderBufferBytes() const
{
    return m_reasm ? m_reasm->GetBufferedBytes() : 0;
}

double
MpQuicReceiver::GetHolByteSeconds() const
{
    return m_reasm ? m_reasm->GetHolByteSeconds() : 0.0;
}

bool
MpQuicReceiver::IsComplete() const
{
    return m_complete;
}

Time
MpQuicReceiver::GetCompletionTime() const
{
    return m_completionTime;
}

void
MpQuicReceiver::DoDispose()
{
    for (auto& p : m_paths)
    {
        p->ackTimer.Cancel();
        if (p->carrier)
        {
            p->carrier->Close();
            p->carrier = nullptr;
        }
    }
    Application::DoDispose();
}

void
MpQuicReceiver::StartApplication()
{
    m_reasm = std::make_unique<MpReassembly>(m_receiveWindow);
    for (uint32_t i = 0; i < m_paths.size(); ++i)
    {
        Path& path = *m_paths[i];
        try
        {
            path.carrier = MpCarrier::Open(m_carrier,
                                           GetNode(),
                                           i,
                                           path.local,
                                           path.peer,
                                           path.port,
                                           m_flowId,
                                           MakeCallback(&MpQuicReceiver::HandlePacket, this),
                                           m_ecn);
        }
        catch (const std::runtime_error& e)
        {
            throw std::runtime_error(std::string("MpQuicReceiver: ") + e.what());
        }
    }
    m_running = true;
}

void
MpQuicReceiver::StopApplication()
{
    m_running = false;
    for (auto& p : m_paths)
    {
        p->ackTimer.Cancel();
        if (p->carrier)
        {
            p->carrier->Close();
        }
    }
}

void
MpQuicReceiver::HandlePacket(uint32_t i, Ptr<Packet> pkt, uint8_t ecn)
{
    MpQuicDataHeader h;
    Time now = Simulator::Now();
    if (!m_running || pkt->GetSize() < MpQuicDataHeader::kSize)
    {
        return;
    }
    uint32_t size = pkt->GetSize();
    pkt->RemoveHeader(h);
    if (!h.valid || h.path != i || h.path >= m_paths.size())
    {
        return;
    }
    Path& path = *m_paths[h.path];
    ++path.counters.dataPackets;
    path.counters.dataBytes += size;
    LeoDelayTag delay;
    if (pkt->PeekPacketTag(delay))
    {
        ++path.counters.timedPackets;
        path.counters.queueTicks += delay.queueTicks;
    }
    bool isNew = path.tracker.OnPacketReceived(h.pn, true, now);
    if (isNew && ecn != 0)
    {
        // RFC 9000 13.4.1: the counts of the packet-number space (duplicates not counted).
        uint64_t& count = ecn == 3   ? path.counters.cePackets
                          : ecn == 2 ? path.counters.ect0Packets
                                     : path.counters.ect1Packets;
        ++count;
    }
    if (!isNew)
    {
        ++path.counters.duplicatePackets;
    }
    else if (!(h.flags & MpQuicDataHeader::kFlagPing))
    {
        m_reasm->OnFrame(h.offset, h.length, h.flags & MpQuicDataHeader::kFlagFin, now);
        if (!m_complete && m_reasm->IsComplete())
        {
            m_complete = true;
            m_completionTime = now;
        }
    }
    if (path.tracker.ShouldAckNow())
    {
        SendAck(h.path);
    }
    else if (path.tracker.AckPending() && !path.ackTimer.IsPending())
    {
        Time at = path.tracker.AckDeadline();
        path.ackTimer = Simulator::Schedule(at > now ? at - now : Time(0),
                                            &MpQuicReceiver::OnAckTimer,
                                            this,
                                            static_cast<uint32_t>(h.path));
    }
}

void
MpQuicReceiver::OnAckTimer(uint32_t i)
{
    Path& path = *m_paths[i];
    if (!m_running || !path.tracker.AckPending())
    {
        return;
    }
    Time now = Simulator::Now();
    Time at = path.tracker.AckDeadline();
    if (at > now)
    {
        // The pending ACK began later than this timer was set for: wait for its deadline.
        path.ackTimer = Simulator::Schedule(at - now, &MpQuicReceiver::OnAckTimer, this, i);
        return;
    }
    SendAck(i);
}

void
MpQuicReceiver::SendAck(uint32_t i)
{
    Path& path = *m_paths[i];
    MpQuicAckHeader& h = m_ackScratch;
    h.path = static_cast<uint8_t>(i);
    h.maxData = m_reasm->GetMaxData();
    path.tracker.FillAck(h, Simulator::Now());
    const PathCounters& c = path.counters;
    // ACK_ECN (RFC 9000 19.3.2) once there is something to report; a plain ACK otherwise.
    h.hasEcn = m_ecn && (c.ect0Packets | c.ect1Packets | c.cePackets) != 0;
    h.ect0 = c.ect0Packets;
    h.ect1 = c.ect1Packets;
    h.ce = c.cePackets;
    Ptr<Packet> pkt = Create<Packet>(0);
    pkt->AddHeader(h);
    path.carrier->Send(pkt);
    ++path.counters.ackFrames;
}

} // namespace ns3
