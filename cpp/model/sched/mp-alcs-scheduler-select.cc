// SPDX-License-Identifier: GPL-2.0-only
//
// MpAlcsScheduler, the per-decision part: the handover deactivation (step 1), the throughput
// accounting behind the compensation update, SelectPath (steps 2-6) and the connection's
// callbacks. mp-alcs-scheduler.cc has the type, attributes, equations and set-up.

#include "mp-alcs-scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

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

} // namespace ns3
