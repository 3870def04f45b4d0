// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpInterestPacer: how fast the LEOTP Consumer issues Interests (end-to-end backpressure on
// the Producer's sending buffer; cpp/doc/leotp.md, "Interest pacing").

#ifndef LEOTP_INTEREST_PACER_H
#define LEOTP_INTEREST_PACER_H

#include <string>

namespace ns3
{

/**
 * @ingroup leotp
 * The paper does not say how fast the Consumer requests data. We follow the authors' code
 * [REC]: an end-to-end backpressure loop that holds the Producer's sending buffer BL_P near
 * its target BL_tar,
 *
 *   R_int = throughput_c + (BL_tar - BL_P) / SRTT,   R_int >= R_min            (C1)
 *
 * with throughput_c the Consumer's receive rate on its last hop, BL_tar - BL_P the latest
 * non-zero backlog report of the Producer (the srcBacklog field of Data) and SRTT the
 * Consumer's end-to-end smoothed RTT.
 *
 * Interests are sent from a byte budget that grows at R_int: one Interest costs the bytes of
 * the Data it asks for (a full packet on the wire). Before the first RTT sample the budget is
 * BL_tar and does not grow; afterwards it is capped at max(one Interest, R_int x 1 ms), so an
 * idle Consumer cannot bank a burst [REC, code].
 */
class LeotpInterestPacer
{
  public:
    /**
     * @param costBytes what one Interest costs (the wire bytes of the Data it asks for), > 0
     * @param initialBudgetBytes budget before the first rate (BL_tar), >= 0
     * @param capS the budget cap in seconds of R_int (>= 0)
     */
    LeotpInterestPacer(double costBytes = 1500,
                       double initialBudgetBytes = 7500,
                       double capS = 0.001);

    /// (C1): throughput + 8 backlog / srtt, at least @p minRateBps (bit/s).
    static double Rate(double throughputBps, double backlogBytes, double srttS, double minRateBps);

    /// Credit the budget earned up to @p nowS, then grow at @p rateBps.
    void SetRate(double nowS, double rateBps);
    double GetRate() const;
    /// The budget at @p nowS (bytes).
    double GetBudget(double nowS);
    /// Spend one Interest's cost if the budget holds it.
    bool TryConsume(double nowS);
    /// Seconds until the budget holds one Interest's cost (+inf while the rate is 0).
    double WaitS(double nowS);
    double GetCost() const;

  private:
    void Accrue(double nowS);

    double m_cost;
    double m_budget;
    double m_capS;
    double m_rate{0};
    double m_lastS{0};
};

} // namespace ns3

#endif // LEOTP_INTEREST_PACER_H
