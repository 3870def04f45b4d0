// SPDX-License-Identifier: GPL-2.0-only
//
// MACO, its model: the link state at a time, the estimators, the window history, quick start, the
// BDP and the clamps (mp-maco.cc has the registration and the attributes).

#include "mp-maco-equations.h"
#include "mp-maco.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

using maco::DbToLinear;
using maco::PropagationRtt;
using maco::QuickStartWindow;
using maco::TimeAverage;

namespace
{
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
} // namespace

/// The MACO controller behind a path's controller (through a wrapper such as the freeze,
/// or as a residual wrapper's alternate).
const MpMaco*
MpMaco::Behind(const MpCongestionOps* cc, int depth)
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
    const MpMaco* m = Behind(PeekPointer(w->GetInner()), depth + 1);
    return m ? m : Behind(PeekPointer(w->GetAlternate()), depth + 1);
}

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
        const MpMaco* q = Behind(ctx.conn->GetPathCc(i));
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

} // namespace ns3
