// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-flow-app.h"

#include "helper/leo-simulation.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace ns3
{

namespace
{
/// LEOTP flows: UDP port 60000 + flow index (above the native flows' 50000 + index).
constexpr uint32_t kLeotpPortBase = 60000;
/// A LEOTP connection under study: UDP port just below the LEOTP flows'.
constexpr uint16_t kLeotpConnectionPort = kLeotpPortBase - 1;
/// LEOTP's Midnode draw (one per episode): stream streamBase + this.
constexpr int64_t kLeotpMidnodeStream = 3000000;
} // namespace

void
LeoLeotpFlowApp::CheckSpec(const LeoFlowSpec& fl, const std::string& ff)
{
    fl.leotp.Check(ff + ".leotp");
    if (fl.fileBytes > 0xffffffffULL)
    {
        throw std::invalid_argument(ff + ".file_bytes: a leotp flow carries at most "
                                         "2**32 - 1 bytes (32-bit ranges)");
    }
}

void
LeoLeotpFlowApp::CheckConnection(const LeoSimulationConfig& cfg)
{
    cfg.leotp.Check("leotp");
    if (cfg.fileWorkload && cfg.fileBytes > 0xffffffffULL)
    {
        throw std::invalid_argument("file_bytes: a leotp connection carries at most "
                                    "2**32 - 1 bytes (32-bit ranges)");
    }
}

LeoLeotpFlowApp::LeoLeotpFlowApp(const LeotpFlowSpec& spec,
                                 const std::string& label,
                                 const LeoFlowContext& ctx)
    : m_ctx(ctx),
      m_flow(std::make_unique<LeotpFlow>(*ctx.topo, spec, label))
{
    // Data go to the route's client end on the flow's port (Interests to the server end).
    ctx.monitor->AddFlowKey(spec.flowId, ctx.topo->GetClientAddress(spec.route), spec.port);
    ctx.monitor->InstallSource(ctx.topo->GetRouteServer(spec.route));
    ctx.monitor->InstallSink(ctx.topo->GetRouteClient(spec.route));
}

namespace
{
/**
 * Where and how config flow @p index runs as a LeotpFlow.
 * @param fl the config's flow
 * @param index its index in the config's flows
 * @param ctx the simulation
 */
LeotpFlowSpec
FlowSpec(const LeoFlowSpec& fl, uint32_t index, const LeoFlowContext& ctx)
{
    LeotpFlowSpec spec;
    spec.route = fl.routes[0];
    spec.port = static_cast<uint16_t>(kLeotpPortBase + index);
    spec.flowId = index + 1;
    spec.startS = fl.startS;
    spec.stopS = fl.stopS;
    spec.fileBytes = fl.fileBytes;
    spec.settings = fl.leotp;
    // A full Data packet has the scenario's UDP payload: the chunk is that less the header.
    spec.settings.payloadBytes = ctx.cfg->packetBytes - LeotpHeader::kSizeWithBacklog;
    spec.stream = ctx.topo->GetOptions().streamBase + kLeotpMidnodeStream;
    return spec;
}
} // namespace

LeoLeotpFlowApp::LeoLeotpFlowApp(const LeoFlowSpec& fl, uint32_t index, const LeoFlowContext& ctx)
    : LeoLeotpFlowApp(FlowSpec(fl, index, ctx), "flows[" + std::to_string(index) + "]", ctx)
{
}

std::unique_ptr<LeoLeotpFlowApp>
LeoLeotpFlowApp::InstallConnection(const LeoFlowContext& ctx)
{
    // As a leotp flow of the config's "flows" is built, on the first transport path's route,
    // with flow id 0 (its measurement index) and its own port.
    const LeoSimulationConfig& cfg = *ctx.cfg;
    LeotpFlowSpec spec;
    spec.route = (*ctx.pathRoute)[cfg.subflowPaths[0]];
    spec.port = kLeotpConnectionPort;
    spec.flowId = 0;
    spec.startS = cfg.startS;
    spec.fileBytes = cfg.fileWorkload ? cfg.fileBytes : 0;
    spec.settings = cfg.leotp;
    spec.settings.payloadBytes = cfg.packetBytes - LeotpHeader::kSizeWithBacklog;
    spec.stream = ctx.topo->GetOptions().streamBase + kLeotpMidnodeStream;
    return std::unique_ptr<LeoLeotpFlowApp>(new LeoLeotpFlowApp(spec, "connection", ctx));
}

uint64_t
LeoLeotpFlowApp::GetDeliveredBytes() const
{
    return m_flow->GetConsumer()->GetDeliveredBytes();
}

void
LeoLeotpFlowApp::GetWindowAndRtt(double& cwndBytes, double& rttS) const
{
    const LeotpConsumer::Stats cs = m_flow->GetConsumer()->GetStats();
    cwndBytes = cs.cwnd * m_flow->GetSpec().settings.WirePacketBytes();
    rttS = cs.srttS;
}

LeotpFlow*
LeoLeotpFlowApp::GetLeotpFlow() const
{
    return m_flow.get();
}

void
LeoLeotpFlowApp::CollectConnection(LeoSimulationMeasurements& m, double dtS, double t1)
{
    // What the schedule says of every path (outage, handovers, SNR) is filled as for any path;
    // the paths other than 0 have no RTT (NaN) and are deactivated.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const LeoSimulationConfig& cfg = *m_ctx.cfg;
    const double now = Simulator::Now().GetSeconds();
    const double inv = dtS > 0 ? 1.0 / dtS : 0.0;
    const LeotpConsumer::Stats cs = m_flow->GetConsumer()->GetStats();
    const LeotpProducer::Stats ps = m_flow->GetProducer()->GetStats();
    const double wire = m_flow->GetSpec().settings.WirePacketBytes();
    const uint64_t lost = m_flow->GetRepairRequests() + cs.timeouts;
    const uint32_t route = m_flow->GetSpec().route;
    const LeoNetwork& topo = *m_ctx.topo;
    const uint64_t drops[4] = {topo.GetRouteDrops(route, LEO_DROP_OUTAGE),
                               topo.GetRouteDrops(route, LEO_DROP_RANDOM),
                               topo.GetRouteDrops(route, LEO_DROP_OVERFLOW),
                               topo.GetRouteDrops(route, LEO_DROP_AQM)};
    ConnectionPrev& pr = m_prev;
    for (uint32_t i = 0; i < cfg.subflowPaths.size(); ++i)
    {
        const LeoScheduleOracle& o = *(*m_ctx.oracles)[cfg.subflowPaths[i]];
        const bool on = i == 0;
        const bool has = on && cs.srttS > 0;
        m.cwndBytes[i] = on ? cs.cwnd * wire : 0.0;
        m.bytesInFlight[i] = on ? static_cast<double>(cs.pending) * wire : 0.0;
        m.srttS[i] = has ? cs.srttS : nan;
        m.minRttS[i] = nan; // the Consumer keeps no minimum of its end-to-end RTT
        m.rttvarS[i] = nan;
        m.latestRttS[i] = has ? cs.srttS : nan;
        m.deliveredBytes[i] = on ? static_cast<double>(cs.receivedBytes - pr.delivered) : 0.0;
        m.sentBytes[i] = on ? static_cast<double>(ps.payloadBytesSent - pr.sent) : 0.0;
        m.sentPackets[i] = on ? static_cast<double>(ps.packetsSent - pr.packets) : 0.0;
        m.deliveryRateBps[i] = 8.0 * m.deliveredBytes[i] * inv;
        m.sendRateBps[i] = 8.0 * m.sentBytes[i] * inv;
        m.lostPackets[i] = on ? static_cast<double>(lost - pr.lost) : 0.0;
        m.retransmittedPackets[i] =
            on ? static_cast<double>(ps.retransmittedPackets - pr.retx) : 0.0;
        m.dropsOutage[i] = on ? static_cast<double>(drops[0] - pr.drops[0]) : 0.0;
        m.dropsRandom[i] = on ? static_cast<double>(drops[1] - pr.drops[1]) : 0.0;
        m.dropsOverflow[i] = on ? static_cast<double>(drops[2] - pr.drops[2]) : 0.0;
        m.dropsAqm[i] = on ? static_cast<double>(drops[3] - pr.drops[3]) : 0.0;
        m.queueDelayS[i] = nan;
        m.inOutage[i] = o.InOutage(now) ? 1.0 : 0.0;
        m.pathState[i] =
            on ? 0.0 : static_cast<double>(static_cast<uint8_t>(MpPathState::DEACTIVATED));
        m.handovers[i] = dtS > 0 ? static_cast<double>(o.CountHandovers(t1, now)) : 0.0;
        m.ssthreshBytes[i] = inf;
        m.pacingRateBps[i] = on ? ps.rateBps : 0.0;
        m.rtoCount[i] = on ? static_cast<double>(cs.timeouts - pr.timeouts) : 0.0;
        m.timeToRtoS[i] = inf;
    }
    m.goodputBytes = static_cast<double>(cs.deliveredBytes - pr.goodput);
    m.reorderBufferBytes = static_cast<double>(cs.receivedBytes - cs.deliveredBytes);
    m.holDelayS = 0.0;
    m.completed = cs.completed;
    m.completionTimeS = cs.completed ? cs.completionTimeS - cfg.startS : nan;
    pr.goodput = cs.deliveredBytes;
    pr.delivered = cs.receivedBytes;
    pr.sent = ps.payloadBytesSent;
    pr.packets = ps.packetsSent;
    pr.retx = ps.retransmittedPackets;
    pr.timeouts = cs.timeouts;
    pr.lost = lost;
    std::copy(std::begin(drops), std::end(drops), std::begin(pr.drops));
}

} // namespace ns3
