// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicSender: receiving ACKs and the oracle's path notifications (mp-quic-sender.cc has the
// attributes and set-up).

#include "mp-quic-sender-path.h"

#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

// ---- receiving ACKs ----------------------------------------------------------------------

void
MpQuicSender::HandlePacket(uint32_t i, Ptr<Packet> pkt, uint8_t)
{
    if (!m_running || pkt->GetSize() < 23)
    {
        return;
    }
    MpQuicAckHeader h;
    pkt->RemoveHeader(h);
    if (!h.valid || h.path != i || h.path >= m_paths.size())
    {
        return;
    }
    OnAckFrame(*m_paths[h.path], h);
}

void
MpQuicSender::HandleLost(Path& path)
{
    const auto& lost = path.lr.Lost();
    if (lost.empty())
    {
        return;
    }
    const auto& out = path.lr.Outcome();
    uint64_t ectLost = 0;
    for (const auto& p : lost)
    {
        if (p.chunk >= 0)
        {
            OnChunkLost(p.chunk);
        }
        ectLost += p.ecn != 0 ? 1 : 0;
    }
    if (ectLost > 0)
    {
        path.ecn.OnPacketsLost(ectLost);
    }
    path.info.lostPackets += lost.size();
    MpLossEvent le;
    le.now = Simulator::Now();
    le.lost = lost.data();
    le.nLost = lost.size();
    le.lostBytes = out.lostBytes;
    le.largestLostSentTime = lost.back().sentTime;
    le.persistentCongestion = out.persistentCongestion;
    path.info.bytesInFlight = path.lr.GetBytesInFlight();
    path.cc->OnPacketsLost(path.ctx, le);
    if (out.persistentCongestion)
    {
        ++path.counters.persistentCongestion;
        path.cc->OnPersistentCongestion(path.ctx);
        path.lr.Rtt().ResetMinToLatest();
    }
}

void
MpQuicSender::OnAckFrame(Path& path, const MpQuicAckHeader& h)
{
    Time now = Simulator::Now();
    ++path.counters.ackFrames;
    if (h.maxData > m_maxData)
    {
        m_maxData = h.maxData;
    }
    uint64_t priorInFlight = path.lr.GetBytesInFlight();
    const int64_t largestBefore = path.lr.GetLargestAcked();
    const auto& out =
        path.lr.OnAckReceived(h.ranges.data(), h.nRanges, MicroSeconds(h.ackDelayUs), now);
    MpPathInfo& info = path.info;

    path.rate.BeginAck();
    uint32_t ackedPackets = 0;
    for (const auto& p : path.lr.NewlyAcked())
    {
        if (p.wasLost)
        {
            ++path.counters.spuriousLosses;
        }
        else if (p.inFlight)
        {
            path.rate.OnPacketAcked(p, now);
            ++ackedPackets;
        }
        if (p.chunk >= 0)
        {
            OnChunkAcked(p.chunk);
            ChunkState* cs = HeldChunk(p.chunk);
            if (!p.wasLost && cs != nullptr)
            {
                DropCopy(*cs);
            }
        }
    }
    const MpRateSample& rs = path.rate.EndAck(path.lr.Rtt().GetMin(), out.lostBytes);
    info.ackedPackets += ackedPackets;
    info.deliveredBytes += out.ackedInFlightBytes;
    info.bytesInFlight = path.lr.GetBytesInFlight();
    info.ptoCount = path.lr.GetPtoCount();
    if (rs.valid)
    {
        info.deliveryRateBps = rs.deliveryRateBps;
    }
    if (out.rttSampled)
    {
        Time srtt = path.lr.Rtt().GetSmoothed();
        if (info.minSrtt.IsZero() || srtt < info.minSrtt)
        {
            info.minSrtt = srtt;
        }
        if (srtt > info.maxSrtt)
        {
            info.maxSrtt = srtt;
        }
    }

    if (path.prrActive && out.anyNewlyAcked && out.largestNewlyAckedSentTime > path.prrStart)
    {
        path.prrActive = false; // a packet sent after recovery began: recovery is over
    }
    bool anyLost = !path.lr.Lost().empty();
    HandleLost(path);
    if (anyLost && m_recovery.prr && !path.prrActive)
    {
        path.prrActive = true;
        path.prrStart = now;
        path.prrRecoverFs = std::max<uint64_t>(priorInFlight, 1);
        path.prrDelivered = 0;
        path.prrOut = 0;
        path.prrAllowance = 0;
    }
    if (anyLost && m_recovery.fastRetransmit)
    {
        FastRetransmit(path);
    }
    if (m_tcpTimer)
    {
        // RFC 6298 5.3: restart the timer when the path's cumulative point advances.
        while (!path.unacked.empty())
        {
            uint64_t c = path.unacked.front().second;
            if (c >= m_chunkBase && !m_chunks[c - m_chunkBase].acked)
            {
                break;
            }
            path.unacked.pop_front();
        }
        uint64_t una = path.unacked.empty() ? path.lr.GetNextPn() : path.unacked.front().first;
        if (una > path.timerUna)
        {
            path.timerUna = una;
            path.lr.RestartRetransmissionTimer(now);
        }
    }
    info.rtoCount = path.lr.GetRtoCount();
    if (out.rtoEpisodeEnded)
    {
        MpRtoEnd end;
        end.now = now;
        end.spurious = out.rtoSpurious && m_recovery.rtoUndo;
        if (out.rtoSpurious)
        {
            ++path.counters.spuriousRtos;
            EndLossState(path); // F-RTO: back to the open state
        }
        else
        {
            end.verifiedWindow =
                static_cast<uint64_t>(m_recovery.verifiedWindowPackets) * m_packetBytes;
        }
        path.cc->OnRtoEpisodeEnd(path.ctx, end);
        SyncCc(path);
    }
    if (out.anyNewlyAcked)
    {
        MpAckEvent ae;
        ae.now = now;
        ae.bytesAcked = out.ackedInFlightBytes;
        ae.packetsAcked = ackedPackets;
        ae.acked = path.lr.NewlyAcked().data();
        ae.nAcked = path.lr.NewlyAcked().size();
        ae.rttSampled = out.rttSampled;
        ae.latestRtt = path.lr.Rtt().GetLatest();
        ae.priorBytesInFlight = priorInFlight;
        ae.rate = &rs;
        path.cc->OnAck(path.ctx, ae);
        m_scheduler->OnAck(*this, info.index, ae);
    }
    if (path.ecn.GetState() != MpEcnState::OFF)
    {
        ProcessEcn(path, h, path.lr.GetLargestAcked() > largestBefore);
    }
    if (path.prrActive)
    {
        UpdatePrr(path, out.ackedInFlightBytes);
    }
    SyncCc(path);
    ArmLossTimer(path);
    TrySend();
}

void
MpQuicSender::ProcessEcn(Path& path, const MpQuicAckHeader& h, bool largestIncreased)
{
    uint64_t ackedEct0 = 0;
    uint64_t ackedEct1 = 0;
    const MpSentPacket* largest = nullptr;
    for (const auto& p : path.lr.NewlyAcked())
    {
        // Late ACKs of packets declared lost count too: the peer counted them on arrival.
        ackedEct0 += p.ecn == static_cast<uint8_t>(MpEcnCodepoint::ECT0) ? 1 : 0;
        ackedEct1 += p.ecn == static_cast<uint8_t>(MpEcnCodepoint::ECT1) ? 1 : 0;
        if (!largest || p.pn > largest->pn)
        {
            largest = &p;
        }
    }
    MpEcnCounts counts;
    counts.ect0 = h.ect0;
    counts.ect1 = h.ect1;
    counts.ce = h.ce;
    const MpEcnValidator::Feedback fb =
        path.ecn.OnAck(ackedEct0, ackedEct1, largestIncreased, h.hasEcn, counts);
    if (!fb.accepted)
    {
        return;
    }
    path.counters.ceReported = path.ecn.GetPeerCounts().ce;
    if (fb.ect0Increase + fb.ect1Increase + fb.ceIncrease == 0 || !largest)
    {
        return;
    }
    // RFC 9002 section 7.1 / B.7: the controller decides (default: a CE increase is a
    // congestion event for the send time of the largest acknowledged packet).
    MpEcnEvent ev;
    ev.now = Simulator::Now();
    ev.newlyAckedEct = fb.newlyAckedEct;
    ev.ect0Increase = fb.ect0Increase;
    ev.ect1Increase = fb.ect1Increase;
    ev.ceIncrease = fb.ceIncrease;
    ev.bytesAcked = 0;
    for (const auto& p : path.lr.NewlyAcked())
    {
        ev.bytesAcked += p.inFlight && !p.wasLost ? p.bytes : 0;
    }
    ev.largestAckedSentTime = largest->sentTime;
    path.info.bytesInFlight = path.lr.GetBytesInFlight();
    ++path.counters.ecnFeedbacks;
    path.cc->OnEcnFeedback(path.ctx, ev);
}

void
MpQuicSender::UpdatePrr(Path& path, uint64_t delivered)
{
    // RFC 6937 section 3.1, with the slow-start reduction bound (PRR-SSRB).
    path.prrDelivered += delivered;
    auto pipe = static_cast<int64_t>(path.lr.GetBytesInFlight());
    uint64_t ss = path.cc->GetSsthresh();
    if (ss == std::numeric_limits<uint64_t>::max())
    {
        ss = path.cc->GetCwnd();
    }
    auto ssthresh = static_cast<int64_t>(ss);
    int64_t sndcnt;
    if (pipe > ssthresh)
    {
        auto num = static_cast<double>(path.prrDelivered) * static_cast<double>(ssthresh);
        sndcnt = static_cast<int64_t>(std::ceil(num / static_cast<double>(path.prrRecoverFs))) -
                 static_cast<int64_t>(path.prrOut);
    }
    else
    {
        int64_t limit =
            std::max(static_cast<int64_t>(path.prrDelivered) - static_cast<int64_t>(path.prrOut),
                     static_cast<int64_t>(delivered)) +
            static_cast<int64_t>(m_packetBytes);
        sndcnt = std::min(ssthresh - pipe, limit);
    }
    path.prrAllowance = sndcnt > 0 ? static_cast<uint64_t>(sndcnt) : 0;
}

// ---- oracle notifications ----------------------------------------------------------------

void
MpQuicSender::DeliverPathEvent(Path& path, const MpPathEvent& ev)
{
    path.cc->OnPathEvent(path.ctx, ev);
    m_scheduler->OnPathEvent(*this, path.info.index, ev);
    SyncCc(path);
}

void
MpQuicSender::ScheduleHandover(uint32_t i)
{
    Path& path = *m_paths[i];
    if (!path.info.oracle)
    {
        return;
    }
    double now = Simulator::Now().GetSeconds();
    double t = path.info.oracle->NextHandoverAfter(std::max(now, path.lastHandoverS));
    if (!std::isfinite(t))
    {
        return;
    }
    path.lastHandoverS = t;
    path.handoverEvent =
        Simulator::Schedule(Seconds(std::max(0.0, t - now)), &MpQuicSender::OnHandover, this, i);
}

void
MpQuicSender::OnHandover(uint32_t i)
{
    Path& path = *m_paths[i];
    ++path.counters.handovers;
    MpPathEvent ev;
    ev.kind = MpPathEventKind::HANDOVER;
    ev.time = Simulator::Now();
    ev.state = path.info.state;
    DeliverPathEvent(path, ev);
    ScheduleHandover(i);
    Kick();
}

void
MpQuicSender::ScheduleOutage(uint32_t i)
{
    Path& path = *m_paths[i];
    if (!path.info.oracle)
    {
        return;
    }
    double now = Simulator::Now().GetSeconds();
    auto [start, end] = path.info.oracle->NextOutageAfter(now);
    if (!std::isfinite(start))
    {
        return;
    }
    path.outageEvent = Simulator::Schedule(Seconds(std::max(0.0, start - now)),
                                           &MpQuicSender::OnOutageEdge,
                                           this,
                                           i,
                                           true,
                                           end);
}

void
MpQuicSender::OnOutageEdge(uint32_t i, bool start, double end)
{
    Path& path = *m_paths[i];
    MpPathEvent ev;
    ev.kind = start ? MpPathEventKind::OUTAGE_START : MpPathEventKind::OUTAGE_END;
    ev.time = Simulator::Now();
    ev.state = path.info.state;
    DeliverPathEvent(path, ev);
    if (start)
    {
        double now = Simulator::Now().GetSeconds();
        path.outageEvent = Simulator::Schedule(Seconds(std::max(0.0, end - now)),
                                               &MpQuicSender::OnOutageEdge,
                                               this,
                                               i,
                                               false,
                                               end);
    }
    else
    {
        ScheduleOutage(i);
    }
    Kick();
}

} // namespace ns3
