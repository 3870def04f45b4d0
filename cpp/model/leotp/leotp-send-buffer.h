// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpSendBuffer: the Responder half of a LEOTP node (Producer and Midnodes): a per-flow
// FIFO sending buffer released by a token bucket at the rate the downstream Requester set.

#ifndef LEOTP_SEND_BUFFER_H
#define LEOTP_SEND_BUFFER_H

#include "leotp-header.h"
#include "leotp-token-bucket.h"

#include "ns3/event-id.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>

namespace ns3
{

/// One packet waiting in a sending buffer: its header (stamped at release) and payload.
struct LeotpQueued
{
    LeotpHeader header;
    Ptr<Packet> payload; //!< Data bytes (with their tags); empty for a VPH
    double enqueuedS{0};
    uint32_t wireBytes{0}; //!< size on the wire (LEOTP + UDP + IPv4)
    uint8_t ttl{64};       //!< IPv4 TTL to send with
};

/**
 * @ingroup leotp
 * The Responder of one hop for one flow (paper section III.C): everything the node sends
 * downstream waits in a FIFO (BL bytes, counted on the wire) and is released by a token bucket
 * (LeotpTokenBucket) at Rate_nextHop, the sendRate of the latest Interest from downstream
 * (R_init before the first). The Responder also keeps the one-way delay of that Interest
 * (OWD_I, microseconds modulo 2^32): released Data carry timestamp = t_send - OWD_I, so that the
 * Requester's now - timestamp is the hop's RTT without the holding time [REC, code].
 *
 * Without rate limiting (Midnodes of variant C) packets leave at once. Repairs join the tail
 * [REC, code]. The buffer drops at its tail beyond maxBytes [REC] (counted).
 */
class LeotpSendBuffer
{
  public:
    /// Sends one released packet (the owner stamps and transmits it).
    using SendFn = std::function<void(LeotpQueued&&)>;

    /**
     * @param initialRateBps R_init (> 0)
     * @param mtuBytes the token bucket's smallest depth (the largest packet on the wire)
     * @param maxBytes the buffer's cap
     * @param rateLimited false: release at once (variant C Midnodes)
     * @param send what to do with a released packet
     */
    LeotpSendBuffer(double initialRateBps,
                    double mtuBytes,
                    uint64_t maxBytes,
                    bool rateLimited,
                    SendFn send);
    ~LeotpSendBuffer();
    LeotpSendBuffer(const LeotpSendBuffer&) = delete;
    LeotpSendBuffer& operator=(const LeotpSendBuffer&) = delete;

    /// An Interest from downstream arrived at @p nowUs: if it carries a rate (sendRate > 0),
    /// take its OWD and its rate; an Interest with sendRate 0 changes nothing.
    void OnInterest(const LeotpHeader& interest, uint32_t nowUs);
    /// Queue a packet; false if the buffer is full (the packet is dropped).
    bool Enqueue(LeotpQueued&& item);
    /**
     * timestamp of Data released at @p nowUs: nowUs - OWD_I (mod 2^32), never 0; or
     * LeotpHeader::kNoTimestamp before the first Interest with a rate (no OWD_I of the hop).
     */
    uint32_t DataTimestamp(uint32_t nowUs) const;

    uint64_t GetBytes() const;
    std::size_t GetPackets() const;
    /// Rate_nextHop (bit/s).
    double GetRate() const;
    bool HasInterest() const;
    uint64_t GetDrops() const;
    /// Whether the range [start, end) of Data is waiting in the buffer (duplicate check).
    bool HoldsData(uint32_t start, uint32_t end) const;
    /// Drop everything queued and stop releasing.
    void Clear();

  private:
    void Release();
    void Arm(double waitS);

    LeotpTokenBucket m_bucket;
    uint64_t m_maxBytes;
    bool m_rateLimited;
    SendFn m_send;
    std::deque<LeotpQueued> m_queue;
    std::unordered_map<uint64_t, uint32_t> m_dataRanges; //!< queued Data ranges (count)
    uint64_t m_bytes{0};
    uint64_t m_drops{0};
    uint32_t m_owdUs{0};
    bool m_hasInterest{false};
    EventId m_event;
};

} // namespace ns3

#endif // LEOTP_SEND_BUFFER_H
