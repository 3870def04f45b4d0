// SPDX-License-Identifier: GPL-2.0-only
//
// MACO's equations as pure functions, used by the controller (mp-maco.cc) and by the unit tests
// (W. Yang, L. Cai, S. Shu, J. Pan, "Mobility-Aware Congestion Control for Multipath QUIC in
// Integrated Terrestrial Satellite Networks", IEEE TMC 2024, doi:10.1109/TMC.2024.3397164).
// Windows in packets, rates in bit/s, times in seconds.

#ifndef MP_MACO_EQUATIONS_H
#define MP_MACO_EQUATIONS_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

namespace ns3::maco
{

/**
 * MACO eq. (4), Algorithm 1: the network-side throughput sample
 * C^N_meas = (S_t - S_{t-1}) / dt, S the cumulative bits acknowledged.
 * @param ackedBytes S_t - S_{t-1} in bytes
 * @param dtS dt (the controller keeps dt >= 10 ms, [REC])
 * @return bit/s
 */
double ThroughputBps(uint64_t ackedBytes, double dtS);

/// MACO eq. (11), Algorithm 1: D = 2 (D_ul + D_dl + D_terr), seconds.
double PropagationRtt(double dUlS, double dDlS, double dTerrS);

/**
 * MACO eq. (14), Algorithm 1: the RTT-averaged BDP
 * B̄_r(t) = (1/tau_r) integral_{t-tau_r}^{t} C_{r,z} D_{r,z} dz, discretised as the trapezoid
 * time average of (t, value) samples over [t1, t2] (the value at t1 interpolated from the
 * sample before it). The samples are C D of eqs. (12)-(13).
 */
double TimeAverage(const std::deque<std::pair<double, double>>& samples, double t1, double t2);

/**
 * MACO Algorithm 2, eqs. (15)-(16): the quick-start window (packets), at least initPkts:
 *
 *   Omega_r = gamma min(B̄_r, max W_r)               if W_r is not empty            (16)
 *   Omega_r = gamma min(B̄_r, max_{q != r} max W_q)  else, if another path has history (15)
 *   Omega_r = initPkts                               otherwise
 *
 * @param bdpPkts B̄_r in packets
 * @param ownMax max W_r (NaN: no own history)
 * @param otherMax max over other paths' histories (NaN: none)
 */
double QuickStartWindow(double bdpPkts,
                        double ownMax,
                        double otherMax,
                        double gamma,
                        double initPkts);

/**
 * MACO eq. (17): a detected loss is congestion iff
 *
 *   TP_r(t) < C_r(t-1)                      (17a)
 *   tau_r(t) > D_r(t-1) + Delta_R           (17b)
 */
bool IsCongestion(double tp, double capacity, double tau, double d, double deltaR);

/**
 * Delta_R of MACO eq. (17b): the population standard deviation of the residuals tau_i - D_i
 * (the last RTT samples), at least floorS; floorS with fewer than two residuals [REC,
 * docs/specs/maco.md#width-of-the-delay-tolerance].
 */
double DeltaR(const std::deque<double>& residuals, double floorS);

/**
 * MACO eq. (26) (congestion avoidance, eqs. (18)-(26), matching Elastic-TCP's fluid-model
 * derivative): the per-packet increase (packets) of path r,
 *
 *   3 M / ( 2 tau_r (sum_k x_k)^{5/2} ),   M = max_p x_p^2 sqrt(T_p),   x_k = w_k / tau_k
 *
 * One path: 1.5 sqrt(T / (tau w)).
 * @param w windows (packets), tau latest RTTs (s), T largest RTTs (s), n paths
 */
double CaIncrement(const double* w,
                   const double* tau,
                   const double* T,
                   std::size_t n,
                   std::size_t r);

} // namespace ns3::maco

#endif // MP_MACO_EQUATIONS_H
