// SPDX-License-Identifier: GPL-2.0-only
//
// MpRecoveryConfig: the loss-recovery presets of the transport (RFC 9002 and the timer-based
// recoveries of the papers' testbeds) and their values, in one place.

#ifndef MP_RECOVERY_PRESET_H
#define MP_RECOVERY_PRESET_H

#include "mp-loss-recovery.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup mp-transport
 * Everything a connection's loss recovery is configured by: the per-path detector's rules
 * (MpLossRecovery::Params) and what the sender does around a retransmission timeout.
 *
 * Presets (cpp/doc/transport.md, "Recovery presets", has the table with references):
 *
 * - `rfc9002` (default): RFC 9002 as before: PTO with probes, persistent congestion.
 * - `tcp`: Linux 5.4 TCP as ALCS's testbed ran it (RFC 6298 RTO with Linux's 200 ms minimum
 *   added to SRTT, 1 s initial, 120 s maximum, doubling per expiry; one RFC 8985 tail-loss
 *   probe at 2 SRTT; on the first expiry the controller's loss response, then the RFC 5681
 *   loss window of one segment with everything outstanding marked lost; undo of spurious
 *   timeouts (F-RTO, RFC 5682); slow start after idle (RFC 5681 section 4.1); a path in RTO
 *   recovery takes no new data while another path can (Linux MPTCP's TCP_CA_Loss rule)).
 * - `quic-draft`: the TLP + RTO generation of draft-ietf-quic-recovery (-10 .. -15) as the
 *   MACO authors' ns-3 QUIC module ran it: two TLPs at max(1.5 SRTT + max_ack_delay, 10 ms),
 *   then RTO = max(SRTT + 4 RTTVAR + max_ack_delay, 200 ms) doubling, two new packets per
 *   expiry and no window change until verified, then kMinimumWindow; no time-threshold loss.
 * - `picoquic`: picoquic's retransmission timer (SRTT + 4 RTTVAR + max_ack_delay from the
 *   last packet sent, no floor, 250 ms before a sample; x2, x4, then +25 % steps, at most
 *   2 s); on expiry every outstanding packet is declared lost and the controller told
 *   (window to kMinimumWindow); a late ACK of a timed-out packet undoes it.
 */
struct MpRecoveryConfig
{
    MpLossRecovery::Params lr;         //!< the detector's rules (timers, thresholds, backoff)
    bool rtoUndo{false};               //!< restore cwnd/ssthresh after a spurious timeout
    bool slowStartAfterIdle{false};    //!< RFC 5681 section 4.1 restart window after idle
    bool lossState{false};             //!< a path in RTO recovery takes no new data (TCP_CA_Loss)
    uint32_t lossWindowPackets{0};     //!< window after an expiry (0: unchanged until verified)
    uint32_t rtoProbes{0};             //!< packets sent on an expiry beyond the marked-lost resend
    uint32_t verifiedWindowPackets{0}; //!< window when a timeout is verified (0: none)
    /// TCP's fast retransmit (RFC 5681 3.2, RFC 6582): on each loss detection the first lost
    /// packet is re-sent at once, outside the window (RFC 9002 waits for window room).
    bool fastRetransmit{false};
    /// Proportional rate reduction (RFC 6937, PRR-SSRB): in recovery the path sends in
    /// proportion to what is delivered instead of waiting for the flight to fall below cwnd.
    bool prr{false};

    /// The preset's values.
    static MpRecoveryConfig Preset(MpLossRecovery::Recovery r);
    /// The preset names, in enum order ("rfc9002", "tcp", "quic-draft", "picoquic").
    static const std::vector<std::string>& Names();
    /**
     * Parse a preset name.
     * @return false if the name is unknown
     */
    static bool Parse(const std::string& name, MpLossRecovery::Recovery& r);
    /// The name of a preset.
    static const std::string& Name(MpLossRecovery::Recovery r);
};

} // namespace ns3

#endif // MP_RECOVERY_PRESET_H
