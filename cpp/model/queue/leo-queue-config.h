// SPDX-License-Identifier: GPL-2.0-only
//
// LeoQueueConfig: the queue discipline of one link direction, and the factory that builds it
// from ns-3's traffic-control implementations.

#ifndef LEO_QUEUE_CONFIG_H
#define LEO_QUEUE_CONFIG_H

#include "ns3/ptr.h"

#include <cstdint>
#include <string>

namespace ns3
{

class QueueDisc;

/**
 * @ingroup leo-link
 * Queue discipline of a LeoNetDevice's transmit queue.
 */
enum class LeoQueueDiscipline : uint8_t
{
    DROPTAIL = 0, //!< FIFO with a packet limit (the device's own DropTailQueue)
    RED = 1,      //!< Random Early Detection (Floyd & Jacobson 1993), ns3::RedQueueDisc
    CODEL = 2,    //!< CoDel (RFC 8289), ns3::CoDelQueueDisc
    FQ_CODEL = 3, //!< FQ-CoDel (RFC 8290), ns3::FqCoDelQueueDisc
    PIE = 4,      //!< PIE (RFC 8033), ns3::PieQueueDisc
    DUALPI2 = 5,  //!< DualQ Coupled PI2 (RFC 9332), ns3::LeoDualPi2QueueDisc (our own)
};

/**
 * @ingroup leo-link
 * What a link does with the ECN field of the packets it sends (both directions): carry it
 * (PASS), clear it to Not-ECT (BLEACH) or drop every ECN-capable packet, ECT or CE (DROP,
 * counted as LEO_DROP_ECN), as the middleboxes RFC 9000 section 13.4.2 guards against do.
 */
enum class LeoEcnHandling : uint8_t
{
    PASS = 0,
    BLEACH = 1,
    DROP = 2,
};

/// "pass", "bleach" or "drop".
const char* LeoEcnHandlingName(LeoEcnHandling h);

/// "droptail", "red", "codel", "fq_codel", "pie" or "dualpi2".
const char* LeoQueueDisciplineName(LeoQueueDiscipline d);

/**
 * @ingroup leo-link
 * The queue discipline of a link (both directions), plain data. The limit of every discipline
 * is the schedule's queuePackets. Python validates the values (docs/scenario.md, "Queue
 * disciplines"); Validate() repeats the checks so that no bad value reaches ns-3.
 */
struct LeoQueueConfig
{
    LeoQueueDiscipline discipline{LeoQueueDiscipline::DROPTAIL};
    /// Mark ECN-capable packets instead of dropping them (AQMs only). DualPI2: the C queue's
    /// ECT(0) packets (its L4S packets are marked whatever this says).
    bool ecn{false};
    /// The link's ECN field handling (a link that cannot carry ECN cannot mark: ecn needs PASS).
    LeoEcnHandling ecnHandling{LeoEcnHandling::PASS};
    // CoDel and FQ-CoDel (RFC 8289 section 4.3 / RFC 8290 section 5.2 defaults)
    double codelTargetS{0.005};    //!< acceptable standing queue delay
    double codelIntervalS{0.100};  //!< sliding-minimum window
    uint32_t fqFlows{1024};        //!< FQ-CoDel flow queues
    uint32_t fqQuantumBytes{1500}; //!< FQ-CoDel DRR quantum
    // PIE (RFC 8033 section 5.1 defaults)
    double pieTargetS{0.015};   //!< QDELAY_REF
    double pieTUpdateS{0.015};  //!< T_UPDATE
    double pieAlpha{0.125};     //!< alpha (Hz)
    double pieBeta{1.25};       //!< beta (Hz)
    double pieMaxBurstS{0.150}; //!< MAX_BURST
    // RED (Floyd & Jacobson 1993); thresholds as fractions of the queue limit
    double redMinTh{0.2};    //!< min_th / limit
    double redMaxTh{0.6};    //!< max_th / limit
    double redMaxP{0.1};     //!< max_p
    double redWeight{0.002}; //!< w_q (EWMA weight of the average queue)
    bool redGentle{true};    //!< gentle RED: p rises to 1 between max_th and 2 max_th
    // DualPI2 (RFC 9332 Appendix A; docs/scenario.md gives each default's source)
    double dpTargetS{0.015};    //!< the PI2 controller's queue-delay target
    double dpTUpdateS{0.016};   //!< Tupdate
    double dpAlpha{0.16};       //!< alpha (Hz)
    double dpBeta{3.2};         //!< beta (Hz)
    double dpK{2.0};            //!< coupling factor k
    double dpL4sMinThS{0.0008}; //!< start of the native L4S ramp (sojourn time)
    double dpL4sRangeS{0.0004}; //!< width of the native L4S ramp (0: a step at the start)
    double dpTimeShiftS{0.040}; //!< the time-shifted FIFO's shift in favour of the L queue

    /**
     * Check ranges.
     * @param label prefix of error messages (e.g. "paths[0].queue")
     * @throws std::invalid_argument naming the field
     */
    void Validate(const std::string& label) const;
};

/**
 * Build the queue disc of @p config (not DROPTAIL), initialized and ready for Enqueue and
 * Dequeue without a TrafficControlLayer.
 * @param limitPackets the queue limit (packets)
 * @param rateBps the link rate RED uses to age its average over idle periods
 * @param meanPacketBytes RED's and PIE's mean packet size
 */
Ptr<QueueDisc> MakeLeoQueueDisc(const LeoQueueConfig& config,
                                uint32_t limitPackets,
                                double rateBps,
                                uint32_t meanPacketBytes);

/**
 * True if @p reason, a drop reason of a queue disc of @p d, is the queue limit (counted as
 * LEO_DROP_OVERFLOW) rather than the discipline's own decision (LEO_DROP_AQM).
 */
bool LeoQueueDropIsOverflow(LeoQueueDiscipline d, const char* reason);

} // namespace ns3

#endif // LEO_QUEUE_CONFIG_H
