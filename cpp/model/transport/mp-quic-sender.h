// SPDX-License-Identifier: GPL-2.0-only
//
// MpQuicSender: the data-sending end of the multipath QUIC-like transport.

#ifndef MP_QUIC_SENDER_H
#define MP_QUIC_SENDER_H

#include "model/cc/mp-congestion-ops.h"
#include "model/sched/mp-scheduler.h"
#include "mp-carrier.h"
#include "mp-connection-view.h"
#include "mp-delivery-rate.h"
#include "mp-ecn-validator.h"
#include "mp-loss-recovery.h"
#include "mp-quic-header.h"
#include "mp-recovery-preset.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <vector>

namespace ns3
{

/**
 * @ingroup mp-transport
 * The sender (server side) of a multipath QUIC-like connection; each path's packets travel on
 * an MpCarrier (LeoShimProtocol on the link devices by default, or an ns-3 UDP socket).
 *
 * One stream of bulk data (unbounded, or FileBytes long) is cut into chunks of
 * PacketBytes - 17 bytes, one per DATA packet. Each path has its own UDP socket, packet-number
 * space, RFC 9002 loss recovery (MpLossRecovery), delivery-rate estimator and congestion
 * controller (MpCongestionOps); one scheduler (MpScheduler) picks the path of every packet,
 * retransmissions included. Lost chunks are queued and resent, lowest offset first, on the
 * path the scheduler picks. The peer's MAX_DATA (carried in every ACK frame) limits new data.
 *
 * On a probe timeout the path sends PtoProbes probe packets outside its congestion window
 * (the oldest chunks outstanding on it, else new data, else a PING), and with ReinjectOnPto
 * the chunks outstanding on it are queued for the scheduler, which sends them on another path
 * if one is usable (multipath reinjection); the original packets stay in flight.
 *
 * Pacing (Pacing = true, or a controller that requires it): the packets of a path leave no
 * faster than the controller's pacing rate, or PacingGain * cwnd / smoothed_rtt
 * (RFC 9002 section 7.7) when the controller gives none.
 */
class MpQuicSender : public Application, public MpConnectionView
{
  public:
    static TypeId GetTypeId();
    MpQuicSender();
    ~MpQuicSender() override;

    /// One path of the connection.
    struct PathConfig
    {
        Ipv4Address local;                   //!< this node's address on the path
        Ipv4Address peer;                    //!< the receiver's address on the path
        uint16_t port{0};                    //!< port on both ends
        Ptr<MpCongestionOps> cc;             //!< the path's congestion controller
        const MpPathOracle* oracle{nullptr}; //!< scenario knowledge (may be null)
        uint32_t topologyPath{0};            //!< the topology path index (for measurements)
        MpPathState state{MpPathState::ACTIVE};
    };

    /// Extra per-path counters (cumulative).
    struct PathCounters
    {
        uint64_t ptoEvents{0}; //!< probe timeouts
        uint64_t probesSent{0};
        uint64_t reinjectedChunks{0};
        uint64_t spuriousLosses{0}; //!< declared lost, then acknowledged
        uint64_t ackFrames{0};
        uint64_t persistentCongestion{0};
        uint64_t handovers{0};       //!< handover notifications delivered
        uint64_t tlpEvents{0};       //!< tail-loss probes (timer-based recovery)
        uint64_t rtoEvents{0};       //!< retransmission timeouts (timer-based recovery)
        uint64_t spuriousRtos{0};    //!< timeout episodes ended by an ACK of an older packet
        uint64_t idleRestarts{0};    //!< slow-start-after-idle restarts
        uint64_t fastRetransmits{0}; //!< lost packets re-sent at once (fast retransmit)
        uint64_t ectSentPackets{0};  //!< data packets sent ECN-capable (ECT(0) or ECT(1))
        uint64_t ceReported{0};      //!< the peer's CE count, as last accepted (validated)
        uint64_t ecnFeedbacks{0};    //!< OnEcnFeedback calls
    };

    /**
     * Set the loss recovery (a preset of mp-recovery-preset.h, possibly with values changed).
     * Call before AddPath. Default: MpRecoveryConfig::Preset(RFC9002).
     */
    void SetRecovery(const MpRecoveryConfig& cfg);
    const MpRecoveryConfig& GetRecovery() const;
    /// The path's retransmission timeout with backoff and the time left until its timer fires
    /// (timer-based recovery; negative when no timer runs).
    Time GetTimeToRetransmissionTimer(uint32_t i) const;

    /**
     * Add a path (before the application starts).
     * @throws std::invalid_argument on a null controller or too many paths (32 at most)
     */
    uint32_t AddPath(const PathConfig& cfg);
    /// Set the scheduler (before the application starts).
    void SetScheduler(Ptr<MpScheduler> scheduler);
    Ptr<MpScheduler> GetScheduler() const;
    Ptr<MpCongestionOps> GetCc(uint32_t i) const;
    const PathCounters& GetCounters(uint32_t i) const;
    /// The path's ECN validation (its state, the peer's counts; cpp/doc/transport.md, "ECN").
    const MpEcnValidator& GetEcn(uint32_t i) const;

    /// Set a controller's window from outside (external controllers).
    void SetExternalCwnd(uint32_t i, uint64_t bytes);
    /// Set a controller's pacing rate from outside (external controllers).
    void SetExternalPacingRate(uint32_t i, double bps);
    /**
     * Set a residual controller's gain (cc "residual+<base>"); a gain equal to the one in
     * force changes nothing (no resync, no send attempt), so gain 1 throughout is the base
     * controller's run.
     * @throws std::invalid_argument if the path's controller is not residual, or on a gain
     *         outside MpResidual's range
     */
    void SetCwndGain(uint32_t i, double gain);
    /**
     * Make a residual controller with an alternate (cc "residual+<base>+<alternate>") follow
     * the alternate (true) or the base (false); the same choice as the one in force changes
     * nothing, as SetCwndGain.
     * @throws std::invalid_argument if the path's controller is not residual or, for true,
     *         has no alternate
     */
    void SetFollowAlternate(uint32_t i, bool follow);
    /// Make the sender look for something to send at the current time.
    void Kick();

    /// Stream bytes acknowledged contiguously from offset 0.
    uint64_t GetContiguousAckedBytes() const;
    /// Stream bytes acknowledged in total (including above a gap).
    uint64_t GetAckedStreamBytes() const;
    /// Stream bytes sent for the first time.
    uint64_t GetNewStreamBytesSent() const;
    /// File workload: every byte acknowledged.
    bool IsFinished() const;
    /// The peer's current MAX_DATA.
    uint64_t GetMaxData() const;
    /// Bytes of stream data per full packet.
    uint32_t GetChunkPayload() const;

    // MpConnectionView
    Time Now() const override;
    uint32_t GetNPaths() const override;
    const MpPathInfo& GetPath(uint32_t i) const override;
    uint32_t GetMaxDatagramSize() const override;
    uint64_t GetPendingBytes() const override;
    uint64_t GetFlowControlCredit() const override;
    uint64_t GetReceiveWindow() const override;
    uint64_t GetUnackedStreamBytes() const override;
    MpCongestionOps* GetPathCc(uint32_t i) const override;
    void SetPathState(uint32_t i, MpPathState s) override;
    void RequestWakeup(Time at) override;

  protected:
    void DoDispose() override;

  private:
    struct Path;

    struct ChunkState
    {
        uint32_t pathMask{0};
        uint16_t copies{0}; //!< copies in flight
        bool acked{false};
        bool queued{false}; //!< waiting in the retransmission queue
    };

    void StartApplication() override;
    void StopApplication() override;

    void HandlePacket(uint32_t i, Ptr<Packet> packet, uint8_t ecn);
    void OnAckFrame(Path& path, const MpQuicAckHeader& h);
    /// ECN validation of an ACK frame's counts and the controller's ECN feedback.
    void ProcessEcn(Path& path, const MpQuicAckHeader& h, bool largestIncreased);
    void HandleLost(Path& path);
    void OnLossTimer(uint32_t i);
    void ArmLossTimer(Path& path);
    void SendProbes(Path& path);
    void SendTimerProbes(Path& path, uint32_t n);
    void HandleRto(Path& path);
    void EndLossState(Path& path);
    void FastRetransmit(Path& path);
    void UpdatePrr(Path& path, uint64_t delivered);
    void Reinject(Path& path);
    void TrySend();
    void UpdateAppLimited(int32_t blockingPath);
    void UpdatePacing(Time now);
    void ArmPacingTimer(Time now);
    bool PeekChunk(int64_t& chunk, bool& retx);
    void ConsumeChunk(int64_t chunk, bool retx);
    void SendPacket(Path& path, int64_t chunk, bool retx, bool probe);
    /// The state of stream chunk `chunk` while the sender still holds it; nullptr for a packet
    /// that carried no chunk (`chunk` < 0) or a chunk already acked and released.
    ChunkState* HeldChunk(int64_t chunk);
    /// One copy of `cs` in flight is gone (acked or declared lost).
    static void DropCopy(ChunkState& cs);
    /// Queue chunk `chunk` (state `cs`) for retransmission unless it is acked or queued already;
    /// true if it was queued now.
    bool QueueRetransmission(uint64_t chunk, ChunkState& cs);
    void OnChunkAcked(int64_t chunk);
    void OnChunkLost(int64_t chunk);
    uint32_t ChunkLen(uint64_t chunk) const;
    bool HasMoreNewData() const;
    bool IsPaced(const Path& path) const;
    double PacingRate(const Path& path) const;
    void SyncCc(Path& path);
    /// Set one of a residual controller's controls (@p set, read back by @p get) on path
    /// @p i; a value equal to the one in force changes nothing. Throws naming @p call.
    template <typename Value, typename Get, typename Set>
    void SetResidual(uint32_t i, const char* call, Value value, Get get, Set set);
    void ScheduleHandover(uint32_t i);
    void ScheduleOutage(uint32_t i);
    void OnHandover(uint32_t i);
    void OnOutageEdge(uint32_t i, bool start, double end);
    void DeliverPathEvent(Path& path, const MpPathEvent& ev);
    static bool PcFilterThunk(void* ctx, const MpSentPacket& p);

    // attributes
    uint32_t m_packetBytes;
    Time m_maxAckDelay;
    bool m_pacing;
    double m_pacingGain;
    bool m_reinjectOnPto;
    uint32_t m_ptoProbes;
    uint32_t m_cwndValidation{0};
    uint64_t m_sendBufferBytes;
    uint64_t m_fileBytes;
    uint64_t m_initialMaxData;
    MpCarrierKind m_carrier{MpCarrierKind::LEO};
    uint16_t m_flowId{0};
    bool m_ecn{false}; //!< attribute Ecn (RFC 9000 section 13.4)
    Time m_initialRtt;
    MpRecoveryConfig m_recovery{MpRecoveryConfig::Preset(MpLossRecovery::Recovery::RFC9002)};
    uint32_t m_pathsInLossState{0};
    bool m_tcpTimer{false}; //!< the TCP preset's timer: per-path chunk-level snd_una tracked

    std::vector<std::unique_ptr<Path>> m_paths;
    Ptr<MpScheduler> m_scheduler;
    bool m_running{false};
    bool m_inTrySend{false};
    uint32_t m_chunkPayload{0};
    uint64_t m_totalChunks{0};       //!< file workload (0: bulk)
    std::deque<ChunkState> m_chunks; //!< chunks m_chunkBase .. m_nextChunk - 1
    uint64_t m_chunkBase{0};
    uint64_t m_nextChunk{0};
    std::set<uint64_t> m_retxQueue;
    uint64_t m_maxData{0};
    uint64_t m_ackedStreamBytes{0};
    EventId m_pacingEvent;
    EventId m_wakeupEvent;
    EventId m_kickEvent;
    bool m_flowBlocked{false};
};

} // namespace ns3

#endif // MP_QUIC_SENDER_H
