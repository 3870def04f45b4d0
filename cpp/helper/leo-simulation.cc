// SPDX-License-Identifier: GPL-2.0-only
//
// LeoSimulation: construction (the constructor and its build steps), lifecycle and queries.
// The class's other parts: leo-simulation-validate.cc (the constructor's checks, before the
// simulator is touched), leo-simulation-control.cc (actions from outside) and
// leo-simulation-collect.cc (the per-step measurements).

#include "leo-simulation.h"

#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

LeoSimulation::LeoSimulation(const LeoSimulationConfig& cfg,
                             std::vector<LeoPathArrays> paths,
                             std::vector<std::vector<double>> slantRangeM,
                             std::vector<bool> satellite,
                             std::optional<LeoHopNetworkSpec> network,
                             std::vector<uint32_t> pathRoutes)
    : m_cfg(cfg)
{
    // Checks first: nothing here touches the simulator, so bad input leaves the process free.
    const std::vector<Ptr<const LeoPathSchedule>> schedules = MakeSchedules(std::move(paths));
    ValidateTransport(schedules.size(), slantRangeM.size());
    MakeOracles(schedules, slantRangeM, satellite);
    const std::size_t nRoutes = ResolvePathRoutes(network, pathRoutes, schedules.size());
    ValidateFlows(nRoutes);
    ValidateCrossTraffic(schedules.size());

    // Then the simulator: the topology, the connection, the flows, in the order that fixes
    // the ns-3 objects' creation and their random streams (trajectories are hashed bit for bit).
    m_lease = SimContext::Acquire("Simulation", m_cfg.seed, m_cfg.run);
    try
    {
        const uint32_t crossSndBuf = BuildTopology(schedules, network);
        InstallCrossTraffic(crossSndBuf);
        m_monitor = std::make_unique<LeoFlowMonitor>(1 + m_cfg.flows.size());
        InstallFlows();
    }
    catch (...)
    {
        Close();
        throw;
    }
    StartCollection(network.has_value());
}

uint32_t
LeoSimulation::BuildTopology(const std::vector<Ptr<const LeoPathSchedule>>& schedules,
                             const std::optional<LeoHopNetworkSpec>& network)
{
    LeoTopologyOptions topt;
    topt.mtu = m_cfg.mtu;
    // TCP buffers. Explicit: both socket buffers of every ns-3 TCP flow. Automatic (0):
    // as Linux's autotuning would grow them, twice BDP + queue of the largest path, for
    // the flows of traffic.flows (flows under study: a smaller send buffer stalls new data
    // behind a hole in loss recovery and costs two competing flows a fifth of the link);
    // the background flows of cross_traffic send from a buffer of BDP + queue (a window
    // beyond what the path holds only overflows its queue, and ns-3's TcpTxBuffer walks its
    // list of sent segments per retransmission, so a larger one made a maco step take
    // minutes: cpp/doc/link.md, "TCP send buffers").
    uint32_t tcpBuf = m_cfg.tcpBufferBytes;
    uint32_t crossSndBuf = 0; // 0: the topology default (the flows' send buffer)
    if (tcpBuf == 0)
    {
        double need = 0;
        for (const auto& sch : schedules)
        {
            double rate = 0;
            double delay = 0;
            for (uint32_t k = 0; k < sch->GetN(); ++k)
            {
                double t = sch->GetT0() + k * sch->GetDt();
                rate = std::max(rate, sch->RateAt(LeoDirection::DOWN, t));
                delay = std::max(delay,
                                 sch->DelayAt(LeoDirection::DOWN, t) +
                                     sch->DelayAt(LeoDirection::UP, t));
            }
            double bdp = rate * delay / 8.0;
            need = std::max(need, bdp + sch->GetQueuePackets() * double(m_cfg.mtu));
        }
        crossSndBuf = static_cast<uint32_t>(std::clamp(need, 131072.0, 1073741824.0));
        tcpBuf = static_cast<uint32_t>(std::clamp(2.0 * need, 131072.0, 1073741824.0));
    }
    topt.tcpSndBufBytes = tcpBuf;
    topt.tcpRcvBufBytes = tcpBuf;
    if (network)
    {
        m_topo = std::make_unique<LeoHopTopology>(*network, topt);
    }
    else
    {
        m_topo = std::make_unique<LeoTopology>(schedules, topt);
    }
    return crossSndBuf;
}

void
LeoSimulation::InstallCrossTraffic(uint32_t sndBufBytes)
{
    for (auto spec : m_cfg.crossTraffic)
    {
        spec.path = m_pathRoute[spec.path];
        if (spec.sndBufBytes == 0)
        {
            spec.sndBufBytes = sndBufBytes;
        }
        m_topo->AddCrossTraffic(spec);
    }
}

void
LeoSimulation::InstallFlows()
{
    m_flows.push_back(LeoFlowApp::InstallConnection(FlowContext()));
    for (uint32_t f = 0; f < m_cfg.flows.size(); ++f)
    {
        m_flows.push_back(LeoFlowApp::Install(m_cfg.flows[f], f, FlowContext()));
    }
}

LeoFlowContext
LeoSimulation::FlowContext()
{
    LeoFlowContext ctx;
    ctx.cfg = &m_cfg;
    ctx.topo = m_topo.get();
    ctx.monitor = m_monitor.get();
    ctx.pathRoute = &m_pathRoute;
    ctx.oracles = &m_oracles;
    return ctx;
}

void
LeoSimulation::StartCollection(bool hopTopology)
{
    m_prevCross.assign(m_cfg.crossTraffic.size(), 0);
    m_linkPrev.assign(2 * m_topo->GetNLinks(), LinkPrev());
    m_prevNoRoute.assign(hopTopology ? m_topo->GetNRoutes() : 0, 0);
    Collect(0.0);
}

LeoSimulation::~LeoSimulation()
{
    Close();
}

void
LeoSimulation::Close()
{
    if (m_lease)
    {
        m_lease->Release(); // Simulator::Destroy: disposes nodes, applications, channels
        m_lease.reset();
    }
    m_flows.clear();
    m_monitor.reset();
    m_topo.reset();
    m_oracles.clear();
}

bool
LeoSimulation::IsClosed() const
{
    return !m_lease;
}

void
LeoSimulation::CheckOpen() const
{
    if (!m_lease)
    {
        throw std::runtime_error("Simulation is closed");
    }
}

uint32_t
LeoSimulation::GetNPaths() const
{
    return m_nPaths;
}

uint32_t
LeoSimulation::GetNFlows() const
{
    return static_cast<uint32_t>(1 + m_cfg.flows.size());
}

uint32_t
LeoSimulation::GetNLinks() const
{
    return m_topo ? m_topo->GetNLinks() : 0;
}

const LeoSimulationConfig&
LeoSimulation::GetConfig() const
{
    return m_cfg;
}

double
LeoSimulation::Now() const
{
    CheckOpen();
    return Simulator::Now().GetSeconds();
}

bool
LeoSimulation::Done() const
{
    CheckOpen();
    // Collected at the end of every step: nothing completes between steps.
    return m_meas.completed;
}

void
LeoSimulation::Step(double dtS)
{
    CheckOpen();
    if (!std::isfinite(dtS) || dtS <= 0 || dtS > 1e6)
    {
        throw std::invalid_argument("dt_s: must be in (0, 1e6] seconds");
    }
    Simulator::Stop(Seconds(dtS));
    Simulator::Run();
    Collect(dtS);
}

const LeoSimulationMeasurements&
LeoSimulation::GetMeasurements() const
{
    return m_meas;
}

uint32_t
LeoSimulation::GetFlowNPaths(uint32_t flow) const
{
    if (flow >= GetNFlows())
    {
        throw std::invalid_argument("flow: " + std::to_string(flow) + " does not exist (" +
                                    std::to_string(GetNFlows()) + " flows)");
    }
    if (flow == 0)
    {
        return m_nPaths;
    }
    const LeoFlowSpec& fl = m_cfg.flows[flow - 1];
    return fl.transport == LeoFlowSpec::MPQUIC ? static_cast<uint32_t>(fl.routes.size()) : 0;
}

std::string
LeoSimulation::GetNodeName(uint32_t index) const
{
    auto* hop = dynamic_cast<LeoHopTopology*>(m_topo.get());
    return hop && index < hop->GetNNodes() ? hop->GetNodeName(index) : std::string();
}

LeotpFlow*
LeoSimulation::GetLeotpFlow(uint32_t flow) const
{
    return flow < m_flows.size() ? m_flows[flow]->GetLeotpFlow() : nullptr;
}

const LeoFlowMonitor::Recovery&
LeoSimulation::GetFlowRecovery(uint32_t flow) const
{
    CheckOpen();
    if (flow >= GetNFlows())
    {
        throw std::invalid_argument("flow: " + std::to_string(flow) + " does not exist (" +
                                    std::to_string(GetNFlows()) + " flows)");
    }
    return m_monitor->GetRecovery(flow);
}

} // namespace ns3
