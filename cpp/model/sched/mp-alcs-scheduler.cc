// SPDX-License-Identifier: GPL-2.0-only

#include "mp-alcs-scheduler.h"

#include "model/registry/mp-algorithm-registry.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
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
MpAlcsScheduler::Delta(const MpPathInfo& p) const
{
    switch (m_deltaMode)
    {
    case 1:
        return 2.0 * p.rtt->GetRttVar().GetSeconds();
    case 2:
        return 0.0;
    default:
        return p.rtt->GetRttVar().GetSeconds();
    }
}

double
MpAlcsScheduler::UpdateInterval(const MpConnectionView& conn) const
{
    if (m_updateInterval.IsStrictlyPositive())
    {
        return m_updateInterval.GetSeconds();
    }
    double tu = m_updateIntervalMin.GetSeconds();
    for (uint32_t i = 0; i < conn.GetNPaths(); ++i)
    {
        const MpPathInfo& p = conn.GetPath(i);
        if (p.IsUsable() && p.HasRttSample())
        {
            tu = std::max(tu, p.Srtt().GetSeconds());
        }
    }
    return tu;
}

void
MpAlcsScheduler::Accumulate(const MpConnectionView& conn, double now)
{
    double mss = static_cast<double>(conn.GetMaxDatagramSize());
    for (uint32_t i = 0; i < conn.GetNPaths(); ++i)
    {
        PathState& s = State(i);
        const MpPathInfo& p = conn.GetPath(i);
        if (m_etpMode == 0)
        {
            s.etp += s.rate * std::max(0.0, now - s.lastT);
            // Backlogged: the window is (nearly) full, so the model's rate applies.
            bool backlogged =
                p.state != MpPathState::DEACTIVATED &&
                static_cast<double>(p.bytesInFlight) + mss >= static_cast<double>(p.cwnd);
            double rtt = p.Srtt().GetSeconds() + Delta(p);
            s.rate =
                backlogged && rtt > 0 ? (static_cast<double>(p.cwnd) / mss) / (s.sigma * rtt) : 0.0;
            s.busy |= backlogged;
        }
        s.lastT = now;
    }
}

void
MpAlcsScheduler::UpdateHandovers(MpConnectionView& conn, double now)
{
    double nextWake = std::numeric_limits<double>::infinity();
    for (uint32_t i = 0; i < conn.GetNPaths(); ++i)
    {
        const MpPathInfo& p = conn.GetPath(i);
        PathState& s = State(i);
        const MpPathOracle* oracle = p.oracle;
        bool want = false;
        if (m_handover && oracle && oracle->IsSatellite())
        {
            double guard = m_guardRtts * p.Srtt().GetSeconds();
            // The outage interval that is current or next.
            if (!(s.hoEnd > now))
            {
                double from = std::isfinite(s.hoEnd) ? s.hoEnd : 0.0;
                for (int guardLoop = 0; guardLoop < 100000; ++guardLoop)
                {
                    auto [hs, he] = oracle->NextOutageAfter(from);
                    s.hoStart = hs;
                    s.hoEnd = he;
                    if (!std::isfinite(he) || he > now || !(he > from))
                    {
                        break;
                    }
                    from = he;
                }
            }
            if (std::isfinite(s.hoStart))
            {
                want = s.hoStart - guard <= now && now < s.hoEnd;
                nextWake = std::min(nextWake, want ? s.hoEnd : s.hoStart - guard);
            }
            if (!m_onlyOutages && !want)
            {
                // Handovers without an outage: off for the guard time before the instant.
                double h = oracle->NextHandoverAfter(now);
                if (std::isfinite(h))
                {
                    want = h - guard <= now;
                    nextWake = std::min(nextWake, want ? h : h - guard);
                }
            }
        }
        if (want && !s.deactivated)
        {
            if (p.state == MpPathState::DEACTIVATED)
            {
                continue; // deactivated by someone else: leave it alone
            }
            s.restore = p.state;
            s.deactivated = true;
            ++m_deactivations;
            m_deactivationTrace(i, true);
            conn.SetPathState(i, MpPathState::DEACTIVATED);
        }
        else if (!want && s.deactivated)
        {
            s.deactivated = false;
            m_deactivationTrace(i, false);
            conn.SetPathState(i, s.restore);
        }
    }
    if (std::isfinite(nextWake) && nextWake > now)
    {
        // 1 us past the boundary, so that the wake-up's time (rounded to the simulator's
        // resolution) is never before it: otherwise it would re-arm itself at the same instant.
        conn.RequestWakeup(Seconds(nextWake + 1e-6));
    }
}

int32_t
MpAlcsScheduler::SelectPath(MpConnectionView& conn, const MpSchedRequest& req)
{
    double now = conn.Now().GetSeconds();
    // Step 1: proactive handover management.
    UpdateHandovers(conn, now);
    Accumulate(conn, now);

    Candidates(conn, m_cand);
    if (m_cand.empty())
    {
        return -1;
    }
    if (m_cand.size() == 1)
    {
        return conn.GetPath(m_cand[0]).HasWindowRoom(req.bytes) ? static_cast<int32_t>(m_cand[0])
                                                                : -1;
    }
    // Step 2: the fastest path, room or not.
    int32_t f = MinRttAny(conn, m_cand);
    const MpPathInfo& pf = conn.GetPath(static_cast<uint32_t>(f));
    if (pf.HasWindowRoom(req.bytes))
    {
        return f;
    }
    // Step 3: the default scheduler's choice.
    int32_t s = MinRttAvailable(conn, m_cand, req.bytes, req.retransmission ? req.pathMask : 0);
    if (s < 0 || s == f)
    {
        return s;
    }
    const MpPathInfo& ps = conn.GetPath(static_cast<uint32_t>(s));
    // Step 4: compensation update every T_u.
    if (now - m_t0 >= UpdateInterval(conn))
    {
        for (uint32_t i = 0; i < conn.GetNPaths(); ++i)
        {
            if (!m_updateAll && static_cast<int32_t>(i) != f && static_cast<int32_t>(i) != s)
            {
                continue;
            }
            PathState& x = State(i);
            bool eligible = m_etpMode == 0 ? x.busy : (x.etp > 0 || x.atp > 0);
            if (eligible)
            {
                x.sigma = UpdateSigma(x.sigma, x.atp, x.etp, m_alpha, m_sigmaMin, m_sigmaMax);
            }
        }
        for (auto& x : m_ps)
        {
            x.atp = 0;
            x.etp = 0;
            x.busy = false;
        }
        Accumulate(conn, now); // rates with the new sigmas
        for (auto& x : m_ps)
        {
            x.busy = false;
        }
        m_t0 = now;
    }
    // Step 5: eqs. (3)-(4).
    double mss = static_cast<double>(conn.GetMaxDatagramSize());
    double k = 1.0;
    if (m_kMode != 1)
    {
        k = std::max(1.0, std::ceil(static_cast<double>(conn.GetPendingBytes()) / mss));
        if (m_kMode == 2)
        {
            k = std::min(k, m_kCap);
        }
    }
    double tlF = Latency(k,
                         static_cast<double>(pf.bytesInFlight) / mss,
                         0.0, // q_f: packets are bound to a path only when sent
                         static_cast<double>(pf.cwnd) / mss,
                         pf.Srtt().GetSeconds(),
                         Delta(pf),
                         State(static_cast<uint32_t>(f)).sigma);
    double tlS = Latency(k,
                         static_cast<double>(ps.bytesInFlight) / mss,
                         0.0,
                         static_cast<double>(ps.cwnd) / mss,
                         ps.Srtt().GetSeconds(),
                         Delta(ps),
                         State(static_cast<uint32_t>(s)).sigma);
    // Step 6: the decision.
    bool useS = !(tlF < tlS);
    m_decisionTrace(static_cast<uint32_t>(f), static_cast<uint32_t>(s), tlF, tlS, useS);
    if (!useS)
    {
        ++m_waits;
        return -1; // wait for S_f: its next ACK calls the scheduler again
    }
    return s;
}

void
MpAlcsScheduler::OnPacketSent(MpConnectionView& conn, uint32_t path, const MpSentPacket& p)
{
    if (m_etpMode == 1 && !p.probe)
    {
        State(path).etp += 1.0;
    }
}

void
MpAlcsScheduler::OnAck(MpConnectionView& conn, uint32_t path, const MpAckEvent& ev)
{
    double now = conn.Now().GetSeconds();
    Accumulate(conn, now);
    State(path).atp += static_cast<double>(ev.packetsAcked);
}

void
MpAlcsScheduler::OnPathEvent(MpConnectionView& conn, uint32_t path, const MpPathEvent& ev)
{
    if (ev.kind == MpPathEventKind::STATE_CHANGED)
    {
        return;
    }
    // Outage edges and handovers may move the deactivation schedule.
    if (!m_inUpdate)
    {
        m_inUpdate = true;
        UpdateHandovers(conn, conn.Now().GetSeconds());
        m_inUpdate = false;
    }
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
