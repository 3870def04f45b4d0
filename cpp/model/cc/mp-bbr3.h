// SPDX-License-Identifier: GPL-2.0-only
//
// MpBbr3: BBR version 3 for one path (draft-ietf-ccwg-bbr); its picoquic-constant variant
// MpBbr3Picoquic is in mp-bbr3-picoquic.h.

#ifndef MP_BBR3_H
#define MP_BBR3_H

#include "mp-congestion-ops.h"
#include "mp-windowed-filter.h"

#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <string>

namespace ns3
{

/**
 * @ingroup mp-cc
 * BBRv3 after N. Cardwell, I. Swett and J. Beshay, "BBR Congestion Control",
 * draft-ietf-ccwg-bbr-04 (October 2025); section numbers below are that draft's. The whole
 * model of section 5 is kept (cpp/doc/bbr3.md walks through it):
 *
 *   states (5.1, 5.3): Startup -> Drain -> ProbeBW DOWN -> CRUISE -> REFILL -> UP -> DOWN ...,
 *            ProbeRTT from any state; the gains of the 5.6.1 table
 *   model (5.5): max_bw  = max of RS.delivery_rate over this and the previous ProbeBW cycle
 *            min_rtt = min RTT over 10 s; bw = min(max_bw, bw_shortterm); bdp = bw * min_rtt
 *            inflight_longterm: the long-term in-flight bound set by losses while probing
 *            bw_shortterm, inflight_shortterm: per-round loss cuts while not probing
 *            extra_acked: max over 10 rounds (1 in Startup) of ACK aggregation
 *   loss (5.5.10): IsInflightTooHigh = RS.lost > LossThresh * RS.tx_in_flight; while probing
 *            inflight_longterm = max(tx_in_flight at the crossing (InflightAtLoss),
 *            Beta * min(bdp, cwnd)), UP -> DOWN; otherwise once per round with loss
 *            x_shortterm = max(x_latest, Beta * x_shortterm)
 *   Startup exit (5.3.1): delivery rate < 1.25 x in 3 rounds, or in recovery a round with loss
 *            rate > LossThresh over >= 6 discontiguous lost ranges
 *   probe timing (5.3.3.5): REFILL after min(2 + U(0,1) s, min(bdp, cwnd)/SMSS capped at
 *            62/63 rounds); inflight_longterm grows 1, 2, 4 ... SMSS per round in UP
 *   ProbeRTT (5.3.4): when the 5 s ProbeRTT min filter expires, cwnd = max(0.5 bdp, 4 SMSS)
 *            for max(200 ms, 1 round), then CRUISE (or Startup)
 *   pacing (5.6.2): pacing_gain * bw * (1 - 1 %); send quantum (5.6.3)
 *            clamp(pacing_rate * 1 ms, 2 SMSS, 64 KB)
 *   cwnd (5.6.4): max_inflight = cwnd_gain * bdp + extra_acked, at least the send quantum and
 *            4 SMSS, + 2 SMSS in UP; cwnd grows by the newly acked bytes towards it, capped
 *            by inflight_longterm (0.85 x in CRUISE and ProbeRTT) and inflight_shortterm.
 *            Retransmission timeout: cwnd = inflight + 1 SMSS; at the end of loss recovery
 *            or of the timeout episode the saved cwnd returns.
 *
 * RS.lost is counted from the losses this controller is told about, so a wrapper that keeps
 * packets from OnPacketsLost (the handover freeze) keeps them out of IsInflightTooHigh and the
 * short-term cuts as well: C.lost is the sum of the in-flight bytes passed to OnPacketsLost and
 * P.lost is its value when P was sent (a per-packet-number record of this controller).
 * RS.tx_in_flight and P.tx_in_flight come from the transport's delivery-rate estimator
 * (MpDeliveryRate).
 *
 * BBR requires pacing; the transport paces it whatever the connection's Pacing setting.
 *
 * ECN (OnEcnFeedback): the draft has no ECN response; this is Linux BBRv3's (google/bbr v3,
 * tcp_bbr.c), off by default as there (attribute Ecn; Linux needs the route's ecn_low flag).
 * With Ecn off, packets go Not-ECT and CE marks (if any arrive) are ignored: no alpha, no cut,
 * and not the base class's loss-like reaction (Linux BBR sets cwnd in cong_control, so the TCP
 * stack's CWR does not cut it).
 * With Ecn on, once min_rtt <= EcnMaxRtt (5 ms; 0: any RTT) the flow is ECN-eligible for good:
 *
 *   per round:  ecn_alpha = (1 - EcnAlphaGain) ecn_alpha + EcnAlphaGain ce_ratio, ce_ratio =
 *               CE-marked bytes / delivered bytes of the round (alpha starts at EcnAlphaInit 1);
 *               in Startup, EcnFullCount (2) rounds in a row with ce_ratio >= EcnThresh end it
 *               (inflight_longterm = max(bdp, inflight_latest))
 *   per loss round with CE, when not probing: inflight_shortterm = min(its loss cut,
 *               inflight_shortterm (1 - EcnFactor ecn_alpha)), EcnFactor = 1/3
 *   per ACK while probing (the ACKs of a bandwidth probe, pipe full): RS.delivered_ce >
 *               EcnThresh (0.5) RS.delivered is IsInflightTooHigh: inflight_longterm =
 *               max(RS.tx_in_flight, Beta * min(bdp, cwnd)), UP -> DOWN
 *   in DOWN / CRUISE: CE but no loss in this cycle -> REFILL at once, with inflight_longterm
 *               growing from 2^floor(log2(EcnReprobeGain * inflight_longterm / SMSS)) SMSS
 *
 * The transport delivers a frame's ECN counts after its OnAck, so the per-round steps of a
 * frame that starts a round run in its OnEcnFeedback (or at the next OnAck if none comes).
 */
class MpBbr3 : public MpCongestionOps
{
  public:
    static TypeId GetTypeId();
    MpBbr3();

    /// BBR.state (draft section 5.1).
    enum class State : uint8_t
    {
        STARTUP = 0,
        DRAIN = 1,
        PROBE_BW_DOWN = 2,
        PROBE_BW_CRUISE = 3,
        PROBE_BW_REFILL = 4,
        PROBE_BW_UP = 5,
        PROBE_RTT = 6,
    };

    /// BBR.ack_phase (draft section 2.10).
    enum class AckPhase : uint8_t
    {
        INIT = 0,
        REFILLING = 1,
        PROBE_STARTING = 2,
        PROBE_FEEDBACK = 3,
        PROBE_STOPPING = 4,
    };

    /// "startup", "drain", "probe_bw_down", ...
    static const char* StateName(State s);

    /// The model and state machine, for tests and diagnostics. Rates in bit/s, volumes in
    /// bytes; infinite bounds are +inf.
    struct Status
    {
        State state{State::STARTUP};
        AckPhase ackPhase{AckPhase::INIT};
        double maxBwBps{0};
        double bwBps{0};
        double bwShorttermBps{0};
        double inflightShortterm{0};
        double inflightLongterm{0};
        double bdp{0};
        double maxInflight{0};
        double extraAcked{0};
        double sendQuantum{0};
        Time minRtt; //!< 0 before a sample
        Time probeRttMinStamp;
        double pacingGain{1};
        double cwndGain{1};
        uint64_t roundCount{0};
        uint64_t cycleCount{0};
        uint64_t roundsSinceProbeUp{0};
        uint32_t bwProbeUpRounds{0};
        double probeUpAckedPerInc{0};
        Time bwProbeWait;
        Time cycleStamp;
        bool fullBwReached{false};
        bool fullBwNow{false};
        bool isBwProbeSample{false};
        bool prevProbeTooHigh{false};
        bool prevProbePrecautionary{false};
        bool isCwndLimited{false};
        bool inRecovery{false};
        bool inRto{false};
        uint64_t priorCwnd{0};
        uint64_t lostBytes{0}; //!< C.lost as this controller counts it
        uint64_t stateTransitions{0};
        // ECN (Linux BBRv3)
        bool ecnEligible{false};
        double ecnAlpha{1};
        double lastCeRatio{-1};  //!< ce_ratio of the last round (-1: none yet)
        uint64_t deliveredCe{0}; //!< C.delivered_ce, CE-marked bytes
        bool ecnInRound{false};
        bool ecnInCycle{false};
        uint32_t startupEcnRounds{0};
        uint64_t ecnTooHigh{0};       //!< IsInflightTooHigh from CE, cumulative
        uint64_t ecnShorttermCuts{0}; //!< inflight_shortterm cuts from CE, cumulative
    };

    std::string GetName() const override;
    void Init(const MpCcContext& ctx) override;
    void OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p) override;
    void OnAck(const MpCcContext& ctx, const MpAckEvent& ev) override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    void OnPersistentCongestion(const MpCcContext& ctx) override;
    void OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev) override;
    void OnRtoEpisodeEnd(const MpCcContext& ctx, const MpRtoEnd& ev) override;
    /// BBR keeps its window after idle (draft section 5.4): no slow start after idle.
    void OnIdleRestart(const MpCcContext& ctx, Time idle, Time rto) override;
    /// Linux BBRv3's ECN response when attribute Ecn is on; otherwise CE is ignored.
    void OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev) override;
    /// ECT(0) with Ecn on (Linux: TCP_ECN_ECT_PERMANENT on ecn_low routes); Not-ECT otherwise,
    /// so that an ECN AQM drops, rather than marks, a flow that ignores CE (RFC 3168 5).
    MpEcnCodepoint GetEcnCodepoint() const override;
    bool RequiresPacing() const override;
    bool InSlowStart() const override;
    int64_t AssignStreams(int64_t stream) override;

    State GetState() const;
    Status GetStatus() const;
    /// C.send_quantum (bytes). The transport paces packet by packet and does not use it.
    double GetSendQuantum() const;

    /// A state transition: old and new State.
    typedef void (*StateTracedCallback)(uint8_t oldState, uint8_t newState);

  protected:
    /// Constants that differ between the registered variants.
    struct Defaults
    {
        double lossThresh;
        uint32_t minLostPackets;
        bool startupOnRtoEnd;
    };

    /// Finish a variant's tid (given its name and constructor): parent MpCongestionOps, group
    /// Leogym, the attributes with the given defaults and the trace source.
    static TypeId AddAttributes(TypeId tid, const Defaults& d);

    std::string m_name{"bbr3"};

  private:
    /// The rate sample of one ACK as the draft's RS (bytes, bytes/s).
    struct Sample
    {
        double deliveryRate{0}; //!< RS.delivery_rate, 0 if no valid sample
        double delivered{0};    //!< RS.delivered
        uint64_t priorDelivered{0};
        bool isAppLimited{false};
        double txInFlight{0}; //!< RS.tx_in_flight
        double lost{0};       //!< RS.lost
        double newlyAcked{0}; //!< RS.newly_acked
        Time rtt;
        bool hasRtt{false};
    };

    /// What this controller remembers of a packet at send time.
    struct SentRecord
    {
        uint64_t lost{0};        //!< P.lost (C.lost as counted here)
        bool appLimited{false};  //!< sent while BBR marked the connection app-limited
        bool done{false};        //!< acknowledged, lost, or old enough to forget
        uint64_t deliveredCe{0}; //!< P.delivered_ce (C.delivered_ce when sent, bytes)
    };

    static constexpr double kInf = std::numeric_limits<double>::infinity();

    // --- helpers of the model (draft 5.5, 5.6) ---
    double Smss() const;
    double MinPipeCwnd() const;
    double InitialCwnd() const;
    bool HasMinRtt() const;
    double BdpMultiple(double gain) const;
    double QuantizationBudget(double inflightCap) const;
    double Inflight(double gain) const;
    double InflightWithHeadroom() const;
    double TargetInflight() const;
    double ProbeRttCwnd() const;
    bool IsInAProbeBwState() const;
    bool IsProbingBw() const;
    bool InLossRecovery() const;
    bool IsCwndLimited() const;
    bool IsInflightTooHigh(const Sample& rs) const;
    double InflightAtLoss(const Sample& rs, double size) const;

    // --- state transitions (5.3) ---
    /// Enter state s (counted and traced if it changes) with its gains (5.6.1 table).
    void SetState(State s, double pacingGain, double cwndGain);
    void EnterStartup();
    void EnterDrain();
    void EnterProbeBw();
    void StartProbeBwDown();
    void StartProbeBwCruise();
    /// REFILL; `probeUpRounds` starts UP's inflight_longterm slope at 2^it SMSS per round.
    void StartProbeBwRefill(uint32_t probeUpRounds = 0);
    void StartProbeBwUp(const Sample& rs);
    void EnterProbeRtt();
    void ExitProbeRtt();
    void PickProbeWait();
    void StartRound();

    // --- per-ACK steps (5.2.3) ---
    void UpdateLatestDeliverySignals(const Sample& rs);
    void UpdateCongestionSignals(const Sample& rs);
    void UpdateRound(const Sample& rs);
    void UpdateMaxBw(const Sample& rs);
    void AdaptLowerBoundsFromCongestion();
    void UpdateAckAggregation(const Sample& rs);
    void CheckFullBwReached(const Sample& rs);
    void ResetFullBw();
    void CheckStartupDone();
    void CheckStartupHighLoss();
    void CheckDrainDone();
    void UpdateProbeBwCyclePhase(const Sample& rs);
    bool AdaptLongTermModel(const Sample& rs);
    bool IsTimeToProbeBw();
    bool IsRenoCoexistenceProbeTime() const;
    bool IsTimeToCruise() const;
    bool IsTimeToGoDown(const Sample& rs);
    void RaiseInflightLongtermSlope();
    void ProbeInflightLongtermUpward(const Sample& rs);
    void AdvanceMaxBwFilter();
    void UpdateMinRtt(const Sample& rs);
    void CheckProbeRtt(const Sample& rs);
    void HandleProbeRtt();
    void CheckProbeRttDone();
    void AdvanceLatestDeliverySignals(const Sample& rs);
    void BoundBwForModel();
    void ResetCongestionSignals();
    void ResetShortTermModel();
    void UpdateBdp();

    // --- control parameters (5.6) ---
    void SetPacingRateWithGain(double gain);
    void SetSendQuantum();
    void UpdateMaxInflight();
    void SetCwnd(const Sample& rs);
    void BoundCwndForProbeRtt();
    void BoundCwndForModel();

    // --- loss (5.5.10, 5.5.11, 5.6.4.4) ---
    void NoteLoss();
    void HandleLostPacket(const MpSentPacket& p, const SentRecord& rec);
    void HandleInflightTooHigh(const Sample& rs);
    void HandleQueueTooHighInStartup();
    void SaveStateUponLoss();
    void HandleSpuriousLossDetection();
    void SaveCwnd();
    void RestoreCwnd();
    void MarkConnectionAppLimited();
    void HandleRestartFromIdle(const MpSentPacket& p);

    // --- ECN (Linux BBRv3, tcp_bbr.c) ---
    /// The per-round ECN steps a frame's OnAck left for its ECN feedback.
    void ResolveEcnRound();
    /// bbr_update_ecn_alpha and bbr_check_ecn_too_high_in_startup.
    void UpdateEcnAlpha();
    /// The ECN part of bbr_adapt_lower_bounds (bbr_ecn_lower_bounds).
    void EcnLowerBounds();
    /// The ECN part of bbr_is_inflight_too_high on this frame's rate sample.
    void CheckEcnTooHigh();
    /// Apply the caps and the pacing rate again after an ECN step changed the model.
    void ApplyEcnControl();

    // --- per-packet records ---
    SentRecord* Record(uint64_t pn);
    void TrimRecords(uint64_t largestAcked);

    void Publish();

    // attributes
    double m_startupPacingGain;
    double m_defaultCwndGain;
    double m_drainPacingGain;
    double m_probeDownPacingGain;
    double m_probeUpPacingGain;
    double m_probeUpCwndGain;
    double m_lossThresh;
    double m_beta;
    double m_headroom;
    uint32_t m_minPipeCwndPackets;
    double m_fullBwThresh;
    uint32_t m_fullBwCountThresh;
    uint32_t m_startupFullLossCnt;
    uint32_t m_extraAckedFilterLen;
    Time m_minRttFilterLen;
    Time m_probeRttInterval;
    Time m_probeRttDuration;
    double m_probeRttCwndGain;
    double m_pacingMarginPercent;
    Time m_probeWaitBase;
    Time m_probeWaitRange;
    uint32_t m_renoRoundsMax;
    uint32_t m_minLostPackets;
    bool m_startupOnRtoEnd;
    bool m_ecn;
    Time m_ecnMaxRtt;
    double m_ecnAlphaGain;
    double m_ecnAlphaInit;
    double m_ecnFactor;
    double m_ecnThresh;
    uint32_t m_ecnFullCount;
    double m_ecnReprobeGain;

    Ptr<UniformRandomVariable> m_uv;
    TracedCallback<uint8_t, uint8_t> m_stateTrace;
    uint64_t m_transitions{0};

    // connection view of the current call
    Time m_now;
    double m_inflight{0};    //!< C.inflight
    uint64_t m_delivered{0}; //!< C.delivered
    uint64_t m_lostBytes{0}; //!< C.lost (losses this controller was told about)

    // general state (2.6)
    State m_state{State::STARTUP};
    double m_pacingGain{1};
    double m_cwndGain{2};
    uint64_t m_roundCount{0};
    bool m_roundStart{false};
    uint64_t m_nextRoundDelivered{0};
    bool m_idleRestart{false};
    uint64_t m_drainStartRound{0};

    // model (2.8-2.11)
    double m_bwHi[2]{0, 0}; //!< max_bw samples of the previous and the current cycle
    double m_maxBw{0};
    double m_bwShortterm{kInf};
    double m_bw{0};
    Time m_minRtt;
    Time m_minRttStamp;
    Time m_probeRttMinDelay;
    Time m_probeRttMinStamp;
    bool m_probeRttExpired{false};
    double m_bdp{0};
    double m_extraAcked{0};
    Time m_extraAckedIntervalStart;
    double m_extraAckedDelivered{0};
    MpWindowedMaxFilter m_extraAckedFilter;
    double m_maxInflight{0};
    double m_inflightLongterm{kInf};
    double m_inflightShortterm{kInf};
    double m_bwLatest{0};
    double m_inflightLatest{0};
    uint64_t m_cycleCount{0};

    // congestion signals (2.9)
    bool m_lossRoundStart{false};
    uint64_t m_lossRoundDelivered{0};
    bool m_isLossInRound{false};
    uint32_t m_lostPacketsInRound{0};

    // Startup (2.12) and its loss exit
    bool m_fullBwReached{false};
    bool m_fullBwNow{false};
    double m_fullBw{0};
    uint32_t m_fullBwCount{0};
    uint32_t m_startupLossRanges{0};
    uint64_t m_startupLostBytes{0};
    uint64_t m_startupRoundDeliveredBase{0};
    bool m_haveLastLostPn{false};
    uint64_t m_lastLostPn{0};

    // ProbeBW (2.10)
    AckPhase m_ackPhase{AckPhase::INIT};
    bool m_isBwProbeSample{false};
    double m_bwProbeUpAcked{0};
    double m_probeUpAckedPerInc{kInf};
    uint32_t m_bwProbeUpRounds{0};
    uint64_t m_roundsSinceProbeUp{0};
    Time m_bwProbeWait;
    Time m_cycleStamp;
    bool m_prevProbeTooHigh{false};
    bool m_prevProbePrecautionary{false};

    // undo (2.11)
    bool m_haveUndoState{false};
    State m_undoState{State::STARTUP};
    double m_undoBwShortterm{0};
    double m_undoInflightShortterm{0};
    double m_undoInflightLongterm{0};

    // ProbeRTT (2.13)
    Time m_probeRttDoneStamp;
    bool m_probeRttDoneSet{false};
    bool m_probeRttRoundDone{false};

    // recovery and cwnd
    uint64_t m_priorCwnd{0};
    bool m_inRecovery{false};
    Time m_recoveryStart;
    uint64_t m_recoveryStartRound{0};
    bool m_inRto{false};
    double m_pacingRateBytes{0}; //!< bytes/s
    bool m_hasSeenRtt{false};    //!< the pacing rate was set from a smoothed RTT
    double m_sendQuantum{0};
    uint64_t m_appLimitedUntil{0}; //!< BBR's own C.app_limited mark (ProbeRTT)
    uint64_t m_cwndLimitedRound{0};
    bool m_cwndLimitedSeen{false};

    // ECN (Linux BBRv3)
    bool m_ecnEligible{false};
    double m_ecnAlpha{1};
    double m_lastCeRatio{-1};
    uint64_t m_deliveredCe{0}; //!< C.delivered_ce (bytes)
    uint64_t m_alphaLastDelivered{0};
    uint64_t m_alphaLastDeliveredCe{0};
    bool m_ecnInRound{false};
    bool m_ecnInCycle{false};
    bool m_lossInCycle{false};
    uint32_t m_startupEcnRounds{0};
    bool m_ecnRoundPending{false};     //!< a round started in the last OnAck
    bool m_ecnLossRoundPending{false}; //!< a loss round started in the last OnAck
    bool m_ecnLossRoundProbing{false}; //!< ... while probing bandwidth
    double m_ecnShorttermBase{0};      //!< inflight_shortterm before that round's loss cut
    bool m_ecnSampleValid{false};      //!< the last OnAck's rate sample, for CheckEcnTooHigh
    double m_ecnSampleDelivered{0};
    double m_ecnSampleTxInFlight{0};
    bool m_ecnSampleAppLimited{false};
    uint64_t m_ecnSampleCeAtSend{0};
    uint64_t m_ecnTooHigh{0};
    uint64_t m_ecnShorttermCuts{0};

    // per-packet records, indexed by packet number from m_recordBase
    std::deque<SentRecord> m_records;
    uint64_t m_recordBase{0};
};

} // namespace ns3

#endif // MP_BBR3_H
