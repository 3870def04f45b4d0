// SPDX-License-Identifier: GPL-2.0-only

#include "leo-route-table.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

namespace ns3
{

LeoRouteTable::LeoRouteTable(std::vector<LeoRouteSteps> routes, uint32_t nNodes)
    : m_routes(std::move(routes)),
      m_cursor(m_routes.size(), 0)
{
    for (std::size_t r = 0; r < m_routes.size(); ++r)
    {
        const std::string f = "routes[" + std::to_string(r) + "]";
        const LeoRouteSteps& rt = m_routes[r];
        if (rt.startS.empty() || rt.startS.size() != rt.nodes.size())
        {
            throw std::invalid_argument(f + ": needs one start time per step and >= 1 step");
        }
        if (rt.startS[0] != 0.0)
        {
            throw std::invalid_argument(f + ".times_s: the first step must start at 0");
        }
        for (std::size_t k = 0; k < rt.startS.size(); ++k)
        {
            const std::string fk = f + ".steps[" + std::to_string(k) + "]";
            if (!std::isfinite(rt.startS[k]) || (k > 0 && !(rt.startS[k] > rt.startS[k - 1])))
            {
                throw std::invalid_argument(fk + ": step times must be finite and increase");
            }
            const auto& nodes = rt.nodes[k];
            if (nodes.size() < 2)
            {
                throw std::invalid_argument(fk + ": a route needs at least two nodes");
            }
            std::unordered_set<uint32_t> seen;
            for (uint32_t v : nodes)
            {
                if (v >= nNodes)
                {
                    throw std::invalid_argument(fk + ": unknown node " + std::to_string(v));
                }
                if (!seen.insert(v).second)
                {
                    throw std::invalid_argument(fk + ": visits node " + std::to_string(v) +
                                                " twice (a loop)");
                }
            }
            if (nodes.front() != rt.nodes[0].front() || nodes.back() != rt.nodes[0].back())
            {
                throw std::invalid_argument(fk + ": a route keeps its end nodes at every step");
            }
        }
    }
}

uint32_t
LeoRouteTable::GetNRoutes() const
{
    return static_cast<uint32_t>(m_routes.size());
}

uint32_t
LeoRouteTable::GetSource(uint32_t route) const
{
    return m_routes.at(route).nodes[0].front();
}

uint32_t
LeoRouteTable::GetSink(uint32_t route) const
{
    return m_routes.at(route).nodes[0].back();
}

const LeoRouteSteps&
LeoRouteTable::GetRoute(uint32_t route) const
{
    return m_routes.at(route);
}

uint32_t
LeoRouteTable::StepAt(uint32_t route, double t) const
{
    const std::vector<double>& st = m_routes[route].startS;
    uint32_t k = m_cursor[route];
    if (k < st.size() && st[k] <= t && (k + 1 == st.size() || t < st[k + 1]))
    {
        return k; // the usual case: the same step as last time
    }
    auto it = std::upper_bound(st.begin(), st.end(), t);
    k = it == st.begin() ? 0 : static_cast<uint32_t>(it - st.begin() - 1);
    m_cursor[route] = k;
    return k;
}

int64_t
LeoRouteTable::NextNode(uint32_t route, bool towardSink, uint32_t node, double t) const
{
    const LeoRouteSteps& rt = m_routes[route];
    const uint32_t now = StepAt(route, t);
    const uint32_t oldest = now > kMaxLookBack ? now - kMaxLookBack : 0;
    for (int64_t k = now; k >= static_cast<int64_t>(oldest); --k)
    {
        const auto& nodes = rt.nodes[k];
        for (std::size_t j = 0; j < nodes.size(); ++j)
        {
            if (nodes[j] != node)
            {
                continue;
            }
            if (towardSink)
            {
                return j + 1 < nodes.size() ? static_cast<int64_t>(nodes[j + 1]) : -1;
            }
            return j > 0 ? static_cast<int64_t>(nodes[j - 1]) : -1;
        }
    }
    return -1;
}

} // namespace ns3
