// SPDX-License-Identifier: GPL-2.0-only

#include "mp-bbr.h"

#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpBbr);

namespace
{
constexpr double kPacingGainCycle[8] = {1.25, 0.75, 1, 1, 1, 1, 1, 1};
} // namespace

TypeId
MpBbr::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpBbr")
                            .SetParent<MpCongestionOps>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpBbr>()
                            .AddAttribute("BtlBwFilterLength",
                                          "BtlBw max-filter window (round trips).",
                                          UintegerValue(10),
                                          MakeUintegerAccessor(&MpBbr::m_btlBwFilterLen),
                                          MakeUintegerChecker<uint32_t>(1, 1000))
                            .AddAttribute("RtPropFilterLength",
                                          "RTprop min-filter window.",
                                          TimeValue(Seconds(10)),
                                          MakeTimeAccessor(&MpBbr::m_rtPropFilterLen),
                                          MakeTimeChecker(MilliSeconds(10), Seconds(1000)))
                            .AddAttribute("ProbeRttDuration",
                                          "Time spent at the minimum window in PROBE_RTT.",
                                          TimeValue(MilliSeconds(200)),
                                          MakeTimeAccessor(&MpBbr::m_probeRttDuration),
                                          MakeTimeChecker(MilliSeconds(1), Seconds(10)))
                            .AddAttribute("HighGain",
                                          "STARTUP pacing and cwnd gain (2 / ln 2).",
                                          DoubleValue(2.0 / std::log(2.0)),
                                          MakeDoubleAccessor(&MpBbr::m_highGain),
                                          MakeDoubleChecker<double>(1.0, 10.0));
    return tid;
}

MpBbr::MpBbr()
    : m_btlBwFilterLen(10),
      m_rtPropFilterLen(Seconds(10)),
      m_probeRttDuration(MilliSeconds(200)),
      m_highGain(2.0 / std::log(2.0))
{
    m_uv = CreateObject<UniformRandomVariable>();
}

std::string
MpBbr::GetName() const
{
    return "bbr";
}

int64_t
MpBbr::AssignStreams(int64_t stream)
{
    m_uv->SetStream(stream);
    return 1;
}

bool
MpBbr::RequiresPacing() const
{
    return true;
}

bool
MpBbr::InSlowStart() const
{
    return m_state == State::STARTUP;
}

MpBbr::State
MpBbr::GetState() const
{
    return m_state;
}

double
MpBbr::GetBtlBw() const
{
    return m_btlBw * 8.0;
}

Time
MpBbr::GetRtProp() const
{
    return m_rtPropValid ? m_rtProp : Time(0);
}

void
MpBbr::Init(const MpCcContext& ctx)
{
    MpCongestionOps::Init(ctx);
    m_btlBwFilter.Reset(0, 0);
    m_btlBw = 0;
    m_rtPropValid = false;
    m_rtPropStamp = ctx.Now();
    m_probeRttDoneSet = false;
    m_probeRttRoundDone = false;
    m_packetConservation = false;
    m_priorCwnd = 0;
    m_nextRoundDelivered = 0;
    m_roundCount = 0;
    m_roundStart = false;
    m_filledPipe = false;
    m_fullBw = 0;
    m_fullBwCount = 0;
    // BBRInitPacingRate: nominal bandwidth = InitialCwnd / (SRTT or 1 ms).
    double srtt = ctx.Path().HasRttSample() ? ctx.Path().Srtt().GetSeconds() : 0.001;
    double nominal = static_cast<double>(m_cwnd) / srtt;
    m_pacingRateBytes = m_highGain * nominal;
    m_pacingRate = m_pacingRateBytes * 8.0;
    EnterStartup();
}

double
MpBbr::SendQuantum() const
{
    double mss = static_cast<double>(m_mss);
    if (m_pacingRateBytes < 1.2e6 / 8.0)
    {
        return mss;
    }
    if (m_pacingRateBytes < 24e6 / 8.0)
    {
        return 2 * mss;
    }
    return std::min(m_pacingRateBytes * 1e-3, 65536.0);
}

double
MpBbr::Inflight(double gain) const
{
    if (!m_rtPropValid || m_btlBw <= 0)
    {
        return static_cast<double>(InitialWindow(m_mss));
    }
    double bdp = m_btlBw * m_rtProp.GetSeconds();
    return gain * bdp + 3.0 * SendQuantum();
}

void
MpBbr::EnterStartup()
{
    m_state = State::STARTUP;
    m_pacingGain = m_highGain;
    m_cwndGain = m_highGain;
}

void
MpBbr::EnterDrain()
{
    m_state = State::DRAIN;
    m_pacingGain = 1.0 / m_highGain;
    m_cwndGain = m_highGain;
}

void
MpBbr::EnterProbeBw(Time now)
{
    m_state = State::PROBE_BW;
    m_pacingGain = 1;
    m_cwndGain = 2;
    auto r = static_cast<uint32_t>(m_uv->GetInteger(0, 6));
    m_cycleIndex = 8 - 1 - r;
    AdvanceCyclePhase(now);
}

void
MpBbr::EnterProbeRtt()
{
    m_state = State::PROBE_RTT;
    m_pacingGain = 1;
    m_cwndGain = 1;
}

void
MpBbr::AdvanceCyclePhase(Time now)
{
    m_cycleStamp = now;
    m_cycleIndex = (m_cycleIndex + 1) % 8;
    m_pacingGain = kPacingGainCycle[m_cycleIndex];
}

bool
MpBbr::IsNextCyclePhase(Time now, uint64_t priorInflight, uint64_t lost) const
{
    bool fullLength = (now - m_cycleStamp) > m_rtProp;
    if (m_pacingGain == 1.0)
    {
        return fullLength;
    }
    if (m_pacingGain > 1.0)
    {
        return fullLength &&
               (lost > 0 || static_cast<double>(priorInflight) >= Inflight(m_pacingGain));
    }
    return fullLength || static_cast<double>(priorInflight) <= Inflight(1.0);
}

void
MpBbr::SaveCwnd()
{
    if (!m_inRecovery && m_state != State::PROBE_RTT)
    {
        m_priorCwnd = m_cwnd;
    }
    else
    {
        m_priorCwnd = std::max(m_priorCwnd, m_cwnd);
    }
}

void
MpBbr::RestoreCwnd()
{
    m_cwnd = std::max(m_cwnd, m_priorCwnd);
}

void
MpBbr::SetPacingRateWithGain(double gain)
{
    double rate = gain * m_btlBw;
    if (rate <= 0)
    {
        return;
    }
    if (m_filledPipe || rate > m_pacingRateBytes)
    {
        m_pacingRateBytes = rate;
    }
}

void
MpBbr::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    Time now = ev.now;
    const MpPathInfo& path = ctx.Path();
    const MpRateSample& rs = *ev.rate;
    uint64_t delivered = ev.bytesAcked;
    uint64_t lost = m_lostSinceAck;
    m_lostSinceAck = 0;

    // Leave recovery once a packet sent after it began is acknowledged.
    if (m_inRecovery)
    {
        for (std::size_t i = 0; i < ev.nAcked; ++i)
        {
            if (!ev.acked[i].wasLost && ev.acked[i].sentTime > m_recoveryStart)
            {
                m_inRecovery = false;
                m_packetConservation = false;
                RestoreCwnd();
                break;
            }
        }
    }

    // BBRUpdateBtlBw (with BBRUpdateRound).
    m_roundStart = false;
    if (ev.packetsAcked > 0 && rs.priorDelivered >= m_nextRoundDelivered)
    {
        m_nextRoundDelivered = path.deliveredBytes;
        ++m_roundCount;
        m_roundStart = true;
        if (m_packetConservation && m_roundCount > m_conservationRound)
        {
            m_packetConservation = false;
        }
    }
    if (rs.valid)
    {
        double rate = rs.deliveryRateBps / 8.0;
        if (rate >= m_btlBw || !rs.isAppLimited)
        {
            m_btlBw = m_btlBwFilter.Update(rate, m_roundCount, m_btlBwFilterLen);
        }
    }

    // BBRCheckCyclePhase.
    if (m_state == State::PROBE_BW && IsNextCyclePhase(now, ev.priorBytesInFlight, lost))
    {
        AdvanceCyclePhase(now);
    }

    // BBRCheckFullPipe.
    if (!m_filledPipe && m_roundStart && !rs.isAppLimited)
    {
        if (m_btlBw >= m_fullBw * 1.25)
        {
            m_fullBw = m_btlBw;
            m_fullBwCount = 0;
        }
        else if (++m_fullBwCount >= 3)
        {
            m_filledPipe = true;
        }
    }

    // BBRCheckDrain.
    if (m_state == State::STARTUP && m_filledPipe)
    {
        EnterDrain();
    }
    if (m_state == State::DRAIN && static_cast<double>(path.bytesInFlight) <= Inflight(1.0))
    {
        EnterProbeBw(now);
    }

    // BBRUpdateRTprop.
    m_rtPropExpired = now > m_rtPropStamp + m_rtPropFilterLen;
    if (ev.rttSampled && (!m_rtPropValid || ev.latestRtt <= m_rtProp || m_rtPropExpired))
    {
        m_rtProp = ev.latestRtt;
        m_rtPropValid = true;
        m_rtPropStamp = now;
    }

    // BBRCheckProbeRTT.
    if (m_state != State::PROBE_RTT && m_rtPropExpired)
    {
        EnterProbeRtt();
        SaveCwnd();
        m_probeRttDoneSet = false;
    }
    if (m_state == State::PROBE_RTT)
    {
        uint64_t minPipe = 4 * static_cast<uint64_t>(m_mss);
        if (!m_probeRttDoneSet && path.bytesInFlight <= minPipe)
        {
            m_probeRttDoneStamp = now + m_probeRttDuration;
            m_probeRttDoneSet = true;
            m_probeRttRoundDone = false;
            m_nextRoundDelivered = path.deliveredBytes;
        }
        else if (m_probeRttDoneSet)
        {
            if (m_roundStart)
            {
                m_probeRttRoundDone = true;
            }
            if (m_probeRttRoundDone && now > m_probeRttDoneStamp)
            {
                m_rtPropStamp = now;
                RestoreCwnd();
                if (m_filledPipe)
                {
                    EnterProbeBw(now);
                }
                else
                {
                    EnterStartup();
                }
            }
        }
    }

    // BBRUpdateControlParameters: pacing rate, cwnd.
    SetPacingRateWithGain(m_pacingGain);
    m_pacingRate = m_pacingRateBytes * 8.0;

    double target = Inflight(m_cwndGain);
    double cwnd = static_cast<double>(m_cwnd);
    double mss = static_cast<double>(m_mss);
    if (lost > 0)
    {
        cwnd = std::max(cwnd - static_cast<double>(lost), mss);
    }
    if (m_packetConservation)
    {
        cwnd = std::max(cwnd, static_cast<double>(path.bytesInFlight + delivered));
    }
    else
    {
        if (m_filledPipe)
        {
            cwnd = std::min(cwnd + static_cast<double>(delivered), target);
        }
        else if (cwnd < target || static_cast<double>(path.deliveredBytes) <
                                      static_cast<double>(InitialWindow(m_mss)))
        {
            cwnd += static_cast<double>(delivered);
        }
        cwnd = std::max(cwnd, 4.0 * mss);
    }
    if (m_state == State::PROBE_RTT)
    {
        cwnd = std::min(cwnd, 4.0 * mss);
    }
    m_cwnd = static_cast<uint64_t>(cwnd);
}

void
MpBbr::OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev)
{
    m_lostSinceAck += ev.lostBytes;
    if (m_inRecovery && ev.largestLostSentTime <= m_recoveryStart)
    {
        return;
    }
    // BBROnEnterFastRecovery.
    SaveCwnd();
    m_inRecovery = true;
    m_recoveryStart = ev.now;
    m_packetConservation = true;
    m_conservationRound = m_roundCount;
    m_cwnd = ctx.Path().bytesInFlight + m_mss;
}

void
MpBbr::OnPersistentCongestion(const MpCcContext& ctx)
{
    SaveCwnd();
    m_inRecovery = true;
    m_recoveryStart = ctx.Now();
    m_cwnd = MinimumWindow(m_mss);
}

MpEcnCodepoint
MpBbr::GetEcnCodepoint() const
{
    return MpEcnCodepoint::NOT_ECT;
}

} // namespace ns3
