// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-token-bucket.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

namespace
{
/// Rounding slack (bytes): a wait computed from the deficit may leave a few ulps short.
constexpr double kSlackBytes = 1e-6;
} // namespace

LeotpTokenBucket::LeotpTokenBucket(double rateBps, double mtuBytes, double depthS)
    : m_rate(rateBps),
      m_mtu(mtuBytes),
      m_depthS(depthS),
      m_tokens(mtuBytes)
{
    if (!std::isfinite(rateBps) || !(rateBps > 0))
    {
        throw std::invalid_argument("token_bucket.rate_bps: must be > 0");
    }
    if (!std::isfinite(mtuBytes) || mtuBytes < 1)
    {
        throw std::invalid_argument("token_bucket.mtu_bytes: must be >= 1");
    }
    if (!std::isfinite(depthS) || depthS < 0)
    {
        throw std::invalid_argument("token_bucket.depth_s: must be >= 0");
    }
}

double
LeotpTokenBucket::GetDepth() const
{
    return std::max(m_mtu, m_rate / 8.0 * m_depthS);
}

void
LeotpTokenBucket::Refill(double nowS)
{
    if (nowS > m_lastS)
    {
        m_tokens = std::min(GetDepth(), m_tokens + m_rate / 8.0 * (nowS - m_lastS));
        m_lastS = nowS;
    }
}

void
LeotpTokenBucket::SetRate(double nowS, double rateBps)
{
    if (!std::isfinite(rateBps) || !(rateBps > 0))
    {
        return;
    }
    Refill(nowS);
    m_rate = rateBps;
    m_tokens = std::min(m_tokens, GetDepth());
}

double
LeotpTokenBucket::GetRate() const
{
    return m_rate;
}

double
LeotpTokenBucket::GetTokens(double nowS)
{
    Refill(nowS);
    return m_tokens;
}

bool
LeotpTokenBucket::TryConsume(double nowS, double bytes)
{
    Refill(nowS);
    if (m_tokens + kSlackBytes < bytes)
    {
        return false;
    }
    m_tokens = std::max(0.0, m_tokens - bytes);
    return true;
}

double
LeotpTokenBucket::WaitS(double nowS, double bytes)
{
    Refill(nowS);
    const double deficit = bytes - m_tokens;
    if (deficit <= kSlackBytes)
    {
        return 0.0;
    }
    return deficit * 8.0 / m_rate;
}

} // namespace ns3
