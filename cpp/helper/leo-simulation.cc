// SPDX-License-Identifier: GPL-2.0-only

#include "leo-simulation.h"

#include "helper/mpquic-flow-app.h"
#include "model/cc/mp-residual.h"
#include "model/registry/mp-algorithm-registry.h"

#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

namespace
{
constexpr uint16_t kTransportPortBase = 10000;
constexpr uint32_t kMaxFlows = 3700;
constexpr int64_t kCcStreamBase = 30000;

/**
 * Check external windows: one per subflow, each finite and in [0, 1e15] bytes.
 * @param bytes the windows
 * @param n subflows
 * @param label prefix of the messages ("set_cwnd", "set_flow_cwnd: flow 2")
 * @throws std::invalid_argument naming the entry
 */
void
CheckCwndValues(const std::vector<double>& bytes, std::size_t n, const std::string& label)
{
    if (bytes.size() != n)
    {
        throw std::invalid_argument(label + ": expected " + std::to_string(n) + " values, got " +
                                    std::to_string(bytes.size()));
    }
    for (std::size_t i = 0; i < bytes.size(); ++i)
    {
        if (!std::isfinite(bytes[i]) || bytes[i] < 0 || bytes[i] > 1e15)
        {
            throw std::invalid_argument(label + ": cwnd[" + std::to_string(i) +
                                        "] must be finite, >= 0 and <= 1e15 bytes");
        }
    }
}

/**
 * Check external pacing rates: one per subflow, each 0 (unpaced) or in [1e3, 1e13] bit/s.
 * @param bps the rates
 * @param n subflows
 * @param label prefix of the messages
 * @throws std::invalid_argument naming the entry
 */
void
CheckPacingValues(const std::vector<double>& bps, std::size_t n, const std::string& label)
{
    if (bps.size() != n)
    {
        throw std::invalid_argument(label + ": expected " + std::to_string(n) + " values, got " +
                                    std::to_string(bps.size()));
    }
    for (std::size_t i = 0; i < bps.size(); ++i)
    {
        if (!std::isfinite(bps[i]) || bps[i] < 0 || (bps[i] > 0 && bps[i] < 1e3) || bps[i] > 1e13)
        {
            throw std::invalid_argument(label + ": rate[" + std::to_string(i) +
                                        "] must be 0 (unpaced) or in [1e3, 1e13] bit/s");
        }
    }
}
} // namespace

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
        InstallConnection();
        InstallFlows();
    }
    catch (...)
    {
        Close();
        throw;
    }
    StartCollection(network.has_value());
}

std::vector<Ptr<const LeoPathSchedule>>
LeoSimulation::MakeSchedules(std::vector<LeoPathArrays> paths)
{
    if (paths.empty())
    {
        throw std::invalid_argument("paths: at least one path is needed");
    }
    if (paths.size() > 254)
    {
        throw std::invalid_argument("paths: at most 254 paths");
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
    if (m_cfg.packetBytes < 64)
    {
        throw std::invalid_argument("packet_bytes: must be >= 64");
    }
    if (m_cfg.fileWorkload && m_cfg.fileBytes == 0)
    {
        throw std::invalid_argument("file_bytes: must be > 0 for workload 'file'");
    }
    if (!std::isfinite(m_cfg.startS) || m_cfg.startS < 0 || m_cfg.startS > 1e6)
    {
        throw std::invalid_argument("start_s: must be in [0, 1e6] seconds");
    }
    if (!std::isfinite(m_cfg.maxAckDelayS) || m_cfg.maxAckDelayS < 0 || m_cfg.maxAckDelayS > 10)
    {
        throw std::invalid_argument("max_ack_delay_s: must be in [0, 10] seconds");
    }
    if (!std::isfinite(m_cfg.initialRttS) || m_cfg.initialRttS < 1e-6 || m_cfg.initialRttS > 60)
    {
        throw std::invalid_argument("initial_rtt_s: must be in [1e-6, 60] seconds");
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
LeoSimulation::StartCollection(bool hopTopology)
{
    m_prev.assign(m_nPaths, Prev());
    m_prevCross.assign(m_cfg.crossTraffic.size(), 0);
    m_linkPrev.assign(2 * m_topo->GetNLinks(), LinkPrev());
    m_prevNoRoute.assign(hopTopology ? m_topo->GetNRoutes() : 0, 0);
    Collect(0.0);
}

void
LeoSimulation::InstallConnection()
{
    if (m_cfg.leotpConnection)
    {
        m_leotp = LeoLeotpFlowApp::InstallConnection(FlowContext());
        return;
    }
    std::tie(m_sender, m_receiver) =
        MakeMpQuicConnection(m_cfg, m_cfg.fileWorkload ? m_cfg.fileBytes : 0, 0, m_cfg.ecn);
    for (uint32_t i = 0; i < m_nPaths; ++i)
    {
        uint32_t tp = m_cfg.subflowPaths[i];
        uint32_t route = m_pathRoute[tp];
        auto port = static_cast<uint16_t>(kTransportPortBase + i);
        Ptr<MpCongestionOps> cc = DynamicCast<MpCongestionOps>(
            MpAlgorithmRegistry::Cc().Create(m_cfg.cc, m_cfg.ccParams, "cc", "cc_params"));
        cc->AssignStreams(kCcStreamBase + i);
        MpQuicSender::PathConfig pc;
        pc.local = m_topo->GetServerAddress(route);
        pc.peer = m_topo->GetClientAddress(route);
        pc.port = port;
        pc.cc = cc;
        pc.oracle = m_oracles[tp].get();
        pc.topologyPath = tp;
        pc.state =
            m_cfg.initialPathStates.empty() ? MpPathState::ACTIVE : m_cfg.initialPathStates[i];
        m_sender->AddPath(pc);
        m_receiver->AddPath(m_topo->GetClientAddress(route), m_topo->GetServerAddress(route), port);
        m_monitor->AddFlowKey(0, m_topo->GetClientAddress(route), port);
    }
    m_sender->SetScheduler(DynamicCast<MpScheduler>(
        MpAlgorithmRegistry::Scheduler()
            .Create(m_cfg.scheduler, m_cfg.schedulerParams, "scheduler", "scheduler_params")));
    Ptr<Node> server = m_topo->GetRouteServer(m_pathRoute[0]);
    Ptr<Node> client = m_topo->GetRouteClient(m_pathRoute[0]);
    server->AddApplication(m_sender);
    client->AddApplication(m_receiver);
    m_monitor->InstallSource(server);
    m_monitor->InstallSink(client);
    m_receiver->SetStartTime(Seconds(0));
    m_sender->SetStartTime(Seconds(m_cfg.startS));
}

void
LeoSimulation::InstallFlows()
{
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
    m_sender = nullptr;
    m_receiver = nullptr;
    m_leotp.reset();
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

void
LeoSimulation::CheckMpquicConnection(const std::string& call) const
{
    CheckOpen();
    if (!m_sender)
    {
        throw std::invalid_argument(call + ": the connection is a leotp connection, which "
                                           "takes no external control");
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

Ptr<MpQuicSender>
LeoSimulation::GetSender() const
{
    return m_sender;
}

Ptr<MpQuicReceiver>
LeoSimulation::GetReceiver() const
{
    return m_receiver;
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
    return m_receiver ? m_receiver->IsComplete()
                      : m_leotp->GetLeotpFlow()->GetConsumer()->IsComplete();
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

void
LeoSimulation::SetCwnd(const std::vector<double>& bytes)
{
    CheckMpquicConnection("set_cwnd");
    if (!m_sender->GetCc(0)->IsExternal())
    {
        throw std::invalid_argument("set_cwnd needs cc='external' (this simulation runs '" +
                                    m_cfg.cc + "')");
    }
    CheckCwndValues(bytes, m_nPaths, "set_cwnd");
    for (uint32_t i = 0; i < m_nPaths; ++i)
    {
        m_sender->SetExternalCwnd(i, static_cast<uint64_t>(bytes[i]));
    }
}

void
LeoSimulation::SetPacingRate(const std::vector<double>& bps)
{
    CheckMpquicConnection("set_pacing_rate");
    if (!m_sender->GetCc(0)->IsExternal())
    {
        throw std::invalid_argument("set_pacing_rate needs cc='external' (this simulation runs '" +
                                    m_cfg.cc + "')");
    }
    CheckPacingValues(bps, m_nPaths, "set_pacing_rate");
    for (uint32_t i = 0; i < m_nPaths; ++i)
    {
        m_sender->SetExternalPacingRate(i, bps[i]);
    }
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

Ptr<MpQuicSender>
LeoSimulation::ExternalFlowSender(uint32_t flow,
                                  std::size_t n,
                                  const std::string& call,
                                  FlowControl control)
{
    CheckOpen();
    const std::string label = call + ": flow " + std::to_string(flow);
    if (flow >= GetNFlows())
    {
        throw std::invalid_argument(label + " does not exist (" + std::to_string(GetNFlows()) +
                                    " flows: 0 the connection, then config flows)");
    }
    Ptr<MpQuicSender> sender = flow == 0 ? m_sender : m_flows[flow - 1]->GetSender();
    const std::string cc = flow == 0 ? m_cfg.cc : m_cfg.flows[flow - 1].cc;
    const std::string what =
        flow == 0 ? " (the connection)" : " (flows[" + std::to_string(flow - 1) + "])";
    if (!sender)
    {
        throw std::invalid_argument(label + what +
                                    " is not an mpquic flow; only mpquic flows take external "
                                    "control");
    }
    if (control == FlowControl::EXTERNAL && !sender->GetCc(0)->IsExternal())
    {
        throw std::invalid_argument(label + what + " needs cc='external' (it runs '" + cc + "')");
    }
    if (control == FlowControl::RESIDUAL && !DynamicCast<MpResidual>(sender->GetCc(0)))
    {
        throw std::invalid_argument(label + what + " needs cc='residual+<base>' (it runs '" + cc +
                                    "')");
    }
    if (n != sender->GetNPaths())
    {
        throw std::invalid_argument(label + what + ": expected " +
                                    std::to_string(sender->GetNPaths()) +
                                    " values (one per subflow), got " + std::to_string(n));
    }
    return sender;
}

void
LeoSimulation::SetFlowCwnd(uint32_t flow, const std::vector<double>& bytes)
{
    Ptr<MpQuicSender> sender = ExternalFlowSender(flow, bytes.size(), "set_flow_cwnd");
    CheckCwndValues(bytes, bytes.size(), "set_flow_cwnd: flow " + std::to_string(flow));
    for (uint32_t i = 0; i < bytes.size(); ++i)
    {
        sender->SetExternalCwnd(i, static_cast<uint64_t>(bytes[i]));
    }
}

void
LeoSimulation::SetFlowCwndGain(uint32_t flow, const std::vector<double>& gains)
{
    Ptr<MpQuicSender> sender =
        ExternalFlowSender(flow, gains.size(), "set_flow_cwnd_gain", FlowControl::RESIDUAL);
    const std::string label = "set_flow_cwnd_gain: flow " + std::to_string(flow);
    for (std::size_t i = 0; i < gains.size(); ++i)
    {
        MpResidual::CheckGain(gains[i], label + ": gain[" + std::to_string(i) + "]");
    }
    for (uint32_t i = 0; i < gains.size(); ++i)
    {
        sender->SetCwndGain(i, gains[i]);
    }
}

void
LeoSimulation::SetFlowPacingRate(uint32_t flow, const std::vector<double>& bps)
{
    Ptr<MpQuicSender> sender = ExternalFlowSender(flow, bps.size(), "set_flow_pacing_rate");
    CheckPacingValues(bps, bps.size(), "set_flow_pacing_rate: flow " + std::to_string(flow));
    for (uint32_t i = 0; i < bps.size(); ++i)
    {
        sender->SetExternalPacingRate(i, bps[i]);
    }
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
    if (flow == 0)
    {
        return m_leotp ? m_leotp->GetLeotpFlow() : nullptr;
    }
    if (flow > m_flows.size())
    {
        return nullptr;
    }
    return m_flows[flow - 1]->GetLeotpFlow();
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

void
LeoSimulation::SetWeights(const std::vector<double>& w)
{
    CheckMpquicConnection("set_weights");
    Ptr<MpScheduler> s = m_sender->GetScheduler();
    if (!s->IsExternal())
    {
        throw std::invalid_argument("set_weights needs scheduler='external' (this simulation "
                                    "runs '" +
                                    m_cfg.scheduler + "')");
    }
    if (w.size() != m_nPaths)
    {
        throw std::invalid_argument("set_weights: expected " + std::to_string(m_nPaths) +
                                    " weights, got " + std::to_string(w.size()));
    }
    s->SetWeights(w);
    m_sender->Kick();
}

void
LeoSimulation::SetPathChoice(int32_t path)
{
    CheckMpquicConnection("set_path_choice");
    Ptr<MpScheduler> s = m_sender->GetScheduler();
    if (!s->IsExternal())
    {
        throw std::invalid_argument("set_path_choice needs scheduler='external' (this "
                                    "simulation runs '" +
                                    m_cfg.scheduler + "')");
    }
    if (path < 0 || static_cast<uint32_t>(path) >= m_nPaths)
    {
        throw std::invalid_argument("set_path_choice: path " + std::to_string(path) +
                                    " out of range [0, " + std::to_string(m_nPaths) + ")");
    }
    s->SetPathChoice(path);
    m_sender->Kick();
}

void
LeoSimulation::SetPathState(uint32_t path, MpPathState state)
{
    CheckMpquicConnection("set_path_state");
    if (path >= m_nPaths)
    {
        throw std::invalid_argument("set_path_state: path " + std::to_string(path) +
                                    " out of range [0, " + std::to_string(m_nPaths) + ")");
    }
    m_sender->SetPathState(path, state);
}

void
LeoSimulation::Collect(double dtS)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    LeoSimulationMeasurements& m = m_meas;
    double now = Simulator::Now().GetSeconds();
    double t1 = m_lastStepEndS;
    m.timeS = now;
    m.intervalS = dtS;
    auto resize = [&](std::vector<double>& v) { v.assign(m_nPaths, 0.0); };
    for (auto* v : {&m.cwndBytes,
                    &m.bytesInFlight,
                    &m.srttS,
                    &m.minRttS,
                    &m.rttvarS,
                    &m.latestRttS,
                    &m.deliveredBytes,
                    &m.sentBytes,
                    &m.sentPackets,
                    &m.deliveryRateBps,
                    &m.sendRateBps,
                    &m.lostPackets,
                    &m.retransmittedPackets,
                    &m.dropsOutage,
                    &m.dropsRandom,
                    &m.dropsOverflow,
                    &m.dropsAqm,
                    &m.queueDelayS,
                    &m.inOutage,
                    &m.pathState,
                    &m.handovers,
                    &m.ssthreshBytes,
                    &m.pacingRateBps,
                    &m.ptoCount,
                    &m.rateSampleBps,
                    &m.spuriousLosses,
                    &m.suppressedLosses,
                    &m.persistentCongestion,
                    &m.reinjected,
                    &m.timeToNextHandoverS,
                    &m.snrDb,
                    &m.elevationDeg,
                    &m.rtoCount,
                    &m.inLossState,
                    &m.timeToRtoS,
                    &m.ecnState,
                    &m.ectSentPackets,
                    &m.cePackets})
    {
        resize(*v);
    }
    double inv = dtS > 0 ? 1.0 / dtS : 0.0;
    if (m_leotp)
    {
        m_leotp->CollectConnection(m, dtS, t1);
    }
    for (uint32_t i = 0; m_sender && i < m_nPaths; ++i)
    {
        const MpPathInfo& p = m_sender->GetPath(i);
        const MpQuicSender::PathCounters& c = m_sender->GetCounters(i);
        Ptr<MpCongestionOps> cc = m_sender->GetCc(i);
        Prev& pr = m_prev[i];
        uint32_t tp = p.topologyPath;
        const LeoScheduleOracle& o = *m_oracles[tp];
        m.cwndBytes[i] = static_cast<double>(p.cwnd);
        m.bytesInFlight[i] = static_cast<double>(p.bytesInFlight);
        bool has = p.HasRttSample();
        m.srttS[i] = has ? p.rtt->GetSmoothed().GetSeconds() : nan;
        m.minRttS[i] = has ? p.rtt->GetMin().GetSeconds() : nan;
        m.rttvarS[i] = has ? p.rtt->GetRttVar().GetSeconds() : nan;
        m.latestRttS[i] = has ? p.rtt->GetLatest().GetSeconds() : nan;
        m.deliveredBytes[i] = static_cast<double>(p.deliveredBytes - pr.delivered);
        m.sentBytes[i] = static_cast<double>(p.sentBytes - pr.sent);
        m.sentPackets[i] = static_cast<double>(p.sentPackets - pr.sentPackets);
        m.deliveryRateBps[i] = 8.0 * m.deliveredBytes[i] * inv;
        m.sendRateBps[i] = 8.0 * m.sentBytes[i] * inv;
        m.lostPackets[i] = static_cast<double>(p.lostPackets - pr.lost);
        m.retransmittedPackets[i] = static_cast<double>(p.retransmittedPackets - pr.retx);
        const uint32_t route = m_pathRoute[tp];
        const uint64_t drops[4] = {m_topo->GetRouteDrops(route, LEO_DROP_OUTAGE),
                                   m_topo->GetRouteDrops(route, LEO_DROP_RANDOM),
                                   m_topo->GetRouteDrops(route, LEO_DROP_OVERFLOW),
                                   m_topo->GetRouteDrops(route, LEO_DROP_AQM)};
        m.dropsOutage[i] = static_cast<double>(drops[0] - pr.drops[0]);
        m.dropsRandom[i] = static_cast<double>(drops[1] - pr.drops[1]);
        m.dropsOverflow[i] = static_cast<double>(drops[2] - pr.drops[2]);
        m.dropsAqm[i] = static_cast<double>(drops[3] - pr.drops[3]);
        m.queueDelayS[i] = nan;
        if (m_receiver && i < m_receiver->GetNPaths())
        {
            const MpQuicReceiver::PathCounters& rc = m_receiver->GetCounters(i);
            const uint64_t timed = rc.timedPackets - pr.timedPackets;
            if (timed > 0)
            {
                m.queueDelayS[i] =
                    Time(rc.queueTicks - pr.queueTicks).GetSeconds() / static_cast<double>(timed);
            }
            pr.timedPackets = rc.timedPackets;
            pr.queueTicks = rc.queueTicks;
        }
        m.inOutage[i] = o.InOutage(now) ? 1.0 : 0.0;
        m.pathState[i] = static_cast<double>(static_cast<uint8_t>(p.state));
        m.handovers[i] = dtS > 0 ? static_cast<double>(o.CountHandovers(t1, now)) : 0.0;
        m.ssthreshBytes[i] = p.ssthresh == std::numeric_limits<uint64_t>::max()
                                 ? std::numeric_limits<double>::infinity()
                                 : static_cast<double>(p.ssthresh);
        m.pacingRateBps[i] = p.pacingRateBps;
        m.ptoCount[i] = static_cast<double>(c.ptoEvents - pr.pto);
        m.rateSampleBps[i] = p.deliveryRateBps;
        m.spuriousLosses[i] = static_cast<double>(c.spuriousLosses - pr.spurious);
        uint64_t sup = cc->GetSuppressedLosses();
        m.suppressedLosses[i] = static_cast<double>(sup - pr.suppressed);
        m.persistentCongestion[i] = static_cast<double>(c.persistentCongestion - pr.pc);
        m.reinjected[i] = static_cast<double>(c.reinjectedChunks - pr.reinjected);
        double nh = o.NextHandoverAfter(now);
        m.timeToNextHandoverS[i] =
            std::isfinite(nh) ? nh - now : std::numeric_limits<double>::infinity();
        MpPathOracle::LinkState ls = o.StateAt(now);
        m.snrDb[i] = ls.snrDb;
        m.elevationDeg[i] = ls.elevationDeg;
        m.rtoCount[i] = static_cast<double>(c.rtoEvents - pr.rto);
        m.inLossState[i] = p.inLossState ? 1.0 : 0.0;
        Time toRto = m_sender->GetTimeToRetransmissionTimer(i);
        m.timeToRtoS[i] =
            toRto.IsNegative() ? std::numeric_limits<double>::infinity() : toRto.GetSeconds();
        m.ecnState[i] = static_cast<double>(static_cast<uint8_t>(m_sender->GetEcn(i).GetState()));
        m.ectSentPackets[i] = static_cast<double>(c.ectSentPackets - pr.ectSent);
        m.cePackets[i] = static_cast<double>(c.ceReported - pr.ce);

        pr.delivered = p.deliveredBytes;
        pr.sent = p.sentBytes;
        pr.sentPackets = p.sentPackets;
        pr.lost = p.lostPackets;
        pr.retx = p.retransmittedPackets;
        pr.pto = c.ptoEvents;
        pr.spurious = c.spuriousLosses;
        pr.suppressed = sup;
        pr.pc = c.persistentCongestion;
        pr.reinjected = c.reinjectedChunks;
        pr.rto = c.rtoEvents;
        pr.ectSent = c.ectSentPackets;
        pr.ce = c.ceReported;
        std::copy(std::begin(drops), std::end(drops), std::begin(pr.drops));
    }
    if (m_receiver)
    {
        uint64_t goodput = m_receiver->GetDeliveredBytes();
        double hol = m_receiver->GetHolByteSeconds();
        uint64_t dGood = goodput - m_prevGoodput;
        m.goodputBytes = static_cast<double>(dGood);
        m.reorderBufferBytes = static_cast<double>(m_receiver->GetReorderBufferBytes());
        m.holDelayS = dGood > 0 ? (hol - m_prevHol) / static_cast<double>(dGood) : 0.0;
        m.completed = m_receiver->IsComplete();
        m.completionTimeS =
            m.completed ? m_receiver->GetCompletionTime().GetSeconds() - m_cfg.startS : nan;
        m_prevGoodput = goodput;
        m_prevHol = hol;
    }
    m.crossTrafficRxBytes.assign(m_prevCross.size(), 0.0);
    for (std::size_t k = 0; k < m_prevCross.size(); ++k)
    {
        uint64_t rx = m_topo->GetCrossTrafficRxBytes(static_cast<uint32_t>(k));
        m.crossTrafficRxBytes[k] = static_cast<double>(rx - m_prevCross[k]);
        m_prevCross[k] = rx;
    }
    CollectSubflows();
    CollectFlows();
    CollectLinks(dtS);
    m_lastStepEndS = now;
}

void
LeoSimulation::CollectSubflows()
{
    LeoSimulationMeasurements& m = m_meas;
    std::size_t n = m_nPaths;
    for (const auto& flow : m_flows)
    {
        n += flow->GetNSubflows();
    }
    for (auto* v : {&m.subflowFlow,
                    &m.subflowCwndBytes,
                    &m.subflowBytesInFlight,
                    &m.subflowSrttS,
                    &m.subflowMinRttS,
                    &m.subflowRttvarS,
                    &m.subflowDeliveredBytes,
                    &m.subflowSentPackets,
                    &m.subflowLostPackets,
                    &m.subflowPacingRateBps,
                    &m.subflowPathState,
                    &m.subflowRtoCount,
                    &m.subflowInLossState,
                    &m.subflowTimeToRtoS,
                    &m.subflowEcnState,
                    &m.subflowEctSentPackets,
                    &m.subflowCePackets,
                    &m.subflowQueueDelayS})
    {
        v->resize(n);
    }
    // The connection's subflows are its transport paths, measured above.
    std::copy(m.cwndBytes.begin(), m.cwndBytes.end(), m.subflowCwndBytes.begin());
    std::copy(m.bytesInFlight.begin(), m.bytesInFlight.end(), m.subflowBytesInFlight.begin());
    std::copy(m.srttS.begin(), m.srttS.end(), m.subflowSrttS.begin());
    std::copy(m.minRttS.begin(), m.minRttS.end(), m.subflowMinRttS.begin());
    std::copy(m.rttvarS.begin(), m.rttvarS.end(), m.subflowRttvarS.begin());
    std::copy(m.deliveredBytes.begin(), m.deliveredBytes.end(), m.subflowDeliveredBytes.begin());
    std::copy(m.sentPackets.begin(), m.sentPackets.end(), m.subflowSentPackets.begin());
    std::copy(m.lostPackets.begin(), m.lostPackets.end(), m.subflowLostPackets.begin());
    std::copy(m.pacingRateBps.begin(), m.pacingRateBps.end(), m.subflowPacingRateBps.begin());
    std::copy(m.pathState.begin(), m.pathState.end(), m.subflowPathState.begin());
    std::copy(m.rtoCount.begin(), m.rtoCount.end(), m.subflowRtoCount.begin());
    std::copy(m.inLossState.begin(), m.inLossState.end(), m.subflowInLossState.begin());
    std::copy(m.timeToRtoS.begin(), m.timeToRtoS.end(), m.subflowTimeToRtoS.begin());
    std::copy(m.ecnState.begin(), m.ecnState.end(), m.subflowEcnState.begin());
    std::copy(m.ectSentPackets.begin(), m.ectSentPackets.end(), m.subflowEctSentPackets.begin());
    std::copy(m.cePackets.begin(), m.cePackets.end(), m.subflowCePackets.begin());
    std::copy(m.queueDelayS.begin(), m.queueDelayS.end(), m.subflowQueueDelayS.begin());
    std::fill(m.subflowFlow.begin(), m.subflowFlow.begin() + m_nPaths, 0.0);
    std::size_t k = m_nPaths;
    for (std::size_t f = 0; f < m_flows.size(); ++f)
    {
        m_flows[f]->CollectSubflows(m, k, static_cast<uint32_t>(f + 1));
        k += m_flows[f]->GetNSubflows();
    }
}

void
LeoSimulation::CollectFlows()
{
    LeoSimulationMeasurements& m = m_meas;
    const uint32_t n = GetNFlows();
    for (auto* v : {&m.flowGoodputBytes,
                    &m.flowPackets,
                    &m.flowOwdMeanS,
                    &m.flowOwdP50S,
                    &m.flowOwdP99S,
                    &m.flowOwdMaxS,
                    &m.flowQueueDelayS,
                    &m.flowCwndBytes,
                    &m.flowRttS,
                    &m.flowSentPackets})
    {
        v->assign(n, 0.0);
    }
    // Losses the mpquic senders declared, summed over each flow's subflows (NaN otherwise).
    m.flowLostPackets.assign(n, std::numeric_limits<double>::quiet_NaN());
    for (std::size_t k = 0; k < m.subflowFlow.size(); ++k)
    {
        double& lost = m.flowLostPackets[static_cast<std::size_t>(m.subflowFlow[k])];
        lost = (std::isnan(lost) ? 0.0 : lost) + m.subflowLostPackets[k];
    }
    m.flowGoodputBytes[0] = m.goodputBytes;
    if (m_sender)
    {
        LeoMpquicFlowApp::ConnectionState(m_sender, m.flowCwndBytes[0], m.flowRttS[0]);
    }
    else
    {
        m.flowCwndBytes[0] = m.cwndBytes[0];
        m.flowRttS[0] = m.srttS[0];
    }
    for (uint32_t f = 1; f < n; ++f)
    {
        LeoFlowApp& flow = *m_flows[f - 1];
        m.flowGoodputBytes[f] = static_cast<double>(flow.TakeDeliveredBytes());
        flow.GetWindowAndRtt(m.flowCwndBytes[f], m.flowRttS[f]);
    }
    for (uint32_t f = 0; f < n; ++f)
    {
        const LeoFlowMonitor::Summary s = m_monitor->TakeInterval(f);
        m.flowPackets[f] = static_cast<double>(s.packets);
        m.flowSentPackets[f] = static_cast<double>(s.sent);
        m.flowOwdMeanS[f] = s.owdMeanS;
        m.flowOwdP50S[f] = s.owdP50S;
        m.flowOwdP99S[f] = s.owdP99S;
        m.flowOwdMaxS[f] = s.owdMaxS;
        m.flowQueueDelayS[f] = s.queueMeanS;
    }
}

void
LeoSimulation::CollectLinks(double dtS)
{
    LeoSimulationMeasurements& m = m_meas;
    const uint32_t nLinks = m_topo->GetNLinks();
    for (auto* v : {&m.linkQueuePackets,
                    &m.linkTxBytes,
                    &m.linkUtilization,
                    &m.linkDropsOutage,
                    &m.linkDropsRandom,
                    &m.linkDropsOverflow,
                    &m.linkDropsAqm,
                    &m.linkDropsEcn,
                    &m.linkMarkPackets,
                    &m.linkSojournS})
    {
        v->assign(2 * nLinks, 0.0);
    }
    const double t0 = m_lastStepEndS;
    for (uint32_t l = 0; l < nLinks; ++l)
    {
        Ptr<LeoChannel> ch = m_topo->GetLink(l);
        Ptr<const LeoPathSchedule> sch = ch->GetSchedule();
        for (LeoDirection dir : {LeoDirection::DOWN, LeoDirection::UP})
        {
            const auto d = static_cast<uint32_t>(dir);
            const uint32_t k = 2 * l + d;
            Ptr<LeoNetDevice> dev =
                dir == LeoDirection::DOWN ? ch->GetServerDevice() : ch->GetClientDevice();
            const LeoDirectionCounters& c = ch->GetCounters(dir);
            LinkPrev& pv = m_linkPrev[k];
            m.linkQueuePackets[k] = static_cast<double>(dev->GetQueuedPackets());
            m.linkTxBytes[k] = static_cast<double>(c.txBytes - pv.tx);
            m.linkDropsOutage[k] =
                static_cast<double>(c.dropPackets[LEO_DROP_OUTAGE] - pv.drops[LEO_DROP_OUTAGE]);
            m.linkDropsRandom[k] =
                static_cast<double>(c.dropPackets[LEO_DROP_RANDOM] - pv.drops[LEO_DROP_RANDOM]);
            m.linkDropsOverflow[k] =
                static_cast<double>(c.dropPackets[LEO_DROP_OVERFLOW] - pv.drops[LEO_DROP_OVERFLOW]);
            m.linkDropsAqm[k] =
                static_cast<double>(c.dropPackets[LEO_DROP_AQM] - pv.drops[LEO_DROP_AQM]);
            m.linkDropsEcn[k] =
                static_cast<double>(c.dropPackets[LEO_DROP_ECN] - pv.drops[LEO_DROP_ECN]);
            m.linkMarkPackets[k] = static_cast<double>(c.markPackets - pv.marks);
            const uint64_t started = c.txPackets - pv.txPackets;
            m.linkSojournS[k] = started > 0 ? Time(c.sojournTicks - pv.sojournTicks).GetSeconds() /
                                                  static_cast<double>(started)
                                            : std::numeric_limits<double>::quiet_NaN();
            // Utilisation: bits sent over the capacity offered in the interval (midpoint rule
            // on up to 100 sub-intervals of at most one schedule step each).
            if (dtS > 0)
            {
                const int n =
                    static_cast<int>(std::clamp(std::ceil(dtS / sch->GetDt()), 1.0, 100.0));
                double capacityBits = 0;
                for (int j = 0; j < n; ++j)
                {
                    capacityBits += sch->RateAt(dir, t0 + (j + 0.5) * dtS / n) * dtS / n;
                }
                m.linkUtilization[k] =
                    capacityBits > 0 ? 8.0 * m.linkTxBytes[k] / capacityBits : 0.0;
            }
            pv.tx = c.txBytes;
            pv.txPackets = c.txPackets;
            pv.marks = c.markPackets;
            pv.sojournTicks = c.sojournTicks;
            for (std::size_t j = 0; j < LEO_N_DROP_CAUSES; ++j)
            {
                pv.drops[j] = c.dropPackets[j];
            }
        }
    }
    auto* hop = dynamic_cast<LeoHopTopology*>(m_topo.get());
    m.routeNoRouteDrops.assign(hop ? hop->GetNRoutes() : 0, 0.0);
    for (std::size_t r = 0; r < m.routeNoRouteDrops.size(); ++r)
    {
        const uint64_t v = hop->GetRouteNoRouteDrops(static_cast<uint32_t>(r));
        m.routeNoRouteDrops[r] = static_cast<double>(v - m_prevNoRoute[r]);
        m_prevNoRoute[r] = v;
    }
}

} // namespace ns3
