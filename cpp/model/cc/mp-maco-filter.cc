// SPDX-License-Identifier: GPL-2.0-only

#include "mp-maco-filter.h"

#include <algorithm>
#include <cmath>

namespace ns3::maco
{

void
Akf::Reset(double c0, std::size_t window, bool adaptive)
{
    m_adaptive = adaptive;
    m_c = c0;
    m_z = c0 * c0;
    m_q = std::pow(0.05 * c0, 2.0);
    m_r = std::pow(0.2 * c0, 2.0);
    m_k = 0;
    m_updated = false;
    m_window = std::max<std::size_t>(window, 1);
    m_nu2.clear();
}

double
Akf::Update(double y, double cA)
{
    double cPrior = m_c;           // (5): random walk, the prediction is the last posterior
    double zPrior = m_z + m_q;     // (6)
    double nu = y - cPrior;        // innovation
    m_k = zPrior / (zPrior + m_r); // (8)
    m_c = cPrior + m_k * nu;       // (9)
    m_z = (1.0 - m_k) * zPrior;    // (10)
    m_updated = true;
    if (!m_adaptive)
    {
        return m_c;
    }
    // Covariance matching over the last innovations [REC,
    // docs/specs/maco.md#kalman-filter-covariances].
    m_nu2.push_back(nu * nu);
    while (m_nu2.size() > m_window)
    {
        m_nu2.pop_front();
    }
    double cNu = 0;
    for (double v : m_nu2)
    {
        cNu += v;
    }
    cNu /= static_cast<double>(m_nu2.size());
    double base = std::isfinite(cA) && cA > 0 ? cA : std::max(std::fabs(m_c), 1.0);
    double rMin = std::pow(0.01 * base, 2.0);
    double qMin = std::pow(0.001 * base, 2.0);
    m_r = std::max(rMin, cNu - zPrior);
    m_q = std::max(qMin, m_k * m_k * cNu);
    return m_c;
}

bool
Akf::HasUpdate() const
{
    return m_updated;
}

double
Akf::Estimate() const
{
    return m_c;
}

double
Akf::Z() const
{
    return m_z;
}

double
Akf::Q() const
{
    return m_q;
}

double
Akf::R() const
{
    return m_r;
}

double
Akf::Gain() const
{
    return m_k;
}

} // namespace ns3::maco
