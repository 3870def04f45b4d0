// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicSender: sending (mp-quic-sender.cc has the attributes and set-up).

#include "mp-quic-sender-path.h"

#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

// ---- sending -----------------------------------------------------------------------------

bool
MpQuicSender::IsPaced(const Path& path) const
{
    return m_pacing || path.cc->RequiresPacing() || path.cc->GetPacingRate() > 0;
}

double
MpQuicSender::PacingRate(const Path& path) const
{
    double r = path.cc->GetPacingRate();
    if (r > 0)
    {
        return r;
    }
    if (!m_pacing || !path.lr.Rtt().HasSample())
    {
        return 0;
    }
    double srtt = path.lr.Rtt().GetSmoothed().GetSeconds();
    if (srtt <= 0)
    {
        return 0;
    }
    return m_pacingGain * 8.0 * static_cast<double>(path.info.cwnd) / srtt;
}

void
MpQuicSender::SyncCc(Path& path)
{
    path.info.cwnd = path.cc->GetCwnd();
    if (path.prrActive)
    {
        // RFC 6937: in recovery the window is what PRR allows on top of the flight.
        path.info.cwnd = path.lr.GetBytesInFlight() + path.prrAllowance;
    }
    path.info.ssthresh = path.cc->GetSsthresh();
    path.info.pacingRateBps = IsPaced(path) ? PacingRate(path) : 0;
}

void
MpQuicSender::UpdatePacing(Time now)
{
    for (auto& pp : m_paths)
    {
        MpPathInfo& info = pp->info;
        info.pacingBlocked = info.pacingRateBps > 0 && info.nextSendTime > now;
    }
}

void
MpQuicSender::ArmPacingTimer(Time now)
{
    // Wake up when the first path held only by pacing may send again.
    Time earliest = Time::Max();
    for (auto& pp : m_paths)
    {
        const MpPathInfo& info = pp->info;
        if (info.pacingBlocked && info.state != MpPathState::DEACTIVATED &&
            info.HasWindowRoom(m_packetBytes) && info.nextSendTime < earliest)
        {
            earliest = info.nextSendTime;
        }
    }
    if (earliest == Time::Max())
    {
        return;
    }
    if (m_pacingEvent.IsPending() && Time(m_pacingEvent.GetTs()) <= earliest)
    {
        return;
    }
    m_pacingEvent.Cancel();
    m_pacingEvent = Simulator::Schedule(earliest - now, &MpQuicSender::TrySend, this);
}

void
MpQuicSender::TrySend()
{
    if (!m_running || m_inTrySend)
    {
        return;
    }
    m_inTrySend = true;
    Time now = Simulator::Now();
    int32_t blocking = -1;
    bool haveData = false;
    for (uint32_t guard = 0; guard < 1000000; ++guard)
    {
        int64_t chunk = -1;
        bool retx = false;
        haveData = PeekChunk(chunk, retx);
        if (!haveData)
        {
            break;
        }
        UpdatePacing(now);
        MpSchedRequest req;
        req.retransmission = retx;
        req.bytes = ChunkLen(static_cast<uint64_t>(chunk)) + MpQuicDataHeader::kSize;
        req.pathMask = retx ? m_chunks[static_cast<uint64_t>(chunk) - m_chunkBase].pathMask : 0;
        int32_t p = m_scheduler->SelectPath(*this, req);
        if (p < 0 || p >= static_cast<int32_t>(m_paths.size()))
        {
            break;
        }
        Path& path = *m_paths[p];
        if (!path.info.IsAvailable(req.bytes))
        {
            blocking = p; // the scheduler insists on a path that cannot send now: wait
            break;
        }
        ConsumeChunk(chunk, retx);
        SendPacket(path, chunk, retx, false);
    }
    UpdatePacing(now);
    if (haveData)
    {
        ArmPacingTimer(now);
    }
    UpdateAppLimited(blocking);
    m_inTrySend = false;
}

void
MpQuicSender::UpdateAppLimited(int32_t blockingPath)
{
    for (auto& pp : m_paths)
    {
        Path& path = *pp;
        bool limited = static_cast<int32_t>(path.info.index) != blockingPath &&
                       path.info.state != MpPathState::DEACTIVATED &&
                       path.info.HasWindowRoom(m_packetBytes) && !path.info.pacingBlocked;
        if (limited)
        {
            path.rate.MarkAppLimited(path.lr.GetBytesInFlight());
        }
        if (limited && m_cwndValidation == 1 && path.cc->InSlowStart() &&
            path.info.cwnd < 2 * path.cwvMaxInflight)
        {
            limited = false; // Linux: slow start doubles what the last window carried
        }
        path.info.appLimited = limited;
    }
}

void
MpQuicSender::SendPacket(Path& path, int64_t chunk, bool retx, bool probe)
{
    Time now = Simulator::Now();
    uint32_t len = chunk >= 0 ? ChunkLen(static_cast<uint64_t>(chunk)) : 0;
    if (m_recovery.slowStartAfterIdle && !probe && path.lr.GetBytesInFlight() == 0 &&
        path.lastSendTime != Time::Min() && now - path.lastSendTime > path.lr.GetRto())
    {
        // RFC 5681 section 4.1 / Linux tcp_cwnd_restart: the window went stale while idle.
        path.cc->OnIdleRestart(path.ctx, now - path.lastSendTime, path.lr.GetRto());
        ++path.counters.idleRestarts;
        SyncCc(path);
    }
    path.lastSendTime = now;
    Ptr<Packet> pkt = Create<Packet>(len);
    MpQuicDataHeader h;
    h.path = static_cast<uint8_t>(path.info.index);
    h.pn = path.lr.GetNextPn();
    if (chunk >= 0)
    {
        h.offset = static_cast<uint64_t>(chunk) * m_chunkPayload;
        h.length = static_cast<uint16_t>(len);
        if (m_totalChunks > 0 && static_cast<uint64_t>(chunk) + 1 == m_totalChunks)
        {
            h.flags |= MpQuicDataHeader::kFlagFin;
        }
    }
    else
    {
        h.flags |= MpQuicDataHeader::kFlagPing;
    }
    pkt->AddHeader(h);
    const MpEcnCodepoint ecn = path.ecn.GetState() == MpEcnState::OFF
                                   ? MpEcnCodepoint::NOT_ECT
                                   : path.ecn.OnPacketSent(path.cc->GetEcnCodepoint());
    path.carrier->Send(pkt, static_cast<uint8_t>(ecn));
    if (ecn != MpEcnCodepoint::NOT_ECT)
    {
        ++path.counters.ectSentPackets;
    }

    MpSentPacket& sp = path.scratch;
    sp.pn = h.pn;
    sp.sentTime = now;
    sp.bytes = len + MpQuicDataHeader::kSize;
    sp.chunk = chunk;
    sp.ackEliciting = true;
    sp.inFlight = true;
    sp.retransmission = retx;
    sp.probe = probe;
    sp.ecn = static_cast<uint8_t>(ecn);
    path.rate.OnPacketSent(sp, path.lr.GetBytesInFlight(), now);
    path.lr.OnPacketSent(sp);
    if (chunk >= 0)
    {
        ChunkState& cs = m_chunks[static_cast<uint64_t>(chunk) - m_chunkBase];
        ++cs.copies;
        cs.pathMask |= (1u << path.info.index);
        if (m_tcpTimer)
        {
            path.unacked.emplace_back(h.pn, static_cast<uint64_t>(chunk));
        }
    }
    MpPathInfo& info = path.info;
    info.sentBytes += sp.bytes;
    ++info.sentPackets;
    if (retx)
    {
        ++info.retransmittedPackets;
    }
    info.bytesInFlight = path.lr.GetBytesInFlight();
    if (path.lr.GetLargestAcked() >= path.cwvWindowEndPn ||
        info.bytesInFlight > path.cwvMaxInflight)
    {
        // A new window (everything up to the last mark acknowledged) or a new peak.
        path.cwvMaxInflight = info.bytesInFlight;
        path.cwvWindowEndPn = sp.pn;
    }
    if (path.prrActive)
    {
        path.prrOut += sp.bytes;
        path.prrAllowance = path.prrAllowance > sp.bytes ? path.prrAllowance - sp.bytes : 0;
    }
    path.cc->OnPacketSent(path.ctx, sp);
    m_scheduler->OnPacketSent(*this, info.index, sp);
    SyncCc(path);
    if (info.pacingRateBps > 0 && !probe)
    {
        Time start = info.nextSendTime > now ? info.nextSendTime : now;
        // A gap of at most 10 s keeps a degenerate rate from overflowing ns-3's Time.
        double gap = std::min(8.0 * sp.bytes / info.pacingRateBps, 10.0);
        info.nextSendTime = start + Seconds(gap);
    }
    ArmLossTimer(path);
}

void
MpQuicSender::ArmLossTimer(Path& path)
{
    Time deadline;
    MpLossRecovery::TimerKind kind = path.lr.GetTimer(deadline);
    if (kind == MpLossRecovery::TimerKind::NONE)
    {
        return; // a pending event finds nothing to do and stops
    }
    Time now = Simulator::Now();
    if (deadline < now)
    {
        deadline = now;
    }
    if (path.lossTimer.IsPending())
    {
        // Fire early rather than reschedule: the handler re-arms for a later deadline.
        if (Time(path.lossTimer.GetTs()) <= deadline)
        {
            return;
        }
        path.lossTimer.Cancel();
    }
    path.lossTimer =
        Simulator::Schedule(deadline - now, &MpQuicSender::OnLossTimer, this, path.info.index);
}

void
MpQuicSender::OnLossTimer(uint32_t i)
{
    if (!m_running)
    {
        return;
    }
    Path& path = *m_paths[i];
    Time now = Simulator::Now();
    MpLossRecovery::TimerKind kind = path.lr.OnLossDetectionTimeout(now);
    if (kind == MpLossRecovery::TimerKind::NONE)
    {
        ArmLossTimer(path);
        return;
    }
    if (kind == MpLossRecovery::TimerKind::LOSS_TIME)
    {
        HandleLost(path);
        path.info.bytesInFlight = path.lr.GetBytesInFlight();
    }
    else if (kind == MpLossRecovery::TimerKind::TLP)
    {
        ++path.counters.tlpEvents;
        SendTimerProbes(path, 1); // RFC 8985 7.3 / the drafts' SendOnePacket
    }
    else if (kind == MpLossRecovery::TimerKind::RTO)
    {
        path.ecn.OnPtoExpired(); // RFC 9000 A.4's probe timeouts, for the timer presets
        HandleRto(path);
    }
    else
    {
        path.ecn.OnPtoExpired();
        ++path.counters.ptoEvents;
        path.info.ptoCount = path.lr.GetPtoCount();
        path.cc->OnPtoExpired(path.ctx, path.info.ptoCount);
        SyncCc(path);
        SendProbes(path);
        if (m_reinjectOnPto)
        {
            Reinject(path);
        }
    }
    SyncCc(path);
    ArmLossTimer(path);
    TrySend();
}

void
MpQuicSender::SendProbes(Path& path)
{
    // The oldest chunks outstanding on this path, else new data, else a PING.
    int64_t picks[2] = {-1, -1};
    uint32_t n = 0;
    path.lr.ForEachOutstanding([&](const MpSentPacket& p) {
        if (n >= m_ptoProbes)
        {
            return;
        }
        const ChunkState* cs = HeldChunk(p.chunk);
        if (cs == nullptr || cs->acked)
        {
            return;
        }
        for (uint32_t k = 0; k < n; ++k)
        {
            if (picks[k] == p.chunk)
            {
                return;
            }
        }
        picks[n++] = p.chunk;
    });
    for (uint32_t k = 0; k < m_ptoProbes; ++k)
    {
        if (k < n)
        {
            SendPacket(path, picks[k], true, true);
        }
        else
        {
            int64_t chunk = -1;
            bool retx = false;
            if (PeekChunk(chunk, retx))
            {
                ConsumeChunk(chunk, retx);
                SendPacket(path, chunk, retx, true);
            }
            else
            {
                SendPacket(path, -1, false, true);
            }
        }
        ++path.counters.probesSent;
    }
}

void
MpQuicSender::SendTimerProbes(Path& path, uint32_t n)
{
    // New data if there is any (RFC 8985 7.3, the drafts' SendOnePacket/SendTwoPackets), else
    // the most recently sent chunk still outstanding on the path, else a PING.
    for (uint32_t k = 0; k < n; ++k)
    {
        int64_t chunk = -1;
        bool retx = false;
        if (PeekChunk(chunk, retx) && !retx)
        {
            ConsumeChunk(chunk, retx);
            SendPacket(path, chunk, false, true);
        }
        else
        {
            int64_t newest = -1;
            path.lr.ForEachOutstanding([&](const MpSentPacket& p) {
                const ChunkState* cs = HeldChunk(p.chunk);
                if (cs != nullptr && !cs->acked)
                {
                    newest = p.chunk;
                }
            });
            SendPacket(path, newest, newest >= 0, true);
        }
        ++path.counters.probesSent;
    }
}

void
MpQuicSender::HandleRto(Path& path)
{
    ++path.counters.rtoEvents;
    path.prrActive = false;
    MpRtoEvent ev;
    ev.now = Simulator::Now();
    ev.rtoCount = path.lr.GetRtoCount();
    ev.first = ev.rtoCount == 1;
    ev.priorCwnd = path.cc->GetCwnd();
    ev.priorSsthresh = path.cc->GetSsthresh();
    ev.lossWindow = static_cast<uint64_t>(m_recovery.lossWindowPackets) * m_packetBytes;
    const auto& lost = path.lr.Lost();
    ev.oldestSentTime = lost.empty() ? path.lr.GetTimeOfLastAckEliciting() : lost.front().sentTime;
    path.lr.ForEachOutstanding([&](const MpSentPacket& p) {
        if (p.sentTime < ev.oldestSentTime)
        {
            ev.oldestSentTime = p.sentTime;
        }
    });
    if (m_recovery.lossState && !lost.empty())
    {
        // TCP_CA_Loss: no new data on the path until what it had outstanding is delivered.
        for (const auto& p : lost)
        {
            const ChunkState* cs = HeldChunk(p.chunk);
            if (cs != nullptr && !cs->acked)
            {
                path.lossStateChunks.insert(static_cast<uint64_t>(p.chunk));
            }
        }
        if (!path.info.inLossState && !path.lossStateChunks.empty())
        {
            path.info.inLossState = true;
            ++m_pathsInLossState;
        }
    }
    HandleLost(path); // the controller's loss response and the chunks' retransmission
    ev.bytesInFlight = path.lr.GetBytesInFlight();
    path.info.bytesInFlight = ev.bytesInFlight;
    path.info.rtoCount = ev.rtoCount;
    path.cc->OnRetransmissionTimeout(path.ctx, ev);
    SyncCc(path);
    if (m_recovery.rtoProbes > 0)
    {
        SendTimerProbes(path, m_recovery.rtoProbes);
    }
}

void
MpQuicSender::FastRetransmit(Path& path)
{
    // RFC 5681 3.2 step 2 / RFC 6582: the first segment found lost is re-sent at once,
    // whatever the window; the rest follow as the window allows.
    int64_t first = -1;
    for (const auto& p : path.lr.Lost())
    {
        const ChunkState* cs = HeldChunk(p.chunk);
        if (cs != nullptr && cs->queued && !cs->acked && (first < 0 || p.chunk < first))
        {
            first = p.chunk;
        }
    }
    if (first >= 0)
    {
        ConsumeChunk(first, true);
        SendPacket(path, first, true, true);
        ++path.counters.fastRetransmits;
    }
}

void
MpQuicSender::EndLossState(Path& path)
{
    if (path.info.inLossState)
    {
        path.info.inLossState = false;
        --m_pathsInLossState;
    }
    path.lossStateChunks.clear();
}

void
MpQuicSender::Reinject(Path& path)
{
    bool otherUsable = false;
    for (auto& q : m_paths)
    {
        if (q.get() != &path && q->info.IsUsable())
        {
            otherUsable = true;
            break;
        }
    }
    if (!otherUsable)
    {
        return;
    }
    path.lr.ForEachOutstanding([&](const MpSentPacket& p) {
        ChunkState* cs = HeldChunk(p.chunk);
        if (cs != nullptr && QueueRetransmission(static_cast<uint64_t>(p.chunk), *cs))
        {
            ++path.counters.reinjectedChunks;
        }
    });
}

} // namespace ns3
