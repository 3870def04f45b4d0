// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicSender: loss recovery on the sending side: the loss-detection timer and what it fires
// (probes, the retransmission timeout), fast retransmit, the loss state and reinjection
// (mp-quic-sender.cc has the attributes and set-up, mp-quic-sender-send.cc the sending).

#include "mp-quic-sender-path.h"

#include "ns3/simulator.h"

namespace ns3
{

// ---- loss recovery -----------------------------------------------------------------------

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
