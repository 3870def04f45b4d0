// SPDX-License-Identifier: GPL-2.0-only
//
// MpNewReno: RFC 9002 section 7 congestion control (NewReno) for one path.

#ifndef MP_NEW_RENO_H
#define MP_NEW_RENO_H

#include "mp-congestion-ops.h"
#include "mp-hystart.h"
#include "mp-recovery-period.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * NewReno as RFC 9002 (Iyengar and Swett, "QUIC Loss Detection and Congestion Control",
 * RFC 9002, 2021) section 7 and Appendix B specify it for QUIC; the recovery-period rule
 * replaces RFC 6582's "recover" sequence number (Henderson et al., RFC 6582, 2012):
 *
 *   on each acknowledged packet p sent after the recovery period began, unless the path is
 *   application- or flow-control-limited:
 *     slow start (cwnd < ssthresh):  cwnd += p.sent_bytes
 *     congestion avoidance:          cwnd += max_datagram_size * p.sent_bytes / cwnd
 *   on a congestion event (losses of packets sent after the recovery period began):
 *     congestion_recovery_start_time = now
 *     ssthresh = cwnd * kLossReductionFactor          (kLossReductionFactor = 0.5)
 *     cwnd = max(ssthresh, kMinimumWindow)            (kMinimumWindow = 2 mss)
 *   on persistent congestion:
 *     cwnd = kMinimumWindow; congestion_recovery_start_time = 0
 *
 * The window is kept as a real number so the congestion-avoidance increase is exact.
 *
 * ByteCounting = false switches to RFC 5681's per-ACK rules without byte counting
 * (Allman, Paxson and Blanton, RFC 5681, 2009, section 3.1; RFC 3465 is the byte counting
 * RFC 9002 uses): per ACK frame that acknowledges new data, slow start adds one mss and
 * congestion avoidance adds mss * mss / cwnd (RFC 5681 eq. 3), whatever the number of packets
 * the frame acknowledges. With delayed ACKs (one ACK per two packets) the window then grows
 * half as fast, as ns-3's TcpNewReno does.
 * HyStart = true adds HyStart++ (RFC 9406, MpHyStart) to the initial slow start: the window
 * grows by min(N, L mss) per ACK, by a quarter of that in Conservative Slow Start, and CSS ends
 * with ssthresh = cwnd. Off by default (RFC 9002 has no HyStart); LIA, OLIA and BALIA ignore it.
 * Subclasses (LIA, OLIA, BALIA) replace the congestion-avoidance increase and the reduction.
 */
class MpNewReno : public MpCongestionOps
{
  public:
    static TypeId GetTypeId();
    MpNewReno();

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;

    /// True while packets sent at sentTime belong to the current recovery period.
    bool InRecovery(Time sentTime) const;
    /// The HyStart++ state, or null when HyStart is off (or the class is LIA, OLIA, BALIA).
    const MpHyStart* GetHyStart() const;

  protected:
    /// Also sets the real-valued window.
    void SetWindow(uint64_t bytes) override;
    /**
     * The congestion-avoidance increase (bytes) for `bytes` newly acknowledged bytes.
     * NewReno: mss * bytes / cwnd.
     */
    virtual double CongestionAvoidanceIncrease(const MpCcContext& ctx,
                                               const MpAckEvent& ev,
                                               uint64_t bytes);
    /// The window after a congestion event (bytes). NewReno: cwnd * LossReductionFactor.
    virtual double ReducedWindow(const MpCcContext& ctx);
    /// Called once per congestion event, after the reduction.
    virtual void OnCongestionEvent(const MpCcContext& ctx);

    double m_cwndD{0};           //!< the window, bytes, real-valued
    double m_lossReduction;      //!< kLossReductionFactor (attribute LossReductionFactor)
    bool m_byteCounting{true};   //!< attribute ByteCounting
    MpRecoveryPeriod m_recovery; //!< RFC 9002 section 7.3.2

  private:
    /**
     * One ACK in slow start with HyStart++ running: grow the window as RFC 9406 says.
     * @return false when CSS has just ended (ssthresh = cwnd now; the ACK's bytes go on to
     *         congestion avoidance)
     */
    bool HyStartSlowStart(const MpCcContext& ctx, const MpAckEvent& ev, uint64_t bytes);
    /// HyStart is on, still in its slow start or CSS, and ssthresh is still unset.
    bool HyStartRunning() const;

    bool m_hyStartOn{false};      //!< attribute HyStart
    bool m_hyStartAllowed{false}; //!< the instance is plain NewReno (not LIA/OLIA/BALIA)
    MpHyStart m_hyStart;          //!< RFC 9406
};

} // namespace ns3

#endif // MP_NEW_RENO_H
