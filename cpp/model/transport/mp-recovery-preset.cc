// SPDX-License-Identifier: GPL-2.0-only
//
// MpRecoveryConfig: preset values. Each value carries its source.

#include "mp-recovery-preset.h"

namespace ns3
{

const std::vector<std::string>&
MpRecoveryConfig::Names()
{
    static const std::vector<std::string> names = {"rfc9002", "tcp", "quic-draft", "picoquic"};
    return names;
}

bool
MpRecoveryConfig::Parse(const std::string& name, MpLossRecovery::Recovery& r)
{
    const auto& names = Names();
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        if (names[i] == name)
        {
            r = static_cast<MpLossRecovery::Recovery>(i);
            return true;
        }
    }
    return false;
}

const std::string&
MpRecoveryConfig::Name(MpLossRecovery::Recovery r)
{
    return Names().at(static_cast<std::size_t>(r));
}

MpRecoveryConfig
MpRecoveryConfig::Preset(MpLossRecovery::Recovery r)
{
    using R = MpLossRecovery;
    MpRecoveryConfig c;
    c.lr.recovery = r;
    switch (r)
    {
    case R::Recovery::RFC9002:
        break; // MpLossRecovery::Params defaults are RFC 9002's constants
    case R::Recovery::TCP:
        // Linux 5.4 (include/net/tcp.h): TCP_RTO_MIN 200 ms, TCP_TIMEOUT_INIT 1 s (RFC 6298
        // section 2.1), TCP_RTO_MAX 120 s; tcp_set_rto: RTO = SRTT + max(4 mdev, rto_min).
        c.lr.minRto = MilliSeconds(200);
        c.lr.initialRto = Seconds(1);
        c.lr.maxRto = Seconds(120);
        c.lr.rtoFormula = R::RtoFormula::LINUX;
        c.lr.rtoBackoff = R::RtoBackoff::DOUBLE; // RFC 6298 section 5.5
        c.lr.maxTlps = 1;                        // RFC 8985 section 7: one probe
        c.lr.subtractAckDelay = false;           // TCP's RTT samples carry no ack delay
        c.lr.persistentCongestion = false;       // the RTO replaces it
        c.lr.markAllLostOnRto = true;            // tcp_enter_loss marks un-SACKed lost
        c.lr.timeThresholdLoss = true;           // RACK (tcp_recovery = 1)
        c.lr.detectLostRetransmissions = true;   // RACK detects them
        c.rtoUndo = true;                        // tcp_frto = 2, timestamp undo
        c.slowStartAfterIdle = true;             // tcp_slow_start_after_idle = 1
        c.lossState = true;                      // mptcp_sched: no data in TCP_CA_Loss
        c.lossWindowPackets = 1;                 // RFC 5681 section 3.1: LW = 1 segment
        c.fastRetransmit = true;                 // RFC 5681 section 3.2, RFC 6582
        c.prr = true;                            // RFC 6937, Linux since 3.2
        break;
    case R::Recovery::QUIC_DRAFT:
        // draft-ietf-quic-recovery (-10 .. -15) as quic-ns-3 ran it: kMaxTLPs 2,
        // kMinTLPTimeout 10 ms, kMinRTOTimeout 200 ms, kDefaultInitialRtt 100 ms,
        // kReorderingThreshold 3, time-threshold loss off, kMinimumWindow 2 segments.
        c.lr.initialRtt = MilliSeconds(100);
        c.lr.minRto = MilliSeconds(200);
        // RTO before a sample: SRTT 100 ms + 4 x 50 ms + max_ack_delay 25 ms = 325 ms.
        c.lr.initialRto = MilliSeconds(325);
        c.lr.maxRto = Time(0); // none
        c.lr.rtoFormula = R::RtoFormula::QUIC;
        c.lr.rtoBackoff = R::RtoBackoff::DOUBLE;
        c.lr.maxTlps = 2;
        c.lr.minTlpTimeout = MilliSeconds(10);
        c.lr.persistentCongestion = false;
        c.lr.markAllLostOnRto = false;
        c.lr.timeThresholdLoss = false;
        c.rtoProbes = 2;             // OnRetransmissionTimeoutAlarm: send two packets
        c.verifiedWindowPackets = 2; // OnRetransmissionTimeoutVerified: kMinimumWindow
        break;
    case R::Recovery::PICOQUIC:
        // picoquic (mid-2024, as StarQUIC forked it): timer SRTT + 4 RTTVAR + max_ack_delay
        // from the last packet sent, no floor, 250 ms initial, backoff capped at 2 s.
        c.lr.minRto = Time(0);
        c.lr.initialRto = MilliSeconds(250);
        c.lr.maxRto = Seconds(2);
        c.lr.rtoFormula = R::RtoFormula::QUIC;
        c.lr.rtoBackoff = R::RtoBackoff::PICOQUIC;
        c.lr.maxTlps = 0;
        c.lr.persistentCongestion = false;
        c.lr.markAllLostOnRto = true; // each timed-out packet is declared lost
        c.rtoUndo = true;             // spurious_repeat restores the window
        c.lossWindowPackets = 2;      // PICOQUIC_CWIN_MINIMUM
        break;
    }
    return c;
}

} // namespace ns3
