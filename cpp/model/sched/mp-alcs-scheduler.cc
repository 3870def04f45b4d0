// SPDX-License-Identifier: GPL-2.0-only
//
// MpAlcsScheduler: type, attributes, the latency and sigma equations (Latency, UpdateSigma),
// the per-path state, Init and the read-outs; mp-alcs-scheduler-select.cc has the per-decision
// part (handover deactivation, accounting, SelectPath and the connection's callbacks).

#include "mp-alcs-scheduler.h"

#include "model/registry/mp-algorithm-registry.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpAlcsScheduler);

static MpAlgorithmRegistrar g_alcsRegistrar(MpAlgorithmRegistry::Scheduler(),
                                            "alcs",
                                            "ns3::MpAlcsScheduler");

TypeId
MpAlcsScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpAlcsScheduler")
            .SetParent<MpScheduler>()
            .SetGroupName("Leogym")
            .AddConstructor<MpAlcsScheduler>()
            .AddAttribute("Alpha",
                          "Attenuation factor alpha of eqs. (7)/(10) (paper: 0.99).",
                          DoubleValue(0.99),
                          MakeDoubleAccessor(&MpAlcsScheduler::m_alpha),
                          MakeDoubleChecker<double>(0.5, 1.0))
            .AddAttribute("SigmaInit",
                          "Initial compensation factor (paper: 1.0).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&MpAlcsScheduler::m_sigmaInit),
                          MakeDoubleChecker<double>(1e-3, 1e3))
            .AddAttribute("SigmaMin",
                          "Lower clamp of sigma [R 0.5].",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&MpAlcsScheduler::m_sigmaMin),
                          MakeDoubleChecker<double>(1e-3, 1e3))
            .AddAttribute("SigmaMax",
                          "Upper clamp of sigma [R 2.0].",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&MpAlcsScheduler::m_sigmaMax),
                          MakeDoubleChecker<double>(1e-3, 1e3))
            .AddAttribute("UpdateInterval",
                          "T_u; 0 = max(UpdateIntervalMin, largest srtt of the usable paths) "
                          "[R].",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&MpAlcsScheduler::m_updateInterval),
                          MakeTimeChecker(Time(0), Seconds(3600)))
            .AddAttribute("UpdateIntervalMin",
                          "Lower bound of the automatic T_u [R 100 ms].",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&MpAlcsScheduler::m_updateIntervalMin),
                          MakeTimeChecker(MicroSeconds(1), Seconds(3600)))
            .AddAttribute("EtpMode",
                          "etp: 0 = model rate cwnd / (sigma (rtt + Delta)) while backlogged "
                          "[R]; 1 = segments dispatched to the path.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpAlcsScheduler::m_etpMode),
                          MakeUintegerChecker<uint32_t>(0, 1))
            .AddAttribute("UpdateAll",
                          "Update every path's sigma, not only the two roles' (paper: roles).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpAlcsScheduler::m_updateAll),
                          MakeBooleanChecker())
            .AddAttribute("DeltaMode",
                          "Delta: 0 = rttvar [R]; 1 = 2 rttvar; 2 = 0.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpAlcsScheduler::m_deltaMode),
                          MakeUintegerChecker<uint32_t>(0, 2))
            .AddAttribute("KMode",
                          "k: 0 = connection-level pending segments (paper wording) [R]; "
                          "1 = the segment being scheduled; 2 = pending capped at KCap.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpAlcsScheduler::m_kMode),
                          MakeUintegerChecker<uint32_t>(0, 2))
            .AddAttribute("KCap",
                          "Cap of k in segments (KMode 2).",
                          DoubleValue(1000.0),
                          MakeDoubleAccessor(&MpAlcsScheduler::m_kCap),
                          MakeDoubleChecker<double>(1.0, 1e9))
            .AddAttribute("Handover",
                          "Proactive handover deactivation (paper: on).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpAlcsScheduler::m_handover),
                          MakeBooleanChecker())
            .AddAttribute("GuardRtts",
                          "Deactivate this many of the path's smoothed RTTs before the "
                          "handover (paper: one RTT).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&MpAlcsScheduler::m_guardRtts),
                          MakeDoubleChecker<double>(0.0, 100.0))
            .AddAttribute("OnlyOutageEvents",
                          "Deactivate only for handovers that cause an outage [R]; false: "
                          "also before handovers without one.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpAlcsScheduler::m_onlyOutages),
                          MakeBooleanChecker())
            .AddTraceSource("Deactivation",
                            "A satellite path was deactivated (true) or reactivated (false).",
                            MakeTraceSourceAccessor(&MpAlcsScheduler::m_deactivationTrace),
                            "ns3::MpAlcsScheduler::DeactivationCallback")
            .AddTraceSource("Decision",
                            "S_f, S_s, tl_f, tl_s and whether S_s was used.",
                            MakeTraceSourceAccessor(&MpAlcsScheduler::m_decisionTrace),
                            "ns3::MpAlcsScheduler::DecisionCallback");
    return tid;
}

MpAlcsScheduler::MpAlcsScheduler()
    : m_alpha(0.99),
      m_sigmaInit(1.0),
      m_sigmaMin(0.5),
      m_sigmaMax(2.0),
      m_updateInterval(0),
      m_updateIntervalMin(MilliSeconds(100)),
      m_etpMode(0),
      m_updateAll(false),
      m_deltaMode(0),
      m_kMode(0),
      m_kCap(1000.0),
      m_handover(true),
      m_guardRtts(1.0),
      m_onlyOutages(true)
{
}

MpAlcsScheduler::~MpAlcsScheduler() = default;

std::string
MpAlcsScheduler::GetName() const
{
    return "alcs";
}

double
MpAlcsScheduler::Latency(double k,
                         double inflight,
                         double queued,
                         double cwnd,
                         double rtt,
                         double delta,
                         double sigma)
{
    return (k + inflight + queued) / std::max(cwnd, 1.0) * (rtt + delta) * sigma;
}

double
MpAlcsScheduler::UpdateSigma(double sigma,
                             double atp,
                             double etp,
                             double alpha,
                             double sigmaMin,
                             double sigmaMax)
{
    if (atp > etp)
    {
        sigma *= alpha; // latency over-estimated
    }
    else if (atp < etp)
    {
        sigma /= alpha; // latency under-estimated
    }
    return std::min(std::max(sigma, sigmaMin), sigmaMax);
}

MpAlcsScheduler::PathState&
MpAlcsScheduler::State(uint32_t path)
{
    if (path >= m_ps.size())
    {
        PathState init;
        init.sigma = m_sigmaInit;
        init.lastT = m_t0;
        m_ps.resize(path + 1, init);
    }
    return m_ps[path];
}

void
MpAlcsScheduler::Init(MpConnectionView& conn)
{
    if (m_sigmaMin > m_sigmaMax)
    {
        throw std::invalid_argument("scheduler_params.SigmaMin: must not exceed SigmaMax (" +
                                    std::to_string(m_sigmaMin) + " > " +
                                    std::to_string(m_sigmaMax) + ")");
    }
    m_t0 = conn.Now().GetSeconds();
    m_ps.clear();
    for (uint32_t i = 0; i < conn.GetNPaths(); ++i)
    {
        State(i).lastT = m_t0;
    }
    m_waits = 0;
    m_deactivations = 0;
    UpdateHandovers(conn, m_t0);
}

double
MpAlcsScheduler::GetSigma(uint32_t path) const
{
    return path < m_ps.size() ? m_ps[path].sigma : m_sigmaInit;
}

bool
MpAlcsScheduler::IsDeactivated(uint32_t path) const
{
    return path < m_ps.size() && m_ps[path].deactivated;
}

double
MpAlcsScheduler::GetAtp(uint32_t path) const
{
    return path < m_ps.size() ? m_ps[path].atp : 0.0;
}

double
MpAlcsScheduler::GetEtp(uint32_t path) const
{
    return path < m_ps.size() ? m_ps[path].etp : 0.0;
}

uint64_t
MpAlcsScheduler::GetWaits() const
{
    return m_waits;
}

uint64_t
MpAlcsScheduler::GetDeactivations() const
{
    return m_deactivations;
}

double
MpAlcsScheduler::GetLastUpdate() const
{
    return m_t0;
}

} // namespace ns3
