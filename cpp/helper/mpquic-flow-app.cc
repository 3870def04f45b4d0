// SPDX-License-Identifier: GPL-2.0-only

#include "mpquic-flow-app.h"

#include "helper/leo-simulation.h"
#include "model/registry/mp-algorithm-registry.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{
/// The connection under study: ports 10000 + transport path.
constexpr uint16_t kTransportPortBase = 10000;
/// Congestion controllers of the connection: stream 30000 + transport path.
constexpr int64_t kCcStreamBase = 30000;
/// Extra MPQUIC flows: ports 20000 + 8 * flow + subflow (below the native flows' 50000).
constexpr uint32_t kFlowPortBase = 20000;
/// Congestion controllers of extra MPQUIC flows: 40000 + 8 * flow + subflow.
constexpr int64_t kFlowCcStreamBase = 40000;
} // namespace

std::pair<Ptr<MpQuicSender>, Ptr<MpQuicReceiver>>
MakeMpQuicConnection(const LeoSimulationConfig& cfg, uint64_t fileBytes, uint16_t flowId, bool ecn)
{
    Ptr<MpQuicSender> sender = CreateObject<MpQuicSender>();
    sender->SetAttribute("Carrier", EnumValue(cfg.carrier));
    sender->SetAttribute("FlowId", UintegerValue(flowId));
    sender->SetAttribute("PacketBytes", UintegerValue(cfg.packetBytes));
    sender->SetAttribute("MaxAckDelay", TimeValue(Seconds(cfg.maxAckDelayS)));
    sender->SetAttribute("InitialRtt", TimeValue(Seconds(cfg.initialRttS)));
    sender->SetAttribute("Pacing", BooleanValue(cfg.pacing));
    sender->SetAttribute("ReinjectOnPto", BooleanValue(cfg.reinjectOnPto));
    sender->SetAttribute("CwndValidation", UintegerValue(cfg.cwndValidation));
    sender->SetAttribute("SendBufferBytes", UintegerValue(cfg.sendBufferBytes));
    sender->SetAttribute("FileBytes", UintegerValue(fileBytes));
    sender->SetAttribute("InitialMaxData", UintegerValue(cfg.receiveWindowBytes));
    sender->SetRecovery(cfg.recovery);
    sender->SetAttribute("Ecn", BooleanValue(ecn));
    Ptr<MpQuicReceiver> receiver = CreateObject<MpQuicReceiver>();
    receiver->SetAttribute("Ecn", BooleanValue(ecn));
    receiver->SetAttribute("Carrier", EnumValue(cfg.carrier));
    receiver->SetAttribute("FlowId", UintegerValue(flowId));
    receiver->SetAttribute("AckEvery", UintegerValue(cfg.ackEvery));
    receiver->SetAttribute("MaxAckDelay", TimeValue(Seconds(cfg.maxAckDelayS)));
    receiver->SetAttribute("ReceiveWindow", UintegerValue(cfg.receiveWindowBytes));
    return {sender, receiver};
}

void
LeoMpquicFlowApp::CheckSpec(const LeoFlowSpec& fl, const std::string& ff)
{
    MpAlgorithmRegistry::Cc().Validate(fl.cc, fl.ccParams, ff + ".cc", ff + ".cc_params");
    MpAlgorithmRegistry::Scheduler().Validate(fl.scheduler,
                                              fl.schedulerParams,
                                              ff + ".scheduler",
                                              ff + ".scheduler_params");
    // A flow's windows may be the agent's (cc "external": SetFlowCwnd); its packet
    // scheduling may not (one external scheduler, the connection's).
    if (fl.scheduler == "external")
    {
        throw std::invalid_argument(ff + ".scheduler: 'external' is only for the "
                                         "connection under study (a flow's cc may be "
                                         "'external')");
    }
}

LeoMpquicFlowApp::Setup
LeoMpquicFlowApp::FlowSetup(const LeoFlowSpec& fl, uint32_t index, const LeoFlowContext& ctx)
{
    Setup setup;
    setup.flowId = index + 1;
    setup.label = "flows[" + std::to_string(index) + "].";
    setup.cc = &fl.cc;
    setup.ccParams = &fl.ccParams;
    setup.scheduler = &fl.scheduler;
    setup.schedulerParams = &fl.schedulerParams;
    setup.fileBytes = fl.fileBytes;
    setup.ecn = fl.ecn;
    setup.startS = fl.startS;
    setup.stopS = fl.stopS;
    setup.endRoute = fl.routes[0];
    for (uint32_t j = 0; j < fl.routes.size(); ++j)
    {
        SubflowSetup sub;
        sub.route = fl.routes[j];
        sub.port = static_cast<uint16_t>(kFlowPortBase + 8 * index + j);
        sub.ccStream = kFlowCcStreamBase + 8 * index + j;
        // The oracle of the path whose route this is, if any (MACO, freeze, ALCS read it).
        for (std::size_t tp = 0; tp < ctx.pathRoute->size(); ++tp)
        {
            if ((*ctx.pathRoute)[tp] == sub.route)
            {
                sub.oracle = (*ctx.oracles)[tp].get();
                break;
            }
        }
        sub.topologyPath = sub.route;
        setup.subflows.push_back(sub);
    }
    return setup;
}

LeoMpquicFlowApp::LeoMpquicFlowApp(const LeoFlowSpec& fl, uint32_t index, const LeoFlowContext& ctx)
    : LeoMpquicFlowApp(FlowSetup(fl, index, ctx), ctx)
{
}

std::unique_ptr<LeoMpquicFlowApp>
LeoMpquicFlowApp::InstallConnection(const LeoFlowContext& ctx)
{
    const LeoSimulationConfig& cfg = *ctx.cfg;
    Setup setup;
    setup.flowId = 0;
    setup.cc = &cfg.cc;
    setup.ccParams = &cfg.ccParams;
    setup.scheduler = &cfg.scheduler;
    setup.schedulerParams = &cfg.schedulerParams;
    setup.fileBytes = cfg.fileWorkload ? cfg.fileBytes : 0;
    setup.ecn = cfg.ecn;
    setup.startS = cfg.startS;
    // Every route of the connection shares its end nodes (checked): those of path 0's route.
    setup.endRoute = (*ctx.pathRoute)[0];
    for (uint32_t i = 0; i < cfg.subflowPaths.size(); ++i)
    {
        const uint32_t tp = cfg.subflowPaths[i];
        SubflowSetup sub;
        sub.route = (*ctx.pathRoute)[tp];
        sub.port = static_cast<uint16_t>(kTransportPortBase + i);
        sub.ccStream = kCcStreamBase + i;
        sub.oracle = (*ctx.oracles)[tp].get();
        sub.topologyPath = tp;
        sub.state = cfg.initialPathStates.empty() ? MpPathState::ACTIVE : cfg.initialPathStates[i];
        setup.subflows.push_back(sub);
    }
    return std::unique_ptr<LeoMpquicFlowApp>(new LeoMpquicFlowApp(setup, ctx));
}

LeoMpquicFlowApp::LeoMpquicFlowApp(const Setup& setup, const LeoFlowContext& ctx)
    : m_ctx(ctx)
{
    const std::string& ff = setup.label;
    LeoNetwork& topo = *ctx.topo;
    std::tie(m_sender, m_receiver) = MakeMpQuicConnection(*ctx.cfg,
                                                          setup.fileBytes,
                                                          static_cast<uint16_t>(setup.flowId),
                                                          setup.ecn);
    m_subPrev.assign(setup.subflows.size(), SubflowPrev());
    for (const SubflowSetup& sub : setup.subflows)
    {
        Ptr<MpCongestionOps> cc =
            DynamicCast<MpCongestionOps>(MpAlgorithmRegistry::Cc().Create(*setup.cc,
                                                                          *setup.ccParams,
                                                                          ff + "cc",
                                                                          ff + "cc_params"));
        cc->AssignStreams(sub.ccStream);
        MpQuicSender::PathConfig pc;
        pc.local = topo.GetServerAddress(sub.route);
        pc.peer = topo.GetClientAddress(sub.route);
        pc.port = sub.port;
        pc.cc = cc;
        pc.oracle = sub.oracle;
        pc.topologyPath = sub.topologyPath;
        pc.state = sub.state;
        m_sender->AddPath(pc);
        m_receiver->AddPath(topo.GetClientAddress(sub.route),
                            topo.GetServerAddress(sub.route),
                            sub.port);
        ctx.monitor->AddFlowKey(setup.flowId, topo.GetClientAddress(sub.route), sub.port);
    }
    m_sender->SetScheduler(
        DynamicCast<MpScheduler>(MpAlgorithmRegistry::Scheduler().Create(*setup.scheduler,
                                                                         *setup.schedulerParams,
                                                                         ff + "scheduler",
                                                                         ff + "scheduler_params")));
    Ptr<Node> server = topo.GetRouteServer(setup.endRoute);
    Ptr<Node> client = topo.GetRouteClient(setup.endRoute);
    server->AddApplication(m_sender);
    client->AddApplication(m_receiver);
    m_receiver->SetStartTime(Seconds(0));
    m_sender->SetStartTime(Seconds(setup.startS));
    if (std::isfinite(setup.stopS))
    {
        m_sender->SetStopTime(Seconds(setup.stopS));
    }
    ctx.monitor->InstallSource(server);
    ctx.monitor->InstallSink(client);
}

uint64_t
LeoMpquicFlowApp::GetDeliveredBytes() const
{
    return m_receiver->GetDeliveredBytes();
}

void
LeoMpquicFlowApp::GetWindowAndRtt(double& cwndBytes, double& rttS) const
{
    cwndBytes = 0;
    rttS = std::numeric_limits<double>::quiet_NaN();
    for (uint32_t i = 0; i < m_sender->GetNPaths(); ++i)
    {
        const MpPathInfo& p = m_sender->GetPath(i);
        cwndBytes += static_cast<double>(p.cwnd);
        if (p.HasRttSample())
        {
            const double s = p.rtt->GetSmoothed().GetSeconds();
            rttS = std::isnan(rttS) ? s : std::min(rttS, s);
        }
    }
}

uint32_t
LeoMpquicFlowApp::GetNSubflows() const
{
    return static_cast<uint32_t>(m_subPrev.size());
}

Ptr<MpQuicSender>
LeoMpquicFlowApp::GetSender() const
{
    return m_sender;
}

double
LeoMpquicFlowApp::TakeQueueDelay(uint32_t i, SubflowPrev& pr) const
{
    double delayS = std::numeric_limits<double>::quiet_NaN();
    if (i < m_receiver->GetNPaths())
    {
        const MpQuicReceiver::PathCounters& rc = m_receiver->GetCounters(i);
        const uint64_t timed = rc.timedPackets - pr.timedPackets;
        if (timed > 0)
        {
            delayS = Time(rc.queueTicks - pr.queueTicks).GetSeconds() / static_cast<double>(timed);
        }
        pr.timedPackets = rc.timedPackets;
        pr.queueTicks = rc.queueTicks;
    }
    return delayS;
}

void
LeoMpquicFlowApp::CollectSubflows(LeoSimulationMeasurements& m, std::size_t first, uint32_t flow)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::size_t k = first;
    for (uint32_t i = 0; i < m_subPrev.size(); ++i, ++k)
    {
        const MpPathInfo& p = m_sender->GetPath(i);
        const MpQuicSender::PathCounters& c = m_sender->GetCounters(i);
        SubflowPrev& pr = m_subPrev[i];
        const bool has = p.HasRttSample();
        m.subflowFlow[k] = static_cast<double>(flow);
        m.subflowCwndBytes[k] = static_cast<double>(p.cwnd);
        m.subflowBytesInFlight[k] = static_cast<double>(p.bytesInFlight);
        m.subflowSrttS[k] = has ? p.rtt->GetSmoothed().GetSeconds() : nan;
        m.subflowMinRttS[k] = has ? p.rtt->GetMin().GetSeconds() : nan;
        m.subflowRttvarS[k] = has ? p.rtt->GetRttVar().GetSeconds() : nan;
        m.subflowDeliveredBytes[k] = static_cast<double>(p.deliveredBytes - pr.delivered);
        m.subflowSentPackets[k] = static_cast<double>(p.sentPackets - pr.sentPackets);
        m.subflowLostPackets[k] = static_cast<double>(p.lostPackets - pr.lost);
        m.subflowPacingRateBps[k] = p.pacingRateBps;
        m.subflowPathState[k] = static_cast<double>(static_cast<uint8_t>(p.state));
        m.subflowRtoCount[k] = static_cast<double>(c.rtoEvents - pr.rto);
        m.subflowInLossState[k] = p.inLossState ? 1.0 : 0.0;
        const Time toRto = m_sender->GetTimeToRetransmissionTimer(i);
        m.subflowTimeToRtoS[k] =
            toRto.IsNegative() ? std::numeric_limits<double>::infinity() : toRto.GetSeconds();
        m.subflowEcnState[k] =
            static_cast<double>(static_cast<uint8_t>(m_sender->GetEcn(i).GetState()));
        m.subflowEctSentPackets[k] = static_cast<double>(c.ectSentPackets - pr.ectSent);
        m.subflowCePackets[k] = static_cast<double>(c.ceReported - pr.ce);
        pr.delivered = p.deliveredBytes;
        pr.sentPackets = p.sentPackets;
        pr.lost = p.lostPackets;
        pr.rto = c.rtoEvents;
        pr.ectSent = c.ectSentPackets;
        pr.ce = c.ceReported;
        m.subflowQueueDelayS[k] = TakeQueueDelay(i, pr);
    }
}

void
LeoMpquicFlowApp::CollectConnection(LeoSimulationMeasurements& m, double dtS, double t1)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const double now = Simulator::Now().GetSeconds();
    const double inv = dtS > 0 ? 1.0 / dtS : 0.0;
    const LeoNetwork& topo = *m_ctx.topo;
    for (uint32_t i = 0; i < m_subPrev.size(); ++i)
    {
        const MpPathInfo& p = m_sender->GetPath(i);
        const MpQuicSender::PathCounters& c = m_sender->GetCounters(i);
        Ptr<MpCongestionOps> cc = m_sender->GetCc(i);
        SubflowPrev& pr = m_subPrev[i];
        const uint32_t tp = p.topologyPath;
        const LeoScheduleOracle& o = *(*m_ctx.oracles)[tp];
        m.cwndBytes[i] = static_cast<double>(p.cwnd);
        m.bytesInFlight[i] = static_cast<double>(p.bytesInFlight);
        const bool has = p.HasRttSample();
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
        const uint32_t route = (*m_ctx.pathRoute)[tp];
        const uint64_t drops[4] = {topo.GetRouteDrops(route, LEO_DROP_OUTAGE),
                                   topo.GetRouteDrops(route, LEO_DROP_RANDOM),
                                   topo.GetRouteDrops(route, LEO_DROP_OVERFLOW),
                                   topo.GetRouteDrops(route, LEO_DROP_AQM)};
        m.dropsOutage[i] = static_cast<double>(drops[0] - pr.drops[0]);
        m.dropsRandom[i] = static_cast<double>(drops[1] - pr.drops[1]);
        m.dropsOverflow[i] = static_cast<double>(drops[2] - pr.drops[2]);
        m.dropsAqm[i] = static_cast<double>(drops[3] - pr.drops[3]);
        m.queueDelayS[i] = TakeQueueDelay(i, pr);
        m.inOutage[i] = o.InOutage(now) ? 1.0 : 0.0;
        m.pathState[i] = static_cast<double>(static_cast<uint8_t>(p.state));
        m.handovers[i] = dtS > 0 ? static_cast<double>(o.CountHandovers(t1, now)) : 0.0;
        m.ssthreshBytes[i] = p.ssthresh == std::numeric_limits<uint64_t>::max()
                                 ? inf
                                 : static_cast<double>(p.ssthresh);
        m.pacingRateBps[i] = p.pacingRateBps;
        m.ptoCount[i] = static_cast<double>(c.ptoEvents - pr.pto);
        m.rateSampleBps[i] = p.deliveryRateBps;
        m.spuriousLosses[i] = static_cast<double>(c.spuriousLosses - pr.spurious);
        const uint64_t sup = cc->GetSuppressedLosses();
        m.suppressedLosses[i] = static_cast<double>(sup - pr.suppressed);
        m.persistentCongestion[i] = static_cast<double>(c.persistentCongestion - pr.pc);
        m.reinjected[i] = static_cast<double>(c.reinjectedChunks - pr.reinjected);
        m.rtoCount[i] = static_cast<double>(c.rtoEvents - pr.rto);
        m.inLossState[i] = p.inLossState ? 1.0 : 0.0;
        const Time toRto = m_sender->GetTimeToRetransmissionTimer(i);
        m.timeToRtoS[i] = toRto.IsNegative() ? inf : toRto.GetSeconds();
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
    const uint64_t goodput = m_receiver->GetDeliveredBytes();
    const double hol = m_receiver->GetHolByteSeconds();
    const uint64_t dGood = goodput - m_prevGoodput;
    m.goodputBytes = static_cast<double>(dGood);
    m.reorderBufferBytes = static_cast<double>(m_receiver->GetReorderBufferBytes());
    m.holDelayS = dGood > 0 ? (hol - m_prevHol) / static_cast<double>(dGood) : 0.0;
    m.completed = m_receiver->IsComplete();
    m.completionTimeS =
        m.completed ? m_receiver->GetCompletionTime().GetSeconds() - m_ctx.cfg->startS : nan;
    m_prevGoodput = goodput;
    m_prevHol = hol;
}

} // namespace ns3
