// SPDX-License-Identifier: GPL-2.0-only
//
// MACO, its events: initialisation, packets sent, ACKs, losses, timeouts and path events
// (mp-maco.cc has the registration and the attributes).

#include "mp-maco-equations.h"
#include "mp-maco.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ns3
{

using maco::CaIncrement;
using maco::IsCongestion;

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
    m_histMax = std::numeric_limits<double>::quiet_NaN();
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
            const MpMaco* q = Behind(ctx.conn->GetPathCc(i));
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

} // namespace ns3
