// SPDX-License-Identifier: GPL-2.0-only
//
// MpOlia: the Opportunistic Linked-Increases Algorithm, coupled over a connection's paths.

#ifndef MP_OLIA_H
#define MP_OLIA_H

#include "mp-new-reno.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * OLIA after Khalili, Gast, Popovic and Le Boudec, "MPTCP Is Not Pareto-Optimal: Performance
 * Issues and a Possible Solution", IEEE/ACM Transactions on Networking 21(5), 2013
 * (doi:10.1109/TNET.2013.2274462); equations as in docs/specs/maco.md#appendix-olia. Windows w in
 * packets, RTTs tau in seconds. For each ACK on path r in congestion avoidance:
 *
 *   w_r += ( w_r / tau_r^2 ) / ( sum_p w_p / tau_p )^2  +  alpha_r / w_r      (per packet)
 *   on a loss: w_r = w_r / 2 (NewReno reduction, one per recovery period)
 *
 *   l_r = max(l1_r, l2_r): l1_r bytes delivered on r between its last two losses, l2_r bytes
 *   delivered since its last loss. B = argmax_r l_r / tau_r^2 (best paths),
 *   M = argmax_r w_r (largest windows), n = number of paths:
 *     B \ M non-empty: alpha_r = 1 / (n |B \ M|) for r in B \ M,
 *                      alpha_r = -1 / (n |M|)    for r in M,   0 otherwise
 *     B \ M empty:     alpha_r = 0 for all r.
 *
 * Paths considered: not deactivated, with an RTT sample. Slow start is NewReno's. With one
 * path OLIA is NewReno.
 */
class MpOlia : public MpNewReno
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;

    /// l_r = max(l1, l2) in bytes.
    double GetL() const;
    /// alpha_r of this path given the connection.
    double ComputeAlpha(const MpCcContext& ctx) const;

  protected:
    double CongestionAvoidanceIncrease(const MpCcContext& ctx,
                                       const MpAckEvent& ev,
                                       uint64_t bytes) override;
    void OnCongestionEvent(const MpCcContext& ctx) override;

  private:
    double m_l1{0}; //!< bytes delivered between the last two losses
    double m_l2{0}; //!< bytes delivered since the last loss
};

} // namespace ns3

#endif // MP_OLIA_H
