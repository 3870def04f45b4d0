// SPDX-License-Identifier: GPL-2.0-only
//
// MACO's network-side rate estimator: an adaptive Kalman filter over the ACK throughput
// (W. Yang, L. Cai, S. Shu, J. Pan, IEEE TMC 2024, doi:10.1109/TMC.2024.3397164; Algorithm 1,
// eqs. (5)-(10); the covariance matching is docs/specs/maco.md#kalman-filter-covariances).

#ifndef MP_MACO_FILTER_H
#define MP_MACO_FILTER_H

#include <cstddef>
#include <deque>

namespace ns3::maco
{

/**
 * @ingroup mp-cc
 * The adaptive Kalman filter of MACO eqs. (5)-(10), a random walk on the network-side
 * capacity C^N fed with the throughput samples y of eq. (4):
 *
 *   C^N-     = C^N+_{t-1};   Z- = Z+_{t-1} + Q                                     (5)-(6)
 *   K        = Z- / (Z- + R)                                                        (8)
 *   C^N+     = C^N- + K (y - C^N-);   Z+ = (1 - K) Z-                             (9)-(10)
 *
 * with Q, R adapted by innovation covariance matching over the last `window` innovations nu:
 * R = max(R_min, mean(nu^2) - Z-), Q = max(Q_min, K^2 mean(nu^2)) [REC,
 * docs/specs/maco.md#kalman-filter-covariances], floors R_min = (0.01 C^A)^2, Q_min = (0.001
 * C^A)^2; initial C^N = c0, Z = c0^2, Q = (0.05 c0)^2, R = (0.2 c0)^2.
 */
class Akf
{
  public:
    /**
     * Start from c0 (bit/s): C = c0, Z = c0^2, Q = (0.05 c0)^2, R = (0.2 c0)^2.
     * @param window innovations in the covariance matching
     * @param adaptive false: keep Q and R at their initial values (plain Kalman filter)
     */
    void Reset(double c0, std::size_t window, bool adaptive = true);
    /// One measurement y (bit/s); returns the posterior estimate. cA sets the floors.
    double Update(double y, double cA);
    bool HasUpdate() const;
    double Estimate() const;
    double Z() const;
    double Q() const;
    double R() const;
    double Gain() const;

  private:
    double m_c{0};
    double m_z{0};
    double m_q{0};
    double m_r{0};
    double m_k{0};
    bool m_updated{false};
    bool m_adaptive{true};
    std::size_t m_window{20};
    std::deque<double> m_nu2; //!< squared innovations (window)
};

} // namespace ns3::maco

#endif // MP_MACO_FILTER_H
