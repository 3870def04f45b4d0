// SPDX-License-Identifier: GPL-2.0-only
//
// MpWindowedMaxFilter: Kathleen Nichols' windowed max filter, as the BBR drafts use it.

#ifndef MP_WINDOWED_FILTER_H
#define MP_WINDOWED_FILTER_H

#include <cstdint>

namespace ns3
{

/**
 * @ingroup mp-cc
 * The maximum of a stream of samples over a sliding window, in constant space and time:
 * Kathleen Nichols' windowed min/max filter (its max form), which the BBR drafts name for
 * BBRv1's BtlBw (draft-cardwell-iccrg-bbr-congestion-control-00, MpBbr) and BBRv3's
 * extra_acked (draft-ietf-ccwg-bbr section 5.5.9, MpBbr3); the same three-sample form as
 * Linux lib/minmax.c.
 *
 * It keeps the best, second best and third best samples with times t0 <= t1 <= t2, each
 * the best of the samples after the one before it. A new best, or a window in which all
 * three expired, replaces all three. When the best ages past the window the second and third
 * move up. So that the three stay spread over the window (which bounds the error when the
 * samples fall steadily), a fresh sample becomes the second best once a quarter of the window
 * has passed with a single best, and the third best once half of it has passed with a single
 * second best.
 *
 * Time is whatever unit the caller counts in (BBR counts round trips); the window is in the
 * same unit, and a sample older than `window` units has expired.
 */
class MpWindowedMaxFilter
{
  public:
    /// Forget everything: the filter holds only value `v` seen at time `t`.
    void Reset(double v, uint64_t t)
    {
        m_s[0] = m_s[1] = m_s[2] = Sample{v, t};
    }

    /// Add sample `v` seen at time `t` (not earlier than the last one); return the new max.
    double Update(double v, uint64_t t, uint64_t window)
    {
        const Sample val{v, t};
        // A new best, or nothing left inside the window: the sample is all three.
        if (v >= m_s[0].v || t - m_s[2].t > window)
        {
            Reset(v, t);
            return v;
        }
        if (v >= m_s[1].v)
        {
            m_s[1] = m_s[2] = val;
        }
        else if (v >= m_s[2].v)
        {
            m_s[2] = val;
        }
        const uint64_t age = t - m_s[0].t;
        if (age > window)
        {
            // The best expired: promote the second and third best (twice if the second
            // expired too).
            Shift(val);
            if (t - m_s[0].t > window)
            {
                Shift(val);
            }
        }
        else if (m_s[1].t == m_s[0].t && age > window / 4)
        {
            // A quarter of the window with one best only: keep a second choice.
            m_s[1] = m_s[2] = val;
        }
        else if (m_s[2].t == m_s[1].t && age > window / 2)
        {
            // Half of the window with one second best only: keep a third choice.
            m_s[2] = val;
        }
        return m_s[0].v;
    }

    /// The max over the window (the best sample).
    double Get() const
    {
        return m_s[0].v;
    }

  private:
    /// One sample: value and time.
    struct Sample
    {
        double v{0};
        uint64_t t{0};
    };

    /// Drop the best; the second and third move up and `val` becomes the third.
    void Shift(const Sample& val)
    {
        m_s[0] = m_s[1];
        m_s[1] = m_s[2];
        m_s[2] = val;
    }

    Sample m_s[3]; //!< best, second best, third best
};

} // namespace ns3

#endif // MP_WINDOWED_FILTER_H
