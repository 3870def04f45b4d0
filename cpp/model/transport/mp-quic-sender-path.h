// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicSender::Path: what the sender keeps for one path (private to the sender's
// mp-quic-sender*.cc files).

#ifndef MP_QUIC_SENDER_PATH_H
#define MP_QUIC_SENDER_PATH_H

#include "mp-quic-sender.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <set>
#include <utility>

namespace ns3
{

/// Everything the sender keeps for one path.
struct MpQuicSender::Path
{
    Path(uint32_t idx, const MpLossRecovery::Params& params)
        : lr(params)
    {
        info.index = idx;
        info.rtt = &lr.Rtt();
    }

    MpPathInfo info;
    MpLossRecovery lr;
    MpDeliveryRate rate;
    MpEcnValidator ecn;
    Ptr<MpCongestionOps> cc;
    MpCcContext ctx;
    Ptr<MpCarrier> carrier;
    Ipv4Address local;
    Ipv4Address peer;
    uint16_t port{0};
    EventId lossTimer;
    EventId handoverEvent;
    EventId outageEvent;
    PathCounters counters;
    MpSentPacket scratch;               //!< reused record for sends
    uint64_t cwvMaxInflight{0};         //!< peak bytes in flight in the current window (Linux CWV)
    int64_t cwvWindowEndPn{-1};         //!< the window ends when this packet number is acknowledged
    Time lastSendTime{Time::Min()};     //!< last data packet sent (slow start after idle)
    std::set<uint64_t> lossStateChunks; //!< RTO recovery: chunks lost at the RTO, not acked
    /// TCP preset: (packet number, chunk) of the path's data packets in send order whose
    /// data is not acknowledged yet; the front is the path's cumulative acknowledgement point
    /// (snd_una): a lost packet holds it until its data arrives, by whatever path.
    std::deque<std::pair<uint64_t, uint64_t>> unacked;
    uint64_t timerUna{0}; //!< snd_una (a packet number) when the timer last restarted
    // Proportional rate reduction (RFC 6937), the `tcp` preset's recovery pacing.
    bool prrActive{false};
    Time prrStart;            //!< recovery began (packets sent after it end it)
    uint64_t prrRecoverFs{1}; //!< RecoverFS: the flight when recovery began
    uint64_t prrDelivered{0}; //!< prr_delivered
    uint64_t prrOut{0};       //!< prr_out
    uint64_t prrAllowance{0}; //!< sndcnt left: bytes the path may send beyond its flight
    double lastHandoverS{-std::numeric_limits<double>::infinity()};
};

} // namespace ns3

#endif // MP_QUIC_SENDER_PATH_H
