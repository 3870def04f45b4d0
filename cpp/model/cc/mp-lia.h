// SPDX-License-Identifier: GPL-2.0-only
//
// MpLia: the Linked Increases Algorithm (RFC 6356), coupled over a connection's paths.

#ifndef MP_LIA_H
#define MP_LIA_H

#include "mp-new-reno.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * LIA after Raiciu, Handley and Wischik, "Coupled Congestion Control for Multipath Transport
 * Protocols", RFC 6356 (2011), section 3. For each ACK on path i in congestion avoidance:
 *
 *   cwnd_i += min( alpha * bytes_acked * mss_i / cwnd_total,  bytes_acked * mss_i / cwnd_i )
 *   alpha = cwnd_total * max_i( cwnd_i / rtt_i^2 ) / ( sum_i cwnd_i / rtt_i )^2
 *
 * over the paths that are not deactivated and have an RTT sample (rtt_i = smoothed_rtt).
 * Slow start, loss reduction (halving) and recovery are NewReno's (RFC 9002), per path.
 * With one path alpha = 1 and LIA is NewReno.
 */
class MpLia : public MpNewReno
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override;

    /// alpha of RFC 6356 for the connection as ctx sees it (this path's window = own).
    double ComputeAlpha(const MpCcContext& ctx) const;

  protected:
    double CongestionAvoidanceIncrease(const MpCcContext& ctx,
                                       const MpAckEvent& ev,
                                       uint64_t bytes) override;
};

} // namespace ns3

#endif // MP_LIA_H
