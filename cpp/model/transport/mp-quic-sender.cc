// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicSender: the data-sending end of the multipath QUIC-like transport.

#include "mp-quic-sender-path.h"

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

} // namespace ns3
