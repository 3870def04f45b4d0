// SPDX-License-Identifier: GPL-2.0-only
//
// PCC Vivace's utility function and the RTT gradient it reads (pure functions).

#ifndef PCC_VIVACE_UTILITY_H
#define PCC_VIVACE_UTILITY_H

#include <vector>

namespace ns3
{

/**
 * @ingroup leo-tcp
 * Parameters of the Vivace utility (Dong et al., "PCC Vivace: Online-Learning Congestion
 * Control", NSDI 2018, section 3, eq. (1) with the default constants of its section 3/5).
 */
struct PccVivaceUtilityParams
{
    double exponent{0.9};           //!< t, 0 < t < 1 (concave reward of throughput)
    double latencyCoef{900.0};      //!< b >= 0, weight of the RTT gradient
    double lossCoef{11.35};         //!< c >= 0, weight of the loss rate
    double rttGradientTolerance{0}; //!< |dRTT/dT| below this counts as 0 (not in the paper)
};

/**
 * The Vivace utility of one monitor interval (Vivace paper, eq. 1):
 *
 *   u(x) = x^t - b * x * dRTT/dT - c * x * L
 *
 * with x the interval's sending rate in Mbit/s (10^6 bit/s), dRTT/dT the RTT gradient
 * (seconds of RTT per second of sending time, dimensionless; negative while a queue drains,
 * which raises the utility), and L the fraction of the interval's packets that were lost.
 * The units are the ones that make the paper's constants mean what it says: with t = 0.9 and
 * c = 11.35 the loss term outweighs the reward's slope t x^(t-1) at L = 5 % for
 * x = 100 Mbit/s (PccVivaceLossTolerance).
 *
 * @throws std::invalid_argument for a negative or non-finite rate, a loss outside [0, 1], a
 *         non-finite gradient, or parameters out of range
 */
double PccVivaceUtility(double rateMbps,
                        double rttGradient,
                        double lossRate,
                        const PccVivaceUtilityParams& params);

/**
 * The random loss rate below which Vivace still gains utility by sending faster: where
 * du/dx = t x^(t-1) - c L is zero (no RTT gradient), L* = t x^(t-1) / c. 5.0 % at
 * 100 Mbit/s, 6.3 % at 10 Mbit/s with the default constants.
 */
double PccVivaceLossTolerance(double rateMbps, const PccVivaceUtilityParams& params);

/**
 * The RTT gradient of a monitor interval: the least-squares slope of the RTT samples against
 * the send times of the packets they measure (the paper computes dRTT/dT by linear regression
 * over the interval's samples). 0 with fewer than two samples or all at one send time.
 *
 * @param sendTimesS send time of each sampled packet (s; any origin)
 * @param rttsS its RTT (s)
 * @throws std::invalid_argument when the lengths differ or a value is not finite
 */
double PccRttGradient(const std::vector<double>& sendTimesS, const std::vector<double>& rttsS);

/// Check utility parameters (t in (0, 1), b, c, tolerance finite and >= 0).
void PccVivaceCheckParams(const PccVivaceUtilityParams& params);

} // namespace ns3

#endif // PCC_VIVACE_UTILITY_H
