// SPDX-License-Identifier: GPL-2.0-only
//
// MpBlestScheduler: Blocking Estimation scheduler.

#ifndef MP_BLEST_SCHEDULER_H
#define MP_BLEST_SCHEDULER_H

#include "mp-scheduler.h"

namespace ns3
{

/**
 * @ingroup mp-sched
 * BLEST after Ferlin, Alay, Mehani and Boreli, "BLEST: Blocking Estimation-based MPTCP
 * Scheduler for Heterogeneous Networks", IFIP Networking 2016, in the form of
 * docs/specs/alcs.md#blest (the Linux module's logic). minsk = candidate with the smallest smoothed
 * RTT (room or not), bestsk = minRTT's choice. When they differ:
 *
 *   lambda (in [1.0, 1.3], start 1.2): at most once per min_srtt(bestsk), += 0.04 if the
 *     connection was flow-control blocked since the last update, else -= 0.01
 *   infl = inflight_pkts(bestsk) + 1
 *   linger = max_srtt(bestsk)                                           if infl >= cwnd_pkts
 *          = min_srtt + (max_srtt - min_srtt) * infl / cwnd_pkts          otherwise
 *   linger = max(linger, srtt(bestsk))
 *   num_rtts = floor(linger / ((min_srtt(minsk) + max_srtt(minsk)) / 2)) + 1
 *   pkts = cwnd(minsk) (2^min(num_rtts, 16) - 1)                 while minsk is in slow start
 *        = (max(cwnd, ssthresh + 1) + (num_rtts - 1) / 2) num_rtts          otherwise (pkts)
 *   fast_bytes = pkts * mss * lambda
 *   slow_bytes = packet bytes + bytes_in_flight(bestsk)
 *   avail = receive_window - slow_bytes (0 if negative)
 *   if fast_bytes > avail: wait; else send on bestsk
 *
 * min_srtt / max_srtt are lifetime extremes of smoothed_rtt; receive_window is the peer's
 * MAX_DATA minus the contiguously acknowledged offset.
 */
class MpBlestScheduler : public MpScheduler
{
  public:
    static TypeId GetTypeId();
    MpBlestScheduler();
    std::string GetName() const override;
    int32_t SelectPath(MpConnectionView& conn, const MpSchedRequest& req) override;
    void OnFlowControlBlocked(MpConnectionView& conn) override;

    double GetLambda() const;

  private:
    double m_lambda;
    double m_lambdaMin;
    double m_lambdaMax;
    double m_stepGood;
    double m_stepBad;
    bool m_blockedFlag{false};
    Time m_lastLambdaUpdate;
    bool m_lambdaUpdated{false};
};

} // namespace ns3

#endif // MP_BLEST_SCHEDULER_H
