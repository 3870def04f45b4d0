// SPDX-License-Identifier: GPL-2.0-only
//
// MpCubic: CUBIC (RFC 9438) for one path.

#ifndef MP_CUBIC_H
#define MP_CUBIC_H

#include "mp-congestion-ops.h"
#include "mp-hystart.h"
#include "mp-recovery-period.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * CUBIC after Xu, Ha, Rhee, Goel and Eggert, "CUBIC for Fast and Long-Distance Networks",
 * RFC 9438 (2023), with QUIC's recovery period (RFC 9002 section 7.3.2). Windows in segments
 * of max_datagram_size (mss) in the equations, bytes in the code:
 *
 *   W_cubic(t) = C (t - K)^3 + W_max                                   (RFC 9438 eq. 1)
 *   K = cbrt((W_max - cwnd_epoch) / C)                                 (eq. 2)
 *   target = clamp(W_cubic(t + RTT), cwnd, 1.5 cwnd)   RTT = smoothed_rtt   (4.2)
 *   per ACK in congestion avoidance: cwnd += (target - cwnd) / cwnd per acked segment
 *   Reno-friendly region (4.3):
 *     W_est = cwnd_epoch at the epoch start; W_est += alpha_cubic * segments_acked / cwnd
 *     alpha_cubic = 3 (1 - beta) / (1 + beta), and 1 once W_est >= cwnd_prior
 *     if W_cubic(t) < W_est: cwnd = W_est
 *   on a congestion event (4.6, 4.7):
 *     cwnd_prior = cwnd
 *     W_max = cwnd (1 + beta) / 2   if cwnd < W_max and fast convergence, else W_max = cwnd
 *     ssthresh = max(cwnd * beta, kMinimumWindow); cwnd = ssthresh; the epoch restarts
 *   slow start: cwnd += bytes acked while cwnd < ssthresh (no HyStart by default; HyStart =
 *   true adds RFC 9406's HyStart++ to the initial slow start, see MpHyStart: min(N, L mss) per
 *   ACK, a quarter of that in Conservative Slow Start, ssthresh = cwnd when CSS ends).
 *   persistent congestion (RFC 9002 7.6.2): cwnd = kMinimumWindow, the epoch restarts.
 *
 * C = 0.4 and beta = 0.7 (attributes C and Beta). The epoch (t = 0) starts at the first ACK
 * in congestion avoidance after a reduction; if cwnd >= W_max then, K = 0 and W_max = cwnd.
 */
class MpCubic : public MpCongestionOps
{
  public:
    static TypeId GetTypeId();
    MpCubic();

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;

    /// W_max in bytes.
    double GetWMax() const;
    /// K in seconds of the current epoch.
    double GetK() const;
    /// The HyStart++ state, or null when HyStart is off.
    const MpHyStart* GetHyStart() const;

  protected:
    /// Also sets the real-valued window and starts a new cubic epoch.
    void SetWindow(uint64_t bytes) override;

  private:
    double m_c;
    double m_beta;
    bool m_fastConvergence;
    bool m_renoFriendly;

    double m_cwndD{0};     //!< bytes
    double m_wMax{0};      //!< bytes
    double m_cwndPrior{0}; //!< bytes
    double m_wEst{0};      //!< bytes
    double m_k{0};         //!< seconds
    Time m_epochStart{0};
    bool m_epochValid{false};
    MpRecoveryPeriod m_recovery; //!< RFC 9002 section 7.3.2
    bool m_hyStartOn{false};     //!< attribute HyStart
    MpHyStart m_hyStart;         //!< RFC 9406
};

} // namespace ns3

#endif // MP_CUBIC_H
