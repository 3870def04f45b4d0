// SPDX-License-Identifier: GPL-2.0-only
//
// MpRoundRobinScheduler: rotate over the paths that can send.

#ifndef MP_ROUND_ROBIN_SCHEDULER_H
#define MP_ROUND_ROBIN_SCHEDULER_H

#include "mp-scheduler.h"

namespace ns3
{

/**
 * @ingroup mp-sched
 * Round-robin as docs/specs/alcs.md#round-robin restates the Linux MPTCP `roundrobin` module
 * (num_segments = 1, cwnd_limited = true): packets go to the candidate paths in turn,
 * starting after the path used last; a path that cannot send now is skipped, so this is round
 * robin among the paths that can send, not a fixed equal split. Waits if none can send.
 */
class MpRoundRobinScheduler : public MpScheduler
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    int32_t SelectPath(MpConnectionView& conn, const MpSchedRequest& req) override;
    void OnPacketSent(MpConnectionView& conn, uint32_t path, const MpSentPacket& p) override;

  private:
    int32_t m_last{-1};
};

} // namespace ns3

#endif // MP_ROUND_ROBIN_SCHEDULER_H
