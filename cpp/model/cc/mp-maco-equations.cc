// SPDX-License-Identifier: GPL-2.0-only

#include "mp-maco-equations.h"

#include <algorithm>
#include <cmath>

namespace ns3::maco
{

// Eq. (4).
double
ThroughputBps(uint64_t ackedBytes, double dtS)
{
    return 8.0 * static_cast<double>(ackedBytes) / dtS;
}

// Eq. (11).
double
PropagationRtt(double dUlS, double dDlS, double dTerrS)
{
    return 2.0 * (dUlS + dDlS + dTerrS);
}

// Eqs. (15)-(16).
double
QuickStartWindow(double bdpPkts, double ownMax, double otherMax, double gamma, double initPkts)
{
    double omega = initPkts;
    if (!std::isnan(ownMax))
    {
        omega = gamma * std::min(bdpPkts, ownMax); // (16)
    }
    else if (!std::isnan(otherMax))
    {
        omega = gamma * std::min(bdpPkts, otherMax); // (15), another subflow's history
    }
    return std::max(omega, initPkts);
}

// Eq. (26).
double
CaIncrement(const double* w, const double* tau, const double* T, std::size_t n, std::size_t r)
{
    double sumX = 0;
    double m = 0;
    for (std::size_t k = 0; k < n; ++k)
    {
        double x = w[k] / tau[k];
        sumX += x;
        m = std::max(m, x * x * std::sqrt(T[k]));
    }
    if (!(sumX > 0) || !(tau[r] > 0))
    {
        return 0.0;
    }
    return 3.0 * m / (2.0 * tau[r] * std::pow(sumX, 2.5));
}

// Eq. (17).
bool
IsCongestion(double tp, double capacity, double tau, double d, double deltaR)
{
    return tp < capacity && tau > d + deltaR;
}

// Delta_R of eq. (17b) [docs/specs/maco.md#width-of-the-delay-tolerance].
double
DeltaR(const std::deque<double>& residuals, double floorS)
{
    if (residuals.size() < 2)
    {
        return floorS;
    }
    double mean = 0;
    for (double e : residuals)
    {
        mean += e;
    }
    mean /= static_cast<double>(residuals.size());
    double var = 0;
    for (double e : residuals)
    {
        var += (e - mean) * (e - mean);
    }
    var /= static_cast<double>(residuals.size());
    return std::max(floorS, std::sqrt(var));
}

// Eq. (14), discretised.
double
TimeAverage(const std::deque<std::pair<double, double>>& s, double t1, double t2)
{
    if (s.empty())
    {
        return 0.0;
    }
    // Points inside [t1, t2], with the value at t1 interpolated from the sample before it.
    double area = 0;
    double span = 0;
    bool have = false;
    double pt = 0;
    double pv = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
    {
        double t = s[i].first;
        double v = s[i].second;
        if (t > t2)
        {
            break;
        }
        if (t < t1)
        {
            if (i + 1 < s.size() && s[i + 1].first > t1)
            {
                double t0 = t;
                double tn = s[i + 1].first;
                double f = (t1 - t0) / (tn - t0);
                pt = t1;
                pv = v + f * (s[i + 1].second - v);
                have = true;
            }
            continue;
        }
        if (have && t > pt)
        {
            area += 0.5 * (v + pv) * (t - pt);
            span += t - pt;
        }
        pt = t;
        pv = v;
        have = true;
    }
    if (span > 0)
    {
        return area / span;
    }
    return have ? pv : s.back().second;
}

} // namespace ns3::maco
