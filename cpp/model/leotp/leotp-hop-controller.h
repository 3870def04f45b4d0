// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpHopController: LEOTP's hop-by-hop congestion control with backpressure, eqs. (6)-(10)
// (LEOTP, ICDCS 2023, section III.C), with the corrected sign of eq. (9).

#ifndef LEOTP_HOP_CONTROLLER_H
#define LEOTP_HOP_CONTROLLER_H

#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <utility>

namespace ns3
{

/**
 * @ingroup leotp
 * Parameters of the hop controller. The paper gives k and the 5 s window of hopRTT_min; the
 * others are recommended readings [REC] of cpp/doc/leotp.md ("Hop-by-hop congestion control"),
 * most from the authors' code.
 */
struct LeotpHopParams
{
    double k{0.8};                    //!< eq. (8): cut to k BDP [P]
    double queueThresholdBytes{3000}; //!< M of eq. (8), bytes [REC, code]
    double packetBytes{1500};         //!< bytes of one cwnd unit (a full packet on the wire)
    double initialCwnd{2};            //!< packets [REC]
    double minCwnd{0.2};              //!< packets [REC]
    double minRttWindowS{5};          //!< window of hopRTT_min (s) [P]
    double gain{0.125};               //!< EWMA gain of hopRTT [REC, code]
    double cutGuardRtts{2};           //!< at most one cut per this many hopRTTs [REC, code]
    double limitedFraction{0.5};      //!< grow only if throughput >= this x cwnd/hopRTT [REC]
    double slowStartCap{0};           //!< leave slow start at this cwnd (packets); 0 = off
    double additiveIncrease{1};       //!< packets added per hopRTT in CongAvoid [P: 1]
    double minRateBps{1e5};           //!< clamp of eq. (10) [REC, code]
    double maxRateBps{3e8};           //!< clamp of eq. (10) [REC, code]
    double initialRateBps{1e5};       //!< R_init, before the first hopRTT sample [REC, code]

    /// @throws std::invalid_argument naming "<prefix>.<field>" for a value out of range
    void Check(const std::string& prefix) const;
};

/// Phase of the hop controller (eq. (8)).
enum class LeotpPhase : uint8_t
{
    SLOW_START = 0,
    CONG_AVOID = 1,
};

/**
 * @ingroup leotp
 * The Requester's rate controller of one hop (run by Midnodes and the Consumer). It measures
 * the hop, keeps a window and computes the rate its Responder may send at, which the
 * Requester writes into the sendRate field of its Interests.
 *
 * Measurement [P, REC]: hopRTT is an EWMA (gain 1/8, the first sample initialises it) of the
 * samples now - timestamp of Data from upstream (Interest OWD + Data OWD; the Responder's
 * holding time and any clock offset cancel); hopRTT_min is the minimum of the smoothed values
 * snapshotted every hopRTT / 2 over the last 5 s; throughput is the bytes received from
 * upstream in the last hopRTT period over the period.
 *
 * Window, once per hopRTT [P, eqs. (6)-(8)]:
 *
 *   BDP      = throughput * hopRTT_min                               (6)
 *   QueueLen = throughput * (hopRTT - hopRTT_min)                    (7)
 *   cwnd     = 2 cwnd        if SlowStart                            (8)
 *              cwnd + 1      else if QueueLen <= M
 *              k BDP         otherwise
 *
 * [REC] SlowStart ends at the first QueueLen > M (cwnd = k BDP); in CongAvoid at most one cut
 * per 2 hopRTT; cwnd grows only while window-limited (throughput >= 0.5 cwnd / hopRTT);
 * cwnd >= 0.2 packets.
 *
 * Rate [P, eqs. (9)-(10), eq. (9) with the corrected sign]:
 *
 *   Rate_bp = Rate_nextHop - (BL - BL_tar) / hopRTT                  (9)
 *   Rate    = min(cwnd / hopRTT, Rate_bp)                            (10)
 *
 * clamped to [minRate, maxRate]; initialRate before the first sample. The paper prints
 * Rate_nextHop + (BL - BL_tar) / hopRTT, which asks for more input as the buffer grows and
 * contradicts its own text; the authors' code has the sign used here (cpp/doc/leotp.md).
 * A node without a sending buffer (the Consumer) uses Rate = cwnd / hopRTT.
 *
 * Times are seconds (doubles), rates bit/s, BDP, QueueLen and buffers bytes, cwnd packets.
 */
class LeotpHopController
{
  public:
    /// Smallest hop-RTT sample (s): the header timestamp's resolution, 1 us.
    static constexpr double kMinSampleS = 1e-6;
    /// Largest window (packets): far above any hop's BDP, it keeps the arithmetic finite.
    static constexpr double kMaxCwnd = 1e7;

    /// What one window update did.
    struct Update
    {
        double bdpBytes{0};      //!< eq. (6)
        double queueLenBytes{0}; //!< eq. (7)
        bool limited{false};     //!< window-limited (growth allowed)
        bool cut{false};         //!< cwnd = k BDP
        bool grew{false};
    };

    explicit LeotpHopController(const LeotpHopParams& params = LeotpHopParams());

    /// Forget the hop (the upstream neighbour changed): no samples, initial cwnd, SlowStart.
    void Reset();

    /// One hop-RTT sample (s) taken at @p nowS.
    void OnSample(double nowS, double sampleS);
    /**
     * @p bytes received from upstream at @p nowS (after the sample of the same packet). Once a
     * hopRTT has passed since the period began, throughput is measured and the window updated.
     * @return true if the window was updated
     */
    bool OnReceive(double nowS, double bytes);

    /// Eq. (8) with the given measurements (what OnReceive does once per hopRTT).
    Update UpdateWindow(double nowS, double throughputBps, double hopRttS, double hopRttMinS);

    /**
     * The rate the Responder may use, eqs. (9)-(10), clamped; initialRate before a sample.
     * @param hasBuffer false for the Consumer (no backpressure term)
     * @param bufferBytes BL, this node's sending buffer of the flow
     * @param targetBytes BL_tar
     * @param rateNextHopBps Rate_nextHop, the rate this node sends at downstream
     */
    double Rate(bool hasBuffer,
                double bufferBytes,
                double targetBytes,
                double rateNextHopBps) const;

    /// Eq. (9), corrected sign: Rate_nextHop - 8 (BL - BL_tar) / hopRTT (bit/s).
    static double BackpressureRate(double rateNextHopBps,
                                   double bufferBytes,
                                   double targetBytes,
                                   double hopRttS);

    bool HasSample() const;
    double GetHopRttS() const;
    /// hopRTT_min (s) at @p nowS: the smallest snapshot within the window (and the current).
    double GetHopRttMinS(double nowS) const;
    double GetThroughputBps() const;
    double GetCwnd() const;
    LeotpPhase GetPhase() const;
    const LeotpHopParams& GetParams() const;
    /// Set the window state (tests).
    void SetState(double cwnd, LeotpPhase phase, double lastCutS);

  private:
    LeotpHopParams m_params;
    bool m_hasSample{false};
    double m_hopRtt{0};
    std::deque<std::pair<double, double>> m_minWindow; //!< (time, smoothed), increasing values
    double m_lastSnapshotS{-std::numeric_limits<double>::infinity()};
    double m_periodStartS{0};
    bool m_periodStarted{false};
    double m_periodBytes{0};
    double m_throughput{0};
    double m_cwnd{2};
    LeotpPhase m_phase{LeotpPhase::SLOW_START};
    double m_lastCutS{-std::numeric_limits<double>::infinity()};
};

} // namespace ns3

#endif // LEOTP_HOP_CONTROLLER_H
