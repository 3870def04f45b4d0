// SPDX-License-Identifier: GPL-2.0-only
//
// LeoDualPi2QueueDisc: the DualQ Coupled AQM of RFC 9332 with its PI2 base controller
// (DualPI2), for the L4S architecture (RFC 9330); ns-3 3.44 has none.

#ifndef LEO_DUAL_PI2_QUEUE_DISC_H
#define LEO_DUAL_PI2_QUEUE_DISC_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-value.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup leo-link
 * DualPI2 (RFC 9332, Appendix A): two FIFOs behind one limit, the L queue for L4S packets
 * (ECN field ECT(1) or CE, RFC 9331 section 5.1) and the C queue for the others, with coupled
 * congestion signals:
 *
 * - every Tupdate the base probability p' follows the PI2 controller
 *   p' += alpha (q - Target) + beta (q - q_prev), clamped to [0, 1/k] (RFC 9332 A.2: at
 *   1/k the classic probability p_C = p'^2 reaches p_Cmax = 1/k^2 and the coupled L4S one
 *   p_CL = k p' reaches 1), where q is the larger of the two head packets' sojourn times
 *   (A.2's overload-safe input; without L4S overload it is the C queue's, as in A.1);
 * - a packet leaving the C queue is dropped, or CE-marked if it is ECT(0) and UseEcn is on,
 *   with probability p_C = p'^2 (drawn per packet);
 * - a packet leaving the L queue is CE-marked with p_L = max(native, k p'), where the
 *   native L4S AQM is a ramp over the L queue's sojourn time from MinTh to MinTh + Range
 *   (Range 0: a step at MinTh), off while the L queue holds at most one packet (RFC 9332's
 *   Th_len); the marks are spread by RFC 9332 A.1's deterministic accumulator (recur());
 * - overload: while p' sits at 1/k, ECT(0) packets in the C queue are dropped instead of
 *   marked, and L packets are dropped with p_C besides their marking (RFC 9332 section
 *   4.2.3: drop rather than let ECN saturate);
 * - the scheduler is a time-shifted FIFO (RFC 9332 sections 2.4 and 4.2.2): the L queue is
 *   served unless the C head has waited more than TimeShift longer than the L head, which
 *   bounds how long L4S traffic can starve the C queue.
 *
 * Drop reasons: OVERLIMIT_DROP ("Overlimit drop", the limit, counted as overflow by
 * LeoNetDevice), CLASSIC_DROP and OVERLOAD_DROP; mark reasons CLASSIC_MARK and L4S_MARK.
 * The limit (MaxSize, packets) covers both queues.
 */
class LeoDualPi2QueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    LeoDualPi2QueueDisc();
    ~LeoDualPi2QueueDisc() override;

    /// ECN field of an IPv4 header or of the shim (RFC 3168 codepoints).
    static constexpr uint8_t kNotEct = 0;
    static constexpr uint8_t kEct1 = 1;
    static constexpr uint8_t kEct0 = 2;
    static constexpr uint8_t kCe = 3;

    /// Index of the L (L4S) queue among the internal queues.
    static constexpr std::size_t kLQueue = 0;
    /// Index of the C (classic) queue among the internal queues.
    static constexpr std::size_t kCQueue = 1;

    static constexpr const char* OVERLIMIT_DROP = "Overlimit drop";
    static constexpr const char* CLASSIC_DROP = "Classic drop";
    static constexpr const char* OVERLOAD_DROP = "Overload drop";
    static constexpr const char* CLASSIC_MARK = "Classic mark";
    static constexpr const char* L4S_MARK = "L4S mark";

    /// The base probability p' (RFC 9332's p').
    double GetBaseProbability() const;
    /// The classic drop/mark probability p_C = p'^2.
    double GetClassicProbability() const;
    /// The coupled L4S marking probability p_CL = min(k p', 1).
    double GetCoupledProbability() const;
    /// True while p' sits at its overload cap 1/k.
    bool IsOverloaded() const;

    /**
     * Fix the random stream of the classic drop/mark draws.
     * @param stream first stream index
     * @return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    void DoDispose() override;

    /// The PI2 update, every Tupdate.
    void Update();
    /// Sojourn time of the head packet of internal queue @p i (zero when empty).
    Time HeadSojourn(std::size_t i) const;
    /// The native L4S AQM's marking probability for a sojourn time @p sojourn.
    double NativeL4sProbability(Time sojourn) const;

    // Attributes
    Time m_target;           //!< classic queue-delay target
    Time m_tUpdate;          //!< controller update interval
    double m_alpha;          //!< integral gain (Hz)
    double m_beta;           //!< proportional gain (Hz)
    double m_k;              //!< coupling factor
    Time m_minTh;            //!< start of the native L4S ramp
    Time m_range;            //!< width of the native L4S ramp (0: a step at MinTh)
    Time m_timeShift;        //!< the scheduler's time shift in favour of the L queue
    bool m_useEcn;           //!< mark ECT(0) packets of the C queue instead of dropping them
    uint32_t m_thLenPackets; //!< no native L4S marking while the L queue holds at most this

    // State
    TracedValue<double> m_baseProb; //!< p'
    Time m_prevQ;                   //!< q at the previous update
    double m_lCount;                //!< recur() accumulator of the L queue
    EventId m_updateEvent;
    Ptr<UniformRandomVariable> m_uv;
};

} // namespace ns3

#endif // LEO_DUAL_PI2_QUEUE_DISC_H
