// SPDX-License-Identifier: GPL-2.0-only
//
// MpFreeze: StarQUIC's handover-aware congestion-window freeze, as a wrapper around any
// congestion controller ("freeze+newreno", "freeze+cubic", "freeze+bbr", ...).

#ifndef MP_FREEZE_H
#define MP_FREEZE_H

#include "mp-congestion-ops.h"

#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup mp-cc
 * The handover "cwnd freeze" of V. Kamel, J. Zhao, D. Li and J. Pan, "StarQUIC: Tuning
 * Congestion Control Algorithms for QUIC over LEO Satellite Networks", ACM LEO-NET '24 (at
 * MobiCom '24), doi:10.1145/3636534.3696227; implementable form in
 * docs/specs/freeze.md#the-freeze-rule.
 *
 * Starlink hands every terminal over on a fixed global schedule, at seconds 12, 27, 42 and 57
 * of every minute (period 15 s), each handover lasting about 100 ms. With the handover
 * instants H and a packet's (last) send time t_s:
 *
 *   F(h)         = [ h - before , h + after ]                 before = after = 100 ms [PAPER]
 *   frozen(t_s)  = exists h in H :  h - before <= t_s + delta_off <= h + after      (inclusive)
 *
 * When the transport declares packets lost, the frozen ones are retransmitted as usual but
 * kept from the inner controller: it sees a loss event with only the other packets (the
 * most recently sent of those sets the recovery period), and no event at all if none
 * remain (docs/specs/freeze.md#several-losses-in-one-detection, "per packet"). Frozen packets are
 * also excluded from RFC 9002's persistent-congestion test (the QUIC analogue of the RTO collapse;
 * docs/specs/freeze.md#quic-timeouts-and-persistent-congestion), unless FreezeTimeouts is false.
 * ACKs are untouched, so the window may still grow
 * ("freeze" blocks decreases only). RTT and bandwidth samples are not filtered (the paper's
 * baseline). For BBR this is the `loss_only` mode of docs/specs/freeze.md#bbr: frozen bytes do not
 * count as lost in BBR's model.
 *
 * Where H comes from (docs/specs/freeze.md#multipath):
 *   FixedSchedule = false [REC, default]: the path oracle's handover instants (the scenario's
 *     own timetable; for a Starlink scenario they are the 12/27/42/57 s grid at its UTC phase);
 *   FixedSchedule = true: the paper's global grid H = { ScheduleOffset + k SchedulePeriod }
 *     in the UTC clock t_utc = t_sim + EpochPhase, evaluated in integer microseconds as the
 *     authors' code does (docs/specs/freeze.md#checks, item 6), so the inclusive edges are exact.
 */
class MpFreeze : public MpCongestionOpsWrapper
{
  public:
    static TypeId GetTypeId();
    MpFreeze();

    /// "freeze+<inner>".
    std::string GetName() const override;
    void OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev) override;
    bool ConsiderForPersistentCongestion(const MpCcContext& ctx,
                                         const MpSentPacket& p) const override;
    /**
     * A retransmission timeout of a timer preset (the TCP RTO collapse the paper's freeze
     * targets, docs/specs/freeze.md#quic-timeouts-and-persistent-congestion): kept from the
     * inner controller when the oldest outstanding packet was sent in a freeze window (and
     * FreezeTimeouts is true); its lost packets were already filtered by OnPacketsLost.
     */
    void OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev) override;
    /// Frozen packets plus whatever the inner controller suppresses itself.
    uint64_t GetSuppressedLosses() const override;

    /// True if a packet sent at sentTime on this path lies in a freeze window.
    bool IsFrozen(const MpCcContext& ctx, Time sentTime) const;

    /**
     * The fixed-schedule predicate in integer microseconds: is there an integer k with
     * offset + k period - before <= t <= offset + k period + after?
     */
    static bool InScheduleWindow(int64_t tUs,
                                 int64_t offsetUs,
                                 int64_t periodUs,
                                 int64_t beforeUs,
                                 int64_t afterUs);
    /**
     * The oracle predicate: is there a handover h of the path with
     * h - before <= t <= h + after? (t in seconds)
     */
    static bool InOracleWindow(const MpPathOracle& oracle, double t, double before, double after);

    /// Lost packets kept from the inner controller (cumulative).
    uint64_t GetFrozenLosses() const;

    /// Retransmission timeouts kept from the inner controller (timer presets).
    uint64_t GetFrozenTimeouts() const
    {
        return m_frozenTimeouts;
    }

    /// Lost packets passed on to the inner controller (cumulative).
    uint64_t GetActedLosses() const;

  private:
    bool m_enabled;
    bool m_fixedSchedule;
    Time m_before;
    Time m_after;
    Time m_deltaOff;
    double m_epochPhaseS;
    double m_scheduleOffsetS;
    double m_schedulePeriodS;
    bool m_freezeTimeouts;

    uint64_t m_frozen{0};
    uint64_t m_frozenTimeouts{0}; //!< retransmission timeouts kept from the inner controller
    uint64_t m_acted{0};
    std::vector<MpSentPacket> m_eligible; //!< scratch: the packets passed on

    /// A lost packet was frozen: its packet number and send time.
    TracedCallback<uint64_t, Time> m_frozenTrace;
};

} // namespace ns3

#endif // MP_FREEZE_H
