// SPDX-License-Identifier: GPL-2.0-only
//
// LeoNetwork: what the simulation facade needs of a topology (path or hop), and the native
// flows every topology carries (ns-3 TCP bulk, on/off UDP).

#ifndef LEO_NETWORK_H
#define LEO_NETWORK_H

#include "model/link/leo-channel.h"
#include "model/link/leo-link-counters.h"
#include "model/link/leo-path-schedule.h"

#include "ns3/application.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * A native flow beside the connection under study: ns-3 TCP or on/off UDP on one route.
 *
 * TCP_BULK: an ns-3 TCP bulk sender (congestion control by TypeId name) and a PacketSink.
 * UDP_ONOFF: an OnOffApplication (constant on/off durations) and a PacketSink.
 * The sender sits on the route's server end for DOWN (the default), on its client end for UP.
 */
struct LeoCrossTrafficSpec
{
    enum Kind
    {
        TCP_BULK,
        UDP_ONOFF,
    };

    Kind kind{TCP_BULK};
    uint32_t path{0}; //!< route index (path topology: the path)
    LeoDirection direction{LeoDirection::DOWN};
    double startS{0.0};                                    //!< sender start (s), >= 0
    double stopS{std::numeric_limits<double>::infinity()}; //!< sender stop (s), > startS
    // TCP_BULK
    std::string tcpVariant{"ns3::TcpNewReno"}; //!< TypeId name (or short "TcpCubic", "NewReno")
    uint64_t maxBytes{0};                      //!< 0 = unlimited
    uint32_t segmentBytes{0};                  //!< sender's TCP SegmentSize; 0 = topology default
    uint32_t sndBufBytes{0};                   //!< sender's SndBufSize; 0 = topology default
    /// ECN: both ends' TcpSocketBase::UseEcn On (RFC 3168; data ECT(0)); with TcpDctcp both
    /// ends run DCTCP and the data are ECT(1), L4S (RFC 9331). Off: ns-3's default, no ECN.
    bool ecn{false};
    // UDP_ONOFF
    double rateBps{1e6};        //!< sending rate while on (bit/s), > 0
    uint32_t packetBytes{1200}; //!< UDP payload bytes, 1..(MTU - 28)
    double onS{1.0};            //!< on duration (s), > 0
    double offS{0.0};           //!< off duration (s), >= 0 (0 = always on)
};

/**
 * @ingroup leo-helper
 * Options shared by the topologies.
 */
struct LeoTopologyOptions
{
    uint16_t mtu{1500}; //!< device MTU (bytes), 68..65535
    /**
     * ns-3 TCP defaults for every socket of this simulation (Config::SetDefault on
     * ns3::TcpSocket; SimContext::Reset restores ns-3's own defaults). 0 keeps ns-3's value.
     * The segment default 1448 = 1500 - 20 (IPv4) - 20 (TCP) - 12 (timestamp option);
     * ns-3's own default is 536.
     */
    uint32_t tcpSegmentBytes{1448};
    uint32_t tcpSndBufBytes{0}; //!< TcpSocket::SndBufSize default (ns-3: 131072)
    uint32_t tcpRcvBufBytes{0}; //!< TcpSocket::RcvBufSize default (ns-3: 131072)
    /**
     * First fixed RNG stream. Path topology: device loss draws use streamBase + 2 * path +
     * dir (dir: DOWN = 0, UP = 1) and the internet stack streamBase + 2 * nPaths + ...; hop
     * topology: streamBase + kHopLinkStreams + 2 * link + dir and streamBase +
     * kHopStackStreams + ...; native flows use streamBase + 10000 + 16 * index.
     */
    int64_t streamBase{1000};
};

/**
 * @ingroup leo-helper
 * A topology as the simulation facade sees it: routes with a server (data source) end and a
 * client (data sink) end, each end with its own address, and links (LeoChannels) with their
 * counters. The path topology (LeoTopology) has one route per path, each one link long; the
 * hop topology (LeoHopTopology) has routes over a graph of nodes and links.
 *
 * Native flows (ns-3 TCP bulk, on/off UDP) run on any route: AddCrossTraffic. Ports >= 50000
 * are theirs (50000 + index).
 */
class LeoNetwork
{
  public:
    virtual ~LeoNetwork();

    /// Routes (path topology: paths).
    virtual uint32_t GetNRoutes() const = 0;
    /// Node at the data source end of a route.
    virtual Ptr<Node> GetRouteServer(uint32_t route) const = 0;
    /// Node at the data sink end of a route.
    virtual Ptr<Node> GetRouteClient(uint32_t route) const = 0;
    /// Address of the server end on this route (the route's packets carry it).
    virtual Ipv4Address GetServerAddress(uint32_t route) const = 0;
    /// Address of the client end on this route.
    virtual Ipv4Address GetClientAddress(uint32_t route) const = 0;
    /// Packets of a route dropped so far, by cause, in the data (DOWN) direction.
    virtual uint64_t GetRouteDrops(uint32_t route, LeoDropCause cause) const = 0;
    /// Links (path topology: one per path).
    virtual uint32_t GetNLinks() const = 0;
    virtual Ptr<LeoChannel> GetLink(uint32_t link) const = 0;
    /// Node indices of a link's ends: device "a" transmits DOWN, device "b" UP.
    virtual std::pair<uint32_t, uint32_t> GetLinkEnds(uint32_t link) const = 0;

    const LeoTopologyOptions& GetOptions() const;

    /**
     * Add a native flow on a route (see LeoCrossTrafficSpec). Call before Simulator::Run().
     * @return its index
     * @throws std::invalid_argument naming the field for a bad spec (route index, stop before
     *         start, unknown TCP variant, non-positive rate, ...); the times' own ranges are
     *         the parser's (cpp/bindings/config-ranges.h), the only producer of a spec
     */
    uint32_t AddCrossTraffic(const LeoCrossTrafficSpec& spec);
    uint32_t GetNCrossTraffic() const;
    /// Bytes received so far by native flow @p index's sink.
    uint64_t GetCrossTrafficRxBytes(uint32_t index) const;
    Ptr<Application> GetCrossTrafficSender(uint32_t index) const;
    /// Destination (node, address, port) of native flow @p index's data.
    Ipv4Address GetCrossTrafficSinkAddress(uint32_t index) const;
    uint16_t GetCrossTrafficPort(uint32_t index) const;

    /**
     * Resolve a TCP congestion-control name ("ns3::TcpCubic", "TcpCubic", "Cubic", "NewReno")
     * to a TypeId derived from ns3::TcpCongestionOps.
     * @throws std::invalid_argument naming @p field if unknown
     */
    static TypeId ResolveTcpVariant(const std::string& name, const std::string& field);
    /// Short names of the available TCP congestion controls ("TcpCubic", "TcpNewReno", ...).
    static std::vector<std::string> ListTcpVariants();

  protected:
    /// @throws std::invalid_argument for a bad option
    explicit LeoNetwork(const LeoTopologyOptions& options);
    /// Set the ns-3 TCP socket defaults of the options (call before any socket exists).
    void ApplyTcpDefaults() const;

    LeoTopologyOptions m_options;

  private:
    struct CrossFlow
    {
        Ptr<Application> sender;
        Ptr<Application> sink;
        Ipv4Address sinkAddress;
        uint16_t port;
    };

    std::vector<CrossFlow> m_cross;
};

} // namespace ns3

#endif // LEO_NETWORK_H
