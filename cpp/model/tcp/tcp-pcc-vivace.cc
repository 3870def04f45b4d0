// SPDX-License-Identifier: GPL-2.0-only
//
// TcpPccVivace (cpp/model/tcp/tcp-pcc-vivace.h). This file: the type, the attributes and the
// TcpCongestionOps interface; the socket hooks are in tcp-pcc-vivace-socket.cc, the monitor
// intervals and the state machine in tcp-pcc-vivace-intervals.cc.

#include "tcp-pcc-vivace.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpPccVivace");
NS_OBJECT_ENSURE_REGISTERED(TcpPccVivace);

/// splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a small, seedable mixing generator.
uint64_t
TcpPccVivace::SplitMix64(uint64_t& state)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

TypeId
TcpPccVivace::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpPccVivace")
            .SetParent<TcpCongestionOps>()
            .SetGroupName("Leo")
            .AddConstructor<TcpPccVivace>()
            .AddAttribute("Exponent",
                          "t in the utility x^t - b x dRTT/dT - c x L (Vivace eq. 1), in (0, 1).",
                          DoubleValue(0.9),
                          MakeDoubleAccessor(&TcpPccVivace::m_exponent),
                          MakeDoubleChecker<double>(0.001, 0.999))
            .AddAttribute("LatencyCoefficient",
                          "b: weight of the RTT gradient in the utility (x in Mbit/s).",
                          DoubleValue(900.0),
                          MakeDoubleAccessor(&TcpPccVivace::m_latencyCoef),
                          MakeDoubleChecker<double>(0.0, 1e6))
            .AddAttribute("LossCoefficient",
                          "c: weight of the loss rate in the utility (x in Mbit/s).",
                          DoubleValue(11.35),
                          MakeDoubleAccessor(&TcpPccVivace::m_lossCoef),
                          MakeDoubleChecker<double>(0.0, 1e6))
            .AddAttribute("RttGradientTolerance",
                          "RTT gradients of smaller magnitude count as 0 (a noise filter of the "
                          "implementations; 0 = the paper's utility).",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&TcpPccVivace::m_rttGradientTolerance),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("ProbeEpsilon",
                          "eps: a probing pair tests r(1 + eps) and r(1 - eps).",
                          DoubleValue(0.05),
                          MakeDoubleAccessor(&TcpPccVivace::m_probeEpsilon),
                          MakeDoubleChecker<double>(0.001, 0.5))
            .AddAttribute("StepScale",
                          "theta0: rate change (Mbit/s) per unit of utility gradient (utility "
                          "per Mbit/s), before the confidence amplifier.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&TcpPccVivace::m_theta0Mbps),
                          MakeDoubleChecker<double>(1e-6, 1e6))
            .AddAttribute("InitialChangeBound",
                          "omega0: a step changes the rate by at most this fraction of it.",
                          DoubleValue(0.05),
                          MakeDoubleAccessor(&TcpPccVivace::m_omega0),
                          MakeDoubleChecker<double>(0.001, 1.0))
            .AddAttribute("ChangeBoundStep",
                          "delta: the change boundary grows by this much each consecutive time "
                          "a step hits it.",
                          DoubleValue(0.06),
                          MakeDoubleAccessor(&TcpPccVivace::m_omegaStep),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AmplifierStep",
                          "kappa: the confidence amplifier m = 1 + kappa (tau - 1) after tau "
                          "consecutive steps in one direction.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&TcpPccVivace::m_amplifierStep),
                          MakeDoubleChecker<double>(0.0, 10.0))
            .AddAttribute("MonitorIntervalRtts",
                          "Length of a monitor interval in smoothed RTTs.",
                          DoubleValue(1.5),
                          MakeDoubleAccessor(&TcpPccVivace::m_miRtts),
                          MakeDoubleChecker<double>(0.1, 100.0))
            .AddAttribute("MinIntervalPackets",
                          "A monitor interval lasts at least this many segments at its rate.",
                          UintegerValue(10),
                          MakeUintegerAccessor(&TcpPccVivace::m_miMinPackets),
                          MakeUintegerChecker<uint32_t>(1, 100000))
            .AddAttribute("ProbePairs",
                          "Probing pairs (r(1+eps), r(1-eps)) whose mean gradient makes a step.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TcpPccVivace::m_probePairs),
                          MakeUintegerChecker<uint32_t>(1, 16))
            .AddAttribute("MinRate",
                          "Lowest sending rate (bit/s).",
                          DoubleValue(1e5),
                          MakeDoubleAccessor(&TcpPccVivace::m_minRateBps),
                          MakeDoubleChecker<double>(1e3, 1e12))
            .AddAttribute("CwndGain",
                          "The window caps the data in flight at CwndGain x rate x SRTT.",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&TcpPccVivace::m_cwndGain),
                          MakeDoubleChecker<double>(1.0, 100.0));
    return tid;
}

TcpPccVivace::TcpPccVivace()
    : TcpCongestionOps()
{
}

TcpPccVivace::TcpPccVivace(const TcpPccVivace& other)
    : TcpCongestionOps(other),
      m_exponent(other.m_exponent),
      m_latencyCoef(other.m_latencyCoef),
      m_lossCoef(other.m_lossCoef),
      m_rttGradientTolerance(other.m_rttGradientTolerance),
      m_probeEpsilon(other.m_probeEpsilon),
      m_theta0Mbps(other.m_theta0Mbps),
      m_omega0(other.m_omega0),
      m_omegaStep(other.m_omegaStep),
      m_amplifierStep(other.m_amplifierStep),
      m_miRtts(other.m_miRtts),
      m_miMinPackets(other.m_miMinPackets),
      m_probePairs(other.m_probePairs),
      m_minRateBps(other.m_minRateBps),
      m_cwndGain(other.m_cwndGain)
{
}

TcpPccVivace::~TcpPccVivace() = default;

std::string
TcpPccVivace::GetName() const
{
    return "TcpPccVivace";
}

void
TcpPccVivace::Init(Ptr<TcpSocketState> tcb)
{
    m_tcb = tcb;
    // Vivace is rate-based: the socket must pace (as TcpBbr::Init does).
    tcb->m_pacing = true;
    PccVivaceRateControl::Params p;
    p.theta0Mbps = m_theta0Mbps;
    p.omega0 = m_omega0;
    p.omegaStep = m_omegaStep;
    p.amplifierStep = m_amplifierStep;
    p.minRateBps = m_minRateBps;
    p.maxRateBps = std::max(m_minRateBps, static_cast<double>(tcb->m_maxPacingRate.GetBitRate()));
    m_control = PccVivaceRateControl(p);
}

uint32_t
TcpPccVivace::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    return std::max(tcb->m_cWnd.Get(), 2 * tcb->m_segmentSize);
}

void
TcpPccVivace::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
}

bool
TcpPccVivace::HasCongControl() const
{
    return true;
}

void
TcpPccVivace::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
    if (event == TcpSocketState::CA_EVENT_TX_START && !m_attachTried)
    {
        Attach();
    }
    else if (event == TcpSocketState::CA_EVENT_LOSS)
    {
        OnRetransmissionTimeout();
    }
}

void
TcpPccVivace::CongControl(Ptr<TcpSocketState> tcb,
                          const TcpRateOps::TcpRateConnection& rc,
                          const TcpRateOps::TcpRateSample& rs)
{
    // The ACK was already read through the "Rx" trace (OnRx). The socket may have moved the
    // window (recovery exit sets cwnd = ssthresh, an RTO sets 1 segment): set it back.
    if (m_mode != Mode::INITIAL)
    {
        SetRate(m_rateBps);
    }
}

Ptr<TcpCongestionOps>
TcpPccVivace::Fork()
{
    return CopyObject<TcpPccVivace>(this);
}

TcpPccVivace::Mode
TcpPccVivace::GetMode() const
{
    return m_mode;
}

double
TcpPccVivace::GetRateBps() const
{
    return m_rateBps;
}

double
TcpPccVivace::GetBaseRateBps() const
{
    return m_baseRateBps;
}

uint64_t
TcpPccVivace::GetDecisions() const
{
    return m_decisions;
}

uint64_t
TcpPccVivace::GetIntervalsDone() const
{
    return m_intervalsDone;
}

uint64_t
TcpPccVivace::GetInvalidIntervals() const
{
    return m_invalidIntervals;
}

bool
TcpPccVivace::IsAttached() const
{
    return m_attached;
}

} // namespace ns3
