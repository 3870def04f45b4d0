// SPDX-License-Identifier: GPL-2.0-only
//
// MpDctcp: Data Center TCP (RFC 8257) for one path of the multipath transport.

#ifndef MP_DCTCP_H
#define MP_DCTCP_H

#include "mp-new-reno.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * DCTCP after S. Bensley, D. Thaler, P. Balasubramanian, L. Eggert and G. Judd, "Data Center
 * TCP (DCTCP): TCP Congestion Control for Data Centers", RFC 8257, 2017, on top of RFC 9002's
 * NewReno (MpNewReno). Packets carry ECT(0): RFC 8257 is for controlled environments.
 *
 * Section 3.3, with QUIC's ECN counts (RFC 9000 section 13.4) in place of ECE flags and packet
 * numbers in place of sequence numbers; per ACK frame (OnAck, then OnEcnFeedback):
 *
 *   BytesAcked  += newly acknowledged bytes                                   (steps 1-2)
 *   BytesMarked += CE-marked bytes among them (MpEcnMarkedBytes)              (step 3)
 *   if the frame acknowledged a packet sent after WindowEnd:                  (step 4)
 *     M = BytesMarked / BytesAcked                                            (step 5)
 *     alpha = (1 - g) alpha + g M               g = 1/16 (attribute G)        (step 6)
 *     WindowEnd = the largest packet number sent;  BytesAcked = BytesMarked = 0 (steps 7-8)
 *   on CE feedback, once per window of data (RFC 3168 section 6.1.2, the RFC 9002 recovery
 *   period: CE on a packet sent before the last reduction does not reduce again):
 *     ssthresh = cwnd (1 - alpha / 2);  cwnd = max(ssthresh, kMinimumWindow)
 *
 * alpha starts at 1 (section 3.3, attribute InitialAlpha), so the first marks halve the window
 * as RFC 3168 would. Otherwise the controller is NewReno (section 3.4 loss response: "react to
 * loss episodes in the same way as conventional TCP", cwnd halved once per recovery period;
 * section 3.5 window growth: slow start, then one mss per RTT). The window that ends at an ACK
 * frame includes that frame's marks: it is closed in OnEcnFeedback, or at the next OnAck when
 * the frame brought no ECN feedback (a path without ECN: alpha then decays to 0, unused).
 * HyStart does not apply (MpNewReno runs it for plain NewReno only).
 */
class MpDctcp : public MpNewReno
{
  public:
    static TypeId GetTypeId();
    MpDctcp();

    /// The ECN estimator, for tests and diagnostics.
    struct EcnStatus
    {
        double alpha{1};           //!< DCTCP.Alpha
        uint64_t alphaUpdates{0};  //!< observation windows that updated alpha
        uint64_t windows{0};       //!< observation windows closed
        double lastFraction{0};    //!< M of the last window closed
        uint64_t windowAcked{0};   //!< DCTCP.BytesAcked of the open window
        uint64_t windowMarked{0};  //!< DCTCP.BytesMarked of the open window
        uint64_t ecnReductions{0}; //!< cwnd reductions for CE
        uint64_t markedBytes{0};   //!< CE-marked bytes reported, cumulative
    };

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev) override;
    /// ECT(0) (RFC 8257 section 3.1: ECN as RFC 3168 negotiates it).
    MpEcnCodepoint GetEcnCodepoint() const override;

    EcnStatus GetEcnStatus() const;

  protected:
    /// Whether a window whose end was reached may close now (Prague's RTT-independence gate).
    virtual bool MayCloseWindow(const MpCcContext& ctx) const;
    /// Whether closing a window updates alpha (Prague: only once a CE mark was seen).
    virtual bool UpdatesAlpha() const;
    /// Called after a window closed (Prague: its round count and alpha timestamp).
    virtual void OnWindowClosed(const MpCcContext& ctx);
    /// The response to a frame's CE marks. DCTCP: a reduction once per recovery period.
    virtual void RespondToMarks(const MpCcContext& ctx, const MpEcnEvent& ev);
    /// cwnd = cwnd (1 - alpha / 2), ssthresh = the new window (RFC 8257 section 3.3).
    void ReduceForMarks();

    double m_g;            //!< attribute G, the estimation gain
    double m_initialAlpha; //!< attribute InitialAlpha
    double m_alpha{1};
    EcnStatus m_status;

  private:
    /// Steps 1-4: count the frame's bytes; note a window end.
    void AccountAck(const MpAckEvent& ev);
    /// Steps 5-8, if the window's end was reached and it may close.
    void CloseWindowIfDue(const MpCcContext& ctx);

    uint64_t m_bytesAcked{0};
    uint64_t m_bytesMarked{0};
    uint64_t m_lastSentPn{0};
    bool m_anySent{false};
    uint64_t m_windowEndPn{0};
    bool m_windowEndSet{false}; //!< false: the first ACK ends the window (Linux dctcp_init)
    bool m_windowDone{false};   //!< the window's end was reached; it closes when allowed
    uint64_t m_nextWindowEndPn{0};
    bool m_nextWindowEndSet{false};
};

} // namespace ns3

#endif // MP_DCTCP_H
