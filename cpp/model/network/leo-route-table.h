// SPDX-License-Identifier: GPL-2.0-only
//
// LeoRouteTable: the node list of every route at every routing step (a timetable).

#ifndef LEO_ROUTE_TABLE_H
#define LEO_ROUTE_TABLE_H

#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-network
 * One route: step k, in force on [startS[k], startS[k + 1]), goes through nodes[k], from the
 * data source (server end) to the data sink (client end).
 */
struct LeoRouteSteps
{
    std::vector<double> startS;               //!< strictly increasing, startS[0] == 0
    std::vector<std::vector<uint32_t>> nodes; //!< one node list per step (>= 2 nodes each)
};

/**
 * @ingroup leo-network
 * The routes of a hop topology as a timetable, read by LeoTimetableRouting on every node.
 *
 * NextNode(route, towardSink, node, t) is the neighbour a packet of @p route at @p node
 * goes to at time @p t. A node on the route of the moment forwards along it. A node that is
 * not (a packet that was in flight when the route changed) forwards along the most recent
 * earlier step that contained it (make-before-break: the old route drains), looking back at
 * most kMaxLookBack steps; otherwise it has no next hop and the packet is dropped (cause
 * ROUTE). Mixing old and new routes cannot loop for ever: IPv4's TTL bounds it.
 */
class LeoRouteTable : public SimpleRefCount<LeoRouteTable>
{
  public:
    /// Steps searched backwards for a node that left the route.
    static constexpr uint32_t kMaxLookBack = 64;

    /**
     * @param routes the routes
     * @param nNodes number of nodes (node indices must be below it)
     * @throws std::invalid_argument naming "routes[i]..." for an empty route, a step with
     *         fewer than two nodes, an unknown node, a node visited twice in one step (a loop),
     *         unordered step times, or steps whose end nodes differ from the first step's
     */
    LeoRouteTable(std::vector<LeoRouteSteps> routes, uint32_t nNodes);

    uint32_t GetNRoutes() const;
    /// Node at the data source end.
    uint32_t GetSource(uint32_t route) const;
    /// Node at the data sink end.
    uint32_t GetSink(uint32_t route) const;
    /// Index of the step in force at @p t.
    uint32_t StepAt(uint32_t route, double t) const;
    const LeoRouteSteps& GetRoute(uint32_t route) const;

    /**
     * The next node from @p node toward the sink (or, with towardSink false, toward the
     * source) at time @p t; -1 if there is none (see the class description).
     */
    int64_t NextNode(uint32_t route, bool towardSink, uint32_t node, double t) const;

  private:
    std::vector<LeoRouteSteps> m_routes;
    mutable std::vector<uint32_t> m_cursor; //!< last step found per route (time only advances)
};

} // namespace ns3

#endif // LEO_ROUTE_TABLE_H
