// SPDX-License-Identifier: GPL-2.0-only
//
// MpResidual: hybrid control, a learned agent rescaling a running classic controller
// ("residual+cubic", "residual+bbr3", "residual+maco", ...).

#ifndef MP_RESIDUAL_H
#define MP_RESIDUAL_H

#include "mp-congestion-ops.h"

#include <string>

namespace ns3
{

/**
 * @ingroup mp-cc
 * Hybrid (residual) control in the manner of Orca (S. Abbasloo, C.-Y. Yen, H. J. Chao,
 * "Classic Meets Modern: a Pragmatic Learning-Based Congestion Control for the Internet",
 * SIGCOMM 2020), which sets cwnd = 2^(2a) x CUBIC's window at each monitoring interval: the
 * inner controller runs unchanged on every ACK, loss and timer, and what the sender uses is
 *
 *   cwnd        = max(floor(gain x cwnd_inner), min(cwnd_inner, kMinimumWindow))
 *   pacing rate = gain x pacing_inner
 *
 * with the gain set from outside (Python, at a step boundary) and held until the next
 * setting. The pacing rate is scaled too, so the gain also reaches controllers whose rate,
 * not their window, limits the flight (BBR, BBRv3). The floor keeps a gain below 1 from
 * taking the window below RFC 9002's kMinimumWindow (unless the inner controller itself is
 * below it, after a retransmission timeout). A gain of exactly 1 returns the inner values
 * unchanged, so a run with gain 1 throughout is the inner controller's run, bit for bit
 * (tests/simulation/test_residual.py). The inner controller's own state never sees the gain.
 *
 * With an alternate ("residual+bbr3+maco", SetAlternate) two controllers run side by side:
 * both receive every event of the path (sent packets, ACKs, losses, timeouts, ECN feedback,
 * path events), in that order, and the sender follows one of them, the inner controller
 * until SetFollowAlternate says otherwise. Everything the sender reads (window, pacing rate,
 * ssthresh, slow start, ECN codepoint, persistent congestion) comes from the followed one,
 * scaled by the gain as above; the other keeps its own state from what it observes of the
 * path that the followed one drives. Both draw from the same random stream, as each would
 * alone, and neither schedules events, so following either throughout is that controller's
 * own run bit for bit. This is the "choose the base per path and condition" lever of
 * docs/evaluation.md.
 */
class MpResidual : public MpCongestionOpsWrapper
{
  public:
    static TypeId GetTypeId();

    /// The range of the gain: [1/kMaxGain, kMaxGain].
    static constexpr double kMaxGain = 16.0;

    /// "residual+<inner>", or "residual+<inner>+<alternate>".
    std::string GetName() const override;
    void SetAlternate(Ptr<MpCongestionOps> alternate) override;
    Ptr<MpCongestionOps> GetAlternate() const override;

    void Init(const MpCcContext& ctx) override;
    void OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;
    void OnPtoExpired(const MpCcContext& ctx, uint32_t ptoCount) override;
    void OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev) override;
    void OnRtoEpisodeEnd(const MpCcContext& ctx, const MpRtoEnd& ev) override;
    void OnIdleRestart(const MpCcContext& ctx, Time idle, Time rto) override;
    void OnPathEvent(const MpCcContext& ctx, const MpPathEvent& ev) override;
    void OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev) override;

    MpEcnCodepoint GetEcnCodepoint() const override;
    bool ConsiderForPersistentCongestion(const MpCcContext& ctx,
                                         const MpSentPacket& p) const override;
    uint64_t GetCwnd() const override;
    uint64_t GetSsthresh() const override;
    double GetPacingRate() const override;
    bool RequiresPacing() const override;
    bool InSlowStart() const override;
    uint64_t GetSuppressedLosses() const override;
    int64_t AssignStreams(int64_t stream) override;

    /**
     * Check a gain.
     * @param gain the gain
     * @param field how it is called in the message ("set_flow_cwnd_gain: flow 0: gain[1]")
     * @throws std::invalid_argument naming the field unless finite and in
     *         [1/kMaxGain, kMaxGain]
     */
    static void CheckGain(double gain, const std::string& field);

    /**
     * Set the gain (held until the next call).
     * @param gain finite, in [1/kMaxGain, kMaxGain]
     * @throws std::invalid_argument otherwise
     */
    void SetGain(double gain);
    /// The gain in force (1 until set).
    double GetGain() const;

    /**
     * Follow the alternate (true) or the inner controller (false), until the next call.
     * @throws std::invalid_argument for true without an alternate
     */
    void SetFollowAlternate(bool follow);
    /// Whether the sender follows the alternate (false until set).
    bool GetFollowAlternate() const;

  protected:
    void DoDispose() override;

  private:
    /// The controller the sender follows.
    const MpCongestionOps& Followed() const;
    /// Deliver an event to the inner controller, then to the alternate.
    template <typename Event>
    void Deliver(Event event);

    double m_gain{1.0};
    Ptr<MpCongestionOps> m_alternate;
    bool m_followAlternate{false};
};

} // namespace ns3

#endif // MP_RESIDUAL_H
