// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicSender: sending, paced or not (mp-quic-sender.cc has the attributes and set-up,
// mp-quic-sender-recovery.cc the loss-detection timer and the sender's loss responses).

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

} // namespace ns3
