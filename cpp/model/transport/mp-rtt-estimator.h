// SPDX-License-Identifier: GPL-2.0-only
//
// MpRttEstimator: RFC 9002 section 5 RTT estimation for one path.

#ifndef MP_RTT_ESTIMATOR_H
#define MP_RTT_ESTIMATOR_H

#include "ns3/nstime.h"

namespace ns3
{

/**
 * @ingroup mp-transport
 * RTT estimator of one path, exactly as RFC 9002 section 5 (Iyengar and Swett, "QUIC Loss
 * Detection and Congestion Control", 2021):
 *
 *   first sample:  min_rtt = latest_rtt; smoothed_rtt = latest_rtt; rttvar = latest_rtt / 2
 *   later samples: min_rtt = min(min_rtt, latest_rtt)
 *                  ack_delay = min(ack_delay, max_ack_delay)          (handshake confirmed)
 *                  adjusted_rtt = latest_rtt - ack_delay  if latest_rtt >= min_rtt + ack_delay
 *                               = latest_rtt              otherwise
 *                  rttvar = 3/4 rttvar + 1/4 |smoothed_rtt - adjusted_rtt|
 *                  smoothed_rtt = 7/8 smoothed_rtt + 1/8 adjusted_rtt
 *
 * Before the first sample, smoothed_rtt = kInitialRtt (333 ms) and rttvar = kInitialRtt / 2
 * (RFC 9002 section 6.2.2). The transport's handshake is implicit, so it is always treated as
 * confirmed (ack_delay is always clamped to max_ack_delay).
 */
class MpRttEstimator
{
  public:
    /// @param initialRtt kInitialRtt (RFC 9002 recommends 333 ms)
    explicit MpRttEstimator(Time initialRtt = MilliSeconds(333))
        : m_initialRtt(initialRtt),
          m_smoothed(initialRtt),
          m_rttVar(initialRtt / 2)
    {
    }

    /**
     * Take one RTT sample.
     *
     * @param latestRtt now - send time of the largest newly acknowledged packet
     * @param ackDelay the ACK delay the peer reported
     * @param maxAckDelay the peer's max_ack_delay (clamps ackDelay)
     * @param now the time of the sample (recorded for persistent congestion, RFC 9002 7.6.2)
     */
    void Update(Time latestRtt, Time ackDelay, Time maxAckDelay, Time now)
    {
        if (latestRtt.IsNegative())
        {
            latestRtt = Time(0);
        }
        m_latest = latestRtt;
        if (!m_hasSample)
        {
            m_hasSample = true;
            m_firstSampleTime = now;
            m_min = latestRtt;
            m_smoothed = latestRtt;
            m_rttVar = latestRtt / 2;
            return;
        }
        if (latestRtt < m_min)
        {
            m_min = latestRtt;
        }
        if (ackDelay > maxAckDelay)
        {
            ackDelay = maxAckDelay;
        }
        if (ackDelay.IsNegative())
        {
            ackDelay = Time(0);
        }
        Time adjusted = latestRtt;
        if (latestRtt >= m_min + ackDelay)
        {
            adjusted = latestRtt - ackDelay;
        }
        Time diff = m_smoothed - adjusted;
        if (diff.IsNegative())
        {
            diff = Time(0) - diff;
        }
        m_rttVar = Time((3 * m_rttVar.GetTimeStep() + diff.GetTimeStep()) / 4);
        m_smoothed = Time((7 * m_smoothed.GetTimeStep() + adjusted.GetTimeStep()) / 8);
    }

    /**
     * After persistent congestion, RFC 9002 section 5.2 says min_rtt SHOULD be set to the
     * newest RTT sample.
     */
    void ResetMinToLatest()
    {
        if (m_hasSample)
        {
            m_min = m_latest;
        }
    }

    /// The probe timeout period without backoff (RFC 9002 section 6.2.1):
    /// smoothed_rtt + max(4 rttvar, kGranularity) + max_ack_delay.
    Time PtoPeriod(Time granularity, Time maxAckDelay) const
    {
        Time var4 = m_rttVar * 4;
        return m_smoothed + (var4 > granularity ? var4 : granularity) + maxAckDelay;
    }

    bool HasSample() const
    {
        return m_hasSample;
    }

    Time GetSmoothed() const
    {
        return m_smoothed;
    }

    Time GetRttVar() const
    {
        return m_rttVar;
    }

    /// min_rtt (0 before the first sample).
    Time GetMin() const
    {
        return m_min;
    }

    /// latest_rtt (0 before the first sample).
    Time GetLatest() const
    {
        return m_latest;
    }

    /// When the first RTT sample was taken (meaningful only if HasSample()).
    Time GetFirstSampleTime() const
    {
        return m_firstSampleTime;
    }

    Time GetInitialRtt() const
    {
        return m_initialRtt;
    }

  private:
    Time m_initialRtt;
    Time m_smoothed;
    Time m_rttVar;
    Time m_min{0};
    Time m_latest{0};
    Time m_firstSampleTime{0};
    bool m_hasSample{false};
};

} // namespace ns3

#endif // MP_RTT_ESTIMATOR_H
