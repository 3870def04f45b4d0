// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-consumer.h"

#include "leotp-route-interface.h"
#include "leotp-trace-tag.h"

#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-packet-info-tag.h"
#include "ns3/simulator.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeotpConsumer);

namespace
{
/// Largest byte offset a 32-bit range can name.
constexpr uint64_t kMaxOffset = 0xffffffffULL;
/// Slack when comparing a deadline with the clock (s).
constexpr double kEps = 1e-9;
} // namespace

TypeId
LeotpConsumer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeotpConsumer")
            .SetParent<Application>()
            .SetGroupName("Leogym")
            .AddConstructor<LeotpConsumer>()
            .AddAttribute("FlowId",
                          "FlowID of the flow (paper Table I).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&LeotpConsumer::m_flowId),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Port",
                          "UDP port of the flow (both ends).",
                          UintegerValue(9),
                          MakeUintegerAccessor(&LeotpConsumer::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PayloadBytes",
                          "Data payload of a chunk (MSS), bytes; one Interest asks for one chunk.",
                          UintegerValue(1451),
                          MakeUintegerAccessor(&LeotpConsumer::m_payloadBytes),
                          MakeUintegerChecker<uint32_t>(1, 65486))
            .AddAttribute("TargetBufferPackets",
                          "BL_tar of (C1), in full packets: also the Interests sent before the "
                          "first RTT sample.",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&LeotpConsumer::m_targetPackets),
                          MakeDoubleChecker<double>(1.0, 1e6))
            .AddAttribute("FileBytes",
                          "Bytes to fetch; 0 = bulk (until stopped, at most the 32-bit range of "
                          "the header).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&LeotpConsumer::m_fileBytes),
                          MakeUintegerChecker<uint64_t>(0, kMaxOffset));
    return tid;
}

LeotpConsumer::LeotpConsumer() = default;
LeotpConsumer::~LeotpConsumer() = default;

void
LeotpConsumer::SetSettings(const LeotpFlowSettings& settings)
{
    m_settings = settings;
    m_payloadBytes = settings.payloadBytes;
    m_targetPackets = settings.targetBufferPackets;
}

void
LeotpConsumer::SetEndpoints(Ipv4Address local, Ipv4Address peer)
{
    m_local = local;
    m_peer = peer;
}

void
LeotpConsumer::DoDispose()
{
    m_sendEvent.Cancel();
    m_timer.Cancel();
    m_holeTimer.Cancel();
    m_socket = nullptr;
    Application::DoDispose();
}

void
LeotpConsumer::StartApplication()
{
    m_settings.payloadBytes = m_payloadBytes;
    m_settings.targetBufferPackets = m_targetPackets;
    m_settings.Finalize();
    m_ctrl = std::make_unique<LeotpHopController>(m_settings.hop);
    m_detector = std::make_unique<LeotpHoleDetector>(m_settings.hole);
    m_pacer = std::make_unique<LeotpInterestPacer>(m_settings.WirePacketBytes(),
                                                   m_settings.TargetBytes());
    m_rto = std::make_unique<LeotpRto>(m_settings.rto);
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    if (m_socket->Bind(InetSocketAddress(m_local, m_port)) != 0 ||
        m_socket->Connect(InetSocketAddress(m_peer, m_port)) != 0)
    {
        throw std::runtime_error("LeotpConsumer: cannot bind/connect its UDP socket");
    }
    m_socket->SetRecvCallback(MakeCallback(&LeotpConsumer::HandleRead, this));
    m_socket->SetRecvPktInfo(true); // the receiving interface: the last hop's upstream end
    m_running = true;
    // R_int >= R_min from the start: TR re-sends can go even before the first RTT sample.
    m_pacer->SetRate(Simulator::Now().GetSeconds(), m_settings.minInterestRateBps);
    TrySend();
}

void
LeotpConsumer::StopApplication()
{
    m_running = false;
    m_sendEvent.Cancel();
    m_timer.Cancel();
    m_holeTimer.Cancel();
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->Close();
    }
}

uint64_t
LeotpConsumer::Limit() const
{
    return m_fileBytes > 0 ? m_fileBytes : kMaxOffset;
}

uint64_t
LeotpConsumer::ChunkEnd(uint64_t chunk) const
{
    return std::min<uint64_t>((chunk + 1) * m_payloadBytes, Limit());
}

void
LeotpConsumer::Schedule(uint64_t chunk, const Entry& e)
{
    m_due[e.nTx].emplace(e.tSent, chunk);
}

void
LeotpConsumer::Unschedule(uint64_t chunk, const Entry& e)
{
    auto it = m_due.find(e.nTx);
    if (it != m_due.end())
    {
        it->second.erase({e.tSent, chunk});
        if (it->second.empty())
        {
            m_due.erase(it);
        }
    }
}

void
LeotpConsumer::SendInterest(uint64_t start, uint64_t end)
{
    const double now = Simulator::Now().GetSeconds();
    // The Consumer has no sending buffer: Rate = cwnd / hopRTT (eq. (10) without eq. (9)).
    const double rate = m_ctrl->Rate(false, 0, 0, 0);
    LeotpHeader h = LeotpHeader::Interest(m_flowId,
                                          static_cast<uint32_t>(start),
                                          static_cast<uint32_t>(end),
                                          LeotpHeader::TimestampUs(now),
                                          LeotpHeader::RateField(rate));
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    m_socket->Send(p);
    m_lastInterestS = now;
    ++m_stats.interests;
}

void
LeotpConsumer::TrySend()
{
    if (!m_running || m_stats.completed || m_sendEvent.IsPending())
    {
        return;
    }
    const double now = Simulator::Now().GetSeconds();
    while (true)
    {
        while (!m_retx.empty())
        {
            auto it = m_pending.find(m_retx.front());
            if (it != m_pending.end() && it->second.queued)
            {
                break;
            }
            m_retx.pop_front(); // satisfied (or requested otherwise) meanwhile
        }
        const bool retx = !m_retx.empty();
        if (!retx && m_nextChunk * m_payloadBytes >= Limit())
        {
            break; // nothing left to request
        }
        if (!m_pacer->TryConsume(now))
        {
            const double w = m_pacer->WaitS(now);
            if (std::isfinite(w))
            {
                Time wait = Seconds(w);
                m_sendEvent = Simulator::Schedule(wait > Time(0) ? wait : TimeStep(1),
                                                  &LeotpConsumer::TrySend,
                                                  this);
            }
            break;
        }
        uint64_t chunk;
        if (retx)
        {
            chunk = m_retx.front();
            m_retx.pop_front();
            Entry& e = m_pending[chunk];
            e.queued = false;
            ++e.nTx;
            e.tSent = now;
            e.sampleable = false; // Karn: a re-sent Interest gives no RTT sample
            Schedule(chunk, e);
            ++m_stats.trRetransmissions;
        }
        else
        {
            chunk = m_nextChunk++;
            Entry e;
            e.tSent = now;
            e.nTx = 1;
            m_pending[chunk] = e;
            Schedule(chunk, e);
            ++m_stats.newInterests;
        }
        SendInterest(chunk * m_payloadBytes, ChunkEnd(chunk));
    }
    ArmTimer();
}

void
LeotpConsumer::ArmTimer()
{
    double earliest = std::numeric_limits<double>::infinity();
    for (const auto& [n, set] : m_due)
    {
        if (!set.empty())
        {
            earliest =
                std::min(earliest, set.begin()->first + m_rto->GetBackoffInterval(n).GetSeconds());
        }
    }
    if (!std::isfinite(earliest) || !m_running || m_stats.completed)
    {
        m_timer.Cancel();
        return;
    }
    const Time at = Seconds(earliest);
    if (m_timer.IsPending() && m_timerAt == at)
    {
        return;
    }
    m_timer.Cancel();
    const Time now = Simulator::Now();
    m_timerAt = at;
    m_timer = Simulator::Schedule(at > now ? at - now : Time(0), &LeotpConsumer::TimerFired, this);
}

void
LeotpConsumer::TimerFired()
{
    const double now = Simulator::Now().GetSeconds();
    // The latest send time among the Interests that time out now: one backoff round if it is
    // at or after the previous round (LeotpRto::OnTimeout). Collected first, so that every
    // Interest due now is judged with the intervals in force when it came due.
    double latestSent = -std::numeric_limits<double>::infinity();
    for (auto it = m_due.begin(); it != m_due.end();)
    {
        const double interval = m_rto->GetBackoffInterval(it->first).GetSeconds();
        auto& set = it->second;
        while (!set.empty() && set.begin()->first + interval <= now + kEps)
        {
            const uint64_t chunk = set.begin()->second;
            latestSent = std::max(latestSent, set.begin()->first);
            set.erase(set.begin());
            m_pending[chunk].queued = true; // TR: due again; sent when the budget allows
            m_retx.push_back(chunk);
            ++m_stats.timeouts;
        }
        it = set.empty() ? m_due.erase(it) : std::next(it);
    }
    if (std::isfinite(latestSent))
    {
        m_rto->OnTimeout(Seconds(latestSent), Simulator::Now()); // RFC 6298 rule 5.5, Karn
    }
    TrySend();
    ArmTimer();
}

void
LeotpConsumer::ResetTimers(uint64_t start, uint64_t end)
{
    if (end <= start)
    {
        return;
    }
    const double now = Simulator::Now().GetSeconds();
    for (uint64_t j = start / m_payloadBytes; j * m_payloadBytes < end; ++j)
    {
        auto it = m_pending.find(j);
        if (it == m_pending.end() || it->second.queued)
        {
            continue;
        }
        Unschedule(j, it->second);
        it->second.tSent = now;
        it->second.sampleable = false;
        Schedule(j, it->second);
    }
}

void
LeotpConsumer::RequestHole(uint64_t start, uint64_t end)
{
    for (const LeotpRange& r : LeotpHoleDetector::SplitChunks(start, end, m_payloadBytes))
    {
        const uint64_t chunk = r.first / m_payloadBytes;
        if (!m_pending.count(chunk) || ChunkReceived(chunk))
        {
            continue; // nothing outstanding there (received meanwhile, or never asked)
        }
        SendInterest(r.first, r.second); // SHR bypasses the Interest budget [REC, code]
        ++m_stats.shrInterests;
        ResetTimers(r.first, r.second);
    }
}

void
LeotpConsumer::ArmHoleTimer()
{
    const double t = m_detector->NextExpiryS();
    if (!std::isfinite(t))
    {
        m_holeTimer.Cancel();
        return;
    }
    if (m_holeTimer.IsPending())
    {
        return; // it re-arms itself for the next expiry
    }
    const double now = Simulator::Now().GetSeconds();
    m_holeTimer =
        Simulator::Schedule(Seconds(std::max(0.0, t - now)), &LeotpConsumer::HoleTimerFired, this);
}

void
LeotpConsumer::HoleTimerFired()
{
    for (const LeotpRange& r : m_detector->Expire(Simulator::Now().GetSeconds()))
    {
        RequestHole(r.first, r.second);
    }
    ArmHoleTimer();
}

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

LeotpConsumer::Stats
LeotpConsumer::GetStats() const
{
    Stats s = m_stats;
    s.deliveredBytes = m_rcvNxt;
    s.pending = m_pending.size();
    if (m_rto)
    {
        s.srttS = m_rto->GetEstimator().HasSample()
                      ? m_rto->GetEstimator().GetSmoothed().GetSeconds()
                      : std::numeric_limits<double>::quiet_NaN();
        s.rtoS = m_rto->GetRto().GetSeconds();
        s.backoffRounds = m_rto->GetBackoffRounds();
    }
    if (m_pacer)
    {
        s.interestRateBps = m_pacer->GetRate();
    }
    if (m_ctrl)
    {
        s.cwnd = m_ctrl->GetCwnd();
        s.hopRttS =
            m_ctrl->HasSample() ? m_ctrl->GetHopRttS() : std::numeric_limits<double>::quiet_NaN();
        s.throughputBps = m_ctrl->GetThroughputBps();
        s.rateBps = m_ctrl->Rate(false, 0, 0, 0);
    }
    return s;
}

uint64_t
LeotpConsumer::GetDeliveredBytes() const
{
    return m_rcvNxt;
}

bool
LeotpConsumer::IsComplete() const
{
    return m_stats.completed;
}

const std::vector<double>&
LeotpConsumer::GetOwdSamples() const
{
    return m_owd;
}

const std::vector<double>&
LeotpConsumer::GetRecoveredOwdSamples() const
{
    return m_owdRecovered;
}

} // namespace ns3
