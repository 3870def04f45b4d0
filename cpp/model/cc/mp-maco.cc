// SPDX-License-Identifier: GPL-2.0-only

#include "mp-maco.h"

#include "model/registry/mp-algorithm-registry.h"
#include "mp-maco-equations.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ns3
{

using maco::CaIncrement;
using maco::DbToLinear;
using maco::IsCongestion;
using maco::PropagationRtt;
using maco::QuickStartWindow;
using maco::TimeAverage;

NS_OBJECT_ENSURE_REGISTERED(MpMaco);

static MpAlgorithmRegistrar g_macoRegistrar(MpAlgorithmRegistry::Cc(), "maco", "ns3::MpMaco");

namespace
{
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The MACO controller behind a path's controller (through a wrapper such as the freeze,
/// or as a residual wrapper's alternate).
const MpMaco*
AsMaco(const MpCongestionOps* cc, int depth = 0)
{
    if (!cc || depth >= 4)
    {
        return nullptr;
    }
    if (const auto* m = dynamic_cast<const MpMaco*>(cc))
    {
        return m;
    }
    const auto* w = dynamic_cast<const MpCongestionOpsWrapper*>(cc);
    if (!w)
    {
        return nullptr;
    }
    const MpMaco* m = AsMaco(PeekPointer(w->GetInner()), depth + 1);
    return m ? m : AsMaco(PeekPointer(w->GetAlternate()), depth + 1);
}
} // namespace

// ---- TypeId --------------------------------------------------------------------------------

TypeId
MpMaco::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpMaco")
            .SetParent<MpCongestionOps>()
            .SetGroupName("Leogym")
            .AddConstructor<MpMaco>()
            .AddAttribute("Gamma",
                          "Quick-start safety factor gamma (paper: 1/2).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&MpMaco::m_gamma),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("InitCwndPackets",
                          "Fallback initial window and floor of Omega (paper: 4 MSS).",
                          DoubleValue(4.0),
                          MakeDoubleAccessor(&MpMaco::m_initPkts),
                          MakeDoubleChecker<double>(1.0, 1e5))
            .AddAttribute("DecreaseFactor",
                          "Window factor on a congestion loss (paper: V_r = w_r / 2).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&MpMaco::m_decrease),
                          MakeDoubleChecker<double>(0.05, 0.95))
            .AddAttribute("MinCwndPackets",
                          "Minimum window (RFC 9002 kMinimumWindow: 2).",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&MpMaco::m_minPkts),
                          MakeDoubleChecker<double>(1.0, 1e4))
            .AddAttribute("TxPowerDbm",
                          "P_t (paper: 35.12 dBm).",
                          DoubleValue(35.12),
                          MakeDoubleAccessor(&MpMaco::m_txPowerDbm),
                          MakeDoubleChecker<double>(-100.0, 100.0))
            .AddAttribute("TxGainDbi",
                          "g1, transmit antenna gain (paper: 37.7 dBi).",
                          DoubleValue(37.7),
                          MakeDoubleAccessor(&MpMaco::m_txGainDbi),
                          MakeDoubleChecker<double>(-50.0, 100.0))
            .AddAttribute("RxGainDbi",
                          "g2, receive antenna gain (paper: 37.1 dBi).",
                          DoubleValue(37.1),
                          MakeDoubleAccessor(&MpMaco::m_rxGainDbi),
                          MakeDoubleChecker<double>(-50.0, 100.0))
            .AddAttribute("WavelengthM",
                          "lambda (paper: 0.086 m).",
                          DoubleValue(0.086),
                          MakeDoubleAccessor(&MpMaco::m_wavelengthM),
                          MakeDoubleChecker<double>(1e-4, 10.0))
            .AddAttribute("NoisePsd",
                          "N_r, noise power spectral density in W/Hz (paper: 1.6e-20).",
                          DoubleValue(1.6e-20),
                          MakeDoubleAccessor(&MpMaco::m_noisePsd),
                          MakeDoubleChecker<double>(1e-30, 1e-10))
            .AddAttribute("BandwidthHz",
                          "W, spot-beam bandwidth (paper: 12.5 MHz).",
                          DoubleValue(12.5e6),
                          MakeDoubleAccessor(&MpMaco::m_bandwidthHz),
                          MakeDoubleChecker<double>(1e3, 1e11))
            .AddAttribute("Efficiency",
                          "eta, system efficiency (paper: 0.98).",
                          DoubleValue(0.98),
                          MakeDoubleAccessor(&MpMaco::m_efficiency),
                          MakeDoubleChecker<double>(1e-3, 1.0))
            .AddAttribute("SpeedOfLight",
                          "Propagation speed for eq. (11), m/s (paper: about 3e8).",
                          DoubleValue(3e8),
                          MakeDoubleAccessor(&MpMaco::m_c),
                          MakeDoubleChecker<double>(1e7, 1e9))
            .AddAttribute("DelayMode",
                          "D of eq. (11): 0 = legs from the slant range plus an EWMA of "
                          "D_terr [REC, docs/specs/maco.md#terrestrial-delay]; 1 = the path "
                          "oracle's propagation delays.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpMaco::m_delayMode),
                          MakeUintegerChecker<uint32_t>(0, 1))
            .AddAttribute("TargetInitialRtt",
                          "D(t0) that sets the initial D_terr (paper: 99th-percentile RTT "
                          "100 ms).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&MpMaco::m_targetInitialRtt),
                          MakeDoubleChecker<double>(1e-4, 10.0))
            .AddAttribute("DTerrAlpha",
                          "EWMA weight of the D_terr update [REC 1/8].",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&MpMaco::m_dTerrAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("RttMinWindow",
                          "Window of the minimum RTT feeding D_terr [REC 10 s].",
                          TimeValue(Seconds(10)),
                          MakeTimeAccessor(&MpMaco::m_rttMinWindow),
                          MakeTimeChecker(MilliSeconds(1), Seconds(3600)))
            .AddAttribute("DeltaWindow",
                          "RTT samples in the Delta_R standard deviation [REC 20].",
                          UintegerValue(20),
                          MakeUintegerAccessor(&MpMaco::m_deltaWindow),
                          MakeUintegerChecker<uint32_t>(2, 100000))
            .AddAttribute("DeltaFloor",
                          "Floor of Delta_R [REC 1 ms].",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&MpMaco::m_deltaFloor),
                          MakeTimeChecker(Time(0), Seconds(10)))
            .AddAttribute("TpMinInterval",
                          "Minimum time between throughput samples of eq. (4) [REC 10 ms].",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&MpMaco::m_tpMinInterval),
                          MakeTimeChecker(MicroSeconds(1), Seconds(100)))
            .AddAttribute("AkfWindow",
                          "Innovations in the AKF covariance matching [REC 20].",
                          UintegerValue(20),
                          MakeUintegerAccessor(&MpMaco::m_akfWindow),
                          MakeUintegerChecker<uint32_t>(1, 100000))
            .AddAttribute("AkfAdaptive",
                          "Adapt Q and R by covariance matching [REC]; false keeps Q0, R0.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpMaco::m_akfAdaptive),
                          MakeBooleanChecker())
            .AddAttribute("Con1Bottleneck",
                          "Compare TP with min(C^A, C^N) in (17a) instead of C^A "
                          "(docs/specs/maco.md#capacity-in-the-congestion-test).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_con1Bottleneck),
                          MakeBooleanChecker())
            .AddAttribute("BdpFuture",
                          "Average C D over the next RTT with predicted C^A and D instead of "
                          "the past RTT (docs/specs/maco.md#averaging-window-of-the-bdp).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_bdpFuture),
                          MakeBooleanChecker())
            .AddAttribute("HistoryLastK",
                          "Keep only the last K congestion windows in W_r (0: running max).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpMaco::m_historyLastK),
                          MakeUintegerChecker<uint32_t>(0, 100000))
            .AddAttribute("IncrementUsesSrtt",
                          "Use smoothed RTTs in eq. (26) instead of the latest samples "
                          "(docs/specs/maco.md#congestion-avoidance).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_incrementUsesSrtt),
                          MakeBooleanChecker())
            .AddAttribute("QsOnPto",
                          "Re-enter quick start on a probe timeout (paper: on timeout).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpMaco::m_qsOnPto),
                          MakeBooleanChecker())
            .AddAttribute(
                "ResetMaxRttOnReconnect",
                "Reset T_r at a reconnection (docs/specs/maco.md#largest-rtt; paper: never).",
                BooleanValue(false),
                MakeBooleanAccessor(&MpMaco::m_resetTmaxOnReconnect),
                MakeBooleanChecker())
            .AddAttribute("ProactiveClamp",
                          "One RTT before a handover, clamp w to the post-handover BDP share "
                          "of the subflows that will share the satellite "
                          "(docs/specs/maco.md#proactive-reduction).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_proactiveClamp),
                          MakeBooleanChecker())
            .AddAttribute("FreezeOnHandover",
                          "MACO + freeze: losses of packets sent near a handover are not "
                          "congestion (docs/specs/maco.md#events-and-how-the-controller-reacts).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_freezeOnHandover),
                          MakeBooleanChecker())
            .AddAttribute("FreezeBefore",
                          "MACO + freeze: window before a handover.",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&MpMaco::m_freezeBefore),
                          MakeTimeChecker(Time(0), Seconds(60)))
            .AddAttribute("FreezeAfter",
                          "MACO + freeze: window after a handover.",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&MpMaco::m_freezeAfter),
                          MakeTimeChecker(Time(0), Seconds(60)))
            .AddTraceSource("CongestionTest",
                            "The eq. (17) test of a loss: TP, C, tau, D, Delta_R, verdict.",
                            MakeTraceSourceAccessor(&MpMaco::m_congestionTrace),
                            "ns3::MpMaco::CongestionTestCallback")
            .AddTraceSource("QuickStart",
                            "Quick start: the new window and ssthresh (packets).",
                            MakeTraceSourceAccessor(&MpMaco::m_quickStartTrace),
                            "ns3::MpMaco::QuickStartCallback");
    return tid;
}

MpMaco::MpMaco()
    : m_gamma(0.5),
      m_initPkts(4.0),
      m_decrease(0.5),
      m_minPkts(2.0),
      m_txPowerDbm(35.12),
      m_txGainDbi(37.7),
      m_rxGainDbi(37.1),
      m_wavelengthM(0.086),
      m_noisePsd(1.6e-20),
      m_bandwidthHz(12.5e6),
      m_efficiency(0.98),
      m_c(3e8),
      m_delayMode(0),
      m_targetInitialRtt(0.1),
      m_dTerrAlpha(0.125),
      m_rttMinWindow(Seconds(10)),
      m_deltaWindow(20),
      m_deltaFloor(MilliSeconds(1)),
      m_tpMinInterval(MilliSeconds(10)),
      m_akfWindow(20),
      m_akfAdaptive(true),
      m_con1Bottleneck(false),
      m_bdpFuture(false),
      m_historyLastK(0),
      m_incrementUsesSrtt(false),
      m_qsOnPto(true),
      m_resetTmaxOnReconnect(false),
      m_proactiveClamp(false),
      m_freezeOnHandover(false),
      m_freezeBefore(MilliSeconds(100)),
      m_freezeAfter(MilliSeconds(100))
{
}

std::string
MpMaco::GetName() const
{
    return "maco";
}

// ---- helpers -------------------------------------------------------------------------------

void
MpMaco::LinkAt(const MpCcContext& ctx, double t, double& capA, double& d) const
{
    const MpPathOracle* oracle = ctx.conn ? ctx.Oracle() : nullptr;
    capA = kInf;
    double legs = 0; // D_ul + D_dl
    if (oracle)
    {
        MpPathOracle::LinkState s = oracle->StateAt(t);
        if (std::isfinite(s.slantRangeM) && s.slantRangeM > 0)
        {
            capA = m_lb.Capacity(s.slantRangeM);
            legs = 2.0 * s.slantRangeM / m_c;
        }
        else if (std::isfinite(s.snrDb))
        {
            capA = m_lb.CapacityFromSnr(DbToLinear(s.snrDb));
        }
        else if (s.capacityDownBps > 0)
        {
            capA = s.capacityDownBps;
        }
        if (m_delayMode == 1)
        {
            d = s.delayDownS + s.delayUpS;
            return;
        }
    }
    d = PropagationRtt(0.5 * legs, 0.5 * legs, m_dTerr);
}

void
MpMaco::ResetEstimators(const MpCcContext& ctx)
{
    double now = ctx.Now().GetSeconds();
    double capA;
    double d;
    LinkAt(ctx, now, capA, d);
    m_akf.Reset(std::isfinite(capA) ? capA : 0.0, m_akfWindow, m_akfAdaptive);
    m_capA = capA;
    m_capN = kInf;
    m_d = d;
    m_resid.clear();
    m_rttWin.clear();
    m_bdpBuf.clear();
    m_sLast = m_ackedBytes;
    m_tLast = now;
    m_tp = kNaN;
}

void
MpMaco::AddHistory(double w)
{
    if (m_historyLastK == 0)
    {
        m_histMax = std::isnan(m_histMax) ? w : std::max(m_histMax, w);
        return;
    }
    m_hist.push_back(w);
    while (m_hist.size() > m_historyLastK)
    {
        m_hist.pop_front();
    }
    m_histMax = *std::max_element(m_hist.begin(), m_hist.end());
}

double
MpMaco::OtherHistoryMax(const MpCcContext& ctx) const
{
    double best = kNaN;
    for (uint32_t i = 0; i < ctx.conn->GetNPaths(); ++i)
    {
        if (i == ctx.path)
        {
            continue;
        }
        const MpMaco* q = AsMaco(ctx.conn->GetPathCc(i));
        if (!q || std::isnan(q->m_histMax))
        {
            continue;
        }
        best = std::isnan(best) ? q->m_histMax : std::max(best, q->m_histMax);
    }
    return best;
}

void
MpMaco::Commit()
{
    double w = std::max(m_w, m_minPkts);
    m_w = w;
    m_cwnd = static_cast<uint64_t>(w * m_mss);
    m_ssthresh = std::isfinite(m_ssthreshPkts)
                     ? static_cast<uint64_t>(std::max(m_ssthreshPkts, 0.0) * m_mss)
                     : std::numeric_limits<uint64_t>::max();
}

void
MpMaco::UpdateBdp(const MpCcContext& ctx, double now)
{
    double capA;
    double d;
    LinkAt(ctx, now, capA, d);
    m_capA = capA;
    m_d = d;
    double c = std::min(capA, m_capN); // (12)
    m_bdpBuf.emplace_back(now, c * d); // (13)
    double tau = m_haveRtt ? m_tau : d;
    while (m_bdpBuf.size() >= 2 && m_bdpBuf[1].first <= now - tau)
    {
        m_bdpBuf.pop_front();
    }
    double bits;
    if (m_bdpFuture)
    {
        // Predicted C^A and D over [now, now + tau], C^N held
        // (docs/specs/maco.md#averaging-window-of-the-bdp).
        constexpr int kSteps = 4;
        double sum = 0;
        for (int i = 0; i <= kSteps; ++i)
        {
            double ca;
            double dd;
            LinkAt(ctx, now + tau * i / kSteps, ca, dd);
            double w = (i == 0 || i == kSteps) ? 0.5 : 1.0;
            sum += w * std::min(ca, m_capN) * dd;
        }
        bits = sum / kSteps;
    }
    else
    {
        bits = TimeAverage(m_bdpBuf, now - tau, now); // (14)
    }
    m_bdpPkts = bits / (8.0 * m_mss);
}

void
MpMaco::QuickStart(const MpCcContext& ctx, bool reconnect)
{
    double now = ctx.Now().GetSeconds();
    if (reconnect)
    {
        ResetEstimators(ctx);
        if (m_resetTmaxOnReconnect)
        {
            m_tmax = 0;
        }
    }
    if (m_bdpBuf.empty())
    {
        // Algorithm 1 at t0: the access link is the bottleneck for the first RTT.
        double capA;
        double d;
        LinkAt(ctx, now, capA, d);
        m_capA = capA;
        m_d = d;
        m_bdpPkts = capA * d / (8.0 * m_mss);
    }
    else
    {
        UpdateBdp(ctx, now);
    }
    m_ssthreshPkts = m_bdpPkts;
    m_w = QuickStartWindow(m_bdpPkts, m_histMax, OtherHistoryMax(ctx), m_gamma, m_initPkts);
    m_ss = m_w < m_ssthreshPkts;
    // Losses of packets sent before the (re)start belong to the old regime.
    m_recoveryEpochEnd = m_largestSentPn;
    m_epochSet = m_anySent;
    ++m_quickStarts;
    Commit();
    m_quickStartTrace(m_w, m_ssthreshPkts);
}

bool
MpMaco::InOutageRange(uint64_t pn) const
{
    if (m_broken && pn >= m_outageLo)
    {
        return true;
    }
    return m_haveOutageRange && pn >= m_outageLo && pn <= m_outageHi;
}

bool
MpMaco::InFreezeWindow(const MpCcContext& ctx, Time sent) const
{
    const MpPathOracle* oracle = ctx.conn ? ctx.Oracle() : nullptr;
    if (!oracle)
    {
        return false;
    }
    double t = sent.GetSeconds();
    double h = oracle->LastHandoverAtOrBefore(t + m_freezeBefore.GetSeconds());
    return std::isfinite(h) && h >= t - m_freezeAfter.GetSeconds();
}

void
MpMaco::MaybeClamp(const MpCcContext& ctx, double now)
{
    const MpPathOracle* oracle = ctx.Oracle();
    if (!oracle)
    {
        return;
    }
    double tau = m_haveRtt ? m_tau : m_d;
    double h = oracle->NextHandoverAfter(now);
    if (!std::isfinite(h) || h - now > tau || h == m_lastClampHo)
    {
        return;
    }
    m_lastClampHo = h;
    MpPathOracle::LinkState next = oracle->NextPathAfterHandover(now);
    if (!std::isfinite(next.time) || next.servingSat < 0)
    {
        return;
    }
    // The subflows on the post-handover satellite (current, or after their own handover
    // within one RTT).
    double sum = 0;
    for (uint32_t i = 0; i < ctx.conn->GetNPaths(); ++i)
    {
        const MpPathInfo& p = ctx.conn->GetPath(i);
        double w = (i == ctx.path) ? m_w : static_cast<double>(p.cwnd) / m_mss;
        if (i == ctx.path)
        {
            sum += w;
            continue;
        }
        if (!p.oracle || p.state == MpPathState::DEACTIVATED)
        {
            continue;
        }
        int32_t sat = p.oracle->StateAt(now).servingSat;
        double hi = p.oracle->NextHandoverAfter(now);
        if (std::isfinite(hi) && hi - now <= tau)
        {
            sat = p.oracle->NextPathAfterHandover(now).servingSat;
        }
        if (sat == next.servingSat)
        {
            sum += w;
        }
    }
    double capA = kInf;
    if (std::isfinite(next.slantRangeM) && next.slantRangeM > 0)
    {
        capA = m_lb.Capacity(next.slantRangeM);
    }
    else if (std::isfinite(next.snrDb))
    {
        capA = m_lb.CapacityFromSnr(DbToLinear(next.snrDb));
    }
    else if (next.capacityDownBps > 0)
    {
        capA = next.capacityDownBps;
    }
    double d = m_delayMode == 1
                   ? next.delayDownS + next.delayUpS
                   : PropagationRtt(std::isfinite(next.slantRangeM) ? next.slantRangeM / m_c : 0,
                                    std::isfinite(next.slantRangeM) ? next.slantRangeM / m_c : 0,
                                    m_dTerr);
    double bdp = std::min(capA, m_capN) * d / (8.0 * m_mss);
    if (std::isfinite(bdp) && sum > 0)
    {
        m_w = std::min(m_w, bdp * m_w / sum);
    }
}

// ---- controller ----------------------------------------------------------------------------

void
MpMaco::Init(const MpCcContext& ctx)
{
    MpCongestionOps::Init(ctx);
    m_lb.txPowerDbm = m_txPowerDbm;
    m_lb.txGainDbi = m_txGainDbi;
    m_lb.rxGainDbi = m_rxGainDbi;
    m_lb.wavelengthM = m_wavelengthM;
    m_lb.noisePsdWPerHz = m_noisePsd;
    m_lb.bandwidthHz = m_bandwidthHz;
    m_lb.efficiency = m_efficiency;
    m_tau = 0;
    m_tmax = 0;
    m_haveRtt = false;
    m_ackedBytes = 0;
    m_histMax = kNaN;
    m_hist.clear();
    m_anySent = false;
    m_anyAcked = false;
    m_epochSet = false;
    m_broken = false;
    m_haveOutageRange = false;
    m_congestionEvents = 0;
    m_suppressed = 0;
    m_quickStarts = 0;
    // D_terr so that D(t0) = TargetInitialRtt [REC, docs/specs/maco.md#terrestrial-delay].
    m_dTerr = 0;
    double capA;
    double d;
    LinkAt(ctx, ctx.Now().GetSeconds(), capA, d); // legs only (D_terr = 0)
    m_dTerr = std::max(0.0, 0.5 * (m_targetInitialRtt - d));
    QuickStart(ctx, true);
}

void
MpMaco::OnPacketSent(const MpCcContext&, const MpSentPacket& p)
{
    if (!m_anySent || p.pn > m_largestSentPn)
    {
        m_largestSentPn = p.pn;
    }
    m_anySent = true;
}

void
MpMaco::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    double now = ev.now.GetSeconds();
    for (std::size_t i = 0; i < ev.nAcked; ++i)
    {
        if (!m_anyAcked || ev.acked[i].pn > m_largestAckedPn)
        {
            m_largestAckedPn = ev.acked[i].pn;
            m_anyAcked = true;
        }
    }
    m_ackedBytes += ev.bytesAcked;
    double capA;
    double d;
    LinkAt(ctx, now, capA, d);
    if (ev.rttSampled)
    {
        double rtt = ev.latestRtt.GetSeconds();
        m_tau = rtt;
        m_tmax = std::max(m_tmax, rtt); // T_r: the largest RTT ever (Alg. 3 line 7)
        m_haveRtt = true;
        if (m_delayMode == 0)
        {
            // Windowed minimum (monotonic deque) and the D_terr EWMA [REC,
            // docs/specs/maco.md#terrestrial-delay].
            while (!m_rttWin.empty() && m_rttWin.back().second >= rtt)
            {
                m_rttWin.pop_back();
            }
            m_rttWin.emplace_back(now, rtt);
            while (m_rttWin.front().first < now - m_rttMinWindow.GetSeconds())
            {
                m_rttWin.pop_front();
            }
            double legs = d - 2.0 * m_dTerr; // 2 (D_ul + D_dl)
            double sample = std::max(0.0, m_rttWin.front().second / 2.0 - legs / 2.0);
            m_dTerr = (1.0 - m_dTerrAlpha) * m_dTerr + m_dTerrAlpha * sample;
            d = legs + 2.0 * m_dTerr;
        }
        m_resid.push_back(rtt - d);
        while (m_resid.size() > m_deltaWindow)
        {
            m_resid.pop_front();
        }
    }
    // Eq. (4) and the AKF (5)-(10).
    if (now - m_tLast >= m_tpMinInterval.GetSeconds())
    {
        m_tp = maco::ThroughputBps(m_ackedBytes - m_sLast, now - m_tLast);
        m_capN = m_akf.Update(m_tp, capA);
        m_sLast = m_ackedBytes;
        m_tLast = now;
    }
    UpdateBdp(ctx, now); // (12)-(14)

    if (m_proactiveClamp)
    {
        MaybeClamp(ctx, now);
    }
    uint32_t pkts = ev.packetsAcked;
    if (pkts == 0 || ctx.Path().appLimited)
    {
        Commit();
        return; // RFC 9002 7.8: do not grow an under-used window
    }
    if (m_ss)
    {
        m_w += pkts; // Alg. 2 line 17
        if (m_w >= m_ssthreshPkts)
        {
            m_ss = false;
        }
        Commit();
        return;
    }
    // Eq. (26), coupled over the paths in use.
    uint32_t n = ctx.conn->GetNPaths();
    std::vector<double> w;
    std::vector<double> tau;
    std::vector<double> tmax;
    std::size_t self = 0;
    w.reserve(n);
    tau.reserve(n);
    tmax.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const MpPathInfo& p = ctx.conn->GetPath(i);
        double wi;
        double ti;
        double Ti;
        if (i == ctx.path)
        {
            wi = m_w;
            ti = m_incrementUsesSrtt || !m_haveRtt ? p.Srtt().GetSeconds() : m_tau;
            Ti = std::max(m_tmax, ti);
            self = w.size();
        }
        else
        {
            if (p.state == MpPathState::DEACTIVATED || !p.HasRttSample())
            {
                continue;
            }
            const MpMaco* q = AsMaco(ctx.conn->GetPathCc(i));
            if (q && q->m_haveRtt)
            {
                wi = q->m_w;
                ti = m_incrementUsesSrtt ? p.Srtt().GetSeconds() : q->m_tau;
                Ti = std::max(q->m_tmax, ti);
            }
            else
            {
                wi = static_cast<double>(p.cwnd) / m_mss;
                ti = m_incrementUsesSrtt ? p.Srtt().GetSeconds() : p.rtt->GetLatest().GetSeconds();
                Ti = std::max(ti, p.Srtt().GetSeconds());
            }
        }
        w.push_back(wi);
        tau.push_back(std::max(ti, 1e-6));
        tmax.push_back(std::max(Ti, 1e-6));
    }
    m_w +=
        static_cast<double>(pkts) * CaIncrement(w.data(), tau.data(), tmax.data(), w.size(), self);
    Commit();
}

void
MpMaco::OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev)
{
    const MpSentPacket* last = nullptr;
    uint64_t counted = 0;
    for (std::size_t i = 0; i < ev.nLost; ++i)
    {
        const MpSentPacket& p = ev.lost[i];
        if (InOutageRange(p.pn) || (m_freezeOnHandover && InFreezeWindow(ctx, p.sentTime)))
        {
            ++m_suppressed; // in flight across an outage (or near a handover): not congestion
            continue;
        }
        ++counted;
        if (!last || p.pn > last->pn)
        {
            last = &p;
        }
    }
    if (!last)
    {
        return;
    }
    if (m_epochSet && last->pn <= m_recoveryEpochEnd)
    {
        return; // at most one halving per recovery epoch
    }
    double capA;
    double d;
    LinkAt(ctx, last->sentTime.GetSeconds(), capA, d); // C(t-1), D(t-1): at the send time
    double cRef = m_con1Bottleneck ? std::min(capA, m_capN) : capA;
    double tp = std::isnan(m_tp) ? 0.0 : m_tp;
    double tau = m_haveRtt ? m_tau : ctx.Path().Srtt().GetSeconds();
    double deltaR = GetDeltaR();
    bool congestion = IsCongestion(tp, cRef, tau, d, deltaR);
    m_congestionTrace(tp, cRef, tau, d, deltaR, congestion);
    if (!congestion)
    {
        m_suppressed += counted; // mobility or channel loss: no window change
        return;
    }
    AddHistory(m_w); // W_r <- W_r u {w_r}
    m_w = std::max(m_minPkts, m_w * m_decrease);
    m_ssthreshPkts = m_w;
    m_ss = false;
    m_recoveryEpochEnd = m_largestSentPn;
    m_epochSet = true;
    ++m_congestionEvents;
    Commit();
}

void
MpMaco::OnPersistentCongestion(const MpCcContext& ctx)
{
    QuickStart(ctx, false); // timeout: quick-start re-entry with eq. (16)
}

void
MpMaco::OnPtoExpired(const MpCcContext& ctx, uint32_t ptoCount)
{
    if (m_qsOnPto && ptoCount == 1 && !m_broken)
    {
        QuickStart(ctx, false);
    }
}

void
MpMaco::SetWindow(uint64_t bytes)
{
    m_w = static_cast<double>(bytes) / m_mss;
    m_cwnd = bytes;
}

void
MpMaco::OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev)
{
    if (m_qsOnPto && ev.first && !m_broken)
    {
        QuickStart(ctx, false);
        return;
    }
    MpCongestionOps::OnRetransmissionTimeout(ctx, ev);
}

void
MpMaco::OnPathEvent(const MpCcContext& ctx, const MpPathEvent& ev)
{
    const MpPathOracle* oracle = ctx.Oracle();
    double now = ev.time.GetSeconds();
    switch (ev.kind)
    {
    case MpPathEventKind::HANDOVER: {
        bool breaks = false;
        if (oracle)
        {
            auto next = oracle->NextOutageAfter(now);
            breaks = oracle->InOutage(now) || next.first <= now + 1e-6;
        }
        if (!breaks && !m_broken)
        {
            QuickStart(ctx, true); // moved to another satellite without an outage
        }
        break;
    }
    case MpPathEventKind::OUTAGE_START:
        m_broken = true;
        m_outageLo = m_anyAcked ? m_largestAckedPn + 1 : 0;
        break;
    case MpPathEventKind::OUTAGE_END:
        if (m_broken)
        {
            m_broken = false;
            m_outageHi = m_largestSentPn;
            m_haveOutageRange = true;
            QuickStart(ctx, true); // broken subflow reconnected
        }
        break;
    case MpPathEventKind::STATE_CHANGED:
        break;
    }
}

bool
MpMaco::ConsiderForPersistentCongestion(const MpCcContext& ctx, const MpSentPacket& p) const
{
    if (InOutageRange(p.pn))
    {
        return false;
    }
    return !(m_freezeOnHandover && InFreezeWindow(ctx, p.sentTime));
}

bool
MpMaco::InSlowStart() const
{
    return m_ss;
}

uint64_t
MpMaco::GetSuppressedLosses() const
{
    return m_suppressed;
}

// ---- getters -------------------------------------------------------------------------------

double
MpMaco::GetWindowPackets() const
{
    return m_w;
}

double
MpMaco::GetSsthreshPackets() const
{
    return m_ssthreshPkts;
}

double
MpMaco::GetAccessCapacity() const
{
    return m_capA;
}

double
MpMaco::GetNetworkCapacity() const
{
    return m_capN;
}

double
MpMaco::GetThroughput() const
{
    return m_tp;
}

double
MpMaco::GetPropagationRtt() const
{
    return m_d;
}

double
MpMaco::GetBdpPackets() const
{
    return m_bdpPkts;
}

double
MpMaco::GetDeltaR() const
{
    return maco::DeltaR(m_resid, m_deltaFloor.GetSeconds()); // (17b)
}

double
MpMaco::GetLatestRtt() const
{
    return m_tau;
}

double
MpMaco::GetMaxRtt() const
{
    return m_tmax;
}

double
MpMaco::GetDTerr() const
{
    return m_dTerr;
}

double
MpMaco::GetHistoryMax() const
{
    return m_histMax;
}

uint64_t
MpMaco::GetCongestionEvents() const
{
    return m_congestionEvents;
}

uint64_t
MpMaco::GetQuickStarts() const
{
    return m_quickStarts;
}

MpEcnCodepoint
MpMaco::GetEcnCodepoint() const
{
    return MpEcnCodepoint::NOT_ECT;
}

} // namespace ns3
