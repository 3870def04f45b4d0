// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpTokenBucket: the rate limiter of a LEOTP sending buffer (LEOTP, ICDCS 2023, section
// III.C: the Responder applies the rate its Requester set with its Rate Limiter).

#ifndef LEOTP_TOKEN_BUCKET_H
#define LEOTP_TOKEN_BUCKET_H

#include <string>

namespace ns3
{

/**
 * @ingroup leotp
 * A token bucket in bytes, filled at the rate the downstream Requester set. [REC] Its depth is
 * max(1 MTU, rate x 1 ms), so it never banks more than a millisecond of sending (and always
 * lets a full packet pass), and it starts with one MTU of tokens. A rate change first credits
 * the tokens earned at the old rate.
 *
 * Times are seconds, rates bit/s, tokens bytes.
 */
class LeotpTokenBucket
{
  public:
    /**
     * @param rateBps initial rate (> 0)
     * @param mtuBytes smallest depth and initial tokens (>= 1)
     * @param depthS the depth in seconds of sending at the rate (>= 0)
     * @throws std::invalid_argument for a bad value
     */
    LeotpTokenBucket(double rateBps = 1e5, double mtuBytes = 1500, double depthS = 0.001);

    /// Credit the tokens earned up to @p nowS, then use @p rateBps (> 0; others ignored).
    void SetRate(double nowS, double rateBps);
    double GetRate() const;
    /// Bucket depth at the current rate (bytes).
    double GetDepth() const;
    /// Tokens at @p nowS (bytes).
    double GetTokens(double nowS);
    /// Take @p bytes if the bucket holds them at @p nowS.
    bool TryConsume(double nowS, double bytes);
    /// Seconds from @p nowS until the bucket holds @p bytes (0 if it does now).
    double WaitS(double nowS, double bytes);

  private:
    void Refill(double nowS);

    double m_rate;
    double m_mtu;
    double m_depthS;
    double m_tokens;
    double m_lastS{0};
};

} // namespace ns3

#endif // LEOTP_TOKEN_BUCKET_H
