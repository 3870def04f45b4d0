// SPDX-License-Identifier: GPL-2.0-only
//
// MpMinRttScheduler: lowest smoothed RTT among the paths that can send.

#ifndef MP_MIN_RTT_SCHEDULER_H
#define MP_MIN_RTT_SCHEDULER_H

#include "mp-scheduler.h"

namespace ns3
{

/**
 * @ingroup mp-sched
 * minRTT, the Linux MPTCP default scheduler, as docs/specs/alcs.md#minrtt restates it (after
 * Paasch, Ferlin, Alay and Bonaventure, "Experimental Evaluation of Multipath TCP
 * Schedulers", ACM CSWS 2014): among the candidate paths (active first, standby only when no
 * active path is usable) that are available (window room, pacing), pick the one with the smallest
 * smoothed RTT; ties go to the lowest index. A retransmission prefers paths it was not sent on
 * yet. If no candidate has room, wait.
 */
class MpMinRttScheduler : public MpScheduler
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    int32_t SelectPath(MpConnectionView& conn, const MpSchedRequest& req) override;
};

} // namespace ns3

#endif // MP_MIN_RTT_SCHEDULER_H
