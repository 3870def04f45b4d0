// SPDX-License-Identifier: GPL-2.0-only
//
// MpPrague: the Prague congestion control (L4S scalable, draft-briscoe-iccrg-prague) for one
// path of the multipath transport.

#ifndef MP_PRAGUE_H
#define MP_PRAGUE_H

#include "mp-dctcp.h"
#include "mp-recovery-period.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * Prague after K. De Schepper, O. Tilmans, B. Briscoe and V. Goel, "Prague Congestion
 * Control", draft-briscoe-iccrg-prague-congestion-control-04 (2024), as the reference Linux TCP
 * Prague (tcp_prague.c, v0.6, whose defaults the draft describes) implements it; the L4S
 * sender requirements are RFC 9331 section 4.3 (cpp/doc/ecn-cc.md lists which are met). The
 * topics below are the draft's; it is DCTCP (MpDctcp) adapted for the Internet:
 *
 *   identifier (RFC 9331 4.1): data packets carry ECT(1)
 *   alpha (moving average of ECN feedback): DCTCP's EWMA, alpha = (1 - g) alpha + g M once per
 * round trip, g = 1/16, alpha = 1 at start and not updated before the first CE mark (no AQM seen
 * yet) ECN response (multiplicative decrease): on CE, at most once per round trip (a CWR period of
 * its own): ssthresh = cwnd (1 - alpha / 2), cwnd = max(ssthresh, 2 mss) additive increase:
 * NewReno's growth counts the unmarked bytes only (the bytes a frame marks take back their share of
 * the frame's growth), and goes on during the CWR period: an L4S AQM marks every round trip, so
 * Prague would never grow if a reduction froze it (tcp_prague.c updates cwnd on every ACK) loss
 * (RFC 9331 4.3, Reno-friendly on loss): NewReno's halving, once per RFC 9002 recovery period,
 * which also stops growth for a round trip pacing: always; rate = max(cwnd, bytes in flight) /
 * smoothed RTT, doubled while cwnd < ssthresh / 2 (slow start), 0 before the first RTT sample (the
 * transport then sends unpaced) RTT independence (Linux RTT_CONTROL_RATE; RFC 9331 4.3, reduced RTT
 * dependence): RttTransitionRounds rounds after slow start, a flow whose smoothed RTT is below
 *            RttTarget (25 ms) grows by (srtt / RttTarget)^2 mss per round trip (so its rate
 *            grows like a RttTarget flow's), updates alpha and reduces for CE at most once per
 *            RttTarget. RttTarget = 0 turns it off.
 *
 * Not modelled (cpp/doc/ecn-cc.md): classic-ECN AQM detection and fall-back (a research
 * placeholder in the draft that Linux ships off), windows below 2 mss (fractional windows: the
 * window is real-valued, so fractions carry, but RFC 9002's kMinimumWindow stays the floor, as
 * Linux's MIN_CWND 2), TSO/GSO burst sizing (the transport paces packet by packet).
 */
class MpPrague : public MpDctcp
{
  public:
    static TypeId GetTypeId();
    MpPrague();

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;
    /// ECT(1), the L4S identifier (RFC 9331 section 4.1).
    MpEcnCodepoint GetEcnCodepoint() const override;
    bool RequiresPacing() const override;

    /// True while the RTT-independence rules apply (after the transition rounds).
    bool IsRttIndependent() const;
    /// Rounds counted since the flow left slow start.
    uint64_t GetRound() const;
    /// Whether a CE mark was ever reported (alpha updates from then on).
    bool SawCe() const;

  protected:
    double CongestionAvoidanceIncrease(const MpCcContext& ctx,
                                       const MpAckEvent& ev,
                                       uint64_t bytes) override;
    bool MayCloseWindow(const MpCcContext& ctx) const override;
    bool UpdatesAlpha() const override;
    void OnWindowClosed(const MpCcContext& ctx) override;
    void RespondToMarks(const MpCcContext& ctx, const MpEcnEvent& ev) override;

  private:
    void UpdatePacing(const MpCcContext& ctx);

    Time m_rttTarget;               //!< attribute RttTarget (0: no RTT independence)
    uint32_t m_rttTransitionRounds; //!< attribute RttTransitionRounds
    bool m_sawCe{false};
    uint64_t m_round{0};
    Time m_alphaStamp;
    Time m_cwrStamp;
    bool m_cwrStampSet{false};
    MpRecoveryPeriod m_cwr;        //!< the once-per-round-trip gate of the ECN response
    double m_lastGrowth{0};        //!< cwnd growth of the last ACK frame (bytes)
    uint64_t m_lastGrowthBytes{0}; //!< the bytes that earned it
};

} // namespace ns3

#endif // MP_PRAGUE_H
