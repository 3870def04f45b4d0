// SPDX-License-Identifier: GPL-2.0-only
//
// MpBbr: BBR version 1 for one path.

#ifndef MP_BBR_H
#define MP_BBR_H

#include "mp-congestion-ops.h"
#include "mp-windowed-filter.h"

#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * BBR v1 after Cardwell, Cheng, Gunn, Hassas Yeganeh and Jacobson, "BBR: Congestion-Based
 * Congestion Control", ACM Queue 14(5), 2016, and the IETF description
 * draft-cardwell-iccrg-bbr-congestion-control-00 (2017), which this follows step by step:
 *
 *   model:   BtlBw  = windowed max of delivery-rate samples over BtlBwFilterLen = 10 rounds
 *                     (app-limited samples only if they raise it)
 *            RTprop = min RTT over RTpropFilterLen = 10 s
 *            BDP = BtlBw * RTprop; Inflight(gain) = gain * BDP + 3 * send_quantum
 *   STARTUP: pacing_gain = cwnd_gain = 2 / ln 2; leave when BtlBw grew < 25 % in 3 rounds
 *   DRAIN:   pacing_gain = ln 2 / 2, cwnd_gain = 2 / ln 2 until bytes_in_flight <= Inflight(1)
 *   PROBE_BW: cwnd_gain = 2, pacing_gain cycles [5/4, 3/4, 1, 1, 1, 1, 1, 1], one phase per
 *            RTprop (5/4 until inflight reaches Inflight(5/4) or a loss; 3/4 until inflight
 *            <= Inflight(1)); the first phase is random (not 3/4)
 *   PROBE_RTT: when RTprop was not refreshed for 10 s: cwnd = 4 mss for max(200 ms, 1 round)
 *   pacing_rate = pacing_gain * BtlBw (never lowered before the pipe is full)
 *   cwnd: min(cwnd + delivered, Inflight(cwnd_gain)) once the pipe is full, else grows by
 *         delivered; at least 4 mss; loss recovery with packet conservation for one round,
 *         restoring the prior cwnd when recovery ends.
 *
 * BBR requires pacing; the transport paces it whatever the connection's Pacing setting.
 */
class MpBbr : public MpCongestionOps
{
  public:
    static TypeId GetTypeId();
    MpBbr();

    /// BBR's states.
    enum class State : uint8_t
    {
        STARTUP = 0,
        DRAIN = 1,
        PROBE_BW = 2,
        PROBE_RTT = 3,
    };

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    /// BBR v1 has no ECN response (Cardwell et al. 2016): its packets go Not-ECT, so
    /// an AQM drops them rather than marking a flow that would not slow down (RFC 3168).
    MpEcnCodepoint GetEcnCodepoint() const override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;
    bool RequiresPacing() const override;
    bool InSlowStart() const override;
    int64_t AssignStreams(int64_t stream) override;

    State GetState() const;
    /// BtlBw (bit/s).
    double GetBtlBw() const;
    /// RTprop (0 before a sample).
    Time GetRtProp() const;

  private:
    double Inflight(double gain) const;
    double SendQuantum() const;
    void EnterStartup();
    void EnterDrain();
    void EnterProbeBw(Time now);
    void EnterProbeRtt();
    void AdvanceCyclePhase(Time now);
    bool IsNextCyclePhase(Time now, uint64_t priorInflight, uint64_t lost) const;
    void SaveCwnd();
    void RestoreCwnd();
    void SetPacingRateWithGain(double gain);

    // attributes
    uint32_t m_btlBwFilterLen;
    Time m_rtPropFilterLen;
    Time m_probeRttDuration;
    double m_highGain;

    Ptr<UniformRandomVariable> m_uv;
    State m_state{State::STARTUP};
    MpWindowedMaxFilter m_btlBwFilter; //!< BtlBw over m_btlBwFilterLen rounds
    double m_btlBw{0};                 //!< bytes/s
    Time m_rtProp;
    bool m_rtPropValid{false};
    Time m_rtPropStamp;
    bool m_rtPropExpired{false};
    double m_pacingGain{1};
    double m_cwndGain{1};
    uint64_t m_nextRoundDelivered{0};
    uint64_t m_roundCount{0};
    bool m_roundStart{false};
    bool m_filledPipe{false};
    double m_fullBw{0};
    uint32_t m_fullBwCount{0};
    uint32_t m_cycleIndex{0};
    Time m_cycleStamp;
    Time m_probeRttDoneStamp;
    bool m_probeRttDoneSet{false};
    bool m_probeRttRoundDone{false};
    uint64_t m_priorCwnd{0};
    bool m_inRecovery{false};
    Time m_recoveryStart;
    bool m_packetConservation{false};
    uint64_t m_conservationRound{0};
    uint64_t m_lostSinceAck{0};
    double m_pacingRateBytes{0}; //!< bytes/s
};

} // namespace ns3

#endif // MP_BBR_H
