// SPDX-License-Identifier: GPL-2.0-only
//
// MpHyStart: HyStart++ (RFC 9406), the delay-based slow-start exit of one path.

#ifndef MP_HYSTART_H
#define MP_HYSTART_H

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup mp-cc
 * HyStart++ after Balasubramanian, Huang and Olson, "HyStart++: Modified Slow Start for TCP",
 * RFC 9406 (2023), section 4, for one path of the multipath transport. A pure state machine:
 * the controller tells it about sent packets and ACKs and applies the window increase it
 * returns; it holds no window of its own.
 *
 * Rounds (section 4.2): windowEnd is the packet number of the first packet sent in a round;
 * the round ends when an ACK acknowledges a packet number >= windowEnd. The ACK that ends a
 * round already belongs to the next one (its RTT sample is one of the next round's).
 *
 *   at the start of each round (slow start and CSS):
 *     lastRoundMinRTT = currentRoundMinRTT; currentRoundMinRTT = inf; rttSampleCount = 0
 *   per ACK in slow start (N = newly acknowledged bytes):
 *     cwnd += min(N, L * SMSS)
 *     currentRoundMinRTT = min(currentRoundMinRTT, currRTT); rttSampleCount += 1
 *     if rttSampleCount >= N_RTT_SAMPLE and both round minima are finite:
 *       RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH))
 *       if currentRoundMinRTT >= lastRoundMinRTT + RttThresh:
 *         cssBaselineMinRtt = currentRoundMinRTT; enter Conservative Slow Start (CSS)
 *   per ACK in CSS:
 *     cwnd += min(N, L * SMSS) / CSS_GROWTH_DIVISOR
 *     the same RTT tracking; once rttSampleCount >= N_RTT_SAMPLE in a round:
 *       if currentRoundMinRTT < cssBaselineMinRtt: cssBaselineMinRtt = inf, back to slow start
 *     after CSS_ROUNDS rounds (the partial round of the entry counts): enter congestion
 *     avoidance with ssthresh = cwnd (the controller sets it)
 *   a loss (or ECN mark) in slow start or CSS: the controller's own congestion response;
 *   HyStart++ then stays off for the rest of the connection (section 4.3: it is RECOMMENDED
 *   for the initial slow start only, later ones stop at the ssthresh found).
 *
 * Constants (section 4.3): MIN_RTT_THRESH 4 ms, MAX_RTT_THRESH 16 ms, MIN_RTT_DIVISOR 8,
 * N_RTT_SAMPLE 8, CSS_GROWTH_DIVISOR 4, CSS_ROUNDS 5, L = infinity when paced, else 8.
 */
class MpHyStart
{
  public:
    /// Where the algorithm stands.
    enum class Phase : uint8_t
    {
        SLOW_START = 0, //!< standard slow start with the delay-increase test
        CSS = 1,        //!< Conservative Slow Start
        DONE = 2,       //!< congestion avoidance reached (CSS_ROUNDS done, or a loss)
    };

    /// What one ACK asks of the controller.
    struct AckOutcome
    {
        double increase{0};         //!< window increase (bytes) for this ACK
        bool enterAvoidance{false}; //!< CSS is over: set ssthresh = cwnd, then avoidance
    };

    static constexpr uint32_t kNRttSample = 8;       //!< N_RTT_SAMPLE
    static constexpr uint32_t kMinRttDivisor = 8;    //!< MIN_RTT_DIVISOR
    static constexpr uint32_t kCssGrowthDivisor = 4; //!< CSS_GROWTH_DIVISOR
    static constexpr uint32_t kCssRounds = 5;        //!< CSS_ROUNDS
    static constexpr uint32_t kNonPacedL = 8;        //!< L without pacing (segments)

    /// MIN_RTT_THRESH (4 ms).
    static Time MinRttThresh();
    /// MAX_RTT_THRESH (16 ms).
    static Time MaxRttThresh();
    /// RttThresh = clamp(lastRoundMinRtt / MIN_RTT_DIVISOR, MIN_RTT_THRESH, MAX_RTT_THRESH).
    static Time RttThresh(Time lastRoundMinRtt);

    MpHyStart();

    /// Back to the initial state: slow start, no round open, no RTT minimum.
    void Reset();

    /// A packet with number `pn` was sent; the first one after a round start is windowEnd.
    void OnPacketSent(uint64_t pn);

    /**
     * One ACK while the controller is in slow start (Phase() is SLOW_START or CSS).
     * @param largestAckedPn the largest packet number the ACK newly acknowledges
     * @param rttSampled whether the ACK carries a new RTT sample
     * @param rtt the sample (latest_rtt)
     * @param bytes newly acknowledged bytes N that may grow the window
     * @param mss SMSS (max_datagram_size)
     * @param paced whether the path is paced (L = infinity), else L = 8
     * @return the increase for this ACK, or enterAvoidance when CSS just ended
     */
    AckOutcome OnAck(uint64_t largestAckedPn,
                     bool rttSampled,
                     Time rtt,
                     uint64_t bytes,
                     uint32_t mss,
                     bool paced);

    /// A congestion event (loss) in slow start or CSS: HyStart++ ends (section 4.3).
    void OnCongestionEvent();

    Phase GetPhase() const;
    /// True in SLOW_START and CSS.
    bool IsActive() const;
    /// lastRoundMinRTT (Time::Max() while unknown).
    Time GetLastRoundMinRtt() const;
    /// currentRoundMinRTT (Time::Max() while unknown).
    Time GetCurrentRoundMinRtt() const;
    /// cssBaselineMinRtt (Time::Max() outside CSS).
    Time GetCssBaselineMinRtt() const;
    uint32_t GetRttSampleCount() const;
    /// Rounds begun since Reset (the first round is 1).
    uint32_t GetRound() const;
    /// CSS rounds completed since CSS was entered (the partial entry round counts).
    uint32_t GetCssRoundsDone() const;
    /// Times CSS was entered / left for slow start again (spurious exits), since Reset.
    uint32_t GetCssEntries() const;
    uint32_t GetCssReturns() const;

  private:
    void StartRound();

    Phase m_phase{Phase::SLOW_START};
    uint64_t m_windowEnd{0};
    bool m_windowEndValid{false}; //!< a round is open (its first packet has been sent)
    Time m_lastRoundMinRtt;
    Time m_currentRoundMinRtt;
    Time m_cssBaselineMinRtt;
    uint32_t m_rttSampleCount{0};
    uint32_t m_round{1};
    uint32_t m_cssRoundsDone{0};
    uint32_t m_cssEntries{0};
    uint32_t m_cssReturns{0};
};

} // namespace ns3

#endif // MP_HYSTART_H
