// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpFlow: one LEOTP flow installed on a topology: its Consumer, its Producer and the
// Midnodes of its route (cpp/doc/leotp.md, "Flows in a scenario").

#ifndef LEOTP_FLOW_H
#define LEOTP_FLOW_H

#include "helper/leo-network.h"
#include "model/leotp/leotp-consumer.h"
#include "model/leotp/leotp-midnode.h"
#include "model/leotp/leotp-producer.h"
#include "model/leotp/leotp-settings.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace ns3
{

class LeoHopTopology;

/**
 * @ingroup leotp
 * Where and how a LEOTP flow runs.
 */
struct LeotpFlowSpec
{
    uint32_t route{0}; //!< route (hop topology) or path (path topology) index
    uint16_t port{60000};
    uint32_t flowId{1};
    double startS{0.0};
    double stopS{std::numeric_limits<double>::infinity()};
    uint64_t fileBytes{0}; //!< 0 = bulk
    LeotpFlowSettings settings;
    /// RNG stream of the Midnode draw (the same for every flow: one draw per episode).
    int64_t stream{0};
};

/**
 * @ingroup leotp
 * Builds a LEOTP flow: the Producer on the route's server (data source) end, the Consumer on
 * its client end (both on the route's addresses and the flow's UDP port), and, in a hop
 * topology, a LeotpMidnode on each chosen inner node of the route (every step of the
 * timetable: the Midnode stays on its node when the route moves).
 *
 * Which nodes host a Midnode [REC, cpp/doc/leotp.md]: every ground station of the route; of its
 * other inner nodes (satellites, routers), the round(fraction x n) with the smallest draw of one
 * uniform per node from @c stream (uniform without replacement, the same draw for every flow
 * of the episode, so flows agree on which satellites carry Midnodes). Variant D: none. The
 * path topology has no inner nodes.
 */
class LeotpFlow
{
  public:
    /// Aggregated counters of the flow's Midnodes, and per Midnode snapshots.
    struct MidnodeView
    {
        uint32_t node;
        LeotpMidnode::FlowStats stats;
        double meanBufferBytes;
    };

    /**
     * @throws std::invalid_argument naming "<label>...": bad settings or route
     */
    LeotpFlow(LeoNetwork& topo, const LeotpFlowSpec& spec, const std::string& label);

    /// The inner nodes of @p route (every step), and those that host a Midnode.
    static std::vector<uint32_t> InnerNodes(const LeoHopTopology& hop, uint32_t route);
    static std::vector<uint32_t> ChooseMidnodes(const LeoHopTopology& hop,
                                                uint32_t route,
                                                const LeotpFlowSettings& s,
                                                int64_t stream);

    Ptr<LeotpConsumer> GetConsumer() const;
    Ptr<LeotpProducer> GetProducer() const;
    const std::vector<uint32_t>& GetMidnodeNodes() const;
    /// Per Midnode (in node order): counters and snapshots; meanBufferBytes since the last call.
    std::vector<MidnodeView> TakeMidnodeViews();
    const LeotpFlowSpec& GetSpec() const;
    /**
     * Losses the flow detected so far: holes its Consumer and its Midnodes confirmed and
     * requested (Algorithm 1's repair requests), without side effects.
     */
    uint64_t GetRepairRequests() const;

  private:
    LeotpFlowSpec m_spec;
    Ptr<LeotpConsumer> m_consumer;
    Ptr<LeotpProducer> m_producer;
    std::vector<uint32_t> m_midnodeNodes;
    std::vector<Ptr<LeotpMidnode>> m_midnodes;
};

} // namespace ns3

#endif // LEOTP_FLOW_H
