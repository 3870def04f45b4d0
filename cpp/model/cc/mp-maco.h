// SPDX-License-Identifier: GPL-2.0-only
//
// MpMaco: mobility-aware multipath congestion control (MACO) for LEO satellite paths.

#ifndef MP_MACO_H
#define MP_MACO_H

#include "mp-congestion-ops.h"

#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstddef>
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
 * Computing, 2024, doi:10.1109/TMC.2024.3397164; implementable form in specs/maco.md, whose
 * [REC] choices are the defaults here. Windows w in packets of max_datagram_size (MSS), rates
 * in bit/s, times in seconds; ns-3's byte window is w * MSS.
 *
 * **BDP estimation (Algorithm 1).** Access-link rate from the predicted slant range d_r to the
 * serving satellite (the path oracle), all quantities linear:
 *
 *   SNR_r   = P_t g1 g2 / ( (4 pi d_r / lambda)^2 N_0 W )                       (2)
 *   C^A_r   = eta W log2(1 + SNR_r)                                             (3)
 *
 * (Table 3: P_t = 35.12 dBm, g1 = 37.7 dBi, g2 = 37.1 dBi, lambda = 0.086 m,
 * N_0 = 1.6e-20 W/Hz, W = 12.5 MHz, eta = 0.98; 198.6 Mbit/s at 550 km.) Without a slant
 * range the oracle's SNR feeds (3); without either, the oracle's capacity is C^A.
 * Network-side rate from ACKs, smoothed by an adaptive Kalman filter (random walk):
 *
 *   C^N_meas = (S_t - S_{t-1}) / dt          (S: cumulative bits acked; dt >= 10 ms)    (4)
 *   C^N-     = C^N+_{t-1};   Z- = Z+_{t-1} + Q                                     (5)-(6)
 *   K        = Z- / (Z- + R)                                                        (8)
 *   C^N+     = C^N- + K (y - C^N-);   Z+ = (1 - K) Z-                             (9)-(10)
 *
 * with Q, R adapted by innovation covariance matching over the last 20 innovations nu:
 * R = max(R_min, mean(nu^2) - Z-), Q = max(Q_min, K^2 mean(nu^2)) [REC, spec A6], floors
 * R_min = (0.01 C^A)^2, Q_min = (0.001 C^A)^2, initial C^N = C^A, Z = (C^A)^2,
 * Q = (0.05 C^A)^2, R = (0.2 C^A)^2; C^N counts as +inf until its first update.
 * Round-trip propagation delay and the BDP:
 *
 *   D_r  = 2 (D_ul + D_dl + D_terr)                                             (11)
 *   C_r  = min(C^A_r, C^N_r)                                                    (12)
 *   B_r  = C_r D_r                                                              (13)
 *   B̄_r(t) = (1/tau_r) integral_{t-tau_r}^{t} C_{r,z} D_{r,z} dz  (trapezoid over ACKs) (14)
 *
 * D (DelayMode 0, [REC] A5): D_ul = D_dl = d_r / c (ground station near the terminal),
 * D_terr initialised so that D(t0) = 100 ms, then
 * D_terr <- (1 - 1/8) D_terr + 1/8 max(0, rtt_min_10s / 2 - D_ul - D_dl). DelayMode 1
 * ("oracle"): D = the path's one-way propagation delays down + up from the timeline.
 *
 * **Quick start (Algorithm 2).** On subflow creation, reconnection (end of an outage, or a
 * make-before-break move to another satellite) and timeout (first PTO, persistent
 * congestion): ssthresh = B̄_r, and with W_r the windows at r's past congestion events,
 *
 *   Omega_r = gamma min(B̄_r, max W_r)               if W_r is not empty            (16)
 *   Omega_r = gamma min(B̄_r, max_{q != r} max W_q)  else, if another path has history (15)
 *   Omega_r = 4                                      otherwise;       gamma = 1/2
 *
 * (at least 4). Slow start adds one packet per packet acked; CA begins at w >= ssthresh.
 *
 * **Mobility-aware congestion detection (eq. 17).** A loss halves the window only if
 *
 *   TP_r(t) < C^A_r(t_send)                  (17a; TP = the latest (4) sample)
 *   tau_r(t) > D_r(t_send) + Delta_R          (17b; tau = latest RTT sample)
 *
 * where Delta_R = population standard deviation of (tau_i - D_i) over the last 20 RTT
 * samples (at least 1 ms) and t_send is the lost packet's send time. Then W_r gets w_r,
 * w_r = max(2, w_r / 2), ssthresh = w_r, at most once per recovery epoch (losses of packets
 * sent before the last halving do not halve again). Other losses change nothing; losses of
 * packets in flight across an outage of the path are never congestion.
 *
 * **Congestion avoidance (eqs. 18-26).** Matching Elastic-TCP's fluid-model derivative, per
 * packet acknowledged on r:
 *
 *   w_r += 3 M / ( 2 tau_r (sum_k x_k)^{5/2} ),   M = max_p x_p^2 sqrt(T_p),   x_k = w_k / tau_k
 *                                                                                (26)
 * over the paths in use (not deactivated, with an RTT sample); tau = latest RTT sample,
 * T = largest RTT sample ever seen on the path. One path: 1.5 sqrt(T / (tau w)) per ACK.
 */
class MpMaco : public MpCongestionOps
{
  public:
    /// Link-budget parameters of eqs. (2)-(3), paper Table 3.
    struct LinkBudget
    {
        double txPowerDbm{35.12};
        double txGainDbi{37.7};
        double rxGainDbi{37.1};
        double wavelengthM{0.086};
        double noisePsdWPerHz{1.6e-20};
        double bandwidthHz{12.5e6};
        double efficiency{0.98};

        /// SNR (linear) at slant range d (m), eq. (2).
        double Snr(double dM) const;
        /// eta W log2(1 + snr), eq. (3) (bit/s).
        double CapacityFromSnr(double snrLinear) const;
        /// C^A at slant range d (m), eqs. (2)-(3) (bit/s).
        double Capacity(double dM) const;
    };

    /// The adaptive Kalman filter of eqs. (5)-(10) with covariance matching.
    class Akf
    {
      public:
        /**
         * Start from c0 (bit/s): C = c0, Z = c0^2, Q = (0.05 c0)^2, R = (0.2 c0)^2.
         * @param window innovations in the covariance matching
         * @param adaptive false: keep Q and R at their initial values (plain Kalman filter)
         */
        void Reset(double c0, std::size_t window, bool adaptive = true);
        /// One measurement y (bit/s); returns the posterior estimate. cA sets the floors.
        double Update(double y, double cA);
        bool HasUpdate() const;
        double Estimate() const;
        double Z() const;
        double Q() const;
        double R() const;
        double Gain() const;

      private:
        double m_c{0};
        double m_z{0};
        double m_q{0};
        double m_r{0};
        double m_k{0};
        bool m_updated{false};
        bool m_adaptive{true};
        std::size_t m_window{20};
        std::deque<double> m_nu2; //!< squared innovations (window)
    };

    static TypeId GetTypeId();
    MpMaco();

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;
    void OnPtoExpired(const MpCcContext& ctx, uint32_t ptoCount) override;
    void OnPathEvent(const MpCcContext& ctx, const MpPathEvent& ev) override;
    bool ConsiderForPersistentCongestion(const MpCcContext& ctx,
                                         const MpSentPacket& p) const override;
    bool InSlowStart() const override;
    uint64_t GetSuppressedLosses() const override;

    // ---- the equations, as pure functions (used by the controller and by unit tests) ----

    /// Eq. (11): 2 (D_ul + D_dl + D_terr), seconds.
    static double PropagationRtt(double dUlS, double dDlS, double dTerrS);
    /**
     * Algorithm 2 / eqs. (15)-(16): the quick-start window (packets).
     * @param bdpPkts B̄_r in packets
     * @param ownMax max W_r (NaN: no own history)
     * @param otherMax max over other paths' histories (NaN: none)
     */
    static double QuickStartWindow(double bdpPkts, double ownMax, double otherMax, double gamma,
                                   double initPkts);
    /**
     * Eq. (26): the per-packet CA increase (packets) of path r.
     * @param w windows (packets), tau latest RTTs (s), T largest RTTs (s), n paths
     */
    static double CaIncrement(const double* w, const double* tau, const double* T, std::size_t n,
                              std::size_t r);
    /// Eq. (17): congestion iff TP < C and tau > D + deltaR (with a loss detected).
    static bool IsCongestion(double tp, double capacity, double tau, double d, double deltaR);
    /// Eq. (14): time average of (t, value) samples over [t1, t2] (trapezoid).
    static double TimeAverage(const std::deque<std::pair<double, double>>& samples, double t1,
                              double t2);

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

  private:
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
    LinkBudget m_lb; //!< the attributes above, gathered at Init
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
    std::deque<double> m_resid;                  //!< tau_i - D_i
    std::deque<std::pair<double, double>> m_rttWin; //!< (t, rtt) for the windowed minimum
    double m_dTerr{0};
    // rates
    uint64_t m_ackedBytes{0};
    uint64_t m_sLast{0};
    double m_tLast{0};
    double m_tp{std::numeric_limits<double>::quiet_NaN()};
    Akf m_akf;
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
