// SPDX-License-Identifier: GPL-2.0-only
//
// Plain records shared by the transport, its loss recovery, congestion control and schedulers.

#ifndef MP_SENT_PACKET_H
#define MP_SENT_PACKET_H

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup mp-transport
 * One packet sent on a path, as RFC 9002 Appendix A.1.1 tracks it, plus the per-packet state
 * of the delivery-rate estimator (draft-cheng-iccrg-delivery-rate-estimation, section 3.2).
 */
struct MpSentPacket
{
    /// Where the packet stands in loss recovery.
    enum State : uint8_t
    {
        OUTSTANDING = 0, //!< sent, neither acknowledged nor declared lost
        ACKED = 1,       //!< acknowledged
        LOST = 2,        //!< declared lost
    };

    uint64_t pn{0};             //!< packet number in its path's number space
    Time sentTime;              //!< time_sent
    uint32_t bytes{0};          //!< sent_bytes: UDP payload bytes (counted in bytes_in_flight)
    int64_t chunk{-1};          //!< stream chunk carried (-1: none, e.g. a PING probe)
    bool ackEliciting{true};    //!< ack_eliciting
    bool inFlight{true};        //!< in_flight (counts towards bytes_in_flight)
    bool retransmission{false}; //!< carries stream data sent before
    bool probe{false};          //!< sent as a PTO probe (outside the congestion window)
    State state{OUTSTANDING};
    bool wasLost{false}; //!< set on a late ACK of a packet already declared lost
    uint8_t lossKind{0}; //!< an MpLossKind, valid when state == LOST
    uint8_t ecn{0};      //!< ECN codepoint it was sent with (an MpEcnCodepoint; 0 Not-ECT)
    // Delivery-rate estimator snapshot taken at send time.
    uint64_t delivered{0};    //!< P.delivered
    Time deliveredTime;       //!< P.delivered_time
    Time firstSentTime;       //!< P.first_sent_time
    bool isAppLimited{false}; //!< P.is_app_limited
    // BBRv3 (draft-ietf-ccwg-bbr section 4.1.2.2), also filled at send time.
    uint64_t txInFlight{0}; //!< P.tx_in_flight: bytes in flight after sending, this one too
    uint64_t lostAtSend{0}; //!< P.lost: the path's cumulative lost bytes (C.lost) when sent
};

/**
 * @ingroup mp-transport
 * One delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation, section 3.3),
 * generated per ACK frame.
 */
struct MpRateSample
{
    bool valid{false};          //!< false when the interval was shorter than min_rtt or empty
    double deliveryRateBps{0};  //!< rs.delivery_rate, bit/s
    uint64_t delivered{0};      //!< rs.delivered: bytes delivered over the interval
    uint64_t priorDelivered{0}; //!< rs.prior_delivered
    Time interval;              //!< rs.interval = max(send_elapsed, ack_elapsed)
    bool isAppLimited{false};   //!< rs.is_app_limited
    Time rtt;                   //!< RTT of the most recently sent packet acknowledged
    uint64_t lostBytes{0};      //!< bytes declared lost while processing this ACK
    uint64_t txInFlight{0};     //!< RS.tx_in_flight: P.tx_in_flight of the newest packet acked
    uint64_t lost{0}; //!< RS.lost: bytes declared lost between that packet's send and its ACK
};

/// One ACK range [smallest, largest] (inclusive) of packet numbers.
struct MpAckRange
{
    uint64_t smallest{0};
    uint64_t largest{0};
};

/// How a path may be used (architecture contract: "active" | "standby" | "deactivated").
enum class MpPathState : uint8_t
{
    ACTIVE = 0,      //!< used by the scheduler
    STANDBY = 1,     //!< used only when no active path can be used (MPTCP "backup")
    DEACTIVATED = 2, //!< no new data; outstanding packets still complete
};

/// "active", "standby" or "deactivated".
const char* MpPathStateName(MpPathState s);

/**
 * Why a packet was declared lost (RFC 9002 section 6.1). Both thresholds are evaluated when an
 * ACK arrives; LOSS_TIMER marks time-threshold losses found when the loss-time timer fired
 * (RFC 9002 section 6.1.2), i.e. without a new ACK.
 */
enum class MpLossKind : uint8_t
{
    PACKET_THRESHOLD = 0,
    TIME_THRESHOLD = 1,
    LOSS_TIMER = 2,
    RETRANSMISSION_TIMEOUT = 3, //!< marked lost by a retransmission timeout (timer presets)
};

} // namespace ns3

#endif // MP_SENT_PACKET_H
