// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpConsumer, the data it receives: the received ranges, the Interest rate (C1), reading
// the socket, and each Data packet or VPH (leotp-consumer.cc has the type and the set-up).

#include "leotp-consumer.h"
#include "leotp-route-interface.h"
#include "leotp-trace-tag.h"

#include "ns3/ipv4-packet-info-tag.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

uint64_t
LeotpConsumer::AddReceived(uint64_t start, uint64_t end)
{
    if (end <= m_rcvNxt)
    {
        return 0;
    }
    start = std::max(start, m_rcvNxt);
    uint64_t covered = 0;
    uint64_t lo = start;
    uint64_t hi = end;
    auto it = m_ooo.upper_bound(start);
    if (it != m_ooo.begin())
    {
        --it;
    }
    while (it != m_ooo.end() && it->first <= end)
    {
        if (it->second < start)
        {
            ++it;
            continue;
        }
        const uint64_t a = std::max(start, it->first);
        const uint64_t b = std::min(end, it->second);
        if (b > a)
        {
            covered += b - a;
        }
        lo = std::min(lo, it->first);
        hi = std::max(hi, it->second);
        it = m_ooo.erase(it);
    }
    m_ooo[lo] = hi;
    while (!m_ooo.empty() && m_ooo.begin()->first <= m_rcvNxt)
    {
        m_rcvNxt = std::max(m_rcvNxt, m_ooo.begin()->second);
        m_ooo.erase(m_ooo.begin());
    }
    return (end - start) - covered;
}

bool
LeotpConsumer::ChunkReceived(uint64_t chunk) const
{
    const uint64_t a = std::max<uint64_t>(chunk * m_payloadBytes, m_rcvNxt);
    const uint64_t b = ChunkEnd(chunk);
    if (b <= a)
    {
        return true;
    }
    auto it = m_ooo.upper_bound(a);
    if (it == m_ooo.begin())
    {
        return false;
    }
    --it;
    return it->first <= a && it->second >= b;
}

void
LeotpConsumer::UpdateInterestRate()
{
    const double now = Simulator::Now().GetSeconds();
    double rate = m_settings.minInterestRateBps;
    const MpRttEstimator& est = m_rto->GetEstimator();
    if (est.HasSample())
    {
        rate = LeotpInterestPacer::Rate(m_ctrl->GetThroughputBps(),
                                        m_backlogBytes,
                                        est.GetSmoothed().GetSeconds(),
                                        m_settings.minInterestRateBps); // (C1)
    }
    m_pacer->SetRate(now, rate);
}

void
LeotpConsumer::HandleRead(Ptr<Socket> socket)
{
    while (Ptr<Packet> p = socket->Recv())
    {
        if (p->GetSize() < LeotpHeader::kSize)
        {
            continue;
        }
        int64_t iif = -1;
        Ipv4PacketInfoTag info;
        if (p->RemovePacketTag(info))
        {
            iif = info.GetRecvIf();
        }
        LeotpHeader h;
        p->RemoveHeader(h);
        if (h.valid && h.IsData() && h.flowId == m_flowId && h.rangeEnd >= h.rangeStart)
        {
            OnData(h, p, iif);
        }
    }
}

int64_t
LeotpConsumer::UpstreamInterface() const
{
    return LeotpInterfaceToward(GetNode(), m_local, m_peer);
}

void
LeotpConsumer::OnData(const LeotpHeader& h, Ptr<Packet> payload, int64_t iif)
{
    if (!m_running)
    {
        return;
    }
    const double now = Simulator::Now().GetSeconds();
    const uint32_t nowUs = LeotpHeader::TimestampUs(now);
    const bool vph = h.IsVph();
    const uint32_t len = vph ? 0 : h.rangeEnd - h.rangeStart;
    // Requester half of the last hop (variants C and D: of the whole path).
    const bool late = m_detector->HasState() && h.rangeStart < m_detector->GetLastByte();
    bool measured = true;
    const bool hopByHop =
        m_settings.variant == LeotpVariant::A || m_settings.variant == LeotpVariant::B;
    if (hopByHop && iif >= 0)
    {
        // The controller describes the last hop, to the upstream neighbour on the route now;
        // a new neighbour resets it, and packets a node left off the route still drains toward
        // here describe no hop of the route (cpp/doc/leotp.md, "Midnode": the Midnode's rule).
        const int64_t up = UpstreamInterface();
        if (up >= 0 && up != iif)
        {
            measured = false;
            ++m_stats.offRouteDataIn;
        }
        else
        {
            if (m_upstreamIf >= 0 && m_upstreamIf != iif)
            {
                m_ctrl->Reset();
                ++m_stats.resets;
            }
            m_upstreamIf = iif;
        }
    }
    if (measured)
    {
        if (!(m_settings.variant == LeotpVariant::C && late) &&
            h.timestamp != LeotpHeader::kNoTimestamp)
        {
            // In variant C a late packet may come from a Midnode's cache with the stamp of the
            // Consumer's own Interest: not an end-to-end sample (cpp/doc/leotp.md).
            m_ctrl->OnSample(now, LeotpHeader::ElapsedS(nowUs, h.timestamp));
        }
        m_ctrl->OnReceive(now, LeotpFlowSettings::WireBytes(len, h.type == LeotpType::DATA_BL));
    }
    if (h.type == LeotpType::DATA_BL && h.srcBacklog != 0)
    {
        m_backlogBytes = static_cast<double>(h.srcBacklog) * m_settings.WirePacketBytes();
    }
    const LeotpHoleDetector::Result r = m_detector->OnPacket(h.rangeStart, h.rangeEnd, now);
    if (vph)
    {
        ++m_stats.vphs;
        ResetTimers(h.rangeStart, h.rangeEnd); // TR waits for the in-network repair [P]
    }
    else
    {
        const uint64_t fresh = AddReceived(h.rangeStart, h.rangeEnd);
        m_stats.receivedBytes += fresh;
        m_stats.duplicateBytes += len - fresh;
        LeotpTraceTag tag;
        if (fresh > 0 && payload->PeekPacketTag(tag))
        {
            const double owd = (Simulator::Now() - TimeStep(tag.firstSentTicks)).GetSeconds();
            (tag.retransmitted ? m_owdRecovered : m_owd).push_back(owd);
        }
        if (len > 0)
        {
            for (uint64_t j = h.rangeStart / m_payloadBytes; j * m_payloadBytes < h.rangeEnd; ++j)
            {
                auto it = m_pending.find(j);
                if (it == m_pending.end() || !ChunkReceived(j))
                {
                    continue;
                }
                const Entry& e = it->second;
                if (!e.queued)
                {
                    if (e.nTx == 1 && e.sampleable)
                    {
                        m_rto->OnSample(Seconds(now - e.tSent), Simulator::Now()); // Karn
                    }
                    Unschedule(j, e);
                }
                m_pending.erase(it);
            }
        }
    }
    for (const LeotpRange& req : r.requests)
    {
        RequestHole(req.first, req.second);
    }
    ArmHoleTimer();
    if (m_fileBytes > 0 && m_rcvNxt >= m_fileBytes && !m_stats.completed)
    {
        m_stats.completed = true;
        m_stats.completionTimeS = now;
        m_sendEvent.Cancel();
        m_timer.Cancel();
        m_holeTimer.Cancel();
        return;
    }
    UpdateInterestRate();
    if (m_ctrl->HasSample() &&
        now - m_lastInterestS >= m_settings.emptyInterestRtts * m_ctrl->GetHopRttS())
    {
        SendInterest(0, 0); // a rate notification only [REC, code]
        ++m_stats.emptyInterests;
    }
    TrySend();
    ArmTimer();
}

} // namespace ns3
