// SPDX-License-Identifier: GPL-2.0-only
//
// LeoNetDevice, its transmit path and reception: Send (drop-tail queue or AQM queue disc),
// serialization, the fate of each packet on the link (delivery, random loss, outage), the
// drops and their counters, and delivery at the peer (leo-net-device.cc has the type, the
// attributes and the set-up).

#include "leo-delay-tag.h"
#include "leo-ecn.h"
#include "leo-net-device.h"
#include "model/queue/leo-queue-disc-item.h"

#include "ns3/simulator.h"

#include <limits>

namespace ns3
{

bool
LeoNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    if (!m_channel)
    {
        return false;
    }
    m_macTxTrace(packet);
    if (m_schedule->InOutage(Simulator::Now().GetSeconds()))
    {
        DropNow(packet, LEO_DROP_OUTAGE);
        return false;
    }
    if (m_ecnHandling != LeoEcnHandling::PASS && LeoPacketEcn(packet, protocolNumber) != 0)
    {
        // A link that cannot carry ECN (queue.ecn_handling): drop or bleach ECT/CE packets.
        if (m_ecnHandling == LeoEcnHandling::DROP)
        {
            DropNow(packet, LEO_DROP_ECN);
            return false;
        }
        LeoClearEcn(packet, protocolNumber);
    }
    if (m_disc)
    {
        return SendToDisc(packet, protocolNumber);
    }
    if (!m_txBusy)
    {
        ++m_txCounters->enqueuedPackets;
        StartTransmission(packet, protocolNumber);
        return true;
    }
    if (!m_queue->Enqueue(packet))
    {
        DropNow(packet, LEO_DROP_OVERFLOW);
        return false;
    }
    ++m_txCounters->enqueuedPackets;
    m_queueMeta.push_back({protocolNumber, Simulator::Now().GetTimeStep()});
    return true;
}

bool
LeoNetDevice::SendToDisc(Ptr<Packet> packet, uint16_t protocol)
{
    // Every packet passes through the disc, even onto an idle link, so that the discipline
    // sees each arrival (RED's average, PIE's and CoDel's sojourn times).
    Ptr<LeoQueueDiscItem> item = Create<LeoQueueDiscItem>(packet, protocol);
    item->SetTimeStamp(Simulator::Now());
    if (!m_disc->Enqueue(item))
    {
        return false; // counted by DiscDrop
    }
    ++m_txCounters->enqueuedPackets;
    if (!m_txBusy)
    {
        StartFromDisc();
    }
    return true;
}

void
LeoNetDevice::StartFromDisc()
{
    Ptr<QueueDiscItem> item = m_disc->Dequeue();
    if (!item)
    {
        return;
    }
    Ptr<Packet> next = item->GetPacket();
    LeoDelayTag tag;
    const int64_t wait = Simulator::Now().GetTimeStep() - item->GetTimeStamp().GetTimeStep();
    m_txCounters->sojournTicks += wait;
    if (wait > 0 && next->PeekPacketTag(tag))
    {
        tag.queueTicks += wait;
        next->ReplacePacketTag(tag);
    }
    StartTransmission(next, item->GetProtocol());
}

void
LeoNetDevice::DiscDrop(Ptr<const QueueDiscItem> item, const char* reason)
{
    DropNow(item->GetPacket(),
            LeoQueueDropIsOverflow(m_discipline, reason) ? LEO_DROP_OVERFLOW : LEO_DROP_AQM);
}

void
LeoNetDevice::DiscMark(Ptr<const QueueDiscItem> item, const char* reason)
{
    ++m_txCounters->markPackets;
    m_txCounters->markBytes += item->GetSize();
}

bool
LeoNetDevice::SendFrom(Ptr<Packet> packet,
                       const Address& source,
                       const Address& dest,
                       uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

void
LeoNetDevice::StartTransmission(Ptr<Packet> packet, uint16_t protocol)
{
    const uint32_t size = packet->GetSize();
    const double tS = Simulator::Now().GetSeconds();
    const double txS = size * 8.0 / m_schedule->RateAt(m_txDir, tS);
    const double tE = tS + txS;
    m_txBusy = true;
    m_current = packet;
    ++m_txCounters->txPackets;
    m_txCounters->txBytes += size;
    m_phyTxBeginTrace(packet);
    Simulator::Schedule(Seconds(txS), &LeoNetDevice::TransmitComplete, this);

    double tR = tE + m_schedule->DelayAt(m_txDir, tE);
    if (tR < m_lastArrivalS)
    {
        tR = m_lastArrivalS; // FIFO link
    }
    const double lostAt = m_schedule->FirstOutageOverlap(tS, tR);
    if (lostAt < std::numeric_limits<double>::infinity())
    {
        Simulator::Schedule(Seconds(lostAt - tS),
                            &LeoNetDevice::DropLater,
                            this,
                            packet,
                            static_cast<uint8_t>(LEO_DROP_OUTAGE));
        return;
    }
    m_lastArrivalS = tR;
    const double p = m_schedule->LossAt(m_txDir, tE);
    if (p > 0.0 && m_uniform->GetValue() < p)
    {
        Simulator::Schedule(Seconds(tR - tS),
                            &LeoNetDevice::DropLater,
                            this,
                            packet,
                            static_cast<uint8_t>(LEO_DROP_RANDOM));
        return;
    }
    Simulator::ScheduleWithContext(m_peerContext,
                                   Seconds(tR - tS),
                                   &LeoNetDevice::Receive,
                                   m_peer,
                                   packet,
                                   protocol);
}

void
LeoNetDevice::TransmitComplete()
{
    m_phyTxEndTrace(m_current);
    m_current = nullptr;
    m_txBusy = false;
    if (m_disc)
    {
        StartFromDisc();
        return;
    }
    if (!m_queue->IsEmpty())
    {
        Ptr<Packet> next = m_queue->Dequeue();
        const QueuedMeta meta = m_queueMeta.front();
        m_queueMeta.pop_front();
        LeoDelayTag tag;
        const int64_t wait = Simulator::Now().GetTimeStep() - meta.enqueued;
        m_txCounters->sojournTicks += wait;
        if (wait > 0 && next->PeekPacketTag(tag))
        {
            tag.queueTicks += wait;
            next->ReplacePacketTag(tag);
        }
        StartTransmission(next, meta.protocol);
    }
}

void
LeoNetDevice::DropNow(Ptr<Packet> packet, LeoDropCause cause)
{
    m_txCounters->dropPackets[cause]++;
    m_txCounters->dropBytes[cause] += packet->GetSize();
    m_macTxDropTrace(packet);
    m_dropTrace(packet, static_cast<uint8_t>(cause));
}

void
LeoNetDevice::DropLater(Ptr<Packet> packet, uint8_t cause)
{
    m_txCounters->dropPackets[cause]++;
    m_txCounters->dropBytes[cause] += packet->GetSize();
    m_dropTrace(packet, cause);
}

void
LeoNetDevice::Receive(Ptr<Packet> packet, uint16_t protocol)
{
    ++m_rxCounters->rxPackets;
    m_rxCounters->rxBytes += packet->GetSize();
    m_phyRxEndTrace(packet);
    m_macRxTrace(packet);
    const Address from = m_peer->GetAddress();
    if (!m_promiscCallback.IsNull())
    {
        m_promiscCallback(this, packet, protocol, from, GetAddress(), NetDevice::PACKET_HOST);
    }
    if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this, packet, protocol, from);
    }
}

} // namespace ns3
