// SPDX-License-Identifier: GPL-2.0-only
//
// LeoSimulation (leo-simulation.cc): the measurements of each step, collected in C++ (per
// path, per subflow, per flow, per link and direction).

#include "helper/leo-simulation.h"

#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace ns3
{

void
LeoSimulation::Collect(double dtS)
{
    LeoSimulationMeasurements& m = m_meas;
    const double now = Simulator::Now().GetSeconds();
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
                    &m.rtoCount,
                    &m.inLossState,
                    &m.timeToRtoS,
                    &m.ecnState,
                    &m.ectSentPackets,
                    &m.cePackets})
    {
        resize(*v);
    }
    m_flows[0]->CollectConnection(m, dtS, m_lastStepEndS);
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
    // The connection's subflows are its transport paths, measured per path; each flow's follow.
    std::size_t n = m_nPaths;
    for (std::size_t f = 1; f < m_flows.size(); ++f)
    {
        n += m_flows[f]->GetNSubflows();
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
    for (std::size_t f = 1; f < m_flows.size(); ++f)
    {
        m_flows[f]->CollectSubflows(m, k, static_cast<uint32_t>(f));
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
    // The connection: its goodput, its window summed over its paths and their smallest
    // smoothed RTT (NaN without a sample), as measured per path.
    m.flowGoodputBytes[0] = m.goodputBytes;
    m.flowRttS[0] = std::numeric_limits<double>::quiet_NaN();
    for (uint32_t i = 0; i < m_nPaths; ++i)
    {
        m.flowCwndBytes[0] += m.cwndBytes[i];
        if (!std::isnan(m.srttS[i]))
        {
            m.flowRttS[0] =
                std::isnan(m.flowRttS[0]) ? m.srttS[i] : std::min(m.flowRttS[0], m.srttS[i]);
        }
    }
    for (uint32_t f = 1; f < n; ++f)
    {
        LeoFlowApp& flow = *m_flows[f];
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
