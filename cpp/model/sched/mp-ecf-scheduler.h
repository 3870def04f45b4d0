// SPDX-License-Identifier: GPL-2.0-only
//
// MpEcfScheduler: Earliest Completion First.

#ifndef MP_ECF_SCHEDULER_H
#define MP_ECF_SCHEDULER_H

#include "mp-scheduler.h"

namespace ns3
{

/**
 * @ingroup mp-sched
 * ECF after Lim, Nahum, Towsley and Gibbens, "ECF: An MPTCP Path Scheduler to Manage
 * Heterogeneous Paths", ACM CoNEXT 2017, in the form of docs/specs/alcs.md#ecf (the Linux
 * module's arithmetic). x_f = candidate with the smallest smoothed RTT (room or not),
 * x_s = minRTT's choice; k = connection-level pending bytes; delta = max(rttvar_f, rttvar_s);
 * beta = 1/4 (hysteresis); windows in bytes:
 *
 *   if x_f has room: send on x_f
 *   n * rtt_f < (1 + waiting * beta) * (rtt_s + delta),  n = 1 + max(k, cwnd_f) / cwnd_f:
 *       if max(k, cwnd_s) / cwnd_s * rtt_s >= 2 rtt_f + delta: waiting = 1, wait for x_f
 *       else send on x_s
 *   else: waiting = 0, send on x_s
 */
class MpEcfScheduler : public MpScheduler
{
  public:
    static TypeId GetTypeId();
    MpEcfScheduler();
    std::string GetName() const override;
    int32_t SelectPath(MpConnectionView& conn, const MpSchedRequest& req) override;

  private:
    double m_beta;
    bool m_waiting{false};
};

} // namespace ns3

#endif // MP_ECF_SCHEDULER_H
