// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpRto: the Consumer's retransmission timeout (LEOTP, ICDCS 2023, section III.B, "timeout
// retransmission": RFC 6298's estimator, "like TCP", and a x1.5 backoff per timeout).

#ifndef LEOTP_RTO_H
#define LEOTP_RTO_H

#include "model/transport/mp-rtt-estimator.h"

#include "ns3/nstime.h"

#include <string>

namespace ns3
{

/**
 * @ingroup leotp
 * Parameters of the retransmission timeout [REC]: RFC 6298's clock granularity G and initial
 * RTO (section 2.1, 1 s), a 200 ms floor (Linux; RFC 6298 section 2.4 asks for 1 s, the
 * authors' code uses 20 ms), a 60 s ceiling, and the paper's x1.5 backoff.
 */
struct LeotpRtoParams
{
    double granularityS{0.001};
    double minRtoS{0.2};
    double maxRtoS{60};
    double initialRtoS{1};
    double backoff{1.5};
    /// Keep the backed-off RTO for new Interests until a valid sample (RFC 6298 section 5.5
    /// and Karn's algorithm); false: each Interest backs off on its own only.
    bool keepBackoff{true};

    /// @throws std::invalid_argument naming "<prefix>.<field>" for a value out of range
    void Check(const std::string& prefix) const;
};

/**
 * @ingroup leotp
 * RFC 6298 (V. Paxson, M. Allman, J. Chu, M. Sargent, "Computing TCP's Retransmission Timer",
 * 2011), section 2:
 *
 *   first sample R:  SRTT = R;  RTTVAR = R / 2
 *   later samples R: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|;  SRTT = 7/8 SRTT + 1/8 R
 *   RTO = SRTT + max(G, 4 RTTVAR), clamped to [RTO_min, RTO_max]; before a sample RTO = 1 s
 *
 * The estimator is MpRttEstimator (RFC 9002 section 5), which with an ACK delay of 0 applies
 * exactly these updates in this order; its PtoPeriod(G, 0) is SRTT + max(4 RTTVAR, G).
 *
 * Backoff [P, REC]: an Interest's n-th re-send is due RTO x 1.5^(n-1) after its previous
 * transmission (RTO the current estimate), each interval at most RTO_max.
 *
 * Retained backoff [RFC 6298 sections 3 and 5.5, Karn's algorithm]: a timeout backs the timer
 * off (x1.5, the paper's factor, instead of TCP's x2) and the backed-off value stays in force
 * for every Interest sent afterwards until a valid RTT sample arrives (which, with Karn's rule,
 * only an Interest sent once can give). One backoff round per timeout of an Interest sent at or
 * after the previous round: the earlier ones were sent with the shorter timer. With k rounds in
 * force, the interval before re-send n is RTO x 1.5^max(n-1, k), so a lone unanswered Interest
 * is re-sent at the same times as without it. Without the retention, once the path's RTT
 * exceeds the RTO every Interest times out, none can give a sample (Karn), and the RTO never
 * grows (cpp/doc/leotp.md, "Fixes from the issue 18 audit").
 */
class LeotpRto
{
  public:
    explicit LeotpRto(const LeotpRtoParams& params = LeotpRtoParams());

    /// One RTT sample.
    void OnSample(Time rtt, Time now);
    /**
     * An Interest last sent at @p sentAt timed out at @p now: a new backoff round if it was
     * sent at or after the previous round (its timer already had the backed-off value).
     */
    void OnTimeout(Time sentAt, Time now);
    /// RTO (clamped) with the retained backoff, or the initial RTO before a sample.
    Time GetRto() const;
    /// RFC 6298's RTO (clamped) without the backoff, or the initial RTO before a sample.
    Time GetBaseRto() const;
    /// Backoff rounds in force (0 after a valid sample).
    uint32_t GetBackoffRounds() const;
    /**
     * The interval before re-send number @p n (n >= 1) of an Interest, or before the first
     * timeout for n = 0 or 1: base RTO x backoff^max(n-1, rounds), at most RTO_max.
     */
    Time GetBackoffInterval(uint32_t n) const;
    const MpRttEstimator& GetEstimator() const;

  private:
    LeotpRtoParams m_params;
    MpRttEstimator m_rtt;
    uint32_t m_rounds{0};      //!< backoff rounds in force
    Time m_lastRound{Time(0)}; //!< when the last round began
    bool m_hasRound{false};
};

} // namespace ns3

#endif // LEOTP_RTO_H
