// SPDX-License-Identifier: GPL-2.0-only

#include "mp-freeze.h"

#include "model/registry/mp-algorithm-registry.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/trace-source-accessor.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpFreeze);

/// Combines with any controller as "freeze+<name>".
static MpAlgorithmRegistrar g_freezeRegistrar(MpAlgorithmRegistry::Cc(),
                                              "freeze",
                                              "ns3::MpFreeze",
                                              true);

TypeId
MpFreeze::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpFreeze")
            .SetParent<MpCongestionOpsWrapper>()
            .SetGroupName("Leogym")
            .AddConstructor<MpFreeze>()
            .AddAttribute("Enabled",
                          "Apply the freeze (false: the inner controller unchanged).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpFreeze::m_enabled),
                          MakeBooleanChecker())
            .AddAttribute("FixedSchedule",
                          "Use the global grid ScheduleOffset + k SchedulePeriod in the UTC "
                          "clock (true) instead of the path oracle's handover instants.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpFreeze::m_fixedSchedule),
                          MakeBooleanChecker())
            .AddAttribute("Before",
                          "Window start before a handover instant (StarQUIC: 100 ms).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&MpFreeze::m_before),
                          MakeTimeChecker(Time(0), Seconds(60)))
            .AddAttribute("After",
                          "Window end after a handover instant (StarQUIC: 100 ms).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&MpFreeze::m_after),
                          MakeTimeChecker(Time(0), Seconds(60)))
            .AddAttribute("DeltaOff",
                          "One-way delay from the sender to the satellite hop, added to the "
                          "send time (0 when the sender is near the PoP, as in the paper).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&MpFreeze::m_deltaOff),
                          MakeTimeChecker(Time(0), Seconds(10)))
            .AddAttribute("EpochPhase",
                          "UTC second (of the day or minute) at simulation time 0 "
                          "(FixedSchedule only).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&MpFreeze::m_epochPhaseS),
                          MakeDoubleChecker<double>(0.0, 86400.0))
            .AddAttribute("ScheduleOffset",
                          "First handover second of the grid (Starlink: 12 s).",
                          DoubleValue(12.0),
                          MakeDoubleAccessor(&MpFreeze::m_scheduleOffsetS),
                          MakeDoubleChecker<double>(0.0, 3600.0))
            .AddAttribute("SchedulePeriod",
                          "Handover period of the grid (Starlink: 15 s).",
                          DoubleValue(15.0),
                          MakeDoubleAccessor(&MpFreeze::m_schedulePeriodS),
                          MakeDoubleChecker<double>(1e-3, 3600.0))
            .AddAttribute("FreezeTimeouts",
                          "Keep frozen packets out of the persistent-congestion test (the "
                          "QUIC analogue of an RTO collapse).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpFreeze::m_freezeTimeouts),
                          MakeBooleanChecker())
            .AddTraceSource("FrozenLoss",
                            "A lost packet was kept from the inner controller: its packet "
                            "number and send time.",
                            MakeTraceSourceAccessor(&MpFreeze::m_frozenTrace),
                            "ns3::MpFreeze::FrozenLossCallback");
    return tid;
}

MpFreeze::MpFreeze()
    : m_enabled(true),
      m_fixedSchedule(false),
      m_before(MilliSeconds(100)),
      m_after(MilliSeconds(100)),
      m_deltaOff(0),
      m_epochPhaseS(0.0),
      m_scheduleOffsetS(12.0),
      m_schedulePeriodS(15.0),
      m_freezeTimeouts(true)
{
}

std::string
MpFreeze::GetName() const
{
    return "freeze+" + (m_inner ? m_inner->GetName() : std::string("?"));
}

bool
MpFreeze::InScheduleWindow(int64_t tUs,
                           int64_t offsetUs,
                           int64_t periodUs,
                           int64_t beforeUs,
                           int64_t afterUs)
{
    if (periodUs <= 0)
    {
        return false;
    }
    int64_t r = (tUs - offsetUs) % periodUs;
    if (r < 0)
    {
        r += periodUs;
    }
    // r: time since the previous grid instant; periodUs - r: time to the next one.
    return r <= afterUs || periodUs - r <= beforeUs;
}

bool
MpFreeze::InOracleWindow(const MpPathOracle& oracle, double t, double before, double after)
{
    // The latest handover not after t + before (1 us of slack against rounding), then the
    // comparison in integer microseconds so the window's edges are inclusive.
    double h = oracle.LastHandoverAtOrBefore(t + before + 1e-6);
    if (!std::isfinite(h))
    {
        return false;
    }
    int64_t hUs = std::llround(h * 1e6);
    int64_t tUs = std::llround(t * 1e6);
    return hUs <= tUs + std::llround(before * 1e6) && hUs >= tUs - std::llround(after * 1e6);
}

bool
MpFreeze::IsFrozen(const MpCcContext& ctx, Time sentTime) const
{
    if (!m_enabled)
    {
        return false;
    }
    if (m_fixedSchedule)
    {
        int64_t tUs = sentTime.GetMicroSeconds() + m_deltaOff.GetMicroSeconds() +
                      std::llround(m_epochPhaseS * 1e6);
        return InScheduleWindow(tUs,
                                std::llround(m_scheduleOffsetS * 1e6),
                                std::llround(m_schedulePeriodS * 1e6),
                                m_before.GetMicroSeconds(),
                                m_after.GetMicroSeconds());
    }
    const MpPathOracle* oracle = ctx.conn ? ctx.Oracle() : nullptr;
    if (!oracle)
    {
        return false;
    }
    return InOracleWindow(*oracle,
                          (sentTime + m_deltaOff).GetSeconds(),
                          m_before.GetSeconds(),
                          m_after.GetSeconds());
}

void
MpFreeze::OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev)
{
    if (!m_enabled || ev.nLost == 0)
    {
        // nLost == 0 is a congestion signal without lost packets (ECN CE): nothing to freeze.
        m_acted += ev.nLost;
        m_inner->OnPacketsLost(ctx, ev);
        return;
    }
    m_eligible.clear();
    uint64_t lostBytes = 0;
    for (std::size_t i = 0; i < ev.nLost; ++i)
    {
        const MpSentPacket& p = ev.lost[i];
        if (IsFrozen(ctx, p.sentTime))
        {
            ++m_frozen;
            m_frozenTrace(p.pn, p.sentTime);
            continue;
        }
        m_eligible.push_back(p);
        if (p.inFlight)
        {
            lostBytes += p.bytes;
        }
    }
    m_acted += m_eligible.size();
    if (m_eligible.empty())
    {
        return; // no window, threshold or model reduction (the data is retransmitted anyway)
    }
    MpLossEvent out = ev;
    out.lost = m_eligible.data();
    out.nLost = m_eligible.size();
    out.lostBytes = lostBytes;
    out.largestLostSentTime = m_eligible.back().sentTime;
    m_inner->OnPacketsLost(ctx, out);
}

bool
MpFreeze::ConsiderForPersistentCongestion(const MpCcContext& ctx, const MpSentPacket& p) const
{
    if (m_freezeTimeouts && IsFrozen(ctx, p.sentTime))
    {
        return false;
    }
    return m_inner->ConsiderForPersistentCongestion(ctx, p);
}

uint64_t
MpFreeze::GetSuppressedLosses() const
{
    return m_frozen + m_inner->GetSuppressedLosses();
}

void
MpFreeze::OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev)
{
    if (m_enabled && m_freezeTimeouts && IsFrozen(ctx, ev.oldestSentTime))
    {
        ++m_frozenTimeouts;
        return;
    }
    m_inner->OnRetransmissionTimeout(ctx, ev);
}

uint64_t
MpFreeze::GetFrozenLosses() const
{
    return m_frozen;
}

uint64_t
MpFreeze::GetActedLosses() const
{
    return m_acted;
}

} // namespace ns3
