// SPDX-License-Identifier: GPL-2.0-only
//
// LeoTopology: client and server nodes joined by one LeoChannel per path, with IPv4.

#ifndef LEO_TOPOLOGY_H
#define LEO_TOPOLOGY_H

#include "model/link/leo-channel.h"
#include "model/link/leo-link-counters.h"
#include "model/link/leo-net-device.h"
#include "model/link/leo-path-schedule.h"

#include "ns3/application.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * Cross traffic sharing one path with the flow under study.
 *
 * TCP_BULK: an ns-3 TCP bulk sender (congestion control by TypeId name) and a PacketSink.
 * UDP_ONOFF: an OnOffApplication (constant on/off durations) and a PacketSink.
 * The sender sits on the server for DOWN (the default) and on the client for UP.
 */
struct LeoCrossTrafficSpec
{
    enum Kind
    {
        TCP_BULK,
        UDP_ONOFF,
    };

    Kind kind{TCP_BULK};
    uint32_t path{0}; //!< path index
    LeoDirection direction{LeoDirection::DOWN};
    double startS{0.0};                                    //!< sender start (s), >= 0
    double stopS{std::numeric_limits<double>::infinity()}; //!< sender stop (s), > startS
    // TCP_BULK
    std::string tcpVariant{"ns3::TcpNewReno"}; //!< TypeId name (or short "TcpCubic", "NewReno")
    uint64_t maxBytes{0};                      //!< 0 = unlimited
    uint32_t segmentBytes{0};                  //!< sender's TCP SegmentSize; 0 = topology default
    uint32_t sndBufBytes{0};                   //!< sender's SndBufSize; 0 = topology default
    // UDP_ONOFF
    double rateBps{1e6};        //!< sending rate while on (bit/s), > 0
    uint32_t packetBytes{1200}; //!< UDP payload bytes, 1..(MTU - 28)
    double onS{1.0};            //!< on duration (s), > 0
    double offS{0.0};           //!< off duration (s), >= 0 (0 = always on)
};

/**
 * @ingroup leo-helper
 * Options of a LeoTopology.
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
     * First fixed RNG stream. Layout: device loss draws use streamBase + 2 * path + dir
     * (dir: DOWN = 0, UP = 1); the internet stack uses streamBase + 2 * nPaths + ...;
     * cross-traffic applications use streamBase + 10000 + 16 * index.
     */
    int64_t streamBase{1000};
};

/**
 * @ingroup leo-helper
 * Builds the LEO scenario's network: a client node (the user terminal, data receiver) and a
 * server node (data sender), one LeoChannel with a client-side and a server-side LeoNetDevice
 * per path, the ns-3 internet stack (IPv4 only, static routing, no queue disc in front of the
 * devices so the device's drop-tail queue is the bottleneck queue), and addresses:
 *
 *   path i: client 10.(i+1).0.1/24, server 10.(i+1).0.2/24 (assigned by hand, no address
 *   generator), so traffic to a path's address leaves on that path's device.
 *
 * Build right after SimContext::Acquire / Reset (on a fresh simulator); the topology is
 * destroyed with the simulator. Ports >= 50000 are reserved for cross traffic
 * (50000 + index).
 */
class LeoTopology
{
  public:
    /**
     * @param paths one schedule per path (1..254 paths)
     * @param options MTU and stream base
     * @throws std::invalid_argument for an empty / too long path list, a null schedule or a bad
     *         option
     */
    explicit LeoTopology(const std::vector<Ptr<const LeoPathSchedule>>& paths,
                         const LeoTopologyOptions& options = LeoTopologyOptions());

    uint32_t GetNPaths() const;
    Ptr<Node> GetClientNode() const;
    Ptr<Node> GetServerNode() const;
    /// 10.(i+1).0.1
    Ipv4Address GetClientAddress(uint32_t path) const;
    /// 10.(i+1).0.2
    Ipv4Address GetServerAddress(uint32_t path) const;
    Ptr<LeoNetDevice> GetClientDevice(uint32_t path) const;
    Ptr<LeoNetDevice> GetServerDevice(uint32_t path) const;
    Ptr<LeoChannel> GetChannel(uint32_t path) const;
    Ptr<const LeoPathSchedule> GetSchedule(uint32_t path) const;
    /// Counters of one direction of one path (DOWN = server -> client).
    const LeoDirectionCounters& GetCounters(uint32_t path, LeoDirection dir) const;

    /**
     * Add cross traffic on a path (see LeoCrossTrafficSpec). Call before Simulator::Run().
     * @return the cross-traffic index
     * @throws std::invalid_argument naming the field for a bad spec (path index, unknown TCP
     *         variant, non-positive rate, ...)
     */
    uint32_t AddCrossTraffic(const LeoCrossTrafficSpec& spec);
    uint32_t GetNCrossTraffic() const;
    /// Bytes received so far by cross-traffic flow @p index's sink.
    uint64_t GetCrossTrafficRxBytes(uint32_t index) const;
    Ptr<Application> GetCrossTrafficSender(uint32_t index) const;

    /**
     * Resolve a TCP congestion-control name ("ns3::TcpCubic", "TcpCubic", "Cubic", "NewReno")
     * to a TypeId derived from ns3::TcpCongestionOps.
     * @throws std::invalid_argument naming @p field if unknown
     */
    static TypeId ResolveTcpVariant(const std::string& name, const std::string& field);
    /// Short names of the available TCP congestion controls ("TcpCubic", "TcpNewReno", ...).
    static std::vector<std::string> ListTcpVariants();

  private:
    /// @throws std::out_of_range for a bad path index
    void CheckPath(uint32_t path) const;

    struct CrossFlow
    {
        Ptr<Application> sender;
        Ptr<Application> sink;
    };

    LeoTopologyOptions m_options;
    Ptr<Node> m_client;
    Ptr<Node> m_server;
    std::vector<Ptr<const LeoPathSchedule>> m_schedules;
    std::vector<Ptr<LeoChannel>> m_channels;
    std::vector<Ptr<LeoNetDevice>> m_clientDevices;
    std::vector<Ptr<LeoNetDevice>> m_serverDevices;
    std::vector<CrossFlow> m_cross;
};

} // namespace ns3

#endif // LEO_TOPOLOGY_H
