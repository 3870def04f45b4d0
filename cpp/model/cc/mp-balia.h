// SPDX-License-Identifier: GPL-2.0-only
//
// MpBalia: the Balanced Linked Adaptation algorithm, coupled over a connection's paths.

#ifndef MP_BALIA_H
#define MP_BALIA_H

#include "mp-new-reno.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * BALIA after Peng, Walid, Hwang and Low, "Multipath TCP: Analysis, Design, and
 * Implementation", IEEE/ACM Transactions on Networking 24(1), 2016
 * (doi:10.1109/TNET.2014.2379698). Windows w in packets, RTTs tau in seconds,
 * x_r = w_r / tau_r, alpha_r = max_k x_k / x_r:
 *
 *   per ACK on r:  w_r += ( x_r / tau_r ) / ( sum_k x_k )^2 * (1 + alpha_r) / 2
 *                          * (4 + alpha_r) / 5                                   (per packet)
 *   per loss on r: w_r -= ( w_r / 2 ) * min(alpha_r, 1.5)
 *
 * (one reduction per recovery period, as NewReno). Paths considered: not deactivated, with an
 * RTT sample. Slow start is NewReno's. With one path BALIA is NewReno.
 */
class MpBalia : public MpNewReno
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override;

  protected:
    double CongestionAvoidanceIncrease(const MpCcContext& ctx,
                                       const MpAckEvent& ev,
                                       uint64_t bytes) override;
    double ReducedWindow(const MpCcContext& ctx) override;

  private:
    /// sum_k x_k, max_k x_k and this path's x_r (packets / s).
    void Rates(const MpCcContext& ctx, double& sum, double& maxX, double& self) const;
};

} // namespace ns3

#endif // MP_BALIA_H
