// SPDX-License-Identifier: GPL-2.0-only
//
// MpScheduler: the path scheduler interface of the multipath transport.

#ifndef MP_SCHEDULER_H
#define MP_SCHEDULER_H

#include "model/cc/mp-congestion-ops.h"
#include "model/transport/mp-connection-view.h"

#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup mp-sched
 * What is about to be sent.
 */
struct MpSchedRequest
{
    bool retransmission{false}; //!< stream data sent before (lost or reinjected)
    uint32_t bytes{0};          //!< UDP payload bytes of the packet
    uint32_t pathMask{0};       //!< bit i set: this data was already sent on path i
};

/**
 * @ingroup mp-sched
 * Decides the path of each packet, new data and retransmissions alike.
 *
 * The transport calls SelectPath whenever it has something to send (on every ACK, on pacing
 * and wake-up timers, on path changes). The return value is a path index, or -1 (WAIT): send
 * nothing now. A path is available (MpPathInfo::IsAvailable) when it is not deactivated, has
 * congestion-window room and pacing lets it send now; a scheduler that returns an unavailable
 * path also makes the transport wait. A scheduler that waits while nothing is in flight must
 * RequestWakeup() to be asked again.
 *
 * Candidate paths (Candidates()): active paths that are not in timeout (a probe timeout, a
 * retransmission timeout or the `tcp` preset's RTO recovery: MpPathInfo::InTimeout); if
 * there are none, standby paths that are not; if there are none, active and then standby
 * paths in timeout (so a single path keeps sending through a spurious timeout, as RFC 9002
 * does, and a lone TCP path recovers from its loss window).
 * Deactivated paths are never candidates.
 */
class MpScheduler : public Object
{
  public:
    static TypeId GetTypeId();
    MpScheduler();
    ~MpScheduler() override;

    /// The registry name ("minrtt", "roundrobin", ...).
    virtual std::string GetName() const = 0;
    /// Called once before the first decision.
    virtual void Init(MpConnectionView& conn);
    /// Choose a path for a packet (-1: wait).
    virtual int32_t SelectPath(MpConnectionView& conn, const MpSchedRequest& req) = 0;
    virtual void OnPacketSent(MpConnectionView& conn, uint32_t path, const MpSentPacket& p);
    virtual void OnAck(MpConnectionView& conn, uint32_t path, const MpAckEvent& ev);
    virtual void OnPathEvent(MpConnectionView& conn, uint32_t path, const MpPathEvent& ev);
    /// The connection was blocked by flow control (peer's MAX_DATA).
    virtual void OnFlowControlBlocked(MpConnectionView& conn);

    /// True for the externally driven scheduler.
    virtual bool IsExternal() const;
    /**
     * Per-path weights (external scheduler).
     * @throws std::invalid_argument if not supported or invalid
     */
    virtual void SetWeights(const std::vector<double>& weights);
    /**
     * Use one path for everything (external scheduler).
     * @throws std::invalid_argument if not supported or invalid
     */
    virtual void SetPathChoice(int32_t path);

    /// Fill out with the candidate paths (see class doc), ascending index.
    static void Candidates(const MpConnectionView& conn, std::vector<uint32_t>& out);
    /// The available candidate with the smallest smoothed RTT (-1: none).
    /// Paths whose bit is set in avoidMask are used only if no other qualifies.
    static int32_t MinRttAvailable(const MpConnectionView& conn,
                                   const std::vector<uint32_t>& cand,
                                   uint32_t bytes,
                                   uint32_t avoidMask = 0);
    /// The candidate with the smallest smoothed RTT, window room or not (-1: none).
    static int32_t MinRttAny(const MpConnectionView& conn, const std::vector<uint32_t>& cand);

  protected:
    std::vector<uint32_t> m_cand; //!< scratch for Candidates()
};

} // namespace ns3

#endif // MP_SCHEDULER_H
