// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-flow.h"

#include "helper/leo-hop-topology.h"

#include "ns3/random-variable-stream.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>

namespace ns3
{

LeotpFlow::LeotpFlow(LeoNetwork& topo, const LeotpFlowSpec& spec, const std::string& label)
    : m_spec(spec)
{
    m_spec.settings.Check(label + ".leotp");
    if (spec.route >= topo.GetNRoutes())
    {
        throw std::invalid_argument(label + ".routes[0]: no route " + std::to_string(spec.route));
    }
    if (spec.fileBytes > 0xffffffffULL)
    {
        throw std::invalid_argument(label + ".file_bytes: a LEOTP flow carries at most 2**32 - 1 "
                                            "bytes (32-bit ranges, paper Table I)");
    }
    m_spec.settings.Finalize();
    const LeotpFlowSettings& s = m_spec.settings;
    m_producer = CreateObject<LeotpProducer>();
    m_producer->SetSettings(s);
    m_producer->SetEndpoints(topo.GetServerAddress(spec.route), topo.GetClientAddress(spec.route));
    m_producer->SetAttribute("FlowId", UintegerValue(spec.flowId));
    m_producer->SetAttribute("Port", UintegerValue(spec.port));
    m_producer->SetAttribute("FileBytes", UintegerValue(spec.fileBytes));
    m_consumer = CreateObject<LeotpConsumer>();
    m_consumer->SetSettings(s);
    m_consumer->SetEndpoints(topo.GetClientAddress(spec.route), topo.GetServerAddress(spec.route));
    m_consumer->SetAttribute("FlowId", UintegerValue(spec.flowId));
    m_consumer->SetAttribute("Port", UintegerValue(spec.port));
    m_consumer->SetAttribute("FileBytes", UintegerValue(spec.fileBytes));
    topo.GetRouteServer(spec.route)->AddApplication(m_producer);
    topo.GetRouteClient(spec.route)->AddApplication(m_consumer);
    // The Producer listens from the start; the Consumer drives the transfer.
    m_producer->SetStartTime(Seconds(0));
    m_consumer->SetStartTime(Seconds(spec.startS));
    if (std::isfinite(spec.stopS))
    {
        m_consumer->SetStopTime(Seconds(spec.stopS));
    }
    auto* hop = dynamic_cast<LeoHopTopology*>(&topo);
    if (!hop)
    {
        return; // the path topology: one link, no inner node
    }
    m_midnodeNodes = ChooseMidnodes(*hop, spec.route, s, spec.stream);
    for (uint32_t n : m_midnodeNodes)
    {
        Ptr<Node> node = hop->GetNode(n);
        Ptr<LeotpMidnode> mid = node->GetObject<LeotpMidnode>();
        if (!mid)
        {
            mid = CreateObject<LeotpMidnode>();
            mid->SetAttribute("CacheBlocks", UintegerValue(s.cacheBlocks));
            mid->Install(node);
            node->AggregateObject(mid);
        }
        else
        {
            UintegerValue have;
            mid->GetAttribute("CacheBlocks", have);
            mid->SetAttribute("CacheBlocks", UintegerValue(std::max(have.Get(), s.cacheBlocks)));
        }
        mid->AddFlow(spec.port, spec.flowId, s);
        m_midnodes.push_back(mid);
    }
}

std::vector<uint32_t>
LeotpFlow::InnerNodes(const LeoHopTopology& hop, uint32_t route)
{
    const LeoRouteSteps& rt = hop.GetRouteTable()->GetRoute(route);
    std::set<uint32_t> inner;
    for (const auto& nodes : rt.nodes)
    {
        for (std::size_t j = 1; j + 1 < nodes.size(); ++j)
        {
            inner.insert(nodes[j]);
        }
    }
    return {inner.begin(), inner.end()};
}

std::vector<uint32_t>
LeotpFlow::ChooseMidnodes(const LeoHopTopology& hop,
                          uint32_t route,
                          const LeotpFlowSettings& s,
                          int64_t stream)
{
    std::vector<uint32_t> chosen;
    if (s.variant == LeotpVariant::D)
    {
        return chosen;
    }
    std::vector<uint32_t> others;
    for (uint32_t n : InnerNodes(hop, route))
    {
        (hop.GetNodeKind(n) == "ground_station" ? chosen : others).push_back(n);
    }
    // One uniform per node of the network, in node order, from one stream: the same draw for
    // every flow of the episode.
    Ptr<UniformRandomVariable> rv = CreateObject<UniformRandomVariable>();
    rv->SetStream(stream);
    std::vector<double> u(hop.GetNNodes());
    for (double& x : u)
    {
        x = rv->GetValue();
    }
    std::stable_sort(others.begin(), others.end(), [&u](uint32_t a, uint32_t b) {
        return u[a] < u[b];
    });
    const auto k = static_cast<std::size_t>(
        std::llround(s.midnodeFraction * static_cast<double>(others.size())));
    chosen.insert(chosen.end(), others.begin(), others.begin() + std::min(k, others.size()));
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

Ptr<LeotpConsumer>
LeotpFlow::GetConsumer() const
{
    return m_consumer;
}

Ptr<LeotpProducer>
LeotpFlow::GetProducer() const
{
    return m_producer;
}

const std::vector<uint32_t>&
LeotpFlow::GetMidnodeNodes() const
{
    return m_midnodeNodes;
}

std::vector<LeotpFlow::MidnodeView>
LeotpFlow::TakeMidnodeViews()
{
    std::vector<MidnodeView> out;
    for (std::size_t i = 0; i < m_midnodes.size(); ++i)
    {
        out.push_back({m_midnodeNodes[i],
                       m_midnodes[i]->GetFlowStats(m_spec.port),
                       m_midnodes[i]->TakeMeanBufferBytes(m_spec.port)});
    }
    return out;
}

uint64_t
LeotpFlow::GetRepairRequests() const
{
    uint64_t n = m_consumer->GetStats().shrInterests;
    for (const Ptr<LeotpMidnode>& mid : m_midnodes)
    {
        n += mid->GetFlowStats(m_spec.port).shrInterests;
    }
    return n;
}

const LeotpFlowSpec&
LeotpFlow::GetSpec() const
{
    return m_spec;
}

} // namespace ns3
