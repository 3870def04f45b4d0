// SPDX-License-Identifier: GPL-2.0-only
//
// Reference flows over a LeoTopology: ns-3 TCP bulk transfer and saturating UDP, for
// validation against ns-3's own TCP and for benchmarks.

#ifndef LEO_REFERENCE_FLOWS_H
#define LEO_REFERENCE_FLOWS_H

#include "helper/leo-topology.h"
#include "model/link/leo-link-counters.h"
#include "model/link/leo-path-schedule.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * One ns-3 TCP attribute default for a reference flow, as the caller gave it: the attribute's
 * full path ("ns3::TcpSocketBase::MinRto", "ns3::TcpCubic::HyStart",
 * "ns3::TcpL4Protocol::RecoveryType") and a value. Numbers for TimeValue attributes are
 * seconds; strings name EnumValue symbols ("BOTH") or TypeIds ("ns3::TcpClassicRecovery").
 */
struct TcpAttributeSetting
{
    std::string path;                                       //!< "ns3::<TypeId>::<Attribute>"
    std::variant<bool, int64_t, double, std::string> value; //!< the value before conversion
};

/**
 * @ingroup leo-helper
 * What to run. The flow goes server -> client (DOWN) on path @c path.
 */
struct ReferenceFlowOptions
{
    std::string kind{"tcp_bulk"}; //!< "tcp_bulk" or "udp"
    /**
     * "leo": the LeoTopology (LeoChannel/LeoNetDevice). "p2p": ns-3's own
     * PointToPointNetDevice/Channel with the same (constant) rate, delay and drop-tail limit,
     * as an independent reference: needs exactly one path with constant arrays, equal delays,
     * zero loss, no outages and no cross traffic. The rate is scaled by (mtu + 2) / mtu to
     * cancel the 2-byte PPP header for full-size packets. Counters are zero for "p2p" except
     * rxPackets.
     */
    std::string link{"leo"};
    uint32_t path{0};   //!< path index the flow uses
    double startS{0.0}; //!< sender start (s), in [0, duration)
    // tcp_bulk
    std::string tcpVariant{"ns3::TcpNewReno"}; //!< TcpCongestionOps TypeId name
    uint32_t segmentBytes{1448};               //!< TCP SegmentSize
    /**
     * Socket buffers (bytes); 0 = automatic: 2 * (max BDP + queue) of the flow's path, where
     * BDP = max(rate_down) * (max(delay_down) + max(delay_up)) / 8 and queue =
     * queue_packets * mtu, at least ns-3's 131072, so the flow is not window-limited.
     */
    uint32_t sndBufBytes{0};
    uint32_t rcvBufBytes{0};
    // udp
    double udpRateBps{0.0};         //!< offered rate; 0 = 1.05 * max(rate_down) of the path
    uint32_t udpPayloadBytes{1472}; //!< UDP payload per datagram, 1..mtu-28
    // common
    uint16_t mtu{1500};
    int64_t streamBase{1000};
    std::vector<LeoCrossTrafficSpec> crossTraffic;
    /**
     * ns-3 TCP attribute defaults for this run (every TCP socket of it: the flow and any TCP
     * cross traffic). Checked before ns-3 sees them (see ValidateTcpAttributes), set with
     * Config::SetDefaultFailSafe after the simulator reset, and restored to their previous
     * defaults when the run ends, so later simulations in the process are unaffected.
     */
    std::vector<TcpAttributeSetting> tcpAttributes;
};

/**
 * @ingroup leo-helper
 * Result of a reference flow.
 */
struct ReferenceFlowResult
{
    double goodputBps{0};  //!< rxBytes * 8 / (duration - start)
    uint64_t rxBytes{0};   //!< application bytes received by the sink
    uint64_t txBytes{0};   //!< application bytes sent (TCP: accepted by the socket)
    uint64_t rxPackets{0}; //!< packets delivered by the flow's path, DOWN direction
    double simSeconds{0};  //!< simulated time
    double wallSeconds{0}; //!< wall-clock time of Simulator::Run (benchmarks only)
    uint64_t events{0};    //!< ns-3 events executed (Simulator::GetEventCount)
    std::vector<LeoDirectionCounters> down; //!< per path
    std::vector<LeoDirectionCounters> up;   //!< per path
    std::vector<uint64_t> crossRxBytes;     //!< per cross-traffic flow
    // tcp_bulk: the flow's socket, from its trace sources (0 for "udp")
    /**
     * Retransmission timeouts: changes of the socket's "RTO" trace to min(2 x old, 60 s),
     * which is what TcpSocketBase::ReTxTimeout does on every expiry (RFC 6298 section 5.5);
     * a new RTT sample sets the RTO from the estimator instead.
     */
    uint64_t rtoExpiries{0};
    uint64_t lossEpisodes{0};     //!< entries into CA_LOSS ("CongState" trace)
    uint64_t recoveryEpisodes{0}; //!< entries into CA_RECOVERY (fast recovery)
    uint64_t retransmissions{0};  //!< segments retransmitted ("Retransmission" trace)
    uint32_t maxBufferedBytes{0}; //!< largest unsent + unacked bytes in the socket's buffer
};

/**
 * Check ns-3 TCP attribute settings without touching the simulator. An attribute must belong
 * to a TCP TypeId (TcpSocket, TcpSocketBase, TcpL4Protocol, a TcpCongestionOps, a
 * TcpRecoveryOps or an RttEstimator), be defined on the named TypeId itself (as
 * Config::SetDefault requires), have a bool, integer, double, time, enum or TypeId value, and
 * pass the attribute's checker. SegmentSize, SndBufSize and RcvBufSize are refused (the
 * options segment_bytes, snd_buf_bytes and rcv_buf_bytes set them), and so is SocketType
 * (tcp_variant). InitialCwnd, DelAckCount and ReTxThreshold must be >= 1.
 *
 * @throws std::invalid_argument naming the key as "tcp_attributes['<path>']"
 */
void ValidateTcpAttributes(const std::vector<TcpAttributeSetting>& settings);

/**
 * Run a reference flow on a fresh simulator (acquires the process SimContext and releases it).
 *
 * @param paths the paths' arrays (validated; errors name "paths[i]")
 * @param durationS simulated seconds, > 0
 * @param seed, run ns-3 RngSeedManager seed (>= 1) and run
 * @throws std::invalid_argument naming the field for bad input
 * @throws std::runtime_error if another simulation is open in this process
 */
ReferenceFlowResult RunReferenceFlow(const std::vector<LeoPathArrays>& paths,
                                     double durationS,
                                     uint32_t seed,
                                     uint64_t run,
                                     const ReferenceFlowOptions& options);

} // namespace ns3

#endif // LEO_REFERENCE_FLOWS_H
