// SPDX-License-Identifier: GPL-2.0-only

#include "leo-schedule-oracle.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

LeoScheduleOracle::LeoScheduleOracle(Ptr<const LeoPathSchedule> schedule,
                                     bool satellite,
                                     std::vector<double> slantRangeM)
    : m_schedule(schedule),
      m_satellite(satellite),
      m_slant(std::move(slantRangeM))
{
    if (!m_schedule)
    {
        throw std::invalid_argument("LeoScheduleOracle: null schedule");
    }
    if (!m_slant.empty() && m_slant.size() != m_schedule->GetN())
    {
        throw std::invalid_argument("slant_range_m: expected " +
                                    std::to_string(m_schedule->GetN()) + " samples, got " +
                                    std::to_string(m_slant.size()));
    }
}

Ptr<const LeoPathSchedule>
LeoScheduleOracle::GetSchedule() const
{
    return m_schedule;
}

bool
LeoScheduleOracle::IsSatellite() const
{
    return m_satellite;
}

double
LeoScheduleOracle::SlantAt(double t) const
{
    if (m_slant.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    double x = (t - m_schedule->GetT0()) / m_schedule->GetDt();
    if (!(x > 0))
    {
        return m_slant.front();
    }
    auto n = static_cast<double>(m_slant.size() - 1);
    if (x >= n)
    {
        return m_slant.back();
    }
    auto i = static_cast<std::size_t>(x);
    double f = x - static_cast<double>(i);
    return m_slant[i] + f * (m_slant[i + 1] - m_slant[i]);
}

MpPathOracle::LinkState
LeoScheduleOracle::StateAt(double t) const
{
    LinkState s;
    s.time = t;
    s.delayDownS = m_schedule->DelayAt(LeoDirection::DOWN, t);
    s.delayUpS = m_schedule->DelayAt(LeoDirection::UP, t);
    s.capacityDownBps = m_schedule->RateAt(LeoDirection::DOWN, t);
    s.capacityUpBps = m_schedule->RateAt(LeoDirection::UP, t);
    s.snrDb = m_schedule->SnrAt(t);
    s.elevationDeg = m_schedule->ElevationAt(t);
    s.slantRangeM = SlantAt(t);
    s.servingSat = m_schedule->ServingSatAt(t);
    return s;
}

double
LeoScheduleOracle::NextHandoverAfter(double t) const
{
    return m_schedule->NextHandoverAfter(t);
}

double
LeoScheduleOracle::LastHandoverAtOrBefore(double t) const
{
    const auto& h = m_schedule->GetHandovers();
    auto it = std::upper_bound(h.begin(), h.end(), t);
    if (it == h.begin())
    {
        return -std::numeric_limits<double>::infinity();
    }
    return *(it - 1);
}

uint32_t
LeoScheduleOracle::CountHandovers(double t1, double t2) const
{
    return m_schedule->CountHandovers(t1, t2);
}

bool
LeoScheduleOracle::InOutage(double t) const
{
    return m_schedule->InOutage(t);
}

std::pair<double, double>
LeoScheduleOracle::NextOutageAfter(double t) const
{
    return m_schedule->NextOutageAfter(t);
}

MpPathOracle::LinkState
LeoScheduleOracle::NextPathAfterHandover(double t) const
{
    double th = m_schedule->NextHandoverAfter(t);
    if (!std::isfinite(th))
    {
        LinkState s;
        s.time = std::numeric_limits<double>::infinity();
        return s;
    }
    double dt = m_schedule->GetDt();
    double ready = th;
    // If an outage covers the handover (or starts within one grid step of it), the new link
    // is usable when that outage ends.
    for (const auto& [a, b] : m_schedule->GetOutages())
    {
        if (b <= th)
        {
            continue;
        }
        if (a <= th + dt)
        {
            ready = std::max(ready, b);
        }
        break;
    }
    double t0 = m_schedule->GetT0();
    double k = std::floor((ready - t0) / dt + 1e-9) + 1.0;
    double sample = t0 + k * dt;
    LinkState s = StateAt(sample);
    s.time = ready;
    return s;
}

} // namespace ns3
