// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicSender: the connection view the scheduler reads and the stream bookkeeping
// (mp-quic-sender.cc has the attributes and set-up).

#include "model/cc/mp-residual.h"
#include "mp-quic-sender-path.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

// ---- MpConnectionView -------------------------------------------------------------------

Time
MpQuicSender::Now() const
{
    return Simulator::Now();
}

uint32_t
MpQuicSender::GetNPaths() const
{
    return static_cast<uint32_t>(m_paths.size());
}

const MpPathInfo&
MpQuicSender::GetPath(uint32_t i) const
{
    return m_paths[i]->info;
}

uint32_t
MpQuicSender::GetMaxDatagramSize() const
{
    return m_packetBytes;
}

uint32_t
MpQuicSender::GetChunkPayload() const
{
    return m_packetBytes - MpQuicDataHeader::kSize;
}

uint64_t
MpQuicSender::GetPendingBytes() const
{
    uint64_t payload = GetChunkPayload();
    uint64_t retx = m_retxQueue.size() * payload;
    uint64_t sentOffset = m_nextChunk * payload;
    uint64_t ackedOffset = m_chunkBase * payload;
    uint64_t inBuffer = sentOffset - ackedOffset;
    uint64_t room = m_sendBufferBytes > inBuffer ? m_sendBufferBytes - inBuffer : 0;
    uint64_t remaining = std::numeric_limits<uint64_t>::max();
    if (m_fileBytes > 0)
    {
        remaining = m_fileBytes > sentOffset ? m_fileBytes - sentOffset : 0;
    }
    return retx + std::min(room, remaining);
}

uint64_t
MpQuicSender::GetFlowControlCredit() const
{
    uint64_t sent = std::min<uint64_t>(m_nextChunk * GetChunkPayload(),
                                       m_fileBytes > 0 ? m_fileBytes : UINT64_MAX);
    return m_maxData > sent ? m_maxData - sent : 0;
}

uint64_t
MpQuicSender::GetReceiveWindow() const
{
    uint64_t acked = GetContiguousAckedBytes();
    return m_maxData > acked ? m_maxData - acked : 0;
}

uint64_t
MpQuicSender::GetUnackedStreamBytes() const
{
    uint64_t sent = std::min<uint64_t>(m_nextChunk * GetChunkPayload(),
                                       m_fileBytes > 0 ? m_fileBytes : UINT64_MAX);
    return sent > m_ackedStreamBytes ? sent - m_ackedStreamBytes : 0;
}

MpCongestionOps*
MpQuicSender::GetPathCc(uint32_t i) const
{
    return PeekPointer(m_paths[i]->cc);
}

void
MpQuicSender::SetPathState(uint32_t i, MpPathState s)
{
    if (i >= m_paths.size())
    {
        throw std::invalid_argument("path index " + std::to_string(i) + " out of range (" +
                                    std::to_string(m_paths.size()) + " paths)");
    }
    Path& path = *m_paths[i];
    if (path.info.state == s)
    {
        return;
    }
    path.info.state = s;
    if (m_running)
    {
        MpPathEvent ev;
        ev.kind = MpPathEventKind::STATE_CHANGED;
        ev.time = Simulator::Now();
        ev.state = s;
        DeliverPathEvent(path, ev);
        Kick();
    }
}

void
MpQuicSender::RequestWakeup(Time at)
{
    Time now = Simulator::Now();
    if (at < now)
    {
        at = now;
    }
    if (m_wakeupEvent.IsPending() && Time(m_wakeupEvent.GetTs()) <= at)
    {
        return;
    }
    m_wakeupEvent.Cancel();
    m_wakeupEvent = Simulator::Schedule(at - now, &MpQuicSender::TrySend, this);
}

void
MpQuicSender::Kick()
{
    if (!m_kickEvent.IsPending())
    {
        m_kickEvent = Simulator::ScheduleNow(&MpQuicSender::TrySend, this);
    }
}

void
MpQuicSender::SetExternalCwnd(uint32_t i, uint64_t bytes)
{
    Path& path = *m_paths.at(i);
    path.cc->SetExternalCwnd(bytes);
    SyncCc(path);
    Kick();
}

void
MpQuicSender::SetExternalPacingRate(uint32_t i, double bps)
{
    Path& path = *m_paths.at(i);
    path.cc->SetExternalPacingRate(bps);
    SyncCc(path);
    Kick();
}

template <typename Value, typename Get, typename Set>
void
MpQuicSender::SetResidual(uint32_t i, const char* call, Value value, Get get, Set set)
{
    Path& path = *m_paths.at(i);
    Ptr<MpResidual> residual = DynamicCast<MpResidual>(path.cc);
    if (!residual)
    {
        throw std::invalid_argument(std::string(call) + ": path " + std::to_string(i) +
                                    " does not run a residual controller");
    }
    if (value == ((*residual).*get)())
    {
        return; // no resync, no send attempt: the run stays the one without the call
    }
    ((*residual).*set)(value);
    SyncCc(path);
    Kick();
}

void
MpQuicSender::SetCwndGain(uint32_t i, double gain)
{
    SetResidual(i, "SetCwndGain", gain, &MpResidual::GetGain, &MpResidual::SetGain);
}

void
MpQuicSender::SetFollowAlternate(uint32_t i, bool follow)
{
    SetResidual(i,
                "SetFollowAlternate",
                follow,
                &MpResidual::GetFollowAlternate,
                &MpResidual::SetFollowAlternate);
}

// ---- stream bookkeeping -------------------------------------------------------------------

uint32_t
MpQuicSender::ChunkLen(uint64_t chunk) const
{
    if (m_fileBytes == 0)
    {
        return m_chunkPayload;
    }
    uint64_t off = chunk * m_chunkPayload;
    uint64_t left = m_fileBytes - off;
    return left < m_chunkPayload ? static_cast<uint32_t>(left) : m_chunkPayload;
}

bool
MpQuicSender::HasMoreNewData() const
{
    return m_totalChunks == 0 || m_nextChunk < m_totalChunks;
}

uint64_t
MpQuicSender::GetContiguousAckedBytes() const
{
    uint64_t b = m_chunkBase * static_cast<uint64_t>(GetChunkPayload());
    return m_fileBytes > 0 ? std::min(b, m_fileBytes) : b;
}

uint64_t
MpQuicSender::GetAckedStreamBytes() const
{
    return m_ackedStreamBytes;
}

uint64_t
MpQuicSender::GetNewStreamBytesSent() const
{
    uint64_t b = m_nextChunk * static_cast<uint64_t>(GetChunkPayload());
    return m_fileBytes > 0 ? std::min(b, m_fileBytes) : b;
}

bool
MpQuicSender::IsFinished() const
{
    return m_totalChunks > 0 && m_chunkBase >= m_totalChunks;
}

uint64_t
MpQuicSender::GetMaxData() const
{
    return m_maxData;
}

bool
MpQuicSender::PeekChunk(int64_t& chunk, bool& retx)
{
    while (!m_retxQueue.empty())
    {
        uint64_t c = *m_retxQueue.begin();
        if (c < m_chunkBase || m_chunks[c - m_chunkBase].acked)
        {
            if (c >= m_chunkBase)
            {
                m_chunks[c - m_chunkBase].queued = false;
            }
            m_retxQueue.erase(m_retxQueue.begin());
            continue;
        }
        chunk = static_cast<int64_t>(c);
        retx = true;
        return true;
    }
    if (!HasMoreNewData())
    {
        return false;
    }
    uint64_t end = m_nextChunk * m_chunkPayload + ChunkLen(m_nextChunk);
    if (end > m_maxData)
    {
        if (!m_flowBlocked)
        {
            m_flowBlocked = true;
            m_scheduler->OnFlowControlBlocked(*this);
        }
        return false;
    }
    m_flowBlocked = false;
    chunk = static_cast<int64_t>(m_nextChunk);
    retx = false;
    return true;
}

void
MpQuicSender::ConsumeChunk(int64_t chunk, bool retx)
{
    if (retx)
    {
        m_retxQueue.erase(static_cast<uint64_t>(chunk));
        m_chunks[static_cast<uint64_t>(chunk) - m_chunkBase].queued = false;
    }
    else
    {
        m_chunks.emplace_back();
        ++m_nextChunk;
    }
}

MpQuicSender::ChunkState*
MpQuicSender::HeldChunk(int64_t chunk)
{
    if (chunk < 0 || static_cast<uint64_t>(chunk) < m_chunkBase)
    {
        return nullptr;
    }
    return &m_chunks[static_cast<uint64_t>(chunk) - m_chunkBase];
}

void
MpQuicSender::DropCopy(ChunkState& cs)
{
    if (cs.copies > 0)
    {
        --cs.copies;
    }
}

bool
MpQuicSender::QueueRetransmission(uint64_t chunk, ChunkState& cs)
{
    if (cs.acked || cs.queued)
    {
        return false;
    }
    cs.queued = true;
    m_retxQueue.insert(chunk);
    return true;
}

void
MpQuicSender::OnChunkAcked(int64_t chunk)
{
    ChunkState* cs = HeldChunk(chunk);
    if (cs == nullptr || cs->acked)
    {
        return;
    }
    auto c = static_cast<uint64_t>(chunk);
    cs->acked = true;
    m_ackedStreamBytes += ChunkLen(c);

    if (m_pathsInLossState > 0)
    {
        for (auto& pp : m_paths)
        {
            if (pp->info.inLossState && pp->lossStateChunks.erase(c) > 0 &&
                pp->lossStateChunks.empty())
            {
                EndLossState(*pp);
            }
        }
    }
    while (!m_chunks.empty() && m_chunks.front().acked)
    {
        m_chunks.pop_front();
        ++m_chunkBase;
    }
}

void
MpQuicSender::OnChunkLost(int64_t chunk)
{
    ChunkState* cs = HeldChunk(chunk);
    if (cs == nullptr)
    {
        return;
    }
    DropCopy(*cs);
    if (cs->copies == 0)
    {
        QueueRetransmission(static_cast<uint64_t>(chunk), *cs);
    }
}

} // namespace ns3
