// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicReceiver: the data-receiving end of the multipath QUIC-like transport.

#ifndef MP_QUIC_RECEIVER_H
#define MP_QUIC_RECEIVER_H

#include "mp-ack-tracker.h"
#include "mp-carrier.h"
#include "mp-reassembly.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * @ingroup mp-transport
 * The receiver (client side) of a multipath QUIC-like connection.
 *
 * Each path has an MpCarrier (as the sender's) and an MpAckTracker (its packet-number space and ACK
 * policy); ACK frames go back on the path the data came on. One MpReassembly buffer delivers the
 * stream in order to the application, which consumes it at once; goodput, reordering-buffer
 * occupancy and head-of-line delay are measured there. Every ACK frame carries MAX_DATA =
 * delivered + ReceiveWindow.
 */
class MpQuicReceiver : public Application
{
  public:
    static TypeId GetTypeId();
    MpQuicReceiver();
    ~MpQuicReceiver() override;

    /// Add a path (before the application starts): local and peer address, port.
    uint32_t AddPath(Ipv4Address local, Ipv4Address peer, uint16_t port);

    /// Per-path counters (cumulative).
    struct PathCounters
    {
        uint64_t dataPackets{0};
        uint64_t dataBytes{0}; //!< transport bytes received (header + stream data)
        uint64_t duplicatePackets{0};
        uint64_t ackFrames{0};
        /// ECN counts of the path's packet-number space (RFC 9000 section 13.4.1): new
        /// packets received with ECT(0), ECT(1), CE (duplicates are not counted).
        uint64_t ect0Packets{0};
        uint64_t ect1Packets{0};
        uint64_t cePackets{0};
        /// Data packets that carried a LeoDelayTag (the flow monitor's), and the time they
        /// spent in link queues, summed over their hops (time steps).
        uint64_t timedPackets{0};
        int64_t queueTicks{0};
    };

    const PathCounters& GetCounters(uint32_t i) const;
    uint32_t GetNPaths() const;
    /// Stream bytes delivered in order to the application.
    uint64_t GetDeliveredBytes() const;
    /// Bytes waiting in the reordering buffer.
    uint64_t GetReorderBufferBytes() const;
    /// Sum over delivered bytes of the time they waited in the buffer (byte-seconds).
    double GetHolByteSeconds() const;
    /// The whole stream (file workload) was delivered.
    bool IsComplete() const;
    /// When it was (meaningful if IsComplete()).
    Time GetCompletionTime() const;

  protected:
    void DoDispose() override;

  private:
    struct Path
    {
        Path(uint32_t ackEvery, Time maxAckDelay)
            : tracker(ackEvery, maxAckDelay)
        {
        }

        MpAckTracker tracker;
        Ptr<MpCarrier> carrier;
        Ipv4Address local;
        Ipv4Address peer;
        uint16_t port{0};
        EventId ackTimer;
        PathCounters counters;
    };

    void StartApplication() override;
    void StopApplication() override;
    void HandlePacket(uint32_t i, Ptr<Packet> packet, uint8_t ecn);
    void SendAck(uint32_t i);
    void OnAckTimer(uint32_t i);

    uint32_t m_ackEvery;
    Time m_maxAckDelay;
    uint64_t m_receiveWindow;
    MpCarrierKind m_carrier{MpCarrierKind::LEO};
    uint16_t m_flowId{0};
    bool m_ecn{false}; //!< attribute Ecn: report ECN counts (ACK_ECN frames)

    std::vector<std::unique_ptr<Path>> m_paths;
    std::unique_ptr<MpReassembly> m_reasm;
    bool m_running{false};
    bool m_complete{false};
    Time m_completionTime;
    MpQuicAckHeader m_ackScratch;
};

} // namespace ns3

#endif // MP_QUIC_RECEIVER_H
