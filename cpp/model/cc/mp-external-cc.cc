// SPDX-License-Identifier: GPL-2.0-only

#include "mp-external-cc.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpExternalCc);

TypeId
MpExternalCc::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpExternalCc")
                            .SetParent<MpCongestionOps>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpExternalCc>();
    return tid;
}

std::string
MpExternalCc::GetName() const
{
    return "external";
}

void
MpExternalCc::Init(const MpCcContext& ctx)
{
    MpCongestionOps::Init(ctx);
    if (m_haveExternal)
    {
        SetExternalCwnd(m_external);
    }
}

void
MpExternalCc::OnAck(const MpCcContext&, const MpAckEvent&)
{
}

void
MpExternalCc::OnPacketsLost(const MpCcContext&, const MpLossEvent&)
{
}

void
MpExternalCc::OnPersistentCongestion(const MpCcContext&)
{
}

bool
MpExternalCc::IsExternal() const
{
    return true;
}

void
MpExternalCc::SetExternalCwnd(uint64_t bytes)
{
    m_haveExternal = true;
    m_external = bytes;
    uint64_t minW = MinimumWindow(m_mss);
    m_cwnd = bytes < minW ? minW : bytes;
}

void
MpExternalCc::SetExternalPacingRate(double bps)
{
    m_pacingRate = (std::isfinite(bps) && bps > 0) ? bps : 0.0;
}

} // namespace ns3
