// SPDX-License-Identifier: GPL-2.0-only

#include "mpquic-flow-app.h"

#include "helper/leo-simulation.h"
#include "model/registry/mp-algorithm-registry.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{
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

LeoMpquicFlowApp::LeoMpquicFlowApp(const LeoFlowSpec& fl, uint32_t index, const LeoFlowContext& ctx)
{
    const std::string ff = "flows[" + std::to_string(index) + "]";
    const uint32_t flowId = index + 1;
    LeoNetwork& topo = *ctx.topo;
    std::tie(m_sender, m_receiver) =
        MakeMpQuicConnection(*ctx.cfg, fl.fileBytes, static_cast<uint16_t>(flowId), fl.ecn);
    m_subPrev.assign(fl.routes.size(), SubflowPrev());
    for (uint32_t j = 0; j < fl.routes.size(); ++j)
    {
        const uint32_t route = fl.routes[j];
        const auto port = static_cast<uint16_t>(kFlowPortBase + 8 * index + j);
        Ptr<MpCongestionOps> cc = DynamicCast<MpCongestionOps>(
            MpAlgorithmRegistry::Cc().Create(fl.cc, fl.ccParams, ff + ".cc", ff + ".cc_params"));
        cc->AssignStreams(kFlowCcStreamBase + 8 * index + j);
        MpQuicSender::PathConfig pc;
        pc.local = topo.GetServerAddress(route);
        pc.peer = topo.GetClientAddress(route);
        pc.port = port;
        pc.cc = cc;
        // The oracle of the path whose route this is, if any (MACO, freeze, ALCS read it).
        pc.oracle = nullptr;
        for (std::size_t tp = 0; tp < ctx.pathRoute->size(); ++tp)
        {
            if ((*ctx.pathRoute)[tp] == route)
            {
                pc.oracle = (*ctx.oracles)[tp].get();
                break;
            }
        }
        pc.topologyPath = route;
        pc.state = MpPathState::ACTIVE;
        m_sender->AddPath(pc);
        m_receiver->AddPath(topo.GetClientAddress(route), topo.GetServerAddress(route), port);
        ctx.monitor->AddFlowKey(flowId, topo.GetClientAddress(route), port);
    }
    m_sender->SetScheduler(DynamicCast<MpScheduler>(
        MpAlgorithmRegistry::Scheduler().Create(fl.scheduler,
                                                fl.schedulerParams,
                                                ff + ".scheduler",
                                                ff + ".scheduler_params")));
    Ptr<Node> server = topo.GetRouteServer(fl.routes[0]);
    Ptr<Node> client = topo.GetRouteClient(fl.routes[0]);
    server->AddApplication(m_sender);
    client->AddApplication(m_receiver);
    m_receiver->SetStartTime(Seconds(0));
    m_sender->SetStartTime(Seconds(fl.startS));
    if (std::isfinite(fl.stopS))
    {
        m_sender->SetStopTime(Seconds(fl.stopS));
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
LeoMpquicFlowApp::ConnectionState(Ptr<MpQuicSender> sender, double& cwndBytes, double& rttS)
{
    cwndBytes = 0;
    rttS = std::numeric_limits<double>::quiet_NaN();
    for (uint32_t i = 0; i < sender->GetNPaths(); ++i)
    {
        const MpPathInfo& p = sender->GetPath(i);
        cwndBytes += static_cast<double>(p.cwnd);
        if (p.HasRttSample())
        {
            const double s = p.rtt->GetSmoothed().GetSeconds();
            rttS = std::isnan(rttS) ? s : std::min(rttS, s);
        }
    }
}

void
LeoMpquicFlowApp::GetWindowAndRtt(double& cwndBytes, double& rttS) const
{
    ConnectionState(m_sender, cwndBytes, rttS);
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
        m.subflowQueueDelayS[k] = nan;
        if (i < m_receiver->GetNPaths())
        {
            const MpQuicReceiver::PathCounters& rc = m_receiver->GetCounters(i);
            const uint64_t timed = rc.timedPackets - pr.timedPackets;
            if (timed > 0)
            {
                m.subflowQueueDelayS[k] =
                    Time(rc.queueTicks - pr.queueTicks).GetSeconds() / static_cast<double>(timed);
            }
            pr.timedPackets = rc.timedPackets;
            pr.queueTicks = rc.queueTicks;
        }
    }
}

} // namespace ns3
