// SPDX-License-Identifier: GPL-2.0-only

#include "leo-path-schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Bound on times and delays (s), far inside ns-3's int64 nanosecond Time range.
constexpr double kMaxTimeS = 1e9;
/// Smallest positive rate (bit/s): keeps serialization times inside ns-3's Time range.
constexpr double kMinRateBps = 1.0;

/// Builds "paths[0] ('sat0').field[j]: message" errors.
class Validator
{
  public:
    Validator(const std::string& label, const std::string& name)
        : m_prefix(label + " ('" + name + "')")
    {
    }

    [[noreturn]] void Fail(const std::string& field, const std::string& message) const
    {
        throw std::invalid_argument(m_prefix + "." + field + ": " + message);
    }

    template <typename T>
    [[noreturn]] void FailAt(const std::string& field,
                             std::size_t j,
                             const std::string& what,
                             T value) const
    {
        std::ostringstream os;
        os << field << "[" << j << "]";
        std::ostringstream msg;
        msg << what << ", got " << value;
        Fail(os.str(), msg.str());
    }

    template <typename T>
    void Length(const std::string& field,
                const std::vector<T>& v,
                std::size_t n,
                bool optional) const
    {
        if (optional && v.empty())
        {
            return;
        }
        if (v.size() != n)
        {
            std::ostringstream msg;
            msg << "length " << v.size() << " does not match delay_down_s (length " << n << ")";
            Fail(field, msg.str());
        }
    }

  private:
    std::string m_prefix;
};

} // namespace

const char*
LeoDirectionName(LeoDirection dir)
{
    return dir == LeoDirection::DOWN ? "down" : "up";
}

LeoPathSchedule::LeoPathSchedule(LeoPathArrays a, const std::string& label)
{
    const Validator v(label, a.name);
    if (!std::isfinite(a.t0S) || std::fabs(a.t0S) > kMaxTimeS)
    {
        v.Fail("t0_s", "must be finite and within +-1e9 s");
    }
    if (!std::isfinite(a.dtS) || a.dtS <= 0.0)
    {
        std::ostringstream msg;
        msg << "must be finite and > 0, got " << a.dtS;
        v.Fail("dt_s", msg.str());
    }
    if (a.queuePackets < 1)
    {
        v.Fail("queue_packets", "must be >= 1");
    }
    const std::size_t n = a.delayDownS.size();
    if (n == 0)
    {
        v.Fail("delay_down_s", "must hold at least one sample");
    }
    if (n > std::numeric_limits<uint32_t>::max() / 2)
    {
        v.Fail("delay_down_s", "too many samples");
    }
    v.Length("delay_up_s", a.delayUpS, n, false);
    v.Length("rate_down_bps", a.rateDownBps, n, false);
    v.Length("rate_up_bps", a.rateUpBps, n, false);
    v.Length("loss_down", a.lossDown, n, false);
    v.Length("loss_up", a.lossUp, n, false);
    v.Length("snr_db", a.snrDb, n, true);
    v.Length("elevation_deg", a.elevationDeg, n, true);
    v.Length("serving_sat", a.servingSat, n, true);

    // Outages first: zero rates are only allowed inside them.
    for (std::size_t k = 0; k < a.outages.size(); ++k)
    {
        const auto& [s, e] = a.outages[k];
        if (!std::isfinite(s) || !std::isfinite(e) || std::fabs(s) > kMaxTimeS ||
            std::fabs(e) > kMaxTimeS)
        {
            v.FailAt("outages",
                     k,
                     "must be finite and within +-1e9 s",
                     std::to_string(s) + ", " + std::to_string(e));
        }
        if (!(s < e))
        {
            v.FailAt("outages",
                     k,
                     "start must be < end",
                     std::to_string(s) + ", " + std::to_string(e));
        }
        if (k > 0 && s < a.outages[k - 1].second)
        {
            v.FailAt("outages",
                     k,
                     "intervals must be sorted and non-overlapping (start >= previous end)",
                     s);
        }
    }
    for (std::size_t k = 0; k < a.handovers.size(); ++k)
    {
        if (!std::isfinite(a.handovers[k]) || std::fabs(a.handovers[k]) > kMaxTimeS)
        {
            v.FailAt("handovers", k, "must be finite and within +-1e9 s", a.handovers[k]);
        }
        if (k > 0 && a.handovers[k] < a.handovers[k - 1])
        {
            v.FailAt("handovers", k, "must be sorted", a.handovers[k]);
        }
    }

    m_name = a.name;
    m_t0 = a.t0S;
    m_dt = a.dtS;
    m_invDt = 1.0 / a.dtS;
    m_n = static_cast<uint32_t>(n);
    m_queuePackets = a.queuePackets;
    a.queue.Validate(label.empty() ? std::string("queue") : label + ".queue");
    m_queueConfig = a.queue;
    m_outages = std::move(a.outages);
    m_outageEnds.reserve(m_outages.size());
    for (const auto& o : m_outages)
    {
        m_outageEnds.push_back(o.second);
    }
    m_handovers = std::move(a.handovers);

    const char* delayName[2] = {"delay_down_s", "delay_up_s"};
    const char* rateName[2] = {"rate_down_bps", "rate_up_bps"};
    const char* lossName[2] = {"loss_down", "loss_up"};
    std::vector<double>* delayIn[2] = {&a.delayDownS, &a.delayUpS};
    std::vector<double>* rateIn[2] = {&a.rateDownBps, &a.rateUpBps};
    std::vector<double>* lossIn[2] = {&a.lossDown, &a.lossUp};
    for (int d = 0; d < 2; ++d)
    {
        for (std::size_t j = 0; j < n; ++j)
        {
            const double delay = (*delayIn[d])[j];
            if (!std::isfinite(delay) || delay < 0.0 || delay > 1e6)
            {
                v.FailAt(delayName[d], j, "must be finite and in [0, 1e6] s", delay);
            }
            const double loss = (*lossIn[d])[j];
            if (!std::isfinite(loss) || loss < 0.0 || loss > 1.0)
            {
                v.FailAt(lossName[d], j, "must be in [0, 1]", loss);
            }
            const double rate = (*rateIn[d])[j];
            if (!std::isfinite(rate) || rate < 0.0 || (rate > 0.0 && rate < kMinRateBps))
            {
                v.FailAt(rateName[d],
                         j,
                         "must be finite and >= 1 bit/s (0 only inside outages)",
                         rate);
            }
            if (rate == 0.0 && !InOutage(m_t0 + j * m_dt))
            {
                v.FailAt(rateName[d], j, "must be > 0 outside outages", rate);
            }
        }
        m_delay[d] = std::move(*delayIn[d]);
        m_loss[d] = std::move(*lossIn[d]);
        // Replace zero rates (inside outages) by the nearest positive sample, previous first.
        std::vector<double>& rate = *rateIn[d];
        double last = 0.0;
        for (std::size_t j = 0; j < n; ++j)
        {
            if (rate[j] > 0.0)
            {
                last = rate[j];
            }
            else if (last > 0.0)
            {
                rate[j] = last;
            }
        }
        last = 0.0;
        for (std::size_t j = n; j-- > 0;)
        {
            if (rate[j] > 0.0)
            {
                last = rate[j];
            }
            else
            {
                rate[j] = last > 0.0 ? last : 1.0; // all in outage: any positive value
            }
        }
        m_rate[d] = std::move(rate);
    }
    for (std::size_t j = 0; j < a.snrDb.size(); ++j)
    {
        if (std::isinf(a.snrDb[j]))
        {
            v.FailAt("snr_db", j, "must be finite or NaN", a.snrDb[j]);
        }
    }
    for (std::size_t j = 0; j < a.elevationDeg.size(); ++j)
    {
        const double e = a.elevationDeg[j];
        if (std::isinf(e) || e < -90.0 || e > 90.0)
        {
            v.FailAt("elevation_deg", j, "must be in [-90, 90] or NaN", e);
        }
    }
    for (std::size_t j = 0; j < a.servingSat.size(); ++j)
    {
        if (a.servingSat[j] < -1)
        {
            v.FailAt("serving_sat", j, "must be >= -1 (-1 = none)", a.servingSat[j]);
        }
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    m_snr = a.snrDb.empty() ? std::vector<double>(n, nan) : std::move(a.snrDb);
    m_elevation = a.elevationDeg.empty() ? std::vector<double>(n, nan) : std::move(a.elevationDeg);
    m_servingSat = a.servingSat.empty() ? std::vector<int32_t>(n, -1) : std::move(a.servingSat);
}

const std::string&
LeoPathSchedule::GetName() const
{
    return m_name;
}

double
LeoPathSchedule::GetT0() const
{
    return m_t0;
}

double
LeoPathSchedule::GetDt() const
{
    return m_dt;
}

uint32_t
LeoPathSchedule::GetN() const
{
    return m_n;
}

double
LeoPathSchedule::GetEnd() const
{
    return m_t0 + (m_n - 1) * m_dt;
}

uint32_t
LeoPathSchedule::GetQueuePackets() const
{
    return m_queuePackets;
}

const LeoQueueConfig&
LeoPathSchedule::GetQueueConfig() const
{
    return m_queueConfig;
}

inline void
LeoPathSchedule::Locate(double t, uint32_t& i, double& frac) const
{
    const double x = (t - m_t0) * m_invDt;
    if (!(x > 0.0)) // also NaN
    {
        i = 0;
        frac = 0.0;
        return;
    }
    if (x >= static_cast<double>(m_n - 1))
    {
        i = m_n - 1;
        frac = 0.0;
        return;
    }
    i = static_cast<uint32_t>(x);
    frac = x - i;
}

inline uint32_t
LeoPathSchedule::HeldIndex(double t) const
{
    // A small tolerance so that t = t0 + j * dt maps to sample j despite rounding.
    const double x = (t - m_t0) * m_invDt + 1e-9;
    if (!(x > 0.0))
    {
        return 0;
    }
    if (x >= static_cast<double>(m_n - 1))
    {
        return m_n - 1;
    }
    return static_cast<uint32_t>(x);
}

double
LeoPathSchedule::DelayAt(LeoDirection dir, double t) const
{
    uint32_t i;
    double f;
    Locate(t, i, f);
    const std::vector<double>& v = m_delay[static_cast<int>(dir)];
    return f > 0.0 ? v[i] + f * (v[i + 1] - v[i]) : v[i];
}

double
LeoPathSchedule::RateAt(LeoDirection dir, double t) const
{
    uint32_t i;
    double f;
    Locate(t, i, f);
    const std::vector<double>& v = m_rate[static_cast<int>(dir)];
    return f > 0.0 ? v[i] + f * (v[i + 1] - v[i]) : v[i];
}

double
LeoPathSchedule::LossAt(LeoDirection dir, double t) const
{
    return m_loss[static_cast<int>(dir)][HeldIndex(t)];
}

double
LeoPathSchedule::SnrAt(double t) const
{
    return m_snr[HeldIndex(t)];
}

double
LeoPathSchedule::ElevationAt(double t) const
{
    uint32_t i;
    double f;
    Locate(t, i, f);
    return f > 0.0 ? m_elevation[i] + f * (m_elevation[i + 1] - m_elevation[i]) : m_elevation[i];
}

int32_t
LeoPathSchedule::ServingSatAt(double t) const
{
    return m_servingSat[HeldIndex(t)];
}

std::size_t
LeoPathSchedule::FirstOutageEndingAfter(double t) const
{
    return std::upper_bound(m_outageEnds.begin(), m_outageEnds.end(), t) - m_outageEnds.begin();
}

bool
LeoPathSchedule::InOutage(double t) const
{
    if (m_outages.empty())
    {
        return false;
    }
    const std::size_t k = FirstOutageEndingAfter(t);
    return k < m_outages.size() && m_outages[k].first <= t;
}

double
LeoPathSchedule::FirstOutageOverlap(double t1, double t2) const
{
    if (m_outages.empty())
    {
        return kInf;
    }
    const std::size_t k = FirstOutageEndingAfter(t1);
    if (k >= m_outages.size())
    {
        return kInf;
    }
    const double s = m_outages[k].first;
    if (s <= t1)
    {
        return t1;
    }
    return s < t2 ? s : kInf;
}

bool
LeoPathSchedule::OutageOverlaps(double t1, double t2) const
{
    return FirstOutageOverlap(t1, t2) < kInf;
}

std::pair<double, double>
LeoPathSchedule::NextOutageAfter(double t) const
{
    auto it =
        std::lower_bound(m_outages.begin(),
                         m_outages.end(),
                         t,
                         [](const std::pair<double, double>& o, double x) { return o.first < x; });
    if (it == m_outages.end())
    {
        return {kInf, kInf};
    }
    return *it;
}

double
LeoPathSchedule::NextHandoverAfter(double t) const
{
    auto it = std::upper_bound(m_handovers.begin(), m_handovers.end(), t);
    return it == m_handovers.end() ? kInf : *it;
}

uint32_t
LeoPathSchedule::CountHandovers(double t1, double t2) const
{
    if (!(t2 > t1))
    {
        return 0;
    }
    auto a = std::lower_bound(m_handovers.begin(), m_handovers.end(), t1);
    auto b = std::lower_bound(a, m_handovers.end(), t2);
    return static_cast<uint32_t>(b - a);
}

const std::vector<std::pair<double, double>>&
LeoPathSchedule::GetOutages() const
{
    return m_outages;
}

const std::vector<double>&
LeoPathSchedule::GetHandovers() const
{
    return m_handovers;
}

} // namespace ns3
