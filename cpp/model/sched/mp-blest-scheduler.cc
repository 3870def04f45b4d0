// SPDX-License-Identifier: GPL-2.0-only

#include "mp-blest-scheduler.h"

#include "ns3/double.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpBlestScheduler);

TypeId
MpBlestScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpBlestScheduler")
                            .SetParent<MpScheduler>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpBlestScheduler>()
                            .AddAttribute("Lambda",
                                          "Initial lambda.",
                                          DoubleValue(1.2),
                                          MakeDoubleAccessor(&MpBlestScheduler::m_lambda),
                                          MakeDoubleChecker<double>(0.1, 10.0))
                            .AddAttribute("LambdaMin",
                                          "Lower bound of lambda.",
                                          DoubleValue(1.0),
                                          MakeDoubleAccessor(&MpBlestScheduler::m_lambdaMin),
                                          MakeDoubleChecker<double>(0.1, 10.0))
                            .AddAttribute("LambdaMax",
                                          "Upper bound of lambda.",
                                          DoubleValue(1.3),
                                          MakeDoubleAccessor(&MpBlestScheduler::m_lambdaMax),
                                          MakeDoubleChecker<double>(0.1, 10.0))
                            .AddAttribute("LambdaStepDown",
                                          "Decrease of lambda when not blocked.",
                                          DoubleValue(0.01),
                                          MakeDoubleAccessor(&MpBlestScheduler::m_stepGood),
                                          MakeDoubleChecker<double>(0.0, 1.0))
                            .AddAttribute("LambdaStepUp",
                                          "Increase of lambda after flow-control blocking.",
                                          DoubleValue(0.04),
                                          MakeDoubleAccessor(&MpBlestScheduler::m_stepBad),
                                          MakeDoubleChecker<double>(0.0, 1.0));
    return tid;
}

MpBlestScheduler::MpBlestScheduler()
    : m_lambda(1.2),
      m_lambdaMin(1.0),
      m_lambdaMax(1.3),
      m_stepGood(0.01),
      m_stepBad(0.04)
{
}

std::string
MpBlestScheduler::GetName() const
{
    return "blest";
}

double
MpBlestScheduler::GetLambda() const
{
    return m_lambda;
}

void
MpBlestScheduler::OnFlowControlBlocked(MpConnectionView&)
{
    m_blockedFlag = true;
}

int32_t
MpBlestScheduler::SelectPath(MpConnectionView& conn, const MpSchedRequest& req)
{
    Candidates(conn, m_cand);
    int32_t minsk = MinRttAny(conn, m_cand);
    int32_t best = MinRttAvailable(conn, m_cand, req.bytes);
    if (best < 0 || minsk < 0 || best == minsk)
    {
        return best;
    }
    const MpPathInfo& b = conn.GetPath(static_cast<uint32_t>(best));
    const MpPathInfo& f = conn.GetPath(static_cast<uint32_t>(minsk));
    Time now = conn.Now();
    // lambda update, at most once per min_srtt of bestsk.
    Time minSrttB = b.minSrtt.IsZero() ? b.Srtt() : b.minSrtt;
    if (!m_lambdaUpdated || now - m_lastLambdaUpdate >= minSrttB)
    {
        m_lambdaUpdated = true;
        m_lastLambdaUpdate = now;
        m_lambda += m_blockedFlag ? m_stepBad : -m_stepGood;
        m_lambda = std::clamp(m_lambda, m_lambdaMin, m_lambdaMax);
        m_blockedFlag = false;
    }
    double mss = static_cast<double>(conn.GetMaxDatagramSize());
    double cwndB = std::max(1.0, static_cast<double>(b.cwnd) / mss);
    double inflB = static_cast<double>(b.bytesInFlight) / mss + 1.0;
    double minB = minSrttB.GetSeconds();
    double maxB = std::max(b.maxSrtt.GetSeconds(), minB);
    double linger = inflB >= cwndB ? maxB : minB + (maxB - minB) * inflB / cwndB;
    linger = std::max(linger, b.Srtt().GetSeconds());
    double minF = f.minSrtt.IsZero() ? f.Srtt().GetSeconds() : f.minSrtt.GetSeconds();
    double maxF = std::max(f.maxSrtt.GetSeconds(), minF);
    double avgRtt = std::max((minF + maxF) / 2.0, 1e-6);
    double numRtts = std::floor(linger / avgRtt) + 1.0;
    double cwndF = static_cast<double>(f.cwnd) / mss;
    double pkts;
    if (f.ssthresh == std::numeric_limits<uint64_t>::max())
    {
        numRtts = std::min(numRtts, 16.0);
        pkts = cwndF * (std::pow(2.0, numRtts) - 1.0);
    }
    else
    {
        double ca = std::max(cwndF, static_cast<double>(f.ssthresh) / mss + 1.0);
        pkts = (ca + (numRtts - 1.0) / 2.0) * numRtts;
    }
    double fastBytes = pkts * mss * m_lambda;
    double slowBytes = static_cast<double>(req.bytes) + static_cast<double>(b.bytesInFlight);
    double wnd = static_cast<double>(conn.GetReceiveWindow());
    double avail = slowBytes < wnd ? wnd - slowBytes : 0.0;
    if (fastBytes > avail)
    {
        return -1; // sending on the slow path now would block the fast one
    }
    return best;
}

} // namespace ns3
