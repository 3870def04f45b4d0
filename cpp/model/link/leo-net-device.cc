// SPDX-License-Identifier: GPL-2.0-only
//
// LeoNetDevice (cpp/model/link/leo-net-device.h). This file: the type, the attributes, the
// accessors, attaching to the channel, the outages and the NetDevice interface; the transmit
// path and the reception are in leo-net-device-transmit.cc.

#include "leo-net-device.h"

#include "leo-channel.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeoNetDevice");
NS_OBJECT_ENSURE_REGISTERED(LeoNetDevice);

TypeId
LeoNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeoNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Leo")
            .AddConstructor<LeoNetDevice>()
            .AddAttribute("Mtu",
                          "The MAC-level maximum transmission unit (bytes).",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&LeoNetDevice::SetMtu, &LeoNetDevice::GetMtu),
                          MakeUintegerChecker<uint16_t>(68))
            .AddAttribute("Address",
                          "The MAC address of this device.",
                          Mac48AddressValue(Mac48Address("ff:ff:ff:ff:ff:ff")),
                          MakeMac48AddressAccessor(&LeoNetDevice::m_address),
                          MakeMac48AddressChecker())
            .AddAttribute("TxQueue",
                          "The drop-tail transmit queue (default: DropTailQueue<Packet> with "
                          "the schedule's queue_packets limit, created on Attach).",
                          PointerValue(),
                          MakePointerAccessor(&LeoNetDevice::m_queue),
                          MakePointerChecker<Queue<Packet>>())
            .AddTraceSource("MacTx",
                            "A packet was handed to the device for transmission.",
                            MakeTraceSourceAccessor(&LeoNetDevice::m_macTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacTxDrop",
                            "A packet handed to the device was dropped at once (queue full or "
                            "outage).",
                            MakeTraceSourceAccessor(&LeoNetDevice::m_macTxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A packet was received and is passed up the stack.",
                            MakeTraceSourceAccessor(&LeoNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxBegin",
                            "Serialization of a packet started.",
                            MakeTraceSourceAccessor(&LeoNetDevice::m_phyTxBeginTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxEnd",
                            "Serialization of a packet ended.",
                            MakeTraceSourceAccessor(&LeoNetDevice::m_phyTxEndTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxEnd",
                            "A packet arrived at this device from the channel.",
                            MakeTraceSourceAccessor(&LeoNetDevice::m_phyRxEndTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Drop",
                            "A packet sent by this device was dropped; the second argument is "
                            "the LeoDropCause (0 OUTAGE, 1 RANDOM, 2 OVERFLOW, 3 AQM, 4 ECN).",
                            MakeTraceSourceAccessor(&LeoNetDevice::m_dropTrace),
                            "ns3::LeoNetDevice::DropTracedCallback");
    return tid;
}

LeoNetDevice::LeoNetDevice()
{
    NS_LOG_FUNCTION(this);
    m_uniform = CreateObject<UniformRandomVariable>();
}

LeoNetDevice::~LeoNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
LeoNetDevice::DoDispose()
{
    m_outageEvent.Cancel();
    m_node = nullptr;
    m_channel = nullptr;
    m_peer = nullptr;
    m_schedule = nullptr;
    m_txCounters = nullptr;
    m_rxCounters = nullptr;
    m_queue = nullptr;
    m_queueMeta.clear();
    if (m_disc)
    {
        m_disc->Dispose();
        m_disc = nullptr;
    }
    m_current = nullptr;
    m_uniform = nullptr;
    m_rxCallback.Nullify();
    m_promiscCallback.Nullify();
    NetDevice::DoDispose();
}

void
LeoNetDevice::SetQueue(Ptr<Queue<Packet>> queue)
{
    m_queue = queue;
}

Ptr<Queue<Packet>>
LeoNetDevice::GetQueue() const
{
    return m_queue;
}

Ptr<QueueDisc>
LeoNetDevice::GetQueueDisc() const
{
    return m_disc;
}

uint32_t
LeoNetDevice::GetQueuedPackets() const
{
    if (m_disc)
    {
        return m_disc->GetNPackets();
    }
    return m_queue ? m_queue->GetNPackets() : 0;
}

int64_t
LeoNetDevice::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    return 1;
}

LeoDirection
LeoNetDevice::GetTxDirection() const
{
    return m_txDir;
}

Ptr<LeoChannel>
LeoNetDevice::GetLeoChannel() const
{
    return m_channel;
}

const LeoDirectionCounters&
LeoNetDevice::GetTxCounters() const
{
    if (!m_txCounters)
    {
        throw std::logic_error("LeoNetDevice: not attached to a channel");
    }
    return *m_txCounters;
}

const LeoDirectionCounters&
LeoNetDevice::GetRxCounters() const
{
    if (!m_rxCounters)
    {
        throw std::logic_error("LeoNetDevice: not attached to a channel");
    }
    return *m_rxCounters;
}

bool
LeoNetDevice::IsTransmitting() const
{
    return m_txBusy;
}

void
LeoNetDevice::Attach(Ptr<LeoChannel> channel, LeoDirection dir)
{
    if (!channel)
    {
        throw std::invalid_argument("LeoNetDevice::Attach: null channel");
    }
    if (m_channel)
    {
        throw std::invalid_argument("LeoNetDevice::Attach: already attached to a channel");
    }
    if (!m_node)
    {
        throw std::invalid_argument(
            "LeoNetDevice::Attach: add the device to a node before connecting it");
    }
    Ptr<LeoNetDevice> peer = channel->GetPeer(this);
    if (!peer || !peer->GetNode())
    {
        throw std::invalid_argument("LeoNetDevice::Attach: the peer device has no node");
    }
    m_channel = channel;
    m_peer = peer;
    m_peerContext = peer->GetNode()->GetId();
    m_schedule = PeekPointer(channel->GetSchedule());
    m_txDir = dir;
    m_txCounters = &channel->MutableCounters(dir);
    const LeoDirection rxDir = dir == LeoDirection::DOWN ? LeoDirection::UP : LeoDirection::DOWN;
    m_rxCounters = &channel->MutableCounters(rxDir);
    const LeoQueueConfig& qc = m_schedule->GetQueueConfig();
    m_ecnHandling = qc.ecnHandling;
    if (qc.discipline != LeoQueueDiscipline::DROPTAIL)
    {
        m_discipline = qc.discipline;
        m_disc = MakeLeoQueueDisc(qc,
                                  m_schedule->GetQueuePackets(),
                                  m_schedule->RateAt(dir, m_schedule->GetT0()),
                                  m_mtu);
        m_disc->TraceConnectWithoutContext("DropBeforeEnqueue",
                                           MakeCallback(&LeoNetDevice::DiscDrop, this));
        m_disc->TraceConnectWithoutContext("DropAfterDequeue",
                                           MakeCallback(&LeoNetDevice::DiscDrop, this));
        m_disc->TraceConnectWithoutContext("Mark", MakeCallback(&LeoNetDevice::DiscMark, this));
    }
    if (!m_queue)
    {
        Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
        q->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, m_schedule->GetQueuePackets()));
        m_queue = q;
    }
    const auto& outages = m_schedule->GetOutages();
    const double now = Simulator::Now().GetSeconds();
    m_nextOutage =
        std::lower_bound(outages.begin(),
                         outages.end(),
                         now,
                         [](const std::pair<double, double>& o, double x) { return o.first < x; }) -
        outages.begin();
    ScheduleNextOutage();
}

void
LeoNetDevice::ScheduleNextOutage()
{
    const auto& outages = m_schedule->GetOutages();
    if (m_nextOutage >= outages.size())
    {
        return;
    }
    const Time delay =
        Seconds(std::max(0.0, outages[m_nextOutage].first - Simulator::Now().GetSeconds()));
    if (Simulator::GetContext() == m_node->GetId())
    {
        m_outageEvent = Simulator::Schedule(delay, &LeoNetDevice::OutageStart, this);
    }
    else
    {
        // At build time (no node context yet): the event runs in this node's context.
        Simulator::ScheduleWithContext(m_node->GetId(), delay, &LeoNetDevice::OutageStart, this);
    }
}

void
LeoNetDevice::OutageStart()
{
    if (!m_queue)
    {
        return; // disposed
    }
    // Everything queued is lost; the packet being serialized (if any) was already found to
    // overlap this outage when it started and has its drop scheduled.
    while (!m_queue->IsEmpty())
    {
        DropNow(m_queue->Dequeue(), LEO_DROP_OUTAGE);
    }
    m_queueMeta.clear();
    if (m_disc)
    {
        // Dequeue runs the discipline's own dequeue-time drops too (counted as theirs).
        while (Ptr<QueueDiscItem> item = m_disc->Dequeue())
        {
            DropNow(item->GetPacket(), LEO_DROP_OUTAGE);
        }
    }
    ++m_nextOutage;
    ScheduleNextOutage();
}

void
LeoNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
LeoNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
LeoNetDevice::GetChannel() const
{
    return m_channel;
}

void
LeoNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
LeoNetDevice::GetAddress() const
{
    return m_address;
}

bool
LeoNetDevice::SetMtu(const uint16_t mtu)
{
    if (mtu < 68)
    {
        return false;
    }
    m_mtu = mtu;
    return true;
}

uint16_t
LeoNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
LeoNetDevice::IsLinkUp() const
{
    return true; // outages are modelled as drops, not as link-down events
}

void
LeoNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    // The link never changes state.
}

bool
LeoNetDevice::IsBroadcast() const
{
    return true;
}

Address
LeoNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
LeoNetDevice::IsMulticast() const
{
    return true;
}

Address
LeoNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
LeoNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
LeoNetDevice::IsPointToPoint() const
{
    return true;
}

bool
LeoNetDevice::IsBridge() const
{
    return false;
}

Ptr<Node>
LeoNetDevice::GetNode() const
{
    return m_node;
}

void
LeoNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
LeoNetDevice::NeedsArp() const
{
    return false;
}

void
LeoNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
LeoNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
LeoNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
