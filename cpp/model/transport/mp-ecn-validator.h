// SPDX-License-Identifier: GPL-2.0-only
//
// MpEcnValidator: ECN validation of one path (RFC 9000 section 13.4.2 and Appendix A.4).

#ifndef MP_ECN_VALIDATOR_H
#define MP_ECN_VALIDATOR_H

#include "model/cc/mp-congestion-ops.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup mp-transport
 * Where a path stands in ECN validation (RFC 9000 Appendix A.4); the values are those of the
 * `ecn_state` measurement.
 */
enum class MpEcnState : uint8_t
{
    OFF = 0,     //!< the connection's ECN is off, or the controller sends Not-ECT
    TESTING = 1, //!< the first packets are sent ECN-capable (A.4's testing period)
    UNKNOWN = 2, //!< testing is over, no verdict yet; packets are sent Not-ECT
    CAPABLE = 3, //!< an ACK frame's counts validated ECN-capable packets: mark every packet
    FAILED = 4,  //!< validation failed: Not-ECT for good, counts ignored
};

/// "off", "testing", "unknown", "capable" or "failed".
const char* MpEcnStateName(MpEcnState s);

/**
 * @ingroup mp-transport
 * The ECN counts of one packet-number space (RFC 9000 section 19.3.2): packets received with
 * ECT(0), ECT(1) and CE, cumulative.
 */
struct MpEcnCounts
{
    uint64_t ect0{0};
    uint64_t ect1{0};
    uint64_t ce{0};
};

/**
 * @ingroup mp-transport
 * The sender's ECN validation of one path, pure (no simulator), as RFC 9000 section 13.4.2
 * and the sample algorithm of its Appendix A.4 describe it.
 *
 * Testing: the first kTestingPackets packets carry the controller's ECT codepoint; the period
 * ends after them or after kTestingPtos probe timeouts, and the path is then "unknown" (its
 * packets go Not-ECT). An ACK frame whose counts validate newly acknowledged ECN-capable
 * packets makes the path "capable" (every packet ECN-capable from then on). Validation fails
 * (for good: "failed", Not-ECT, counts ignored) when
 *   - an ACK frame newly acknowledges ECN-capable packets and carries no ECN counts (a link
 *     that bleaches the field, or a peer that does not report),
 *   - a count decreases,
 *   - the increase of ECT(0) + CE is below the newly acknowledged ECT(0) packets, or that of
 *     ECT(1) + CE below the ECT(1) ones (section 13.4.2.1: CE remarked to ECT or Not-ECT),
 *   - the ECT(0) or ECT(1) count exceeds the packets sent with that codepoint, or the three
 *     counts together exceed the ECN-capable packets sent (a codepoint never sent, marks the
 *     network invented),
 *   - every packet sent during testing was declared lost (a link that drops ECN-capable
 *     packets).
 * A frame that does not increase the largest acknowledged packet number is not validated and
 * its counts are not used (section 13.4.2.1: a reordered ACK must not fail validation).
 */
class MpEcnValidator
{
  public:
    /// Packets marked in the testing period (RFC 9000 Appendix A.4: 10).
    static constexpr uint32_t kTestingPackets = 10;
    /// Probe timeouts that end the testing period (Appendix A.4: 3).
    static constexpr uint32_t kTestingPtos = 3;

    /// What one ACK frame's ECN counts gave.
    struct Feedback
    {
        bool accepted{false}; //!< the counts passed validation and were used
        uint64_t ect0Increase{0};
        uint64_t ect1Increase{0};
        uint64_t ceIncrease{0};
        uint64_t newlyAckedEct{0}; //!< newly acknowledged packets sent ECN-capable
    };

    /// Start validating (enabled) or stay off for good.
    void Start(bool enabled);

    MpEcnState GetState() const
    {
        return m_state;
    }

    /**
     * The codepoint of the next data packet: @p cp (the controller's) while testing or
     * capable, Not-ECT otherwise; counts the packet.
     */
    MpEcnCodepoint OnPacketSent(MpEcnCodepoint cp);

    /// A probe (or retransmission) timeout of the path.
    void OnPtoExpired();

    /// @p ectLost packets sent ECN-capable were declared lost.
    void OnPacketsLost(uint64_t ectLost);

    /**
     * One ACK frame of the path.
     * @param ackedEct0 newly acknowledged packets sent with ECT(0)
     * @param ackedEct1 newly acknowledged packets sent with ECT(1)
     * @param largestIncreased the frame raised the largest acknowledged packet number
     * @param hasCounts the frame carries ECN counts (an ACK_ECN frame)
     * @param counts the counts (when hasCounts)
     */
    Feedback OnAck(uint64_t ackedEct0,
                   uint64_t ackedEct1,
                   bool largestIncreased,
                   bool hasCounts,
                   const MpEcnCounts& counts);

    /// The peer's counts of the last frame used.
    const MpEcnCounts& GetPeerCounts() const
    {
        return m_peer;
    }

    /// Packets sent with ECT(0) / ECT(1), cumulative.
    uint64_t GetSentEct0() const
    {
        return m_sentEct0;
    }

    uint64_t GetSentEct1() const
    {
        return m_sentEct1;
    }

  private:
    void Fail();

    MpEcnState m_state{MpEcnState::OFF};
    MpEcnCounts m_peer;
    uint64_t m_sentEct0{0};
    uint64_t m_sentEct1{0};
    uint32_t m_testingSent{0}; //!< ECN-capable packets sent in the testing period
    uint64_t m_testingLost{0}; //!< of those, declared lost (while testing or unknown)
    uint32_t m_testingPtos{0}; //!< probe timeouts in the testing period
};

} // namespace ns3

#endif // MP_ECN_VALIDATOR_H
