// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-interest-pacer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ns3
{

namespace
{
constexpr double kSlackBytes = 1e-6;
} // namespace

LeotpInterestPacer::LeotpInterestPacer(double costBytes, double initialBudgetBytes, double capS)
    : m_cost(costBytes),
      m_budget(initialBudgetBytes),
      m_capS(capS)
{
    if (!std::isfinite(costBytes) || !(costBytes > 0))
    {
        throw std::invalid_argument("interest_pacer.cost_bytes: must be > 0");
    }
    if (!std::isfinite(initialBudgetBytes) || initialBudgetBytes < 0)
    {
        throw std::invalid_argument("interest_pacer.initial_budget_bytes: must be >= 0");
    }
    if (!std::isfinite(capS) || capS < 0)
    {
        throw std::invalid_argument("interest_pacer.cap_s: must be >= 0");
    }
}

double
LeotpInterestPacer::Rate(double throughputBps, double backlogBytes, double srttS, double minRateBps)
{
    double r = throughputBps;
    if (srttS > 0)
    {
        r += 8.0 * backlogBytes / srttS; // (C1)
    }
    return std::max(r, minRateBps);
}

void
LeotpInterestPacer::Accrue(double nowS)
{
    if (nowS > m_lastS)
    {
        if (m_rate > 0)
        {
            const double cap = std::max(m_cost, m_rate / 8.0 * m_capS);
            const double grown = m_budget + m_rate / 8.0 * (nowS - m_lastS);
            // The cap applies to what is earned; an initial budget above it is kept until spent.
            m_budget = std::max(m_budget, std::min(grown, cap));
        }
        m_lastS = nowS;
    }
}

void
LeotpInterestPacer::SetRate(double nowS, double rateBps)
{
    Accrue(nowS);
    m_rate = std::isfinite(rateBps) && rateBps > 0 ? rateBps : 0.0;
}

double
LeotpInterestPacer::GetRate() const
{
    return m_rate;
}

double
LeotpInterestPacer::GetBudget(double nowS)
{
    Accrue(nowS);
    return m_budget;
}

bool
LeotpInterestPacer::TryConsume(double nowS)
{
    Accrue(nowS);
    if (m_budget + kSlackBytes < m_cost)
    {
        return false;
    }
    m_budget = std::max(0.0, m_budget - m_cost);
    return true;
}

double
LeotpInterestPacer::WaitS(double nowS)
{
    Accrue(nowS);
    const double deficit = m_cost - m_budget;
    if (deficit <= kSlackBytes)
    {
        return 0.0;
    }
    if (!(m_rate > 0))
    {
        return std::numeric_limits<double>::infinity();
    }
    return deficit * 8.0 / m_rate;
}

double
LeotpInterestPacer::GetCost() const
{
    return m_cost;
}

} // namespace ns3
