// SPDX-License-Identifier: GPL-2.0-only
//
// LossDetectorProbe: the loss detection of one path (RFC 9002 or a timer-based recovery
// preset) driven by hand with constructed packets and ACK frames, for the probe
// _core.testing.LossDetectorProbe of bind-transport-testing.cc; probe-loss-detector.cc has its
// members.

#ifndef LEOGYM_PROBE_LOSS_DETECTOR_H
#define LEOGYM_PROBE_LOSS_DETECTOR_H

#include "model/transport/mp-loss-recovery.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace leogym
{

/// Drives one MpLossRecovery with constructed packets and ACK frames.
class LossDetectorProbe
{
  public:
    /**
     * The preset `recovery` with `recoveryParams` (RecoveryFromPython), then the RFC 9002
     * parameters given here.
     * @throws std::invalid_argument naming the field of a bad value
     */
    LossDetectorProbe(double maxAckDelayS,
                      double initialRttS,
                      uint32_t packetThreshold,
                      double timeThreshold,
                      double granularityS,
                      uint32_t pcThreshold,
                      const std::string& recovery,
                      pybind11::handle recoveryParams);

    /// Record a sent packet.
    void OnPacketSent(uint64_t pn,
                      double timeS,
                      uint32_t bytes,
                      bool ackEliciting,
                      bool retransmission);

    /// Process an ACK frame of (smallest, largest) ranges: newly_acked, late_acked, lost,
    /// loss_kinds, rtt_sampled, persistent_congestion, rto_episode_ended, rto_spurious.
    pybind11::dict OnAck(const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                         double ackDelayS,
                         double nowS);

    /// Fire the loss-detection timer: kind, lost, loss_kinds, persistent_congestion.
    pybind11::dict OnTimeout(double nowS);

    /// (kind, deadline in seconds) of the timer; ("none", None) when it is off.
    pybind11::tuple Timer() const;

    const ns3::MpLossRecovery& Lr() const;
    ns3::MpLossRecovery& Lr();

  private:
    static const char* KindName(ns3::MpLossRecovery::TimerKind k);

    /// d["lost"] and d["loss_kinds"] from the last ACK frame or timeout.
    void FillLost(pybind11::dict& d) const;

    std::unique_ptr<ns3::MpLossRecovery> m_lr;
};

} // namespace leogym

#endif // LEOGYM_PROBE_LOSS_DETECTOR_H
