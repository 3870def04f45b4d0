// SPDX-License-Identifier: GPL-2.0-only
//
// TcpPccVivace: PCC Vivace (NSDI 2018) as a rate-based ns-3 TcpCongestionOps.

#ifndef TCP_PCC_VIVACE_H
#define TCP_PCC_VIVACE_H

#include "pcc-vivace-rate-control.h"
#include "pcc-vivace-utility.h"

#include "ns3/nstime.h"
#include "ns3/sequence-number.h"
#include "ns3/tcp-congestion-ops.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

namespace ns3
{

class Packet;
class TcpHeader;
class TcpSocketBase;

/**
 * @ingroup leo-tcp
 * PCC Vivace after M. Dong, T. Meng, D. Zarchy, E. Arslan, Y. Gilad, P. B. Godfrey and
 * M. Schapira, "PCC Vivace: Online-Learning Congestion Control", NSDI 2018: a rate-based
 * controller that learns the sending rate by gradient ascent on a utility it measures over
 * monitor intervals (MIs). Written the way ns-3's TcpBbr is: HasCongControl() is true, the
 * socket paces at the rate Vivace chooses (TcpSocketState::m_pacingRate), and the window
 * only keeps a generous cap on the data in flight (CwndGain x rate x RTT).
 *
 * Utility of an MI (eq. 1; PccVivaceUtility): u = x^t - b x dRTT/dT - c x L, x in Mbit/s.
 *
 * Monitor intervals. An MI is a span of sending time at one target rate, lasting
 * max(MonitorIntervalRtts x SRTT, MinIntervalPackets segments at its rate). The controller
 * sees every segment its socket transmits ("Tx" trace) and every ACK with its SACK blocks
 * ("Rx" trace), so it keeps the fate of each segment of new data: delivered (cumulatively
 * ACKed or SACKed before any retransmission) or lost (retransmitted: TCP's loss detection,
 * or its RTO, declared it lost). An MI's result is ready when all of its segments have a
 * fate; results are used in MI order. Per MI: x = bytes the socket transmitted during it
 * (retransmissions included) x 8 / its duration; L = lost / sent bytes of its new data;
 * dRTT/dT = least-squares slope of the RTT samples of its segments over their send times
 * (one sample per ACK: the newest segment that ACK newly delivered, so cumulative jumps
 * over SACKed data give no stale samples).
 *
 * States:
 *   INITIAL: the initial window goes out unpaced (ns-3 paces only after it); the first RTT
 *     sample gives r0 = InitialCwnd x SMSS / RTT.
 *   STARTING (slow start): back-to-back MIs at 2 r0, 4 r0, ...; when an MI's utility is
 *     below its predecessor's, the predecessor's rate becomes the base rate r -> PROBING.
 *   PROBING (online learning): ProbePairs pairs of MIs at r(1 + eps) and r(1 - eps), the
 *     order in each pair drawn at random; MIs at r follow until all their results are in;
 *     gamma = mean over pairs of (u+ - u-) / (x+ - x-) (target rates, Mbit/s); one
 *     PccVivaceRateControl step (confidence amplifier, dynamic change boundary) gives the
 *     new r, and the next pairs start at once.
 *
 * The socket is found once, at its first transmission (CA_EVENT_TX_START), among the sockets
 * of the nodes' TcpL4Protocol (the one whose CongestionOps is this object), so the
 * controller works under any ns-3 application. Attributes are range-checked by their
 * checkers (Config::SetDefaultFailSafe / SetAttributeFailSafe refuse bad values).
 * Details, constants and their sources: cpp/doc/vivace.md.
 */
class TcpPccVivace : public TcpCongestionOps
{
  public:
    /// Where the controller stands.
    enum class Mode : uint8_t
    {
        INITIAL = 0,  //!< initial window, before the first RTT sample
        STARTING = 1, //!< slow start: doubling the rate every MI
        PROBING = 2,  //!< online learning: probing pairs and gradient steps
    };

    static TypeId GetTypeId();
    TcpPccVivace();
    /// Copies the attributes only (a forked socket starts afresh).
    TcpPccVivace(const TcpPccVivace& other);
    ~TcpPccVivace() override;

    std::string GetName() const override;
    void Init(Ptr<TcpSocketState> tcb) override;
    /// A rate-based sender does not cut its window on loss: the current window.
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    /// Nothing: the window follows the rate (CongControl).
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    bool HasCongControl() const override;
    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    Ptr<TcpCongestionOps> Fork() override;

    Mode GetMode() const;                 //!< the current state
    double GetRateBps() const;            //!< the target rate of the MI being sent (bit/s)
    double GetBaseRateBps() const;        //!< r: the rate being learnt (bit/s)
    uint64_t GetDecisions() const;        //!< gradient steps taken
    uint64_t GetIntervalsDone() const;    //!< MIs whose result was complete
    uint64_t GetInvalidIntervals() const; //!< MIs discarded as not measuring their rate
    bool IsAttached() const;              //!< whether the socket's traces are connected

  private:
    /// What an MI is for.
    enum class Role : uint8_t
    {
        IGNORE = 0, //!< initial window, or filler while results are awaited
        START = 1,  //!< a slow-start MI
        PROBE = 2,  //!< one MI of a probing pair
    };

    /// One monitor interval.
    struct Interval
    {
        uint64_t id{0};
        Role role{Role::IGNORE};
        uint64_t epoch{0};   //!< slow-start run or probing batch it belongs to
        uint32_t slot{0};    //!< index in its batch (probing: 2 * pair + (0 up, 1 down))
        double targetBps{0}; //!< the rate it was paced at
        Time start;          //!< when it began
        Time end;            //!< planned end
        Time closed;         //!< when it actually ended (valid once isClosed)
        bool isClosed{false};
        uint64_t rtoAtStart{0};        //!< the controller's RTO count when it began
        bool stalled{false};           //!< a retransmission timeout fell within it
        uint64_t bytesTx{0};           //!< every byte transmitted during it (retransmissions too)
        uint64_t bytesSent{0};         //!< new data first sent during it
        uint64_t bytesDelivered{0};    //!< of those: delivered on the first transmission
        uint64_t bytesLost{0};         //!< of those: retransmitted
        std::vector<double> sampleT;   //!< send times of its RTT samples (s, from its start)
        std::vector<double> sampleRtt; //!< RTT samples (s)
    };

    /// A segment of new data while it is not cumulatively acknowledged.
    struct Segment
    {
        uint64_t begin{0}; //!< first byte (unwrapped sequence space)
        uint64_t end{0};   //!< one past the last byte
        Time sent;         //!< first transmission
        uint64_t interval{0};
        bool delivered{false};
        bool lost{false};
    };

    /// splitmix64: the probing order's generator (seeded in Attach, drawn in NextRandomBit).
    static uint64_t SplitMix64(uint64_t& state);

    // --- socket hooks (tcp-pcc-vivace-socket.cc) ----------------------------------------
    void Attach();
    void OnTx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> s);
    void OnRx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> s);
    uint64_t Unwrap(SequenceNumber32 seq) const;
    void MarkLost(uint64_t begin, uint64_t end);
    void Deliver(Segment& segment, const Segment** newest);
    void OnRttSample(const Segment& segment, Time rtt);

    // --- monitor intervals and the state machine (tcp-pcc-vivace-intervals.cc) ----------
    void OnRetransmissionTimeout();
    void MaybeStartInterval(Time now);
    void StartInterval(Time now);
    Interval* FindInterval(uint64_t id);
    void ProcessResults();
    double UtilityOf(const Interval& mi) const;
    void OnStartResult(const Interval& mi, double utility);
    void OnProbeResult(const Interval& mi, double utility);
    void BeginProbing(double baseBps);
    void NewProbeBatch();
    void SetRate(double bps);
    void UpdateWindow();
    double SrttSeconds() const;
    double ClampRate(double bps) const;
    bool NextRandomBit();

    // --- attributes ---------------------------------------------------------------------
    double m_exponent{0.9};
    double m_latencyCoef{900.0};
    double m_lossCoef{11.35};
    double m_rttGradientTolerance{0.01};
    double m_probeEpsilon{0.05};
    double m_theta0Mbps{1.0};
    double m_omega0{0.05};
    double m_omegaStep{0.06};
    double m_amplifierStep{0.5};
    double m_miRtts{1.5};
    uint32_t m_miMinPackets{10};
    uint32_t m_probePairs{1};
    double m_minRateBps{1e5};
    double m_cwndGain{2.0};

    // --- state --------------------------------------------------------------------------
    Ptr<TcpSocketState> m_tcb;
    bool m_attachTried{false};
    bool m_attached{false};
    Mode m_mode{Mode::INITIAL};
    PccVivaceRateControl m_control;
    double m_rateBps{0};      //!< target of the current MI
    double m_baseRateBps{0};  //!< r
    double m_startNextBps{0}; //!< rate of the next slow-start MI
    bool m_havePrevStart{false};
    double m_prevStartUtility{0};
    double m_prevStartRateBps{0};
    uint64_t m_epoch{0};
    uint32_t m_batchNextSlot{0};        //!< next probing slot to send in this batch
    std::vector<double> m_batchUtility; //!< per slot; NaN until known
    std::vector<double> m_batchRateBps; //!< per slot: the target rate
    uint32_t m_batchKnown{0};
    bool m_restart{false}; //!< end the current MI at the next transmission
    std::deque<Interval> m_intervals;
    uint64_t m_nextIntervalId{0};
    std::deque<Segment> m_segments;
    bool m_seqInit{false};
    SequenceNumber32 m_ref32; //!< a sequence number ...
    uint64_t m_ref64{0};      //!< ... and its unwrapped value
    uint64_t m_nextNew{0};    //!< first byte never sent (unwrapped)
    double m_srttS{0};        //!< EWMA of this controller's RTT samples (gain 1/8)
    double m_minRttS{std::numeric_limits<double>::infinity()};
    uint64_t m_decisions{0};
    uint64_t m_intervalsDone{0};
    uint64_t m_rng{0};              //!< splitmix64 state (probing order)
    uint64_t m_rtoCount{0};         //!< retransmission timeouts seen (CA_EVENT_LOSS)
    uint64_t m_invalidIntervals{0}; //!< MIs whose result was not used (UtilityOf)
};

} // namespace ns3

#endif // TCP_PCC_VIVACE_H
