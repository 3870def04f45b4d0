// SPDX-License-Identifier: GPL-2.0-only
//
// MpResidual: hybrid control, a learned agent rescaling a running classic controller
// ("residual+cubic", "residual+bbr3", "residual+maco", ...).

#ifndef MP_RESIDUAL_H
#define MP_RESIDUAL_H

#include "mp-congestion-ops.h"

#include <string>

namespace ns3
{

/**
 * @ingroup mp-cc
 * Hybrid (residual) control in the manner of Orca (S. Abbasloo, C.-Y. Yen, H. J. Chao,
 * "Classic Meets Modern: a Pragmatic Learning-Based Congestion Control for the Internet",
 * SIGCOMM 2020), which sets cwnd = 2^(2a) x CUBIC's window at each monitoring interval: the
 * inner controller runs unchanged on every ACK, loss and timer, and what the sender uses is
 *
 *   cwnd        = max(floor(gain x cwnd_inner), min(cwnd_inner, kMinimumWindow))
 *   pacing rate = gain x pacing_inner
 *
 * with the gain set from outside (Python, at a step boundary) and held until the next
 * setting. The pacing rate is scaled too, so the gain also reaches controllers whose rate,
 * not their window, limits the flight (BBR, BBRv3). The floor keeps a gain below 1 from
 * taking the window below RFC 9002's kMinimumWindow (unless the inner controller itself is
 * below it, after a retransmission timeout). A gain of exactly 1 returns the inner values
 * unchanged, so a run with gain 1 throughout is the inner controller's run, bit for bit
 * (tests/simulation/test_residual.py). The inner controller's own state never sees the gain.
 */
class MpResidual : public MpCongestionOpsWrapper
{
  public:
    static TypeId GetTypeId();

    /// The range of the gain: [1/kMaxGain, kMaxGain].
    static constexpr double kMaxGain = 16.0;

    /// "residual+<inner>".
    std::string GetName() const override;
    uint64_t GetCwnd() const override;
    double GetPacingRate() const override;

    /**
     * Check a gain.
     * @param gain the gain
     * @param field how it is called in the message ("set_flow_cwnd_gain: flow 0: gain[1]")
     * @throws std::invalid_argument naming the field unless finite and in
     *         [1/kMaxGain, kMaxGain]
     */
    static void CheckGain(double gain, const std::string& field);

    /**
     * Set the gain (held until the next call).
     * @param gain finite, in [1/kMaxGain, kMaxGain]
     * @throws std::invalid_argument otherwise
     */
    void SetGain(double gain);
    /// The gain in force (1 until set).
    double GetGain() const;

  private:
    double m_gain{1.0};
};

} // namespace ns3

#endif // MP_RESIDUAL_H
