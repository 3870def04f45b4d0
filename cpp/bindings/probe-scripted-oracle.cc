// SPDX-License-Identifier: GPL-2.0-only
//
// ScriptedOracle (probe-scripted-oracle.h): the path oracle of the baselines probes, built from
// a Python description.

#include "bindings/probe-scripted-oracle.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace leogym
{

namespace
{

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double
Get(const py::dict& d, const char* key, double dflt)
{
    return d.contains(key) ? py::cast<double>(d[key]) : dflt;
}

} // namespace

ScriptedOracle::ScriptedOracle(const py::dict& spec)
{
    m_satellite = spec.contains("satellite") ? py::cast<bool>(spec["satellite"]) : true;
    if (spec.contains("states"))
    {
        for (auto item : py::cast<py::list>(spec["states"]))
        {
            auto s = py::cast<py::dict>(item);
            LinkState ls;
            ls.time = Get(s, "t", 0.0);
            ls.delayDownS = Get(s, "delay_down_s", 0.05);
            ls.delayUpS = Get(s, "delay_up_s", ls.delayDownS);
            ls.capacityDownBps = Get(s, "capacity_down_bps", 0.0);
            ls.capacityUpBps = Get(s, "capacity_up_bps", ls.capacityDownBps);
            ls.snrDb = Get(s, "snr_db", kNaN);
            ls.elevationDeg = Get(s, "elevation_deg", kNaN);
            ls.slantRangeM = Get(s, "slant_range_m", kNaN);
            ls.servingSat = s.contains("serving_sat") ? py::cast<int32_t>(s["serving_sat"]) : -1;
            m_states.push_back(ls);
        }
    }
    if (m_states.empty())
    {
        m_states.push_back(LinkState());
    }
    std::sort(m_states.begin(), m_states.end(), [](const LinkState& a, const LinkState& b) {
        return a.time < b.time;
    });
    if (spec.contains("handovers"))
    {
        m_handovers = py::cast<std::vector<double>>(spec["handovers"]);
        std::sort(m_handovers.begin(), m_handovers.end());
    }
    if (spec.contains("outages"))
    {
        m_outages = py::cast<std::vector<std::pair<double, double>>>(spec["outages"]);
        std::sort(m_outages.begin(), m_outages.end());
        for (const auto& [a, b] : m_outages)
        {
            if (!(b > a))
            {
                throw std::invalid_argument("outages: each interval needs end > start");
            }
        }
    }
}

bool
ScriptedOracle::IsSatellite() const
{
    return m_satellite;
}

ScriptedOracle::LinkState
ScriptedOracle::StateAt(double t) const
{
    LinkState out = m_states.front();
    for (const auto& s : m_states)
    {
        if (s.time <= t)
        {
            out = s;
        }
    }
    out.time = t;
    return out;
}

double
ScriptedOracle::NextHandoverAfter(double t) const
{
    auto it = std::upper_bound(m_handovers.begin(), m_handovers.end(), t);
    return it == m_handovers.end() ? kInf : *it;
}

double
ScriptedOracle::LastHandoverAtOrBefore(double t) const
{
    auto it = std::upper_bound(m_handovers.begin(), m_handovers.end(), t);
    return it == m_handovers.begin() ? -kInf : *(it - 1);
}

uint32_t
ScriptedOracle::CountHandovers(double t1, double t2) const
{
    return static_cast<uint32_t>(std::count_if(m_handovers.begin(),
                                               m_handovers.end(),
                                               [&](double h) { return h >= t1 && h < t2; }));
}

bool
ScriptedOracle::InOutage(double t) const
{
    for (const auto& [a, b] : m_outages)
    {
        if (t >= a && t < b)
        {
            return true;
        }
    }
    return false;
}

std::pair<double, double>
ScriptedOracle::NextOutageAfter(double t) const
{
    for (const auto& o : m_outages)
    {
        if (o.first >= t)
        {
            return o;
        }
    }
    return {kInf, kInf};
}

ScriptedOracle::LinkState
ScriptedOracle::NextPathAfterHandover(double t) const
{
    double h = NextHandoverAfter(t);
    if (!std::isfinite(h))
    {
        LinkState s;
        s.time = kInf;
        return s;
    }
    double at = h;
    for (const auto& [a, b] : m_outages)
    {
        if (at >= a && at < b)
        {
            at = b;
        }
    }
    // The first state row after the handover (and its outage).
    for (const auto& s : m_states)
    {
        if (s.time > at)
        {
            return s;
        }
    }
    LinkState s = StateAt(at);
    s.time = at;
    return s;
}

} // namespace leogym
