// SPDX-License-Identifier: GPL-2.0-only

#include "pcc-vivace-rate-control.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

PccVivaceRateControl::PccVivaceRateControl()
    : m_params()
{
}

PccVivaceRateControl::PccVivaceRateControl(const Params& params)
    : m_params(params)
{
    CheckParams(params);
}

void
PccVivaceRateControl::CheckParams(const Params& p)
{
    if (!std::isfinite(p.theta0Mbps) || p.theta0Mbps <= 0.0)
    {
        throw std::invalid_argument("theta0_mbps: must be finite and > 0");
    }
    if (!std::isfinite(p.omega0) || p.omega0 <= 0.0 || p.omega0 > 1.0)
    {
        throw std::invalid_argument("omega0: must be in (0, 1]");
    }
    if (!std::isfinite(p.omegaStep) || p.omegaStep < 0.0 || p.omegaStep > 1.0)
    {
        throw std::invalid_argument("omega_step: must be in [0, 1]");
    }
    if (!std::isfinite(p.amplifierStep) || p.amplifierStep < 0.0 || p.amplifierStep > 10.0)
    {
        throw std::invalid_argument("amplifier_step: must be in [0, 10]");
    }
    if (!std::isfinite(p.minRateBps) || p.minRateBps <= 0.0)
    {
        throw std::invalid_argument("min_rate_bps: must be finite and > 0");
    }
    if (!std::isfinite(p.maxRateBps) || p.maxRateBps < p.minRateBps)
    {
        throw std::invalid_argument("max_rate_bps: must be finite and >= min_rate_bps");
    }
}

void
PccVivaceRateControl::Reset()
{
    m_direction = 0;
    m_consecutive = 0;
    m_boundSteps = 0;
    m_lastBounded = false;
}

double
PccVivaceRateControl::Step(double rateBps, double gradient)
{
    if (!std::isfinite(gradient))
    {
        throw std::invalid_argument("gradient: must be finite");
    }
    if (!std::isfinite(rateBps) || rateBps <= 0.0)
    {
        throw std::invalid_argument("rate_bps: must be finite and > 0");
    }
    if (gradient == 0.0)
    {
        m_lastBounded = false;
        return std::clamp(rateBps, m_params.minRateBps, m_params.maxRateBps);
    }
    const int direction = gradient > 0.0 ? 1 : -1;
    if (direction != m_direction)
    {
        // A change of direction: back to small, cautious steps.
        m_consecutive = 1;
        m_boundSteps = 0;
    }
    else
    {
        ++m_consecutive;
    }
    m_direction = direction;

    // Confidence amplifier m(tau) = 1 + kappa (tau - 1), step theta = m theta0 (Vivace
    // section 4).
    const double amplifier = GetAmplifier();
    double change = amplifier * m_params.theta0Mbps * gradient * 1e6; // bit/s
    // Dynamic change boundary omega = omega0 + k delta.
    const double omega = m_params.omega0 + m_boundSteps * m_params.omegaStep;
    const double ratio = std::abs(change) / rateBps;
    if (ratio > omega)
    {
        change = direction * omega * rateBps;
        ++m_boundSteps;
        m_lastBounded = true;
    }
    else
    {
        // Within the boundary: the boundary shrinks to the smallest one that holds this step.
        m_boundSteps =
            (m_params.omegaStep > 0.0 && ratio > m_params.omega0)
                ? static_cast<uint32_t>(std::ceil((ratio - m_params.omega0) / m_params.omegaStep))
                : 0;
        m_lastBounded = false;
    }
    return std::clamp(rateBps + change, m_params.minRateBps, m_params.maxRateBps);
}

uint32_t
PccVivaceRateControl::GetConsecutive() const
{
    return m_consecutive;
}

double
PccVivaceRateControl::GetAmplifier() const
{
    const uint32_t tau = std::max<uint32_t>(m_consecutive, 1);
    return 1.0 + m_params.amplifierStep * static_cast<double>(tau - 1);
}

uint32_t
PccVivaceRateControl::GetBoundarySteps() const
{
    return m_boundSteps;
}

double
PccVivaceRateControl::GetChangeBound() const
{
    return m_params.omega0 + m_boundSteps * m_params.omegaStep;
}

bool
PccVivaceRateControl::GetLastStepBounded() const
{
    return m_lastBounded;
}

const PccVivaceRateControl::Params&
PccVivaceRateControl::GetParams() const
{
    return m_params;
}

} // namespace ns3
