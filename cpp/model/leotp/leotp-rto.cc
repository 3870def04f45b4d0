// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-rto.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

void
LeotpRtoParams::Check(const std::string& prefix) const
{
    auto bad = [](double v, double lo, double hi) { return !std::isfinite(v) || v < lo || v > hi; };
    if (bad(granularityS, 0.0, 1.0))
    {
        throw std::invalid_argument(prefix + ".granularity_s: must be in [0, 1] s");
    }
    if (bad(minRtoS, 1e-6, 60.0))
    {
        throw std::invalid_argument(prefix + ".min_rto_s: must be in [1e-6, 60] s");
    }
    if (bad(maxRtoS, minRtoS, 3600.0))
    {
        throw std::invalid_argument(prefix + ".max_rto_s: must be in [min_rto_s, 3600] s");
    }
    if (bad(initialRtoS, 1e-6, 3600.0))
    {
        throw std::invalid_argument(prefix + ".initial_rto_s: must be in [1e-6, 3600] s");
    }
    if (bad(backoff, 1.0, 10.0))
    {
        throw std::invalid_argument(prefix + ".backoff: must be in [1, 10]");
    }
}

LeotpRto::LeotpRto(const LeotpRtoParams& params)
    : m_params(params),
      m_rtt(Seconds(params.initialRtoS))
{
}

void
LeotpRto::OnSample(Time rtt, Time now)
{
    // ACK delay 0: RFC 9002's update reduces to RFC 6298's.
    m_rtt.Update(rtt, Time(0), Time(0), now);
    // A valid sample recomputes the RTO from SRTT and RTTVAR: the backoff collapses
    // (RFC 6298 section 5, after rule 5.7).
    m_rounds = 0;
    m_hasRound = false;
}

void
LeotpRto::OnTimeout(Time sentAt, Time now)
{
    if (!m_params.keepBackoff || (m_hasRound && sentAt < m_lastRound))
    {
        return; // sent with the shorter timer of before the last round
    }
    if (GetRto() < Seconds(m_params.maxRtoS))
    {
        ++m_rounds; // RFC 6298 rule 5.5, with the paper's factor
    }
    m_hasRound = true;
    m_lastRound = now;
}

uint32_t
LeotpRto::GetBackoffRounds() const
{
    return m_rounds;
}

Time
LeotpRto::GetRto() const
{
    return GetBackoffInterval(0);
}

Time
LeotpRto::GetBaseRto() const
{
    if (!m_rtt.HasSample())
    {
        return Seconds(m_params.initialRtoS);
    }
    const Time rto = m_rtt.PtoPeriod(Seconds(m_params.granularityS), Time(0));
    return std::clamp(rto, Seconds(m_params.minRtoS), Seconds(m_params.maxRtoS));
}

Time
LeotpRto::GetBackoffInterval(uint32_t n) const
{
    const uint32_t own = n > 0 ? n - 1 : 0;
    const double f = std::pow(m_params.backoff, static_cast<double>(std::max(own, m_rounds)));
    const double s = std::min(GetBaseRto().GetSeconds() * f, m_params.maxRtoS);
    return Seconds(s);
}

const MpRttEstimator&
LeotpRto::GetEstimator() const
{
    return m_rtt;
}

} // namespace ns3
