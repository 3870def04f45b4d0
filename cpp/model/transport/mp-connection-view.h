// SPDX-License-Identifier: GPL-2.0-only
//
// MpConnectionView: the connection-wide state congestion controllers and schedulers read.

#ifndef MP_CONNECTION_VIEW_H
#define MP_CONNECTION_VIEW_H

#include "mp-path-oracle.h"
#include "mp-rtt-estimator.h"
#include "mp-sent-packet.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <limits>

namespace ns3
{

class MpCongestionOps;

/**
 * @ingroup mp-transport
 * State of one path of a connection, kept current by the transport. All byte counts are
 * UDP payload bytes (as QUIC counts them).
 */
struct MpPathInfo
{
    uint32_t index{0};
    MpPathState state{MpPathState::ACTIVE};
    uint64_t cwnd{0}; //!< congestion window (bytes), as the path's CC reports it
    uint64_t ssthresh{std::numeric_limits<uint64_t>::max()}; //!< max = not yet set
    uint64_t bytesInFlight{0};
    const MpRttEstimator* rtt{nullptr}; //!< smoothed/min/latest RTT and rttvar
    Time minSrtt;                       //!< lifetime minimum of smoothed_rtt (BLEST)
    Time maxSrtt;                       //!< lifetime maximum of smoothed_rtt (BLEST)
    uint32_t ptoCount{0};               //!< consecutive PTOs without an ACK
    uint32_t rtoCount{0};               //!< consecutive retransmission timeouts (timer presets)
    bool inLossState{false};    //!< in RTO recovery: no new data (the `tcp` preset's loss state)
    bool appLimited{false};     //!< had window room but was not given data (cwnd validation)
    double deliveryRateBps{0};  //!< latest valid delivery-rate sample
    double pacingRateBps{0};    //!< current pacing rate (0: not paced)
    Time nextSendTime;          //!< earliest time pacing allows the next packet
    bool pacingBlocked{false};  //!< pacing forbids sending now (kept current by the sender)
    uint64_t deliveredBytes{0}; //!< cumulative bytes acknowledged
    uint64_t sentBytes{0};      //!< cumulative bytes sent
    uint64_t sentPackets{0};
    uint64_t lostPackets{0}; //!< cumulative packets declared lost
    uint64_t retransmittedPackets{0};
    uint64_t ackedPackets{0};
    const MpPathOracle* oracle{nullptr}; //!< scenario knowledge (may be null)
    uint32_t topologyPath{0};            //!< the LeoTopology path this transport path runs over

    /// smoothed_rtt, or kInitialRtt before the first sample.
    Time Srtt() const
    {
        return rtt->GetSmoothed();
    }

    bool HasRttSample() const
    {
        return rtt->HasSample();
    }

    /// bytes_in_flight + bytes fits in the congestion window (RFC 9002 section 7).
    bool HasWindowRoom(uint32_t bytes) const
    {
        return bytesInFlight + bytes <= cwnd;
    }

    /// Can take a packet of `bytes` now: not deactivated, window room, not held by pacing.
    bool IsAvailable(uint32_t bytes) const
    {
        return state != MpPathState::DEACTIVATED && !pacingBlocked && HasWindowRoom(bytes);
    }

    /// In probe or retransmission timeout, or in RTO recovery ("potentially failed").
    bool InTimeout() const
    {
        return ptoCount > 0 || rtoCount > 0 || inLossState;
    }

    /// Not deactivated and not in timeout (InTimeout).
    bool IsUsable() const
    {
        return state != MpPathState::DEACTIVATED && !InTimeout();
    }
};

/**
 * @ingroup mp-transport
 * The connection as congestion controllers and schedulers see it.
 */
class MpConnectionView
{
  public:
    virtual ~MpConnectionView() = default;

    /// The current simulation time.
    virtual Time Now() const = 0;
    virtual uint32_t GetNPaths() const = 0;
    virtual const MpPathInfo& GetPath(uint32_t i) const = 0;
    /// max_datagram_size: UDP payload bytes of a full packet (the CC's MSS).
    virtual uint32_t GetMaxDatagramSize() const = 0;
    /**
     * Bytes buffered at the connection level and not yet given to any path ("k" of ECF and
     * ALCS): pending retransmissions plus unsent stream data in the send buffer.
     */
    virtual uint64_t GetPendingBytes() const = 0;
    /// Connection-level flow-control credit: MAX_DATA minus the highest stream offset sent.
    virtual uint64_t GetFlowControlCredit() const = 0;
    /// The connection's receive window (the peer's advertised MAX_DATA span).
    virtual uint64_t GetReceiveWindow() const = 0;
    /// Stream bytes sent and not yet acknowledged (all paths together).
    virtual uint64_t GetUnackedStreamBytes() const = 0;
    /// The congestion controller of path i (coupled algorithms read their peers' state).
    virtual MpCongestionOps* GetPathCc(uint32_t i) const = 0;
    /// Change a path's state (schedulers such as ALCS deactivate paths before handovers).
    virtual void SetPathState(uint32_t i, MpPathState s) = 0;
    /// Ask to be called again (a scheduler's WAIT needs a later decision point).
    virtual void RequestWakeup(Time at) = 0;
};

} // namespace ns3

#endif // MP_CONNECTION_VIEW_H
