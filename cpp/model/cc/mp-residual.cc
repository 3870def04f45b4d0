// SPDX-License-Identifier: GPL-2.0-only

#include "mp-residual.h"

#include "model/registry/mp-algorithm-registry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpResidual);

/// Combines with any controller as "residual+<name>", and with two as "residual+<a>+<b>".
static MpAlgorithmRegistrar g_residualRegistrar(MpAlgorithmRegistry::Cc(),
                                                "residual",
                                                "ns3::MpResidual",
                                                true,
                                                true);

TypeId
MpResidual::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpResidual")
                            .SetParent<MpCongestionOpsWrapper>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpResidual>();
    return tid;
}

std::string
MpResidual::GetName() const
{
    std::string name = "residual+" + MpCongestionOpsWrapper::GetName();
    return m_alternate ? name + "+" + m_alternate->GetName() : name;
}

void
MpResidual::SetAlternate(Ptr<MpCongestionOps> alternate)
{
    if (!alternate)
    {
        throw std::invalid_argument("MpResidual: the alternate controller is null");
    }
    m_alternate = alternate;
}

Ptr<MpCongestionOps>
MpResidual::GetAlternate() const
{
    return m_alternate;
}

template <typename Event>
void
MpResidual::Deliver(Event event)
{
    event(*m_inner);
    if (m_alternate)
    {
        event(*m_alternate);
    }
}

const MpCongestionOps&
MpResidual::Followed() const
{
    return m_followAlternate ? *m_alternate : *m_inner;
}

void
MpResidual::Init(const MpCcContext& ctx)
{
    MpCongestionOpsWrapper::Init(ctx); // checks and initialises the inner controller
    if (m_alternate)
    {
        m_alternate->Init(ctx);
    }
}

void
MpResidual::OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnPacketSent(ctx, p); });
}

void
MpResidual::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnAck(ctx, ev); });
}

void
MpResidual::OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnPacketsLost(ctx, ev); });
}

void
MpResidual::OnPersistentCongestion(const MpCcContext& ctx)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnPersistentCongestion(ctx); });
}

void
MpResidual::OnPtoExpired(const MpCcContext& ctx, uint32_t ptoCount)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnPtoExpired(ctx, ptoCount); });
}

void
MpResidual::OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnRetransmissionTimeout(ctx, ev); });
}

void
MpResidual::OnRtoEpisodeEnd(const MpCcContext& ctx, const MpRtoEnd& ev)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnRtoEpisodeEnd(ctx, ev); });
}

void
MpResidual::OnIdleRestart(const MpCcContext& ctx, Time idle, Time rto)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnIdleRestart(ctx, idle, rto); });
}

void
MpResidual::OnPathEvent(const MpCcContext& ctx, const MpPathEvent& ev)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnPathEvent(ctx, ev); });
}

void
MpResidual::OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev)
{
    Deliver([&](MpCongestionOps& cc) { cc.OnEcnFeedback(ctx, ev); });
}

MpEcnCodepoint
MpResidual::GetEcnCodepoint() const
{
    return Followed().GetEcnCodepoint();
}

bool
MpResidual::ConsiderForPersistentCongestion(const MpCcContext& ctx, const MpSentPacket& p) const
{
    return Followed().ConsiderForPersistentCongestion(ctx, p);
}

uint64_t
MpResidual::GetCwnd() const
{
    const uint64_t inner = Followed().GetCwnd();
    if (m_gain == 1.0)
    {
        return inner;
    }
    const auto scaled = static_cast<uint64_t>(std::floor(m_gain * static_cast<double>(inner)));
    return std::max(scaled, std::min(inner, MinimumWindow(m_mss)));
}

uint64_t
MpResidual::GetSsthresh() const
{
    return Followed().GetSsthresh();
}

double
MpResidual::GetPacingRate() const
{
    return m_gain * Followed().GetPacingRate();
}

bool
MpResidual::RequiresPacing() const
{
    return Followed().RequiresPacing();
}

bool
MpResidual::InSlowStart() const
{
    return Followed().InSlowStart();
}

uint64_t
MpResidual::GetSuppressedLosses() const
{
    return Followed().GetSuppressedLosses();
}

int64_t
MpResidual::AssignStreams(int64_t stream)
{
    // The same stream for both, as each would draw alone.
    const int64_t used = m_inner->AssignStreams(stream);
    return m_alternate ? std::max(used, m_alternate->AssignStreams(stream)) : used;
}

void
MpResidual::CheckGain(double gain, const std::string& field)
{
    if (!std::isfinite(gain) || gain < 1.0 / kMaxGain || gain > kMaxGain)
    {
        const std::string max = std::to_string(static_cast<int>(kMaxGain));
        throw std::invalid_argument(field + " must be finite and in [1/" + max + ", " + max +
                                    "], got " + std::to_string(gain));
    }
}

void
MpResidual::SetGain(double gain)
{
    CheckGain(gain, "gain");
    m_gain = gain;
}

double
MpResidual::GetGain() const
{
    return m_gain;
}

void
MpResidual::SetFollowAlternate(bool follow)
{
    if (follow && !m_alternate)
    {
        throw std::invalid_argument("'" + GetName() + "' has no alternate to follow");
    }
    m_followAlternate = follow;
}

bool
MpResidual::GetFollowAlternate() const
{
    return m_followAlternate;
}

void
MpResidual::DoDispose()
{
    m_alternate = nullptr;
    MpCongestionOpsWrapper::DoDispose();
}

} // namespace ns3
