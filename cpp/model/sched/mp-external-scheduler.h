// SPDX-License-Identifier: GPL-2.0-only
//
// MpExternalScheduler: path weights or a path choice set from Python.

#ifndef MP_EXTERNAL_SCHEDULER_H
#define MP_EXTERNAL_SCHEDULER_H

#include "mp-scheduler.h"

#include <vector>

namespace ns3
{

/**
 * @ingroup mp-sched
 * A scheduler driven by the agent, in one of two modes set at each environment step:
 *
 *   weights (SetWeights, the default with equal weights): deterministic weighted selection by
 *     stride scheduling (Waldspurger and Weihl, "Stride Scheduling: Deterministic
 *     Proportional-Share Resource Management", MIT/LCS/TM-528, 1995): each path has a pass
 *     value; a packet goes to the candidate with window room, weight > 0 and the smallest
 *     pass (ties: lowest index), whose pass then grows by bytes / weight. A path cannot bank
 *     credit while it cannot send: its pass is kept within one packet's stride of the
 *     virtual time (the pass of the path chosen last). Paths that can send thus share
 *     packets in proportion to their weights.
 *   path choice (SetPathChoice): every packet goes to that path; wait while it has no room.
 */
class MpExternalScheduler : public MpScheduler
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Init(MpConnectionView& conn) override;
    int32_t SelectPath(MpConnectionView& conn, const MpSchedRequest& req) override;
    void OnPacketSent(MpConnectionView& conn, uint32_t path, const MpSentPacket& p) override;
    bool IsExternal() const override;
    void SetWeights(const std::vector<double>& weights) override;
    void SetPathChoice(int32_t path) override;

    const std::vector<double>& GetWeights() const;
    /// The chosen path, or -1 in weights mode.
    int32_t GetPathChoice() const;

  private:
    std::vector<double> m_weights;
    std::vector<double> m_pass;
    double m_vtime{0};
    int32_t m_choice{-1};
    uint32_t m_nPaths{0};
};

} // namespace ns3

#endif // MP_EXTERNAL_SCHEDULER_H
