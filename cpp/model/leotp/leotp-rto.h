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
 */
class LeotpRto
{
  public:
    explicit LeotpRto(const LeotpRtoParams& params = LeotpRtoParams());

    /// One RTT sample.
    void OnSample(Time rtt, Time now);
    /// RTO (clamped), or the initial RTO before a sample.
    Time GetRto() const;
    /// The interval before re-send number @p n (n >= 1) of an Interest: RTO x backoff^(n-1).
    Time GetBackoffInterval(uint32_t n) const;
    const MpRttEstimator& GetEstimator() const;

  private:
    LeotpRtoParams m_params;
    MpRttEstimator m_rtt;
};

} // namespace ns3

#endif // LEOTP_RTO_H
