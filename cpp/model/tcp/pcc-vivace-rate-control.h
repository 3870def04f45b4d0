// SPDX-License-Identifier: GPL-2.0-only
//
// PccVivaceRateControl: Vivace's gradient-ascent step with the confidence amplifier and the
// dynamic change boundary (pure arithmetic).

#ifndef PCC_VIVACE_RATE_CONTROL_H
#define PCC_VIVACE_RATE_CONTROL_H

#include <cstdint>

namespace ns3
{

/**
 * @ingroup leo-tcp
 * One online-learning step of PCC Vivace (Dong et al., NSDI 2018, section 4), given the
 * utility gradient measured around the current rate r:
 *
 *   gamma = (u(r(1+eps)) - u(r(1-eps))) / (2 eps r)          [utility per Mbit/s]
 *   tau   = number of consecutive steps in gamma's direction (1 after a change of direction)
 *   m     = m(tau) = 1 + kappa (tau - 1)                     confidence amplifier
 *   dr    = m * theta0 * gamma                                [Mbit/s]
 *   omega = omega0 + k * delta                                dynamic change boundary
 *   |dr| > omega r:  dr = sign(dr) omega r,  k = k + 1        (the boundary was hit)
 *   otherwise:       k = the smallest k' >= 0 with |dr| <= (omega0 + k' delta) r
 *   a change of direction resets tau = 1 and k = 0 before the step
 *   r_new = clamp(r + dr, minRate, maxRate)
 *
 * gamma = 0 leaves the rate and the state unchanged. The paper asks for a non-decreasing m
 * with m(1) = 1; the linear m with kappa = 0.5 is the first stretch of the authors' user-space
 * schedule (cpp/doc/vivace.md).
 */
class PccVivaceRateControl
{
  public:
    /// Constants of the step.
    struct Params
    {
        double theta0Mbps{1.0};    //!< theta0: Mbit/s of rate change per unit of gradient
        double omega0{0.05};       //!< initial change boundary (fraction of the rate)
        double omegaStep{0.06};    //!< delta: boundary increase per consecutive hit
        double amplifierStep{0.5}; //!< kappa: growth of m per consecutive step
        double minRateBps{1e5};    //!< lowest rate (bit/s)
        double maxRateBps{4e9};    //!< highest rate (bit/s)
    };

    /// The default constants.
    PccVivaceRateControl();
    /// @throws std::invalid_argument for parameters out of range (CheckParams)
    explicit PccVivaceRateControl(const Params& params);

    /// Check the parameters (all finite; theta0 > 0, omega0 in (0, 1], delta in [0, 1],
    /// 0 < minRate <= maxRate). @throws std::invalid_argument naming the field
    static void CheckParams(const Params& params);

    /**
     * One step from @p rateBps with utility gradient @p gradient (utility per Mbit/s).
     * @return the new rate (bit/s)
     * @throws std::invalid_argument for a non-finite gradient or a rate <= 0
     */
    double Step(double rateBps, double gradient);

    /// Forget the history (tau = 0, k = 0, no direction): the first step after slow start.
    void Reset();

    uint32_t GetConsecutive() const;   //!< tau of the last step (0 before any)
    double GetAmplifier() const;       //!< m(tau) of the last step
    uint32_t GetBoundarySteps() const; //!< k after the last step
    double GetChangeBound() const;     //!< omega0 + k delta: the boundary of the next step
    bool GetLastStepBounded() const;   //!< whether the last step was cut to the boundary
    const Params& GetParams() const;

  private:
    Params m_params;
    int m_direction{0};        //!< +1 / -1: direction of the last step; 0 none yet
    uint32_t m_consecutive{0}; //!< tau
    uint32_t m_boundSteps{0};  //!< k
    bool m_lastBounded{false};
};

} // namespace ns3

#endif // PCC_VIVACE_RATE_CONTROL_H
