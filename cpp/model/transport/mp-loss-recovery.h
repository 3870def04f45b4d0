// SPDX-License-Identifier: GPL-2.0-only
//
// MpLossRecovery: RFC 9002 loss detection for one path's packet-number space.

#ifndef MP_LOSS_RECOVERY_H
#define MP_LOSS_RECOVERY_H

#include "mp-rtt-estimator.h"
#include "mp-sent-packet.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * @ingroup mp-transport
 * Loss detection of one path (one packet-number space), following RFC 9002 (Iyengar and
 * Swett, 2021) Appendix A:
 *
 *   ACK processing (A.7): largest_acked = max(largest_acked, ack.largest); newly acknowledged
 *   packets are removed; if the largest acknowledged packet is newly acknowledged and at least
 *   one newly acknowledged packet is ack-eliciting, latest_rtt = now - time_sent(largest) and
 *   the RTT estimator is updated (section 5.3); lost packets are detected; pto_count = 0.
 *
 *   Loss detection (A.10, section 6.1): with
 *     loss_delay = max(kTimeThreshold * max(latest_rtt, smoothed_rtt), kGranularity),
 *   an unacknowledged packet with pn <= largest_acked is lost if
 *     largest_acked >= pn + kPacketThreshold          (packet threshold, 3)
 *     or time_sent <= now - loss_delay                (time threshold, 9/8)
 *   otherwise loss_time = min(loss_time, time_sent + loss_delay).
 *
 *   Timer (A.8, section 6.2.1): if loss_time is set it is the deadline (a loss-time timer);
 *   else, with ack-eliciting packets in flight, the probe timeout
 *     time_of_last_ack_eliciting + (smoothed_rtt + max(4 rttvar, kGranularity)
 *                                   + max_ack_delay) * 2^pto_count.
 *   On a PTO, pto_count is incremented (exponential backoff) and the caller sends one or two
 *   ack-eliciting probes that the congestion window does not block.
 *
 *   Persistent congestion (section 7.6): among the packets lost in one detection, two
 *   ack-eliciting packets sent after the first RTT sample, with no acknowledged packet sent
 *   between them, whose send times differ by more than
 *     (smoothed_rtt + max(4 rttvar, kGranularity) + max_ack_delay)
 *       * kPersistentCongestionThreshold (3)
 *   establish persistent congestion. The transport may exclude packets from this test (the
 *   handover freeze does) through an optional filter.
 *
 * Timer-based recovery (Params::recovery other than RFC9002; values in MpRecoveryConfig,
 * mp-recovery-preset.h) replaces the PTO by a retransmission timer:
 *
 *   RTO (RFC 6298 section 2): before a sample initialRto; then
 *     RFC6298: max(minRto, SRTT + max(G, 4 RTTVAR))
 *     LINUX:   SRTT + max(4 RTTVAR, minRto)                 (Linux tcp_set_rto)
 *     QUIC:    max(minRto, SRTT + 4 RTTVAR + max_ack_delay)  (the drafts, picoquic)
 *   times the backoff of rto_count expiries (DOUBLE 2^n, RFC 6298 section 5.5; XOR the ns-3
 *   QUIC module's `2 ^ n`; PICOQUIC 1, 2, 4, 5, 6, 7, 8, 10, then x1.25), capped at maxRto.
 *   The timer runs from the last advance of the cumulative acknowledgement point (the caller
 *   reports it: RestartRetransmissionTimer) or, with nothing outstanding before, the send
 *   (TCP, RFC 6298 section 5), or from the last ack-eliciting send (drafts, picoquic).
 *   Tail-loss probes (maxTlps > 0) come first: TCP at 2 SRTT (+ 200 ms with one packet in
 *   flight), never later than the RTO (RFC 8985 section 7.2); the drafts at
 *   max(1.5 SRTT + max_ack_delay, 10 ms) (`tlpModuleTiming`: the module's 1 x SRTT).
 *   On an expiry rto_count grows; with markAllLostOnRto every outstanding packet is declared
 *   lost (kind RETRANSMISSION_TIMEOUT). An ACK that newly acknowledges anything resets the
 *   TLP and RTO counts (not the TCP timer); the first one after an expiry ends the episode, as
 * verified (it covers a packet sent after the first expiry; the drafts then declare every older
 *   outstanding packet lost) or spurious (only packets sent before it).
 *
 * The class is pure: it never reads the simulator clock, every method takes "now", so the
 * rules can be unit-tested with constructed ACK sequences (test/mp-loss-recovery-test-suite.cc).
 * Packets are kept in a deque indexed by packet number, so sending, acknowledging and losing
 * are O(1) per packet.
 */
class MpLossRecovery
{
  public:
    /// The loss-recovery family (preset values: MpRecoveryConfig::Preset).
    enum class Recovery : uint8_t
    {
        RFC9002 = 0,    //!< RFC 9002: probe timeout, persistent congestion
        TCP = 1,        //!< RFC 6298 / RFC 5681 / RFC 8985 as Linux 5.4 runs them
        QUIC_DRAFT = 2, //!< draft-ietf-quic-recovery's TLP + RTO
        PICOQUIC = 3,   //!< picoquic's retransmission timer
    };

    /// How the retransmission timeout is computed from the RTT estimate.
    enum class RtoFormula : uint8_t
    {
        RFC6298 = 0, //!< max(minRto, SRTT + max(G, 4 RTTVAR))
        LINUX = 1,   //!< SRTT + max(4 RTTVAR, minRto)
        QUIC = 2,    //!< max(minRto, SRTT + 4 RTTVAR + max_ack_delay)
    };

    /// How the retransmission timeout grows with consecutive expiries.
    enum class RtoBackoff : uint8_t
    {
        DOUBLE = 0,   //!< 2^n (RFC 6298 section 5.5)
        XOR = 1,      //!< the ns-3 QUIC module's `2 ^ n`: 2, 3, 0, 1, 6, 7, ...
        PICOQUIC = 2, //!< 1, 2, 4, 5, 6, 7, 8, 10, then x1.25 per expiry
    };

    /// RFC 9002 constants (section 6.1.1, 6.1.2, 6.2, 7.6) and the peer's max_ack_delay.
    struct Params
    {
        uint32_t packetThreshold{3};               //!< kPacketThreshold
        double timeThreshold{9.0 / 8.0};           //!< kTimeThreshold
        Time granularity{MilliSeconds(1)};         //!< kGranularity
        Time initialRtt{MilliSeconds(333)};        //!< kInitialRtt
        Time maxAckDelay{MilliSeconds(25)};        //!< the receiver's max_ack_delay
        uint32_t persistentCongestionThreshold{3}; //!< kPersistentCongestionThreshold
        uint32_t maxPtoBackoffExponent{16};        //!< cap on pto_count in 2^pto_count
        // Timer-based recovery (ignored under RFC9002).
        Recovery recovery{Recovery::RFC9002};           //!< the recovery family
        Time minRto{MilliSeconds(200)};                 //!< RTO minimum (Linux TCP_RTO_MIN)
        Time maxRto{Seconds(120)};                      //!< RTO cap (0: none)
        Time initialRto{Seconds(1)};                    //!< RTO before a sample (RFC 6298 2.1)
        RtoFormula rtoFormula{RtoFormula::RFC6298};     //!< RTO from the RTT estimate
        RtoBackoff rtoBackoff{RtoBackoff::DOUBLE};      //!< growth per expiry
        uint32_t maxTlps{0};                            //!< tail-loss probes before the RTO
        bool tlpModuleTiming{false};                    //!< drafts' TLP at 1 x SRTT (ns-3 module)
        Time minTlpTimeout{MilliSeconds(10)};           //!< drafts' kMinTLPTimeout
        Time tlpDelayedAckAllowance{MilliSeconds(200)}; //!< RFC 8985 WCDelAckT
        bool subtractAckDelay{true};                    //!< RTT samples less the ACK delay
        bool persistentCongestion{true};                //!< RFC 9002 section 7.6 test
        bool markAllLostOnRto{false};                   //!< an expiry declares the flight lost
        bool timeThresholdLoss{true};                   //!< time-threshold (RACK-like) loss
        bool detectLostRetransmissions{true};           //!< thresholds apply to retransmissions
    };

    /// Kind of loss-detection timer.
    enum class TimerKind : uint8_t
    {
        NONE = 0,
        LOSS_TIME = 1,
        PTO = 2,
        TLP = 3, //!< tail-loss probe (timer-based recovery)
        RTO = 4, //!< retransmission timeout (timer-based recovery)
    };

    /// What processing one ACK frame produced.
    struct AckOutcome
    {
        bool anyNewlyAcked{false};        //!< at least one packet newly acknowledged
        bool rttSampled{false};           //!< an RTT sample was taken
        bool persistentCongestion{false}; //!< RFC 9002 section 7.6 established
        uint64_t ackedInFlightBytes{0};   //!< bytes of newly acked in-flight packets
        uint64_t lostBytes{0};            //!< bytes of packets declared lost
        Time largestNewlyAckedSentTime;   //!< send time of the largest newly acked packet
        bool rtoEpisodeEnded{false};      //!< the first ACK after a retransmission timeout
        bool rtoSpurious{false};          //!< ... and it covered only packets sent before it
    };

    /// Persistent-congestion filter: return false to leave a lost packet out of the test.
    using PcFilter = bool (*)(void* ctx, const MpSentPacket& p);

    MpLossRecovery();
    explicit MpLossRecovery(const Params& params);

    /// Record a sent packet. Packet numbers must be consecutive, starting at 0.
    /// @throws std::invalid_argument when the packet number is not the next one
    void OnPacketSent(const MpSentPacket& p);

    /**
     * Process one ACK frame.
     *
     * @param ranges ACK ranges, in any order, inclusive; numbers never sent are ignored
     * @param n number of ranges
     * @param ackDelay the ACK delay the receiver reported
     * @param now the receive time
     * @return the outcome; NewlyAcked() and Lost() hold the packets (valid until the next call)
     */
    const AckOutcome& OnAckReceived(const MpAckRange* ranges,
                                    std::size_t n,
                                    Time ackDelay,
                                    Time now);

    /// The loss-detection timer (A.8): kind and deadline (deadline meaningless for NONE).
    TimerKind GetTimer(Time& deadline) const;

    /**
     * The loss-detection timer fired (A.9). For LOSS_TIME, Lost() holds the packets declared
     * lost (Outcome() the persistent-congestion verdict); for PTO, pto_count was incremented
     * and the caller must send probes. Returns NONE if the timer was not due.
     */
    TimerKind OnLossDetectionTimeout(Time now);

    /**
     * Packets newly acknowledged by the last OnAckReceived: ascending packet numbers, then the
     * late-acknowledged packets already declared lost (wasLost set).
     */
    const std::vector<MpSentPacket>& NewlyAcked() const
    {
        return m_newlyAcked;
    }

    /// Packets declared lost by the last OnAckReceived / OnLossDetectionTimeout.
    const std::vector<MpSentPacket>& Lost() const
    {
        return m_lost;
    }

    /// The outcome of the last OnAckReceived / OnLossDetectionTimeout.
    const AckOutcome& Outcome() const
    {
        return m_outcome;
    }

    /// Set the persistent-congestion filter (nullptr: every lost packet counts).
    void SetPersistentCongestionFilter(PcFilter f, void* ctx)
    {
        m_pcFilter = f;
        m_pcFilterCtx = ctx;
    }

    MpRttEstimator& Rtt()
    {
        return m_rtt;
    }

    const MpRttEstimator& Rtt() const
    {
        return m_rtt;
    }

    const Params& GetParams() const
    {
        return m_params;
    }

    uint64_t GetBytesInFlight() const
    {
        return m_bytesInFlight;
    }

    uint32_t GetPtoCount() const
    {
        return m_ptoCount;
    }

    /// Number of outstanding ack-eliciting packets.
    uint32_t GetAckElicitingInFlight() const
    {
        return m_ackElicitingInFlight;
    }

    /// largest_acked_packet, or -1 if nothing was acknowledged yet.
    int64_t GetLargestAcked() const
    {
        return m_largestAcked;
    }

    /// The next packet number to send.
    uint64_t GetNextPn() const
    {
        return m_nextPn;
    }

    Time GetTimeOfLastAckEliciting() const
    {
        return m_timeOfLastAckEliciting;
    }

    /// The current PTO period including backoff: PtoPeriod * 2^pto_count.
    Time GetPtoDuration() const;

    /// The retransmission timeout without backoff (timer-based recovery).
    Time GetRto() const;

    /**
     * TCP: restart the retransmission timer at `now` (RFC 6298 section 5.3: the cumulative
     * acknowledgement point advanced). The detector cannot see that point itself (a lost
     * packet's data is re-sent under a new packet number), so the sender calls this.
     */
    void RestartRetransmissionTimer(Time now);

    /// The retransmission timeout with the backoff of the current expiry count.
    Time GetBackedOffRto() const;

    /// Consecutive retransmission timeouts (reset by an ACK of anything new).
    uint32_t GetRtoCount() const
    {
        return m_rtoCount;
    }

    /// Tail-loss probes sent since the last ACK of anything new.
    uint32_t GetTlpCount() const
    {
        return m_tlpCount;
    }

    /// True from a retransmission timeout until the ACK that ends its episode.
    bool InRtoEpisode() const
    {
        return m_rtoEpisode;
    }

    /// True for the timer-based recovery families.
    bool IsTimerBased() const
    {
        return m_params.recovery != Recovery::RFC9002;
    }

    /// The persistent-congestion duration (section 7.6.1).
    Time GetPersistentCongestionDuration() const;

    /// Call f(const MpSentPacket&) for every outstanding packet, oldest first.
    template <typename F>
    void ForEachOutstanding(F f) const
    {
        for (const auto& p : m_sent)
        {
            if (p.state == MpSentPacket::OUTSTANDING)
            {
                f(p);
            }
        }
    }

    /// Number of records held (acked/lost ones wait until they reach the front).
    std::size_t GetTrackedPackets() const
    {
        return m_sent.size();
    }

  private:
    /// A.10 DetectAndRemoveLostPackets; appends to m_lost, sets m_lossTime.
    void DetectLostPackets(Time now, MpLossKind timeKind);
    /// Section 7.6.2 over m_lost.
    bool InPersistentCongestion() const;
    /// Remove resolved packets from the front of the deque.
    void PopResolved();
    /// Timer-based recovery: the timer (TLP or RTO) when something is outstanding.
    TimerKind GetRetransmissionTimer(Time& deadline) const;
    /// Declare one packet lost: state, counters, m_lost, m_recentLost.
    void DeclareLost(MpSentPacket& p, MpLossKind kind, bool ackedBefore);
    /// Declare outstanding packets lost with pn < below (kind RETRANSMISSION_TIMEOUT).
    void MarkOutstandingLost(uint64_t below);
    /// Timer-based recovery: the episode and timer bookkeeping of one ACK.
    void OnAckTimerBased(int64_t largestAckedNow, Time now);

    Params m_params;
    MpRttEstimator m_rtt;
    std::deque<MpSentPacket> m_sent; //!< packet numbers m_basePn .. m_nextPn - 1
    uint64_t m_basePn{0};
    uint64_t m_nextPn{0};
    int64_t m_largestAcked{-1};
    Time m_lossTime{0};
    bool m_lossTimeSet{false};
    Time m_timeOfLastAckEliciting{0};
    uint32_t m_ptoCount{0};
    uint32_t m_rtoCount{0};
    uint32_t m_tlpCount{0};
    Time m_rtoAnchor{0};             //!< TCP: when the retransmission timer was (re)started
    bool m_rtoEpisode{false};        //!< an expiry happened and no ACK followed yet
    uint64_t m_rtoEpisodeFirstPn{0}; //!< next packet number at the episode's first expiry
    uint64_t m_bytesInFlight{0};
    uint32_t m_ackElicitingInFlight{0};
    PcFilter m_pcFilter{nullptr};
    void* m_pcFilterCtx{nullptr};
    std::vector<MpSentPacket> m_newlyAcked;
    std::vector<MpSentPacket> m_lost;
    std::vector<uint8_t> m_lostAckedBetween; //!< per m_lost entry: an acked packet precedes it
    static constexpr std::size_t kMaxRecentLost = 4096;
    std::vector<MpSentPacket> m_recentLost; //!< declared lost within ~4 RTT (late-ACK check)
    AckOutcome m_outcome;
};

} // namespace ns3

#endif // MP_LOSS_RECOVERY_H
