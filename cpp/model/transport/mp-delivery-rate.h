// SPDX-License-Identifier: GPL-2.0-only
//
// MpDeliveryRate: per-path delivery-rate estimation.

#ifndef MP_DELIVERY_RATE_H
#define MP_DELIVERY_RATE_H

#include "mp-sent-packet.h"

#include "ns3/nstime.h"

namespace ns3
{

/**
 * @ingroup mp-transport
 * Delivery-rate estimation of one path, after Cheng, Cardwell, Yeganeh and Jacobson,
 * "Delivery Rate Estimation", draft-cheng-iccrg-delivery-rate-estimation-02 (2022), section 3:
 *
 *   on send:  if nothing is in flight: first_sent_time = delivered_time = now
 *             P.delivered = C.delivered; P.delivered_time = C.delivered_time;
 *             P.first_sent_time = C.first_sent_time; P.is_app_limited = (C.app_limited != 0)
 *   on ACK of P: C.delivered += P.size; C.delivered_time = now;
 *             if P.delivered >= rs.prior_delivered: rs.prior_delivered = P.delivered,
 *               rs.prior_time = P.delivered_time, rs.is_app_limited = P.is_app_limited,
 *               rs.send_elapsed = P.time_sent - P.first_sent_time,
 *               rs.ack_elapsed = C.delivered_time - P.delivered_time,
 *               C.first_sent_time = P.time_sent
 *   per ACK:  rs.delivered = C.delivered - rs.prior_delivered
 *             rs.interval = max(rs.send_elapsed, rs.ack_elapsed)
 *             rate = rs.delivered / rs.interval   (invalid if rs.interval < min_rtt)
 *   app-limited: C.app_limited = max(C.delivered + bytes_in_flight, 1) when the sender has
 *             room in the window but nothing to send; cleared once C.delivered passes it.
 *
 * BBRv3's loss signals (draft-ietf-ccwg-bbr, sections 2.2-2.3 and 4.1.2.2):
 *
 *   on send:  P.tx_in_flight = C.inflight (this packet included); P.lost = C.lost
 *   per ACK:  RS.tx_in_flight = P.tx_in_flight, RS.lost = C.lost - P.lost of the newest
 *             packet acknowledged (the one that sets rs.prior_delivered)
 *
 * C.lost, the path's cumulative in-flight bytes declared lost, is not handed to the estimator
 * by every loss detection (losses found by the loss timer or a retransmission timeout come
 * without an ACK). Every in-flight byte sent is delivered, lost or still in flight, so at each
 * send the estimator takes the exact value C.lost = sent - C.delivered - bytes_in_flight
 * (packets acknowledged after being declared lost stay lost, as in Linux's tp->lost); between
 * sends it adds the ACKs' own lost bytes, so an ACK's RS.lost misses only losses declared
 * without an ACK since the last send.
 */
class MpDeliveryRate
{
  public:
    /// Fill P's snapshot at send time (bytesInFlight before this packet).
    void OnPacketSent(MpSentPacket& p, uint64_t bytesInFlight, Time now)
    {
        if (bytesInFlight == 0)
        {
            m_firstSentTime = now;
            m_deliveredTime = now;
        }
        p.delivered = m_delivered;
        p.deliveredTime = m_deliveredTime;
        p.firstSentTime = m_firstSentTime;
        p.isAppLimited = m_appLimited != 0;
        // sent = delivered + lost + in flight, exactly (see the class comment).
        uint64_t accounted = m_delivered + bytesInFlight;
        if (m_sentBytes > accounted && m_sentBytes - accounted > m_lost)
        {
            m_lost = m_sentBytes - accounted;
        }
        p.txInFlight = bytesInFlight + p.bytes;
        p.lostAtSend = m_lost;
        if (p.inFlight)
        {
            m_sentBytes += p.bytes;
        }
    }

    /// Start a new ACK frame's sample.
    void BeginAck()
    {
        m_rs = MpRateSample();
        m_havePrior = false;
    }

    /// One newly acknowledged in-flight packet.
    void OnPacketAcked(const MpSentPacket& p, Time now)
    {
        m_delivered += p.bytes;
        m_deliveredTime = now;
        if (!m_havePrior || p.delivered >= m_rs.priorDelivered)
        {
            m_havePrior = true;
            m_rs.priorDelivered = p.delivered;
            m_priorTime = p.deliveredTime;
            m_rs.isAppLimited = p.isAppLimited;
            m_sendElapsed = p.sentTime - p.firstSentTime;
            m_ackElapsed = m_deliveredTime - p.deliveredTime;
            m_rs.rtt = now - p.sentTime;
            m_rs.txInFlight = p.txInFlight;
            m_priorLost = p.lostAtSend;
            m_firstSentTime = p.sentTime;
        }
    }

    /// Finish the ACK frame's sample; minRtt gates short intervals.
    const MpRateSample& EndAck(Time minRtt, uint64_t lostBytes)
    {
        if (m_appLimited != 0 && m_delivered > m_appLimited)
        {
            m_appLimited = 0;
        }
        m_rs.lostBytes = lostBytes;
        m_lost += lostBytes;
        if (!m_havePrior)
        {
            m_rs.valid = false;
            return m_rs;
        }
        m_rs.lost = m_lost > m_priorLost ? m_lost - m_priorLost : 0;
        m_rs.delivered = m_delivered - m_rs.priorDelivered;
        m_rs.interval = m_sendElapsed > m_ackElapsed ? m_sendElapsed : m_ackElapsed;
        if (m_rs.interval.IsZero() || m_rs.interval < minRtt || m_rs.delivered == 0)
        {
            m_rs.valid = false;
            return m_rs;
        }
        m_rs.valid = true;
        m_rs.deliveryRateBps =
            8.0 * static_cast<double>(m_rs.delivered) / m_rs.interval.GetSeconds();
        return m_rs;
    }

    /// The sender had window room but nothing to send on this path.
    void MarkAppLimited(uint64_t bytesInFlight)
    {
        uint64_t v = m_delivered + bytesInFlight;
        m_appLimited = v > 0 ? v : 1;
    }

    bool IsAppLimited() const
    {
        return m_appLimited != 0;
    }

    /// C.delivered: cumulative bytes delivered (acknowledged) on the path.
    uint64_t GetDelivered() const
    {
        return m_delivered;
    }

    /// C.lost: cumulative in-flight bytes declared lost on the path (see the class comment).
    uint64_t GetLost() const
    {
        return m_lost;
    }

    const MpRateSample& LastSample() const
    {
        return m_rs;
    }

  private:
    uint64_t m_delivered{0};
    Time m_deliveredTime{0};
    Time m_firstSentTime{0};
    uint64_t m_appLimited{0};
    MpRateSample m_rs;
    bool m_havePrior{false};
    Time m_priorTime{0};
    Time m_sendElapsed{0};
    Time m_ackElapsed{0};
    uint64_t m_sentBytes{0}; //!< cumulative in-flight bytes sent
    uint64_t m_lost{0};      //!< C.lost
    uint64_t m_priorLost{0}; //!< P.lost of the newest packet acknowledged by this ACK
};

} // namespace ns3

#endif // MP_DELIVERY_RATE_H
