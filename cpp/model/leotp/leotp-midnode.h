// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpMidnode: LEOTP on a satellite or ground station (LEOTP, ICDCS 2023, sections III-IV): it
// intercepts the flows' Interests and Data, answers from its cache, repairs losses on its
// upstream hop and runs the hop-by-hop congestion control.

#ifndef LEOTP_MIDNODE_H
#define LEOTP_MIDNODE_H

#include "leotp-cache.h"
#include "leotp-hole-detector.h"
#include "leotp-hop-controller.h"
#include "leotp-send-buffer.h"
#include "leotp-settings.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/udp-l4-protocol.h"

#include <cstdint>
#include <map>
#include <memory>

namespace ns3
{

class LeoTimetableRouting;

/**
 * @ingroup leotp
 * A Midnode, aggregated to a node of the hop topology (cpp/doc/leotp.md, "Midnode"). Its
 * node's LeoTimetableRouting hands it the transit packets of the LEOTP flows it serves (by
 * UDP port), the ns-3 analogue of the paper's netfilter redirect; everything else is
 * forwarded as usual. It sends with the endpoints' addresses, through the node's UDP and IPv4
 * layers along the timetable's route of the moment (the analogue of IP_TRANSPARENT), so the
 * 28 bytes of UDP/IPv4 stay on the wire.
 *
 * Per flow it keeps soft state [P], created on the flow's first packet here and deleted after
 * the flow's idle timeout (2 s) without packets [REC]; a node that leaves the route keeps it (and
 * drains its buffer along its last forwarding entry) until then. The cache is the node's, shared by
 * its flows.
 *
 * Interest from downstream (Responder side): take its OWD and sendRate (the rate limiter of
 * the flow's sending buffer); serve the longest cached prefix of its range; forward the rest
 * upstream as this node's own Interest (its timestamp, its sendRate for the upstream hop).
 *
 * Data or VPH from upstream (Requester side): a hop-RTT sample and the bytes for throughput;
 * Algorithm 1 (may queue a VPH before the packet and send a repair Interest upstream); cache
 * the Data; queue the packet toward downstream; an empty Interest if none went upstream for
 * 0.9 hopRTT. A new upstream neighbour (input interface) resets the hop controller [REC].
 *
 * Variants (LeotpVariant): B has no cache, no SHR and no VPH; C neither rate-limits nor
 * re-stamps (Interests go upstream with the Consumer's timestamp and sendRate, Data leave at
 * once); D installs no Midnode.
 */
class LeotpMidnode : public Object
{
  public:
    /// Counters of one flow at this node, and snapshots of its state.
    struct FlowStats
    {
        uint64_t dataIn{0};       //!< Data and VPHs from upstream
        uint64_t interestsIn{0};  //!< Interests from downstream
        uint64_t dataOut{0};      //!< Data and VPHs sent downstream
        uint64_t interestsOut{0}; //!< Interests sent upstream (all kinds)
        uint64_t vphsSent{0};     //!< void headers this node originated
        uint64_t shrInterests{0}; //!< repair requests for holes this node confirmed
        uint64_t emptyInterests{0};
        uint64_t cacheHitBytes{0}; //!< bytes served from the cache
        uint64_t noRoute{0};       //!< packets dropped for want of a route
        uint64_t bufferDrops{0};
        uint64_t ttlDrops{0};
        uint64_t states{0};         //!< soft states created
        uint64_t expiries{0};       //!< soft states expired
        uint64_t resets{0};         //!< hop-controller resets (new upstream neighbour)
        uint64_t offRouteDataIn{0}; //!< Data and VPHs from a node that is not the route's
                                    //!< upstream neighbour (one left off the route): no sample
        bool active{false};         //!< soft state exists now
        double rateBps{0};          //!< Rate_nextHop (the buffer's release rate)
        double sendRateBps{0};      //!< the rate it asks of its upstream neighbour
        uint64_t bufferBytes{0};
        uint64_t bufferPackets{0};
        double cwnd{0};
        double hopRttS{0};
        double throughputBps{0};
    };

    static TypeId GetTypeId();
    LeotpMidnode();
    ~LeotpMidnode() override;

    /// Take over @p node's LEOTP traffic (its LeoTimetableRouting's interceptor).
    /// @throws std::invalid_argument if the node has no LeoTimetableRouting
    void Install(Ptr<Node> node);
    /// Serve the flow on UDP @p port (its settings decide the variant and parameters).
    void AddFlow(uint16_t port, uint32_t flowId, const LeotpFlowSettings& settings);
    bool ServesFlow(uint16_t port) const;
    FlowStats GetFlowStats(uint16_t port) const;
    /// Average of the flow's sending-buffer bytes over time since the last call (and reset).
    double TakeMeanBufferBytes(uint16_t port);
    const LeotpCache* GetCache() const;

  protected:
    void DoDispose() override;

  private:
    struct Flow;

    bool Intercept(Ptr<const Packet> packet, const Ipv4Header& ip, uint32_t iif);
    Flow& State(Flow& f, const Ipv4Header& ip, bool interest);
    void OnInterest(Flow& f, const LeotpHeader& h, uint32_t iif, uint8_t ttl);
    void OnData(Flow& f, const LeotpHeader& h, Ptr<Packet> payload, uint32_t iif, uint8_t ttl);
    /// Send an Interest upstream (own timestamp and rate, or @p passOn's in variant C).
    void SendInterest(Flow& f,
                      uint64_t start,
                      uint64_t end,
                      uint8_t ttl,
                      const LeotpHeader* passOn);
    void RequestHole(Flow& f, uint64_t start, uint64_t end);
    void Release(Flow& f, LeotpQueued&& q);
    void SendUdp(Flow& f, Ptr<Packet> p, bool towardConsumer, uint8_t ttl);
    /// The interface toward the flow's upstream neighbour on the route now (where this node's
    /// Interests go), or -1 without a route.
    int64_t UpstreamInterface(const Flow& f) const;
    /// The interface toward the flow's downstream neighbour on the route now (where its Data
    /// go), or -1 without a route.
    int64_t DownstreamInterface(const Flow& f) const;
    /// The interface toward @p dst on the route now, or -1.
    int64_t InterfaceToward(Ipv4Address src, Ipv4Address dst) const;
    double HopRate(const Flow& f) const;
    void ArmHoleTimer(Flow& f);
    void HoleTimerFired(uint16_t port);
    void Sweep();
    void Touch(Flow& f);
    void AccountBuffer(Flow& f);

    Ptr<Node> m_node;
    Ptr<LeoTimetableRouting> m_routing;
    Ptr<UdpL4Protocol> m_udp;
    uint64_t m_cacheBlocks{65536};
    std::unique_ptr<LeotpCache> m_cache;
    std::map<uint16_t, std::unique_ptr<Flow>> m_flows;
    EventId m_sweep;
};

/// One flow served by the Midnode: its configuration, counters and soft state.
struct LeotpMidnode::Flow
{
    uint16_t port{0};
    uint32_t flowId{0};
    LeotpFlowSettings s;
    FlowStats stats;
    // soft state (while active)
    bool active{false};
    Ipv4Address client; //!< the Consumer's address (Data go there)
    Ipv4Address server; //!< the Producer's address (Interests go there)
    std::unique_ptr<LeotpHopController> ctrl;
    std::unique_ptr<LeotpHoleDetector> det;
    std::unique_ptr<LeotpSendBuffer> buf;
    double lastInterestS{-1e300};
    int64_t upstreamIf{-1};
    int64_t interestIf{-1}; //!< where the latest Interest with a rate came from (OWD_I's hop)
    double lastActivityS{0};
    EventId holeTimer;
    // time average of the buffer
    double bufArea{0};
    double bufLastS{0};
    double bufLastBytes{0};
    double meanStartS{0};

    bool RateControlled() const
    {
        return s.variant == LeotpVariant::A || s.variant == LeotpVariant::B;
    }

    bool Repairs() const
    {
        return s.variant == LeotpVariant::A || s.variant == LeotpVariant::C;
    }
};

} // namespace ns3

#endif // LEOTP_MIDNODE_H
