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

/// Combines with any controller as "residual+<name>".
static MpAlgorithmRegistrar g_residualRegistrar(MpAlgorithmRegistry::Cc(),
                                                "residual",
                                                "ns3::MpResidual",
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
    return "residual+" + MpCongestionOpsWrapper::GetName();
}

uint64_t
MpResidual::GetCwnd() const
{
    const uint64_t inner = m_inner->GetCwnd();
    if (m_gain == 1.0)
    {
        return inner;
    }
    const auto scaled = static_cast<uint64_t>(std::floor(m_gain * static_cast<double>(inner)));
    return std::max(scaled, std::min(inner, MinimumWindow(m_mss)));
}

double
MpResidual::GetPacingRate() const
{
    return m_gain * m_inner->GetPacingRate();
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

} // namespace ns3
