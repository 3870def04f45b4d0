// SPDX-License-Identifier: GPL-2.0-only
//
// LeoFlowMonitor: per-packet one-way and queueing delay of flows, summarised per step.

#ifndef LEO_FLOW_MONITOR_H
#define LEO_FLOW_MONITOR_H

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/packet.h"

#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * Measures the one-way delay (OWD) of every data packet of the monitored flows, in C++.
 *
 * A flow is known by the destination (address, port) of its data packets (the sink's). When
 * the source node's IPv4 layer sends such a packet ("SendOutgoing"), the monitor tags it with
 * the send time (LeoDelayTag); each LeoNetDevice adds the time the packet waited in its
 * queue; when the sink node's IPv4 layer delivers it ("LocalDeliver"), the monitor records
 * OWD = now - send time and the queueing delay. Retransmissions are packets too: each
 * transmission is measured, and each is counted as sent. TakeInterval() summarises and clears the
 * samples of a step. Only sources' sends and sinks' deliveries are hooked, so the reverse traffic
 * (ACKs) costs nothing.
 */
class LeoFlowMonitor
{
  public:
    /// Summary of one flow's packets delivered in one interval (NaN without samples).
    struct Summary
    {
        uint64_t packets{0}; //!< data packets delivered (their delays are summarised)
        uint64_t sent{0};    //!< data packets the source's IPv4 layer sent (retransmissions too)
        double owdMeanS{0}, owdP50S{0}, owdP99S{0}, owdMaxS{0};
        double queueMeanS{0};
    };

    explicit LeoFlowMonitor(uint32_t nFlows);

    /// Data packets to (@p sink, @p port) belong to @p flow.
    void AddFlowKey(uint32_t flow, Ipv4Address sink, uint16_t port);
    /// Hook the IPv4 layer of a flow's source node (its sends are timed). Once per node.
    void InstallSource(Ptr<Node> node);
    /// Hook the IPv4 layer of a flow's sink node (its deliveries are measured). Once per node.
    void InstallSink(Ptr<Node> node);

    /// The interval's summary of @p flow; its samples are cleared.
    Summary TakeInterval(uint32_t flow);
    uint32_t GetNFlows() const;

  private:
    static uint64_t Key(Ipv4Address address, uint16_t port);
    /// Flow of a packet whose payload starts with a UDP or TCP header; -1 if not monitored.
    int64_t FlowOf(const Ipv4Header& header, Ptr<const Packet> packet) const;
    void OnSend(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t iface);
    void OnDeliver(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t iface);

    std::unordered_map<uint64_t, uint32_t> m_flows;
    std::set<uint32_t> m_sources; //!< node ids hooked as sources
    std::set<uint32_t> m_sinks;   //!< node ids hooked as sinks
    std::vector<std::vector<double>> m_owd;
    std::vector<double> m_queueSum;
    std::vector<uint64_t> m_sent; //!< per flow, packets sent in the interval
};

} // namespace ns3

#endif // LEO_FLOW_MONITOR_H
