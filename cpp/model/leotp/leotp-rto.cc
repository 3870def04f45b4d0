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
}

Time
LeotpRto::GetRto() const
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
    const double f = std::pow(m_params.backoff, n > 0 ? static_cast<double>(n - 1) : 0.0);
    const double s = std::min(GetRto().GetSeconds() * f, m_params.maxRtoS);
    return Seconds(s);
}

const MpRttEstimator&
LeotpRto::GetEstimator() const
{
    return m_rtt;
}

} // namespace ns3
