// SPDX-License-Identifier: GPL-2.0-only
//
// LeoSimulation (leo-simulation.cc): the constructor's checks, run before the simulator is
// touched so that bad input leaves the process free (each names its field).

#include "helper/leo-simulation.h"
#include "helper/leotp-flow-app.h"
#include "model/registry/mp-algorithm-registry.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
constexpr uint32_t kMaxFlows = 3700;
} // namespace

std::vector<Ptr<const LeoPathSchedule>>
LeoSimulation::MakeSchedules(std::vector<LeoPathArrays> paths)
{
    if (paths.empty())
    {
        throw std::invalid_argument("paths: at least one path is needed");
    }
    if (paths.size() > LeoTopology::kMaxPaths)
    {
        throw std::invalid_argument("paths: at most " + std::to_string(LeoTopology::kMaxPaths) +
                                    " paths");
    }
    std::vector<Ptr<const LeoPathSchedule>> schedules;
    for (std::size_t i = 0; i < paths.size(); ++i)
    {
        schedules.push_back(
            Create<LeoPathSchedule>(std::move(paths[i]), "paths[" + std::to_string(i) + "]"));
    }
    return schedules;
}

void
LeoSimulation::ValidateTransport(std::size_t nSchedules, std::size_t nSlantRanges)
{
    if (m_cfg.subflowPaths.empty())
    {
        for (uint32_t i = 0; i < nSchedules; ++i)
        {
            m_cfg.subflowPaths.push_back(i);
        }
    }
    m_nPaths = static_cast<uint32_t>(m_cfg.subflowPaths.size());
    if (m_nPaths > 32)
    {
        throw std::invalid_argument("subflow_paths: at most 32 transport paths");
    }
    for (std::size_t i = 0; i < m_nPaths; ++i)
    {
        if (m_cfg.subflowPaths[i] >= nSchedules)
        {
            throw std::invalid_argument("subflow_paths[" + std::to_string(i) + "]: path " +
                                        std::to_string(m_cfg.subflowPaths[i]) +
                                        " does not exist (" + std::to_string(nSchedules) +
                                        " paths)");
        }
    }
    if (!m_cfg.initialPathStates.empty() && m_cfg.initialPathStates.size() != m_nPaths)
    {
        throw std::invalid_argument("initial_path_states: expected " + std::to_string(m_nPaths) +
                                    " entries, got " +
                                    std::to_string(m_cfg.initialPathStates.size()));
    }
    if (m_cfg.packetBytes + 28 > m_cfg.mtu)
    {
        throw std::invalid_argument("packet_bytes: " + std::to_string(m_cfg.packetBytes) +
                                    " + 28 (IPv4 + UDP) exceeds the MTU " +
                                    std::to_string(m_cfg.mtu));
    }
    if (m_cfg.fileWorkload && m_cfg.fileBytes == 0)
    {
        throw std::invalid_argument("file_bytes: must be > 0 for workload 'file'");
    }
    if (nSlantRanges != 0 && nSlantRanges != nSchedules)
    {
        throw std::invalid_argument("slant_range_m: one entry per path expected");
    }
    // Algorithm names and parameters: checked before the simulator is touched.
    MpAlgorithmRegistry::Cc().Validate(m_cfg.cc, m_cfg.ccParams, "cc", "cc_params");
    MpAlgorithmRegistry::Scheduler().Validate(m_cfg.scheduler,
                                              m_cfg.schedulerParams,
                                              "scheduler",
                                              "scheduler_params");
}

void
LeoSimulation::MakeOracles(const std::vector<Ptr<const LeoPathSchedule>>& schedules,
                           const std::vector<std::vector<double>>& slantRangeM,
                           const std::vector<bool>& satellite)
{
    for (std::size_t i = 0; i < schedules.size(); ++i)
    {
        bool sat = i < satellite.size() ? static_cast<bool>(satellite[i])
                                        : std::isfinite(schedules[i]->SnrAt(0.0));
        std::vector<double> slant = i < slantRangeM.size() ? slantRangeM[i] : std::vector<double>{};
        if (!slant.empty() && slant.size() != schedules[i]->GetN())
        {
            throw std::invalid_argument("paths[" + std::to_string(i) +
                                        "].slant_range_m: expected " +
                                        std::to_string(schedules[i]->GetN()) + " samples, got " +
                                        std::to_string(slant.size()));
        }
        m_oracles.push_back(std::make_unique<LeoScheduleOracle>(schedules[i], sat, slant));
    }
}

std::size_t
LeoSimulation::ResolvePathRoutes(const std::optional<LeoHopNetworkSpec>& network,
                                 const std::vector<uint32_t>& pathRoutes,
                                 std::size_t nSchedules)
{
    // Routes of the topology paths: the paths themselves, or the network's routes.
    const std::size_t nRoutes = network ? network->routes.size() : nSchedules;
    if (!network)
    {
        if (!pathRoutes.empty())
        {
            throw std::invalid_argument("network.path_routes: given without a network");
        }
        for (uint32_t i = 0; i < nSchedules; ++i)
        {
            m_pathRoute.push_back(i);
        }
        return nRoutes;
    }
    if (pathRoutes.size() != nSchedules)
    {
        throw std::invalid_argument("network.path_routes: one route per path expected (" +
                                    std::to_string(nSchedules) + " paths, got " +
                                    std::to_string(pathRoutes.size()) + ")");
    }
    for (std::size_t i = 0; i < pathRoutes.size(); ++i)
    {
        if (pathRoutes[i] >= nRoutes)
        {
            throw std::invalid_argument("network.path_routes[" + std::to_string(i) +
                                        "]: no route " + std::to_string(pathRoutes[i]));
        }
        const auto& r0 = network->routes[pathRoutes[0]].nodes;
        const auto& ri = network->routes[pathRoutes[i]].nodes;
        if (!r0.empty() && !ri.empty() && !r0[0].empty() && !ri[0].empty() &&
            (r0[0].front() != ri[0].front() || r0[0].back() != ri[0].back()))
        {
            throw std::invalid_argument("network.path_routes[" + std::to_string(i) +
                                        "]: the connection's routes must share their end "
                                        "nodes (one server, one client)");
        }
    }
    m_pathRoute = pathRoutes;
    return nRoutes;
}

void
LeoSimulation::ValidateFlows(std::size_t nRoutes) const
{
    if (m_cfg.flows.size() > kMaxFlows)
    {
        throw std::invalid_argument("flows: at most " + std::to_string(kMaxFlows) + " flows");
    }
    for (std::size_t f = 0; f < m_cfg.flows.size(); ++f)
    {
        LeoFlowApp::CheckSpec(m_cfg.flows[f], nRoutes, "flows[" + std::to_string(f) + "]");
    }
    if (m_cfg.leotpConnection)
    {
        LeoLeotpFlowApp::CheckConnection(m_cfg);
    }
}

void
LeoSimulation::ValidateCrossTraffic(std::size_t nSchedules) const
{
    for (std::size_t k = 0; k < m_cfg.crossTraffic.size(); ++k)
    {
        if (m_cfg.crossTraffic[k].path >= nSchedules)
        {
            throw std::invalid_argument("cross_traffic[" + std::to_string(k) +
                                        "].path: " + std::to_string(m_cfg.crossTraffic[k].path) +
                                        " out of range (" + std::to_string(nSchedules) + " paths)");
        }
    }
}

} // namespace ns3
