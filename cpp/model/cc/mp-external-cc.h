// SPDX-License-Identifier: GPL-2.0-only
//
// MpExternalCc: a window and pacing rate set from Python.

#ifndef MP_EXTERNAL_CC_H
#define MP_EXTERNAL_CC_H

#include "mp-congestion-ops.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * A controller that only holds what the agent sets: the congestion window (bytes, at least
 * kMinimumWindow = 2 mss) and optionally a pacing rate (bit/s; 0 = unpaced unless the
 * connection paces); values set before the connection starts apply from its start. ACKs and
 * losses change nothing: the agent in Python decides, at each
 * environment step, from the measurements the step returns. Starts at RFC 9002's initial
 * window.
 */
class MpExternalCc : public MpCongestionOps
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;
    bool IsExternal() const override;
    void SetExternalCwnd(uint64_t bytes) override;
    void SetExternalPacingRate(double bps) override;

  private:
    bool m_haveExternal{false}; //!< a window was set (possibly before Init)
    uint64_t m_external{0};
};

} // namespace ns3

#endif // MP_EXTERNAL_CC_H
