// SPDX-License-Identifier: GPL-2.0-only
//
// MpCongestionOps: the per-path congestion-control interface of the multipath transport.

#ifndef MP_CONGESTION_OPS_H
#define MP_CONGESTION_OPS_H

#include "model/transport/mp-connection-view.h"
#include "model/transport/mp-sent-packet.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * @ingroup mp-cc
 * Where a congestion controller runs: its path and the connection around it.
 */
struct MpCcContext
{
    MpConnectionView* conn{nullptr};
    uint32_t path{0};

    const MpPathInfo& Path() const
    {
        return conn->GetPath(path);
    }

    uint32_t Mss() const
    {
        return conn->GetMaxDatagramSize();
    }

    Time Now() const
    {
        return conn->Now();
    }

    /// Scenario knowledge of this path (null if none).
    const MpPathOracle* Oracle() const
    {
        return Path().oracle;
    }
};

/**
 * @ingroup mp-cc
 * One ACK frame's effect on a path (RFC 9002 OnPacketsAcked plus the RTT and rate samples).
 */
struct MpAckEvent
{
    Time now;
    uint64_t bytesAcked{0};             //!< newly acknowledged in-flight bytes
    uint32_t packetsAcked{0};           //!< newly acknowledged in-flight packets
    const MpSentPacket* acked{nullptr}; //!< the packets (ascending pn); skip p.wasLost ones
    std::size_t nAcked{0};
    bool rttSampled{false}; //!< latestRtt is a new sample
    Time latestRtt;
    uint64_t priorBytesInFlight{0};    //!< bytes_in_flight before this ACK
    const MpRateSample* rate{nullptr}; //!< delivery-rate sample of this ACK
};

/**
 * @ingroup mp-cc
 * Packets declared lost in one detection (RFC 9002 OnPacketsLost).
 */
struct MpLossEvent
{
    Time now;
    const MpSentPacket* lost{nullptr}; //!< the packets, ascending pn; p.lossKind says why
    std::size_t nLost{0};
    uint64_t lostBytes{0};            //!< in-flight bytes among them
    Time largestLostSentTime;         //!< send time of the most recently sent lost packet
    bool persistentCongestion{false}; //!< OnPersistentCongestion follows
};

/**
 * @ingroup mp-cc
 * A retransmission timeout of the timer-based recovery presets (`tcp`, `quic-draft`,
 * `picoquic`; RFC 6298, RFC 5681 section 3.1, draft-ietf-quic-recovery's RTO, picoquic's
 * timer). RFC 9002 recovery never raises it. When the preset marks the outstanding packets
 * lost, OnPacketsLost has already been called with them (kind RETRANSMISSION_TIMEOUT), so a
 * controller's own congestion response (ssthresh, W_max, recovery period) has run.
 */
struct MpRtoEvent
{
    Time now;
    uint32_t rtoCount{1};      //!< expiries in a row, 1 for the first of an episode
    bool first{true};          //!< the first expiry of the episode
    uint64_t bytesInFlight{0}; //!< bytes in flight after the expiry's marking
    Time oldestSentTime;       //!< send time of the oldest packet outstanding at the expiry
    uint64_t priorCwnd{0};     //!< cwnd before the expiry's loss response (for undo)
    uint64_t priorSsthresh{0}; //!< ssthresh before the expiry's loss response (for undo)
    /// Window to collapse to (bytes): 1 mss for `tcp` (RFC 5681 loss window), kMinimumWindow
    /// for `picoquic`, 0 for `quic-draft` (no change until the timeout is verified).
    uint64_t lossWindow{0};
};

/**
 * @ingroup mp-cc
 * The end of a retransmission-timeout episode: the first ACK that acknowledges a packet after
 * the expiry (RFC 6298 recovery goes on), or one sent before it (a spurious timeout).
 */
struct MpRtoEnd
{
    Time now;
    /// The ACK covered a packet sent before the first expiry (F-RTO / Eifel detection,
    /// RFC 5682 / RFC 4015) and the preset undoes spurious timeouts.
    bool spurious{false};
    /// Window to collapse to on a verified timeout (bytes; `quic-draft`'s
    /// OnRetransmissionTimeoutVerified: kMinimumWindow); 0 = no change.
    uint64_t verifiedWindow{0};
};

/**
 * @ingroup mp-cc
 * ECN codepoints (RFC 3168 section 5, the two low bits of IPv4's TOS byte and of the shim
 * header's ECN field). L4S (RFC 9331) senders use ECT(1), classic ECN senders ECT(0).
 */
enum class MpEcnCodepoint : uint8_t
{
    NOT_ECT = 0, //!< 00: not ECN-capable
    ECT1 = 1,    //!< 01: ECN-capable, L4S identifier (RFC 9331)
    ECT0 = 2,    //!< 10: ECN-capable, classic
    CE = 3,      //!< 11: congestion experienced
};

/**
 * @ingroup mp-cc
 * ECN feedback of one ACK frame that passed ECN validation (RFC 9000 section 13.4.2.1): the
 * increases of the peer's ECT(0), ECT(1) and CE counts on this path. Delivered after OnAck
 * of the same frame, only on a path whose ECN is validated (or in testing) and only when one
 * of the counts increased.
 */
struct MpEcnEvent
{
    Time now;
    uint64_t newlyAckedEct{0}; //!< newly acknowledged packets this sender sent ECN-capable
    uint64_t ect0Increase{0};  //!< increase of the ECT(0) count
    uint64_t ect1Increase{0};  //!< increase of the ECT(1) count
    uint64_t ceIncrease{0};    //!< increase of the CE count (packets marked on the way)
    uint64_t bytesAcked{0};    //!< newly acknowledged in-flight bytes of the frame
    Time largestAckedSentTime; //!< send time of the frame's largest newly acked packet
};

/// Kinds of path notifications.
enum class MpPathEventKind : uint8_t
{
    HANDOVER = 0,      //!< a handover instant of the path's timeline (oracle)
    OUTAGE_START = 1,  //!< an outage of the path began (oracle)
    OUTAGE_END = 2,    //!< an outage of the path ended (oracle)
    STATE_CHANGED = 3, //!< the path's MpPathState changed
};

/// One path notification.
struct MpPathEvent
{
    MpPathEventKind kind{MpPathEventKind::HANDOVER};
    Time time;
    MpPathState state{MpPathState::ACTIVE}; //!< the new state (STATE_CHANGED)
};

/**
 * @ingroup mp-cc
 * Congestion control of one path of a multipath QUIC-like connection.
 *
 * The transport creates one instance per path and calls it as RFC 9002 Appendix B calls its
 * congestion controller: OnPacketSent for every packet, OnAck once per ACK frame with the
 * newly acknowledged packets and the RTT/rate samples, OnPacketsLost once per loss detection
 * with each lost packet's send time, OnPersistentCongestion when section 7.6 holds. It also
 * delivers oracle notifications (handovers, outages) from the path's timeline; predictions
 * (next handover, the next path's delay and capacity, SNR, elevation, slant range) are read
 * on demand through ctx.Oracle(). Coupled algorithms read the other paths through ctx.conn.
 *
 * Windows are in bytes. Subclasses set m_cwnd / m_ssthresh / m_pacingRate; the defaults of
 * RFC 9002 section 7.2 apply: initial window min(10 mss, max(14720, 2 mss)), minimum window
 * 2 mss. Subclasses that wrap another controller override the getters.
 */
class MpCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();
    MpCongestionOps();
    ~MpCongestionOps() override;

    /// The registry name ("newreno", "cubic", ...).
    virtual std::string GetName() const = 0;

    /// Attach to a path; sets the initial window. Called once, before any other call.
    virtual void Init(const MpCcContext& ctx);

    virtual void OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p);
    virtual void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) = 0;
    virtual void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) = 0;
    /// RFC 9002 section 7.6.2: collapse to the minimum window (default).
    virtual void OnPersistentCongestion(const MpCcContext& ctx);
    /// A probe timeout fired (RFC 9002: no window change by default).
    virtual void OnPtoExpired(const MpCcContext& ctx, uint32_t ptoCount);
    /**
     * A retransmission timeout of a timer-based recovery preset fired. Default: on the first
     * expiry of an episode remember ev.priorCwnd and ev.priorSsthresh (for undo); if
     * ev.lossWindow > 0, set the window to it (RFC 5681 section 3.1: LW = 1 segment) through
     * SetWindow.
     */
    virtual void OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev);
    /**
     * A retransmission-timeout episode ended. Default: a spurious timeout restores the cwnd
     * and ssthresh remembered at its first expiry (RFC 5682 section 3 / RFC 4015 undo); a
     * verified one with ev.verifiedWindow > 0 collapses the window to it.
     */
    virtual void OnRtoEpisodeEnd(const MpCcContext& ctx, const MpRtoEnd& ev);
    /**
     * The path was idle (nothing in flight) for `idle` and is about to send again, with a
     * retransmission timeout of `rto` (RFC 5681 section 4.1, Linux tcp_cwnd_restart): the
     * window is halved once per RTO elapsed, down to min(initial window, cwnd); ssthresh is
     * first raised to max(ssthresh, 3/4 cwnd). Called only by presets with slow start after
     * idle on.
     */
    virtual void OnIdleRestart(const MpCcContext& ctx, Time idle, Time rto);
    /// Handover / outage / state notifications.
    virtual void OnPathEvent(const MpCcContext& ctx, const MpPathEvent& ev);
    /**
     * ECN feedback of an ACK frame (the connection's ECN is on and the path's ECN validated).
     * Default, RFC 9002 section 7.1 (B.7 OnPacketsAcked/ProcessECN): an increase of the CE
     * count is a congestion event for the send time of the largest acknowledged packet, i.e.
     * OnPacketsLost with no lost packets (nLost 0, lostBytes 0) and largestLostSentTime =
     * ev.largestAckedSentTime; the controller's recovery period keeps it to one reduction per
     * round trip. Scalable controllers (DCTCP, Prague) override it.
     */
    virtual void OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev);
    /**
     * The codepoint this controller's data packets carry when the connection's ECN is on:
     * ECT(0) (classic, the default) or ECT(1) (an L4S scalable controller).
     */
    virtual MpEcnCodepoint GetEcnCodepoint() const;
    /**
     * Whether a lost packet counts in the persistent-congestion test (RFC 9002 7.6.2).
     * Default true; the handover freeze excludes packets sent around a handover.
     */
    virtual bool ConsiderForPersistentCongestion(const MpCcContext& ctx,
                                                 const MpSentPacket& p) const;

    /// Congestion window (bytes).
    virtual uint64_t GetCwnd() const;
    /// Slow-start threshold (bytes; max = infinite).
    virtual uint64_t GetSsthresh() const;
    /// Pacing rate the algorithm wants (bit/s); 0 = the transport's default pacing.
    virtual double GetPacingRate() const;
    /// True if the algorithm must be paced even when the connection does not pace (BBR).
    virtual bool RequiresPacing() const;
    virtual bool InSlowStart() const;
    /// Losses the algorithm chose not to react to (e.g. the handover freeze), cumulative.
    virtual uint64_t GetSuppressedLosses() const;

    /// True for controllers driven from Python (set_cwnd / set_pacing_rate).
    virtual bool IsExternal() const;
    /// Set the window from outside (external controllers only; others ignore it).
    virtual void SetExternalCwnd(uint64_t bytes);
    /// Set the pacing rate from outside (bit/s, 0 = unpaced; external controllers only).
    virtual void SetExternalPacingRate(double bps);

    /**
     * Fix the random-number streams the algorithm uses (ns-3 convention).
     * @return the number of streams used
     */
    virtual int64_t AssignStreams(int64_t stream);

    /// RFC 9002 kInitialWindow for a max datagram size.
    static uint64_t InitialWindow(uint32_t mss);
    /// RFC 9002 kMinimumWindow (2 mss).
    static uint64_t MinimumWindow(uint32_t mss);

  protected:
    /// Raise a real-valued window (bytes) to the floor (kMinimumWindow, or the loss window
    /// while a retransmission timeout holds it lower) and publish it as m_cwnd.
    void CommitRealWindow(double& cwnd);
    /**
     * Set the congestion window to `bytes` (retransmission timeout, undo, idle restart).
     * Controllers that keep a real-valued window override it to set that too.
     */
    virtual void SetWindow(uint64_t bytes);

    uint64_t m_windowFloor{0};      //!< CommitRealWindow's floor; 0 = kMinimumWindow
    uint64_t m_rtoPriorCwnd{0};     //!< cwnd at the first expiry of the RTO episode
    uint64_t m_rtoPriorSsthresh{0}; //!< ssthresh before the episode's congestion response
    bool m_rtoPriorValid{false};    //!< the two above are set

    uint64_t m_cwnd{0};
    uint64_t m_ssthresh;
    double m_pacingRate{0};
    uint32_t m_mss{1200};
    uint32_t m_initialWindowPackets{0}; //!< attribute; 0 = RFC 9002 default
};

/**
 * @ingroup mp-cc
 * A controller that forwards everything to an inner controller. Wrappers (such as the
 * handover freeze) derive from it and override the calls they filter.
 */
class MpCongestionOpsWrapper : public MpCongestionOps
{
  public:
    static TypeId GetTypeId();

    void SetInner(Ptr<MpCongestionOps> inner);
    Ptr<MpCongestionOps> GetInner() const;
    /**
     * Give the wrapper a second controller fed the same events ("wrapper+inner+alternate";
     * only wrappers registered with alternates take one, MpResidual).
     * @throws std::invalid_argument here: this wrapper takes one controller
     */
    virtual void SetAlternate(Ptr<MpCongestionOps> alternate);
    /// The second controller (null without one).
    virtual Ptr<MpCongestionOps> GetAlternate() const;

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;
    void OnPtoExpired(const MpCcContext& ctx, uint32_t ptoCount) override;
    void OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev) override;
    void OnRtoEpisodeEnd(const MpCcContext& ctx, const MpRtoEnd& ev) override;
    void OnIdleRestart(const MpCcContext& ctx, Time idle, Time rto) override;
    void OnPathEvent(const MpCcContext& ctx, const MpPathEvent& ev) override;
    void OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev) override;
    MpEcnCodepoint GetEcnCodepoint() const override;
    bool ConsiderForPersistentCongestion(const MpCcContext& ctx,
                                         const MpSentPacket& p) const override;
    uint64_t GetCwnd() const override;
    uint64_t GetSsthresh() const override;
    double GetPacingRate() const override;
    bool RequiresPacing() const override;
    bool InSlowStart() const override;
    uint64_t GetSuppressedLosses() const override;
    bool IsExternal() const override;
    void SetExternalCwnd(uint64_t bytes) override;
    void SetExternalPacingRate(double bps) override;
    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;
    Ptr<MpCongestionOps> m_inner;
};

} // namespace ns3

#endif // MP_CONGESTION_OPS_H
