// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpProducer: the data source of a LEOTP flow (LEOTP, ICDCS 2023, section III.A).

#ifndef LEOTP_PRODUCER_H
#define LEOTP_PRODUCER_H

#include "leotp-send-buffer.h"
#include "leotp-settings.h"

#include "ns3/application.h"
#include "ns3/ipv4-address.h"
#include "ns3/socket.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * @ingroup leotp
 * The Producer answers Interests with Data (paper section III.A; cpp/doc/leotp.md):
 *
 *  - on an Interest: if it carries a rate, take its one-way delay and set the rate limiter
 *    to its sendRate (the Responder half, LeotpSendBuffer); queue Data for the requested bytes,
 *    cut at chunk boundaries, skipping ranges already waiting in the buffer (duplicates) and
 *    bytes beyond the file;
 *  - the buffer is released by the token bucket; at release the Data are stamped with
 *    timestamp = t_send - OWD_I and the backlog report srcBacklog = (BL_tar - BL) / packet,
 *    rounded (the Data header's 21-byte form).
 *
 * It keeps no state per request besides what is queued, and counts the payload bytes it sends
 * (retransmissions included), the source traffic of the paper's Fig. 11.
 */
class LeotpProducer : public Application
{
  public:
    /// What the Producer sent and holds.
    struct Stats
    {
        uint64_t interests{0};        //!< Interests received (empty ones included)
        uint64_t packetsSent{0};      //!< Data packets sent
        uint64_t payloadBytesSent{0}; //!< payload bytes sent, retransmissions included
        uint64_t retransmittedPackets{0};
        uint64_t retransmittedBytes{0};
        uint64_t duplicateRequests{0}; //!< requested ranges already waiting (skipped)
        uint64_t bufferBytes{0};
        uint64_t bufferDrops{0};
        double rateBps{0};
    };

    static TypeId GetTypeId();
    LeotpProducer();
    ~LeotpProducer() override;

    /// The flow's parameters (payload and target buffer also exist as attributes).
    void SetSettings(const LeotpFlowSettings& settings);
    /// This end's address (the route's server end) and the Consumer's.
    void SetEndpoints(Ipv4Address local, Ipv4Address peer);
    Stats GetStats() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void HandleRead(Ptr<Socket> socket);
    void OnInterest(const LeotpHeader& h);
    void Transmit(LeotpQueued&& q);
    /// Record a transmission of chunk @p chunk: true if it had been sent before.
    bool MarkSent(uint64_t chunk, int64_t& firstSentTicks);

    LeotpFlowSettings m_settings;
    uint32_t m_flowId{1};
    uint16_t m_port{9};
    uint32_t m_payloadBytes{1451};
    double m_targetPackets{5};
    uint64_t m_fileBytes{0};
    Ipv4Address m_local;
    Ipv4Address m_peer;
    Ptr<Socket> m_socket;
    std::unique_ptr<LeotpSendBuffer> m_buffer;
    std::vector<bool> m_sentBefore;        //!< per chunk
    std::vector<uint64_t> m_firstSentKey;  //!< ring: chunk + 1 of each slot (0 = empty)
    std::vector<int64_t> m_firstSentTicks; //!< ring: first transmission of that chunk
    Stats m_stats;
    int64_t m_interestIf{-1}; //!< the interface the latest Interest with a rate came in on
};

} // namespace ns3

#endif // LEOTP_PRODUCER_H
