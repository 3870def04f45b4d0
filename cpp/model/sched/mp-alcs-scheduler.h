// SPDX-License-Identifier: GPL-2.0-only
//
// MpAlcsScheduler: the Adaptive Latency Compensation Scheduler (ALCS).

#ifndef MP_ALCS_SCHEDULER_H
#define MP_ALCS_SCHEDULER_H

#include "mp-scheduler.h"

#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace ns3
{

/**
 * @ingroup mp-sched
 * ALCS after L. Wang, Z. Wang, Z. Deng, J. Zhang and Y. Gao, "ALCS: An Adaptive Latency
 * Compensation Scheduler for Multipath TCP in Satellite-Terrestrial Integrated Networks"
 * (seed 001); implementable form in docs/specs/alcs.md, whose [R] choices are the
 * defaults here. Units: k, i, q, cwnd in segments of max_datagram_size; rtt, Delta, tl in s.
 *
 * **Proactive handover management.** For each satellite path, with its next outage-causing
 * handover [t_ho_start, t_ho_end) from the path oracle (the paper's 24-hour satellite
 * timetable), the path is deactivated (no new data; packets in flight complete) for
 *
 *   t_ho_start - kappa * srtt_i  <=  now  <  t_ho_end,        kappa = 1 ("one RTT")
 *
 * and reactivated afterwards with its congestion state untouched.
 *
 * **Roles.** Among the usable paths (not deactivated, not in probe timeout),
 * S_f = the path with the smallest smoothed RTT, window room or not. If S_f has room, send
 * on it. Otherwise S_s = minRTT's choice (smallest smoothed RTT among the paths with room);
 * none: wait.
 *
 * **Latency estimates.** With k the connection-level segments not yet given to a path, i_x
 * the segments in flight on x, q_f the segments bound to S_f but unsent (0 here: packets are
 * bound to a path when sent), and the compensation factors sigma:
 *
 *   tl_f = (k + i_f + q_f) / cwnd_f * (rtt_f + Delta_f)                    (1)
 *   tl_s = (k + i_s)       / cwnd_s * (rtt_s + Delta_s)                    (2)
 *   tl_f = (k + i_f + q_f) / cwnd_f * (rtt_f + Delta_f) * sigma_f          (3)
 *   tl_s = (k + i_s)       / cwnd_s * (rtt_s + Delta_s) * sigma_s          (4)
 *
 *   decision: tl_f < tl_s -> wait for S_f;  otherwise send on S_s now.
 *
 * rtt = smoothed RTT, Delta = rttvar (RFC 9002) [R].
 *
 * **Adaptive compensation.** sigma starts at 1; every T_u (inside the "S_f has no room"
 * branch, for the paths in the two roles) with atp = segments acknowledged and etp = segments
 * expected since the last update, alpha = 0.99:
 *
 *   sigma <- sigma * alpha   if atp > etp;   sigma <- sigma / alpha   if atp < etp   (7), (10)
 *
 * clamped to [sigma_min, sigma_max] = [0.5, 2] [R]; T_u = max(100 ms, largest srtt of the
 * usable paths) [R]; etp = integral of cwnd / (sigma (rtt + Delta)) over the time the path was
 * backlogged (in flight >= cwnd - 1 segment) [R, "model_rate"]; a path never backlogged in
 * the interval keeps its sigma.
 */
class MpAlcsScheduler : public MpScheduler
{
  public:
    static TypeId GetTypeId();
    MpAlcsScheduler();
    ~MpAlcsScheduler() override;

    std::string GetName() const override;
    void Init(MpConnectionView& conn) override;
    int32_t SelectPath(MpConnectionView& conn, const MpSchedRequest& req) override;
    void OnPacketSent(MpConnectionView& conn, uint32_t path, const MpSentPacket& p) override;
    void OnAck(MpConnectionView& conn, uint32_t path, const MpAckEvent& ev) override;
    void OnPathEvent(MpConnectionView& conn, uint32_t path, const MpPathEvent& ev) override;

    /// Eqs. (1)-(4): (k + inflight + queued) / cwnd * (rtt + delta) * sigma (seconds).
    static double Latency(double k,
                          double inflight,
                          double queued,
                          double cwnd,
                          double rtt,
                          double delta,
                          double sigma);
    /// Eqs. (7)/(10): one compensation step, clamped to [sigmaMin, sigmaMax].
    static double UpdateSigma(double sigma,
                              double atp,
                              double etp,
                              double alpha,
                              double sigmaMin,
                              double sigmaMax);

    double GetSigma(uint32_t path) const;
    bool IsDeactivated(uint32_t path) const;
    double GetAtp(uint32_t path) const;
    double GetEtp(uint32_t path) const;
    /// Decisions to wait for S_f (cumulative).
    uint64_t GetWaits() const;
    /// Proactive deactivations (cumulative).
    uint64_t GetDeactivations() const;
    /// Time of the last compensation update (s).
    double GetLastUpdate() const;

  private:
    struct PathState
    {
        double sigma{1.0};
        double atp{0};
        double etp{0};
        double rate{0}; //!< etp rate (segments/s) since lastT
        double lastT{0};
        bool busy{false}; //!< backlogged at some point since the last update
        bool deactivated{false};
        MpPathState restore{MpPathState::ACTIVE};
        double hoStart{-std::numeric_limits<double>::infinity()};
        double hoEnd{-std::numeric_limits<double>::infinity()};
    };

    PathState& State(uint32_t path);
    void Accumulate(const MpConnectionView& conn, double now);
    void UpdateHandovers(MpConnectionView& conn, double now);
    double Delta(const MpPathInfo& p) const;
    double UpdateInterval(const MpConnectionView& conn) const;

    // attributes
    double m_alpha;
    double m_sigmaInit;
    double m_sigmaMin;
    double m_sigmaMax;
    Time m_updateInterval;
    Time m_updateIntervalMin;
    uint32_t m_etpMode;
    bool m_updateAll;
    uint32_t m_deltaMode;
    uint32_t m_kMode;
    double m_kCap;
    bool m_handover;
    double m_guardRtts;
    bool m_onlyOutages;

    std::vector<PathState> m_ps;
    double m_t0{0};
    bool m_inUpdate{false};
    uint64_t m_waits{0};
    uint64_t m_deactivations{0};

    /// A path was (de)activated for a handover: path, deactivated.
    TracedCallback<uint32_t, bool> m_deactivationTrace;
    /// A decision with both roles: S_f, S_s, tl_f, tl_s, sent on S_s (false: wait).
    TracedCallback<uint32_t, uint32_t, double, double, bool> m_decisionTrace;
};

} // namespace ns3

#endif // MP_ALCS_SCHEDULER_H
