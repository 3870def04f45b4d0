// SPDX-License-Identifier: GPL-2.0-only
//
// LeoFlowMonitor: per-packet one-way and queueing delay of flows, summarised per step.

#ifndef LEO_FLOW_MONITOR_H
#define LEO_FLOW_MONITOR_H

#include "model/network/leo-shim-header.h"

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/packet.h"

#include <cstddef>
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
 * the source node's IPv4 layer or LeoShimProtocol (leogym's transport, whose header carries
 * the same address and port) sends such a packet ("SendOutgoing"), the monitor tags it with
 * the send time (LeoDelayTag); each LeoNetDevice adds the time the packet waited in its
 * queue; when the sink node's IPv4 layer or LeoShimProtocol delivers it ("LocalDeliver"),
 * the monitor records
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

    /**
     * First-copy delays of a TCP flow's data segments, cumulative since the start (the spec's
     * recovery time, the paper's Fig. 10 metric; cpp/doc/leotp.md,
     * "Measurements"). A segment is known by its sequence number: its first transmission at the
     * source's IPv4 layer starts its clock, a later transmission of the same sequence number before
     * it arrives marks it retransmitted, and its first arrival at the sink's IPv4 layer stops the
     * clock. Samples are kept up to kMaxRecoverySamples per class (the counts go on).
     */
    struct Recovery
    {
        uint64_t clean{0};             //!< segments that arrived, never retransmitted before that
        uint64_t retransmitted{0};     //!< segments retransmitted before their first arrival
        std::vector<double> cleanOwdS; //!< their delays from the first transmission (s)
        std::vector<double> retxOwdS;
    };

    /// Samples kept per class and flow (the memory bound of a long run).
    static constexpr std::size_t kMaxRecoverySamples = 1000000;

    explicit LeoFlowMonitor(uint32_t nFlows);

    /// Data packets to (@p sink, @p port) belong to @p flow.
    void AddFlowKey(uint32_t flow, Ipv4Address sink, uint16_t port);
    /// Hook the IPv4 layer and the LeoShimProtocol (if any) of a flow's source node (its
    /// sends are timed). Once per node.
    void InstallSource(Ptr<Node> node);
    /// Hook the IPv4 layer and the LeoShimProtocol (if any) of a flow's sink node (its
    /// deliveries are measured). Once per node.
    void InstallSink(Ptr<Node> node);

    /// The interval's summary of @p flow; its samples are cleared.
    Summary TakeInterval(uint32_t flow);
    uint32_t GetNFlows() const;
    /// The first-copy delays of @p flow's TCP segments (empty for other transports).
    const Recovery& GetRecovery(uint32_t flow) const;

  private:
    /// A TCP data segment in flight: its first transmission and whether it was sent again.
    struct Segment
    {
        int64_t firstTicks{0};
        bool retransmitted{false};
    };

    /// The sequence number of a TCP segment that carries data (false for any other packet).
    static bool TcpData(Ptr<const Packet> packet, uint32_t& seq);
    void TcpSent(uint32_t flow, Ptr<const Packet> packet);
    void TcpArrived(uint32_t flow, Ptr<const Packet> packet);

    static uint64_t Key(Ipv4Address address, uint16_t port);
    /// Flow of a packet whose payload starts with a UDP or TCP header; -1 if not monitored.
    int64_t FlowOf(const Ipv4Header& header, Ptr<const Packet> packet) const;
    void OnSend(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t iface);
    void OnDeliver(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t iface);
    void OnShimSend(const LeoShimHeader& header, Ptr<const Packet> packet);
    void OnShimDeliver(const LeoShimHeader& header, Ptr<const Packet> packet);
    /// Tag a packet of @p flow with its send time.
    void Sent(uint32_t flow, Ptr<const Packet> packet);
    /// Record a tagged packet of @p flow that arrived (false if it carries no tag).
    bool Arrived(uint32_t flow, Ptr<const Packet> packet);

    std::unordered_map<uint64_t, uint32_t> m_flows;
    std::set<uint32_t> m_sources; //!< node ids hooked as sources
    std::set<uint32_t> m_sinks;   //!< node ids hooked as sinks
    std::vector<std::vector<double>> m_owd;
    std::vector<double> m_queueSum;
    std::vector<uint64_t> m_sent; //!< per flow, packets sent in the interval
    std::vector<std::unordered_map<uint32_t, Segment>> m_segments; //!< per flow, by sequence
    std::vector<Recovery> m_recovery;                              //!< per flow
};

} // namespace ns3

#endif // LEO_FLOW_MONITOR_H
