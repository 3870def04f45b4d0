// SPDX-License-Identifier: GPL-2.0-only
//
// MpMaco: mobility-aware multipath congestion control (MACO) for LEO satellite paths.

#ifndef MP_MACO_H
#define MP_MACO_H

#include "mp-congestion-ops.h"
#include "mp-maco-filter.h"
#include "mp-maco-link-budget.h"

#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <utility>

namespace ns3
{

/**
 * @ingroup mp-cc
 * MACO after W. Yang, L. Cai, S. Shu and J. Pan, "Mobility-Aware Congestion Control for
 * Multipath QUIC in Integrated Terrestrial Satellite Networks", IEEE Transactions on Mobile
 * Computing, 2024, doi:10.1109/TMC.2024.3397164; implementable form in docs/specs/maco.md, whose
 * [REC] choices are the defaults here. Windows w in packets of max_datagram_size (MSS), rates
 * in bit/s, times in seconds; ns-3's byte window is w * MSS.
 *
 * This class is the controller: it holds the per-path state and decides when each equation
 * applies. The equations live beside it, each with its paper citation:
 * mp-maco-link-budget.h (eqs. 2-3, Table 3), mp-maco-filter.h (the AKF, eqs. 5-10) and
 * mp-maco-equations.h (eqs. 4, 11, 14, 15-16, 17, 26).
 *
 * **BDP estimation (Algorithm 1).** The access-link rate C^A (eqs. 2-3) from the predicted
 * slant range d_r to the serving satellite (the path oracle); without a slant range the
 * oracle's SNR feeds (3); without either, the oracle's capacity is C^A. The network-side rate
 * C^N: ACK throughput samples (4), dt >= 10 ms, through the adaptive Kalman filter (5)-(10);
 * C^N counts as +inf until its first update. Then D (11), C = min(C^A, C^N) (12), B = C D (13)
 * and B̄, the average of C D over the last RTT (14, trapezoid over ACKs).
 *
 * D (DelayMode 0, [REC] docs/specs/maco.md#terrestrial-delay): D_ul = D_dl = d_r / c (ground
 * station near the terminal), D_terr initialised so that D(t0) = 100 ms, then D_terr <- (1 - 1/8)
 * D_terr + 1/8 max(0, rtt_min_10s / 2 - D_ul - D_dl). DelayMode 1
 * ("oracle"): D = the path's one-way propagation delays down + up from the timeline.
 *
 * **Quick start (Algorithm 2).** On subflow creation, reconnection (end of an outage, or a
 * make-before-break move to another satellite) and timeout (first PTO, persistent
 * congestion): ssthresh = B̄_r and w = Omega_r (15)-(16), gamma = 1/2, at least 4. Slow start
 * adds one packet per packet acked; CA begins at w >= ssthresh.
 *
 * **Mobility-aware congestion detection (eq. 17).** A loss halves the window only if (17)
 * holds, with TP = the latest (4) sample, C^A and D at the lost packet's send time and
 * Delta_R over the last 20 RTT samples (at least 1 ms). Then W_r gets w_r,
 * w_r = max(2, w_r / 2), ssthresh = w_r, at most once per recovery epoch (losses of packets
 * sent before the last halving do not halve again). Other losses change nothing; losses of
 * packets in flight across an outage of the path are never congestion.
 *
 * **Congestion avoidance (eqs. 18-26).** Per packet acknowledged on r, the increase (26) over
 * the paths in use (not deactivated, with an RTT sample); tau = latest RTT sample, T = largest
 * RTT sample ever seen on the path.
 */
class MpMaco : public MpCongestionOps
{
  public:
    static TypeId GetTypeId();
    MpMaco();

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    /// MACO reacts to losses through its congestion model and has no ECN response: its
    /// packets go Not-ECT, so an AQM drops them rather than marking them (RFC 3168).
    MpEcnCodepoint GetEcnCodepoint() const override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;
    void OnPtoExpired(const MpCcContext& ctx, uint32_t ptoCount) override;
    /// A retransmission timeout (timer presets) re-enters quick start like a probe timeout
    /// (the paper's "on timeout", eq. 16); otherwise the default loss window.
    void OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev) override;
    void OnPathEvent(const MpCcContext& ctx, const MpPathEvent& ev) override;
    bool ConsiderForPersistentCongestion(const MpCcContext& ctx,
                                         const MpSentPacket& p) const override;
    bool InSlowStart() const override;
    uint64_t GetSuppressedLosses() const override;

    // ---- state, for measurements and tests ----
    double GetWindowPackets() const;
    double GetSsthreshPackets() const;
    double GetAccessCapacity() const;  //!< latest C^A (bit/s)
    double GetNetworkCapacity() const; //!< latest C^N (bit/s; +inf before the first update)
    double GetThroughput() const;      //!< latest TP sample (bit/s; NaN before the first)
    double GetPropagationRtt() const;  //!< latest D (s)
    double GetBdpPackets() const;      //!< latest B̄ (packets)
    double GetDeltaR() const;          //!< current Delta_R (s)
    double GetLatestRtt() const;       //!< tau (s)
    double GetMaxRtt() const;          //!< T (s)
    double GetDTerr() const;           //!< current D_terr estimate (s)
    /// max W_r (NaN when empty).
    double GetHistoryMax() const;
    uint64_t GetCongestionEvents() const;
    uint64_t GetQuickStarts() const;

  protected:
    /// Also sets the window in packets (w).
    void SetWindow(uint64_t bytes) override;

  private:
    /// The MACO controller behind a path's controller (through a wrapper such as the freeze,
    /// or as a residual wrapper's alternate), or null.
    static const MpMaco* Behind(const MpCongestionOps* cc, int depth = 0);
    /// Link parameters now: C^A and D at time t (s).
    void LinkAt(const MpCcContext& ctx, double t, double& capA, double& d) const;
    /// Quick-start (re-)entry (Algorithm 2); reconnect resets the estimators.
    void QuickStart(const MpCcContext& ctx, bool reconnect);
    /// Reset the per-satellite estimators (AKF, Delta_R, rtt-min window, BDP buffer).
    void ResetEstimators(const MpCcContext& ctx);
    /// Record a congestion window in W_r.
    void AddHistory(double w);
    double OtherHistoryMax(const MpCcContext& ctx) const;
    void UpdateBdp(const MpCcContext& ctx, double now);
    void Commit();
    bool InOutageRange(uint64_t pn) const;
    bool InFreezeWindow(const MpCcContext& ctx, Time sent) const;
    void MaybeClamp(const MpCcContext& ctx, double now);

    // attributes
    double m_gamma;
    double m_initPkts;
    double m_decrease;
    double m_minPkts;
    double m_txPowerDbm;
    double m_txGainDbi;
    double m_rxGainDbi;
    double m_wavelengthM;
    double m_noisePsd;
    double m_bandwidthHz;
    double m_efficiency;
    maco::LinkBudget m_lb; //!< the attributes above, gathered at Init
    double m_c;
    uint32_t m_delayMode;
    double m_targetInitialRtt;
    double m_dTerrAlpha;
    Time m_rttMinWindow;
    uint32_t m_deltaWindow;
    Time m_deltaFloor;
    Time m_tpMinInterval;
    uint32_t m_akfWindow;
    bool m_akfAdaptive;
    bool m_con1Bottleneck;
    bool m_bdpFuture;
    uint32_t m_historyLastK;
    bool m_incrementUsesSrtt;
    bool m_qsOnPto;
    bool m_resetTmaxOnReconnect;
    bool m_proactiveClamp;
    bool m_freezeOnHandover;
    Time m_freezeBefore;
    Time m_freezeAfter;

    // window state (packets)
    double m_w{4};
    double m_ssthreshPkts{std::numeric_limits<double>::infinity()};
    bool m_ss{true};
    // RTT
    double m_tau{0};
    double m_tmax{0};
    bool m_haveRtt{false};
    std::deque<double> m_resid;                     //!< tau_i - D_i
    std::deque<std::pair<double, double>> m_rttWin; //!< (t, rtt) for the windowed minimum
    double m_dTerr{0};
    // rates
    uint64_t m_ackedBytes{0};
    uint64_t m_sLast{0};
    double m_tLast{0};
    double m_tp{std::numeric_limits<double>::quiet_NaN()};
    maco::Akf m_akf;
    double m_capA{0};
    double m_capN{std::numeric_limits<double>::infinity()};
    double m_d{0.1};
    std::deque<std::pair<double, double>> m_bdpBuf; //!< (t, C D) bits
    double m_bdpPkts{0};
    // history W_r
    double m_histMax{std::numeric_limits<double>::quiet_NaN()};
    std::deque<double> m_hist;
    // recovery, outages
    uint64_t m_largestSentPn{0};
    uint64_t m_largestAckedPn{0};
    bool m_anySent{false};
    bool m_anyAcked{false};
    bool m_epochSet{false};
    uint64_t m_recoveryEpochEnd{0};
    bool m_broken{false};
    bool m_haveOutageRange{false};
    uint64_t m_outageLo{0};
    uint64_t m_outageHi{0};
    double m_lastClampHo{-1};
    // counters
    uint64_t m_congestionEvents{0};
    uint64_t m_suppressed{0};
    uint64_t m_quickStarts{0};

    /// Congestion test of a loss: TP, C, tau, D, Delta_R, verdict.
    TracedCallback<double, double, double, double, double, bool> m_congestionTrace;
    /// Quick start: the new window and ssthresh (packets).
    TracedCallback<double, double> m_quickStartTrace;
};

} // namespace ns3

#endif // MP_MACO_H
