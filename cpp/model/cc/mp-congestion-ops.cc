// SPDX-License-Identifier: GPL-2.0-only

#include "mp-congestion-ops.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpCongestionOps);
NS_OBJECT_ENSURE_REGISTERED(MpCongestionOpsWrapper);

TypeId
MpCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpCongestionOps")
            .SetParent<Object>()
            .SetGroupName("Leogym")
            .AddAttribute("InitialWindow",
                          "Initial congestion window in packets of max_datagram_size "
                          "(0: RFC 9002 kInitialWindow, min(10 mss, max(14720 B, 2 mss))).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpCongestionOps::m_initialWindowPackets),
                          MakeUintegerChecker<uint32_t>(0, 10000));
    return tid;
}

MpCongestionOps::MpCongestionOps()
    : m_ssthresh(std::numeric_limits<uint64_t>::max())
{
}

MpCongestionOps::~MpCongestionOps() = default;

uint64_t
MpCongestionOps::InitialWindow(uint32_t mss)
{
    uint64_t m = mss;
    return std::min<uint64_t>(10 * m, std::max<uint64_t>(14720, 2 * m));
}

uint64_t
MpCongestionOps::MinimumWindow(uint32_t mss)
{
    return 2 * static_cast<uint64_t>(mss);
}

void
MpCongestionOps::CommitRealWindow(double& cwnd)
{
    uint64_t floor = m_windowFloor > 0 ? m_windowFloor : MinimumWindow(m_mss);
    cwnd = std::max(cwnd, static_cast<double>(floor));
    m_cwnd = static_cast<uint64_t>(cwnd);
}

void
MpCongestionOps::SetWindow(uint64_t bytes)
{
    m_cwnd = bytes;
}

void
MpCongestionOps::Init(const MpCcContext& ctx)
{
    m_mss = ctx.Mss();
    m_cwnd = m_initialWindowPackets > 0 ? static_cast<uint64_t>(m_initialWindowPackets) * m_mss
                                        : InitialWindow(m_mss);
    m_ssthresh = std::numeric_limits<uint64_t>::max();
}

void
MpCongestionOps::OnPacketSent(const MpCcContext&, const MpSentPacket&)
{
}

void
MpCongestionOps::OnPersistentCongestion(const MpCcContext&)
{
    m_cwnd = MinimumWindow(m_mss);
}

void
MpCongestionOps::OnPtoExpired(const MpCcContext&, uint32_t)
{
}

void
MpCongestionOps::OnRetransmissionTimeout(const MpCcContext&, const MpRtoEvent& ev)
{
    if (ev.first && !m_rtoPriorValid)
    {
        m_rtoPriorCwnd = ev.priorCwnd;
        m_rtoPriorSsthresh = ev.priorSsthresh;
        m_rtoPriorValid = ev.priorCwnd > 0;
    }
    else if (!ev.first && ev.lossWindow > 0)
    {
        // Linux tcp_enter_loss: ssthresh is set on the first expiry of an episode only.
        m_ssthresh = ev.priorSsthresh;
    }
    if (ev.lossWindow > 0)
    {
        m_windowFloor = std::min<uint64_t>(ev.lossWindow, MinimumWindow(m_mss));
        SetWindow(ev.lossWindow);
    }
}

void
MpCongestionOps::OnRtoEpisodeEnd(const MpCcContext&, const MpRtoEnd& ev)
{
    m_windowFloor = 0;
    if (ev.spurious && m_rtoPriorValid)
    {
        m_ssthresh = m_rtoPriorSsthresh;
        SetWindow(std::max(m_rtoPriorCwnd, m_cwnd));
    }
    else if (!ev.spurious && ev.verifiedWindow > 0)
    {
        SetWindow(ev.verifiedWindow);
    }
    m_rtoPriorValid = false;
    m_rtoPriorCwnd = 0;
}

void
MpCongestionOps::OnIdleRestart(const MpCcContext&, Time idle, Time rto)
{
    if (rto.IsZero() || !rto.IsStrictlyPositive())
    {
        return;
    }
    uint64_t iw = m_initialWindowPackets > 0 ? static_cast<uint64_t>(m_initialWindowPackets) * m_mss
                                             : InitialWindow(m_mss);
    uint64_t restart = std::min(iw, m_cwnd);
    // tcp_current_ssthresh: remember three quarters of the window before shrinking it.
    m_ssthresh = std::max<uint64_t>(m_ssthresh, m_cwnd / 4 * 3);
    uint64_t cwnd = m_cwnd;
    for (Time left = idle; left > rto && cwnd > restart; left -= rto)
    {
        cwnd /= 2;
    }
    SetWindow(std::max(cwnd, restart));
}

void
MpCongestionOps::OnPathEvent(const MpCcContext&, const MpPathEvent&)
{
}

void
MpCongestionOps::OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev)
{
    if (ev.ceIncrease == 0)
    {
        return;
    }
    // RFC 9002 section 7.1 / B.7: a CE increase is a congestion event for the send time of the
    // largest acknowledged packet; the controller treats it as a loss of no bytes.
    MpLossEvent loss;
    loss.now = ev.now;
    loss.lost = nullptr;
    loss.nLost = 0;
    loss.lostBytes = 0;
    loss.largestLostSentTime = ev.largestAckedSentTime;
    loss.persistentCongestion = false;
    OnPacketsLost(ctx, loss);
}

MpEcnCodepoint
MpCongestionOps::GetEcnCodepoint() const
{
    return MpEcnCodepoint::ECT0;
}

bool
MpCongestionOps::ConsiderForPersistentCongestion(const MpCcContext&, const MpSentPacket&) const
{
    return true;
}

uint64_t
MpCongestionOps::GetCwnd() const
{
    return m_cwnd;
}

uint64_t
MpCongestionOps::GetSsthresh() const
{
    return m_ssthresh;
}

double
MpCongestionOps::GetPacingRate() const
{
    return m_pacingRate;
}

bool
MpCongestionOps::RequiresPacing() const
{
    return false;
}

bool
MpCongestionOps::InSlowStart() const
{
    return m_cwnd < m_ssthresh;
}

uint64_t
MpCongestionOps::GetSuppressedLosses() const
{
    return 0;
}

bool
MpCongestionOps::IsExternal() const
{
    return false;
}

void
MpCongestionOps::SetExternalCwnd(uint64_t)
{
}

void
MpCongestionOps::SetExternalPacingRate(double)
{
}

int64_t
MpCongestionOps::AssignStreams(int64_t)
{
    return 0;
}

// ---------------------------------------------------------------------------------------------

TypeId
MpCongestionOpsWrapper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpCongestionOpsWrapper").SetParent<MpCongestionOps>().SetGroupName("Leogym");
    return tid;
}

void
MpCongestionOpsWrapper::SetInner(Ptr<MpCongestionOps> inner)
{
    if (!inner)
    {
        throw std::invalid_argument("MpCongestionOpsWrapper: the inner controller is null");
    }
    m_inner = inner;
}

Ptr<MpCongestionOps>
MpCongestionOpsWrapper::GetInner() const
{
    return m_inner;
}

void
MpCongestionOpsWrapper::SetAlternate(Ptr<MpCongestionOps> /* alternate */)
{
    throw std::invalid_argument("'" + GetName() + "' takes one controller, not an alternate");
}

Ptr<MpCongestionOps>
MpCongestionOpsWrapper::GetAlternate() const
{
    return nullptr;
}

std::string
MpCongestionOpsWrapper::GetName() const
{
    return m_inner ? m_inner->GetName() : std::string("wrapper");
}

void
MpCongestionOpsWrapper::Init(const MpCcContext& ctx)
{
    if (!m_inner)
    {
        throw std::runtime_error("MpCongestionOpsWrapper: no inner controller set");
    }
    m_mss = ctx.Mss();
    m_inner->Init(ctx);
}

void
MpCongestionOpsWrapper::OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p)
{
    m_inner->OnPacketSent(ctx, p);
}

void
MpCongestionOpsWrapper::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    m_inner->OnAck(ctx, ev);
}

void
MpCongestionOpsWrapper::OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev)
{
    m_inner->OnPacketsLost(ctx, ev);
}

void
MpCongestionOpsWrapper::OnPersistentCongestion(const MpCcContext& ctx)
{
    m_inner->OnPersistentCongestion(ctx);
}

void
MpCongestionOpsWrapper::OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev)
{
    m_inner->OnRetransmissionTimeout(ctx, ev);
}

void
MpCongestionOpsWrapper::OnRtoEpisodeEnd(const MpCcContext& ctx, const MpRtoEnd& ev)
{
    m_inner->OnRtoEpisodeEnd(ctx, ev);
}

void
MpCongestionOpsWrapper::OnIdleRestart(const MpCcContext& ctx, Time idle, Time rto)
{
    m_inner->OnIdleRestart(ctx, idle, rto);
}

void
MpCongestionOpsWrapper::OnPtoExpired(const MpCcContext& ctx, uint32_t ptoCount)
{
    m_inner->OnPtoExpired(ctx, ptoCount);
}

void
MpCongestionOpsWrapper::OnPathEvent(const MpCcContext& ctx, const MpPathEvent& ev)
{
    m_inner->OnPathEvent(ctx, ev);
}

void
MpCongestionOpsWrapper::OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev)
{
    m_inner->OnEcnFeedback(ctx, ev);
}

MpEcnCodepoint
MpCongestionOpsWrapper::GetEcnCodepoint() const
{
    return m_inner->GetEcnCodepoint();
}

bool
MpCongestionOpsWrapper::ConsiderForPersistentCongestion(const MpCcContext& ctx,
                                                        const MpSentPacket& p) const
{
    return m_inner->ConsiderForPersistentCongestion(ctx, p);
}

uint64_t
MpCongestionOpsWrapper::GetCwnd() const
{
    return m_inner->GetCwnd();
}

uint64_t
MpCongestionOpsWrapper::GetSsthresh() const
{
    return m_inner->GetSsthresh();
}

double
MpCongestionOpsWrapper::GetPacingRate() const
{
    return m_inner->GetPacingRate();
}

bool
MpCongestionOpsWrapper::RequiresPacing() const
{
    return m_inner->RequiresPacing();
}

bool
MpCongestionOpsWrapper::InSlowStart() const
{
    return m_inner->InSlowStart();
}

uint64_t
MpCongestionOpsWrapper::GetSuppressedLosses() const
{
    return m_inner->GetSuppressedLosses();
}

bool
MpCongestionOpsWrapper::IsExternal() const
{
    return m_inner->IsExternal();
}

void
MpCongestionOpsWrapper::SetExternalCwnd(uint64_t bytes)
{
    m_inner->SetExternalCwnd(bytes);
}

void
MpCongestionOpsWrapper::SetExternalPacingRate(double bps)
{
    m_inner->SetExternalPacingRate(bps);
}

int64_t
MpCongestionOpsWrapper::AssignStreams(int64_t stream)
{
    return m_inner->AssignStreams(stream);
}

void
MpCongestionOpsWrapper::DoDispose()
{
    m_inner = nullptr;
    MpCongestionOps::DoDispose();
}

} // namespace ns3
