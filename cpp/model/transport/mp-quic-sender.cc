// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicSender: the data-sending end of the multipath QUIC-like transport.

#include "mp-quic-sender.h"

#include "model/cc/mp-residual.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MpQuicSender");
NS_OBJECT_ENSURE_REGISTERED(MpQuicSender);

/// Everything the sender keeps for one path.
struct MpQuicSender::Path
{
    Path(uint32_t idx, const MpLossRecovery::Params& params)
        : lr(params)
    {
        info.index = idx;
        info.rtt = &lr.Rtt();
    }

    MpPathInfo info;
    MpLossRecovery lr;
    MpDeliveryRate rate;
    MpEcnValidator ecn;
    Ptr<MpCongestionOps> cc;
    MpCcContext ctx;
    Ptr<MpCarrier> carrier;
    Ipv4Address local;
    Ipv4Address peer;
    uint16_t port{0};
    EventId lossTimer;
    EventId handoverEvent;
    EventId outageEvent;
    PathCounters counters;
    MpSentPacket scratch;               //!< reused record for sends
    uint64_t cwvMaxInflight{0};         //!< peak bytes in flight in the current window (Linux CWV)
    int64_t cwvWindowEndPn{-1};         //!< the window ends when this packet number is acknowledged
    Time lastSendTime{Time::Min()};     //!< last data packet sent (slow start after idle)
    std::set<uint64_t> lossStateChunks; //!< RTO recovery: chunks lost at the RTO, not acked
    /// TCP preset: (packet number, chunk) of the path's data packets in send order whose
    /// data is not acknowledged yet; the front is the path's cumulative acknowledgement point
    /// (snd_una): a lost packet holds it until its data arrives, by whatever path.
    std::deque<std::pair<uint64_t, uint64_t>> unacked;
    uint64_t timerUna{0}; //!< snd_una (a packet number) when the timer last restarted
    // Proportional rate reduction (RFC 6937), the `tcp` preset's recovery pacing.
    bool prrActive{false};
    Time prrStart;            //!< recovery began (packets sent after it end it)
    uint64_t prrRecoverFs{1}; //!< RecoverFS: the flight when recovery began
    uint64_t prrDelivered{0}; //!< prr_delivered
    uint64_t prrOut{0};       //!< prr_out
    uint64_t prrAllowance{0}; //!< sndcnt left: bytes the path may send beyond its flight
    double lastHandoverS{-std::numeric_limits<double>::infinity()};
};

TypeId
MpQuicSender::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpQuicSender")
            .SetParent<Application>()
            .SetGroupName("Leogym")
            .AddConstructor<MpQuicSender>()
            .AddAttribute("PacketBytes",
                          "UDP payload bytes of a full DATA packet (max_datagram_size); each "
                          "carries PacketBytes - 17 stream bytes.",
                          UintegerValue(1200),
                          MakeUintegerAccessor(&MpQuicSender::m_packetBytes),
                          MakeUintegerChecker<uint32_t>(64, 65000))
            .AddAttribute("MaxAckDelay",
                          "The receiver's max_ack_delay (RFC 9002), used in the PTO.",
                          TimeValue(MilliSeconds(25)),
                          MakeTimeAccessor(&MpQuicSender::m_maxAckDelay),
                          MakeTimeChecker(Time(0), Seconds(10)))
            .AddAttribute("InitialRtt",
                          "kInitialRtt of RFC 9002 (smoothed_rtt before the first sample).",
                          TimeValue(MilliSeconds(333)),
                          MakeTimeAccessor(&MpQuicSender::m_initialRtt),
                          MakeTimeChecker(MicroSeconds(1), Seconds(60)))
            .AddAttribute("Pacing",
                          "Pace every path (otherwise only controllers that require it).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpQuicSender::m_pacing),
                          MakeBooleanChecker())
            .AddAttribute("PacingGain",
                          "N of RFC 9002 section 7.7: default pacing rate N * cwnd / srtt.",
                          DoubleValue(1.25),
                          MakeDoubleAccessor(&MpQuicSender::m_pacingGain),
                          MakeDoubleChecker<double>(0.1, 100.0))
            .AddAttribute("ReinjectOnPto",
                          "On a probe timeout, queue the path's outstanding data for "
                          "retransmission on other paths.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpQuicSender::m_reinjectOnPto),
                          MakeBooleanChecker())
            .AddAttribute("PtoProbes",
                          "Probe packets sent on a probe timeout (RFC 9002: one or two).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&MpQuicSender::m_ptoProbes),
                          MakeUintegerChecker<uint32_t>(1, 2))
            .AddAttribute("CwndValidation",
                          "When an under-used window may grow: 0 = never (RFC 9002 section "
                          "7.8); 1 = as Linux TCP does: in slow start while the window's "
                          "peak bytes in flight are at least half of cwnd (tcp_is_cwnd_limited, "
                          "in the spirit of RFC 7661), in congestion avoidance never.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpQuicSender::m_cwndValidation),
                          MakeUintegerChecker<uint32_t>(0, 1))
            .AddAttribute("SendBufferBytes",
                          "Connection send buffer; bounds the pending-bytes figure schedulers "
                          "see (k of ECF/ALCS).",
                          UintegerValue(4 * 1024 * 1024),
                          MakeUintegerAccessor(&MpQuicSender::m_sendBufferBytes),
                          MakeUintegerChecker<uint64_t>(1024, uint64_t(1) << 40))
            .AddAttribute("FileBytes",
                          "Stream length in bytes (0: unbounded bulk transfer).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpQuicSender::m_fileBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("InitialMaxData",
                          "The receiver's initial MAX_DATA (its receive window).",
                          UintegerValue(6 * 1024 * 1024),
                          MakeUintegerAccessor(&MpQuicSender::m_initialMaxData),
                          MakeUintegerChecker<uint64_t>(1024, uint64_t(1) << 40))
            .AddAttribute("Carrier",
                          kMpCarrierAttributeHelp,
                          EnumValue(MpCarrierKind::LEO),
                          MakeEnumAccessor<MpCarrierKind>(&MpQuicSender::m_carrier),
                          MakeMpCarrierChecker())
            .AddAttribute("FlowId",
                          "Flow id carried in the leo carrier's header (0: the connection).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpQuicSender::m_flowId),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("Ecn",
                          "ECN (RFC 9000 section 13.4, RFC 9002 section 7.1): data packets carry "
                          "the controller's ECT codepoint while the path's ECN validation allows "
                          "it; validated CE feedback reaches the controller.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpQuicSender::m_ecn),
                          MakeBooleanChecker());
    return tid;
}

MpQuicSender::MpQuicSender()
{
    NS_LOG_FUNCTION(this);
}

MpQuicSender::~MpQuicSender() = default;

uint32_t
MpQuicSender::AddPath(const PathConfig& cfg)
{
    if (!cfg.cc)
    {
        throw std::invalid_argument("MpQuicSender::AddPath: null congestion controller");
    }
    if (m_paths.size() >= 32)
    {
        throw std::invalid_argument("MpQuicSender: at most 32 paths");
    }
    MpLossRecovery::Params params = m_recovery.lr;
    params.maxAckDelay = m_maxAckDelay;
    params.initialRtt = m_initialRtt;
    auto idx = static_cast<uint32_t>(m_paths.size());
    auto path = std::make_unique<Path>(idx, params);
    path->cc = cfg.cc;
    path->local = cfg.local;
    path->peer = cfg.peer;
    path->port = cfg.port;
    path->info.state = cfg.state;
    path->info.oracle = cfg.oracle;
    path->info.topologyPath = cfg.topologyPath;
    path->ctx.conn = this;
    path->ctx.path = idx;
    path->lr.SetPersistentCongestionFilter(&MpQuicSender::PcFilterThunk, path.get());
    m_paths.push_back(std::move(path));
    return idx;
}

void
MpQuicSender::SetRecovery(const MpRecoveryConfig& cfg)
{
    if (!m_paths.empty())
    {
        throw std::logic_error("MpQuicSender::SetRecovery: call before AddPath");
    }
    m_recovery = cfg;
    m_tcpTimer = cfg.lr.recovery == MpLossRecovery::Recovery::TCP;
}

const MpRecoveryConfig&
MpQuicSender::GetRecovery() const
{
    return m_recovery;
}

Time
MpQuicSender::GetTimeToRetransmissionTimer(uint32_t i) const
{
    const Path& path = *m_paths.at(i);
    Time deadline;
    MpLossRecovery::TimerKind kind = path.lr.GetTimer(deadline);
    if (kind != MpLossRecovery::TimerKind::RTO && kind != MpLossRecovery::TimerKind::TLP)
    {
        return Seconds(-1);
    }
    return deadline - Simulator::Now();
}

bool
MpQuicSender::PcFilterThunk(void* ctx, const MpSentPacket& p)
{
    auto* path = static_cast<Path*>(ctx);
    return path->cc->ConsiderForPersistentCongestion(path->ctx, p);
}

void
MpQuicSender::SetScheduler(Ptr<MpScheduler> scheduler)
{
    m_scheduler = scheduler;
}

Ptr<MpScheduler>
MpQuicSender::GetScheduler() const
{
    return m_scheduler;
}

Ptr<MpCongestionOps>
MpQuicSender::GetCc(uint32_t i) const
{
    return m_paths.at(i)->cc;
}

const MpQuicSender::PathCounters&
MpQuicSender::GetCounters(uint32_t i) const
{
    return m_paths.at(i)->counters;
}

const MpEcnValidator&
MpQuicSender::GetEcn(uint32_t i) const
{
    return m_paths.at(i)->ecn;
}

void
MpQuicSender::DoDispose()
{
    for (auto& p : m_paths)
    {
        p->lossTimer.Cancel();
        p->handoverEvent.Cancel();
        p->outageEvent.Cancel();
        if (p->carrier)
        {
            p->carrier->Close();
            p->carrier = nullptr;
        }
        p->cc = nullptr;
    }
    m_pacingEvent.Cancel();
    m_wakeupEvent.Cancel();
    m_kickEvent.Cancel();
    m_scheduler = nullptr;
    Application::DoDispose();
}

void
MpQuicSender::StartApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_paths.empty() || !m_scheduler)
    {
        return;
    }
    m_chunkPayload = m_packetBytes - MpQuicDataHeader::kSize;
    m_totalChunks = m_fileBytes == 0 ? 0 : (m_fileBytes + m_chunkPayload - 1) / m_chunkPayload;
    m_maxData = m_initialMaxData;
    for (auto& path : m_paths)
    {
        try
        {
            path->carrier = MpCarrier::Open(m_carrier,
                                            GetNode(),
                                            path->info.index,
                                            path->local,
                                            path->peer,
                                            path->port,
                                            m_flowId,
                                            MakeCallback(&MpQuicSender::HandlePacket, this));
        }
        catch (const std::runtime_error& e)
        {
            throw std::runtime_error(std::string("MpQuicSender: ") + e.what());
        }
        path->cc->Init(path->ctx);
        // A controller without an ECN response sends Not-ECT: its path stays off.
        path->ecn.Start(m_ecn && path->cc->GetEcnCodepoint() != MpEcnCodepoint::NOT_ECT);
        SyncCc(*path);
        ScheduleHandover(path->info.index);
        ScheduleOutage(path->info.index);
    }
    m_scheduler->Init(*this);
    m_running = true;
    TrySend();
}

void
MpQuicSender::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_running = false;
    for (auto& p : m_paths)
    {
        p->lossTimer.Cancel();
        p->handoverEvent.Cancel();
        p->outageEvent.Cancel();
        if (p->carrier)
        {
            p->carrier->Close();
        }
    }
    m_pacingEvent.Cancel();
    m_wakeupEvent.Cancel();
    m_kickEvent.Cancel();
}

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

void
MpQuicSender::SetCwndGain(uint32_t i, double gain)
{
    Path& path = *m_paths.at(i);
    Ptr<MpResidual> residual = DynamicCast<MpResidual>(path.cc);
    if (!residual)
    {
        throw std::invalid_argument("SetCwndGain: path " + std::to_string(i) +
                                    " does not run a residual controller");
    }
    if (gain == residual->GetGain())
    {
        return;
    }
    residual->SetGain(gain);
    SyncCc(path);
    Kick();
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
