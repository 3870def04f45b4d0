// SPDX-License-Identifier: GPL-2.0-only

#include "pcc-vivace-utility.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

void
PccVivaceCheckParams(const PccVivaceUtilityParams& p)
{
    if (!std::isfinite(p.exponent) || p.exponent <= 0.0 || p.exponent >= 1.0)
    {
        throw std::invalid_argument("exponent: must be in (0, 1), got " +
                                    std::to_string(p.exponent));
    }
    if (!std::isfinite(p.latencyCoef) || p.latencyCoef < 0.0)
    {
        throw std::invalid_argument("latency_coef: must be finite and >= 0");
    }
    if (!std::isfinite(p.lossCoef) || p.lossCoef < 0.0)
    {
        throw std::invalid_argument("loss_coef: must be finite and >= 0");
    }
    if (!std::isfinite(p.rttGradientTolerance) || p.rttGradientTolerance < 0.0)
    {
        throw std::invalid_argument("rtt_gradient_tolerance: must be finite and >= 0");
    }
}

double
PccVivaceUtility(double rateMbps,
                 double rttGradient,
                 double lossRate,
                 const PccVivaceUtilityParams& p)
{
    PccVivaceCheckParams(p);
    if (!std::isfinite(rateMbps) || rateMbps < 0.0)
    {
        throw std::invalid_argument("rate_mbps: must be finite and >= 0");
    }
    if (!std::isfinite(rttGradient))
    {
        throw std::invalid_argument("rtt_gradient: must be finite");
    }
    if (!std::isfinite(lossRate) || lossRate < 0.0 || lossRate > 1.0)
    {
        throw std::invalid_argument("loss_rate: must be in [0, 1]");
    }
    // Noise filter of the implementations (not part of eq. 1): small gradients count as 0.
    const double g = std::abs(rttGradient) < p.rttGradientTolerance ? 0.0 : rttGradient;
    // Vivace eq. (1): u = x^t - b x dRTT/dT - c x L.
    return std::pow(rateMbps, p.exponent) - p.latencyCoef * rateMbps * g -
           p.lossCoef * rateMbps * lossRate;
}

double
PccVivaceLossTolerance(double rateMbps, const PccVivaceUtilityParams& p)
{
    PccVivaceCheckParams(p);
    if (!std::isfinite(rateMbps) || rateMbps <= 0.0)
    {
        throw std::invalid_argument("rate_mbps: must be finite and > 0");
    }
    if (p.lossCoef == 0.0)
    {
        return 1.0; // no loss term: any loss is tolerated
    }
    // du/dx = t x^(t-1) - c L = 0  =>  L* = t x^(t-1) / c
    return std::min(1.0, p.exponent * std::pow(rateMbps, p.exponent - 1.0) / p.lossCoef);
}

double
PccRttGradient(const std::vector<double>& t, const std::vector<double>& rtt)
{
    if (t.size() != rtt.size())
    {
        throw std::invalid_argument("send_times_s and rtts_s: must have the same length");
    }
    const std::size_t n = t.size();
    for (std::size_t i = 0; i < n; ++i)
    {
        if (!std::isfinite(t[i]) || !std::isfinite(rtt[i]))
        {
            throw std::invalid_argument("send_times_s, rtts_s: must be finite");
        }
    }
    if (n < 2)
    {
        return 0.0;
    }
    // Ordinary least squares, centred for accuracy: slope = S_tr / S_tt.
    double meanT = 0;
    double meanR = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        meanT += t[i];
        meanR += rtt[i];
    }
    meanT /= static_cast<double>(n);
    meanR /= static_cast<double>(n);
    double stt = 0;
    double str = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        const double dt = t[i] - meanT;
        stt += dt * dt;
        str += dt * (rtt[i] - meanR);
    }
    // All samples at one instant: no slope to measure.
    if (stt <= 0.0)
    {
        return 0.0;
    }
    return str / stt;
}

} // namespace ns3
