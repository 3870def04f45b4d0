// SPDX-License-Identifier: GPL-2.0-only
//
// LossDetectorProbe (probe-loss-detector.h): one MpLossRecovery driven by hand, for the
// transport's unit tests (bind-transport-testing.cc binds it).

#include "bindings/probe-loss-detector.h"

#include "bindings/probe-inputs.h"
#include "bindings/recovery-config.h"

#include <pybind11/stl.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace leogym
{

using namespace ns3;

namespace
{

const char*
LossKindName(uint8_t k)
{
    switch (static_cast<MpLossKind>(k))
    {
    case MpLossKind::PACKET_THRESHOLD:
        return "packet_threshold";
    case MpLossKind::TIME_THRESHOLD:
        return "time_threshold";
    case MpLossKind::LOSS_TIMER:
        return "loss_timer";
    case MpLossKind::RETRANSMISSION_TIMEOUT:
        return "retransmission_timeout";
    }
    return "unknown";
}

} // namespace

LossDetectorProbe::LossDetectorProbe(double maxAckDelayS,
                                     double initialRttS,
                                     uint32_t packetThreshold,
                                     double timeThreshold,
                                     double granularityS,
                                     uint32_t pcThreshold,
                                     const std::string& recovery,
                                     py::handle recoveryParams)
{
    MpLossRecovery::Params p = leogym::RecoveryFromPython(recovery, recoveryParams, "recovery").lr;
    p.maxAckDelay = SecondsChecked(maxAckDelayS, "max_ack_delay_s");
    p.initialRtt = SecondsChecked(initialRttS, "initial_rtt_s");
    if (packetThreshold < 1)
    {
        throw std::invalid_argument("packet_threshold must be >= 1");
    }
    if (!std::isfinite(timeThreshold) || timeThreshold < 1.0)
    {
        throw std::invalid_argument("time_threshold must be >= 1");
    }
    p.packetThreshold = packetThreshold;
    p.timeThreshold = timeThreshold;
    p.granularity = SecondsChecked(granularityS, "granularity_s");
    if (pcThreshold < 1)
    {
        throw std::invalid_argument("persistent_congestion_threshold must be >= 1");
    }
    p.persistentCongestionThreshold = pcThreshold;
    m_lr = std::make_unique<MpLossRecovery>(p);
}

void
LossDetectorProbe::OnPacketSent(uint64_t pn,
                                double timeS,
                                uint32_t bytes,
                                bool ackEliciting,
                                bool retransmission)
{
    MpSentPacket p;
    p.retransmission = retransmission;
    p.pn = pn;
    p.sentTime = SecondsChecked(timeS, "time_s");
    p.bytes = bytes;
    p.ackEliciting = ackEliciting;
    p.inFlight = true;
    m_lr->OnPacketSent(p);
}

py::dict
LossDetectorProbe::OnAck(const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                         double ackDelayS,
                         double nowS)
{
    std::vector<MpAckRange> r;
    for (const auto& [lo, hi] : ranges)
    {
        if (lo > hi)
        {
            throw std::invalid_argument("ACK range (" + std::to_string(lo) + ", " +
                                        std::to_string(hi) + ") has smallest > largest");
        }
        r.push_back({lo, hi});
    }
    const auto& out = m_lr->OnAckReceived(r.data(),
                                          r.size(),
                                          SecondsChecked(ackDelayS, "ack_delay_s"),
                                          SecondsChecked(nowS, "now_s"));
    py::dict d;
    py::list acked;
    py::list late;
    for (const auto& p : m_lr->NewlyAcked())
    {
        (p.wasLost ? late : acked).append(p.pn);
    }
    d["newly_acked"] = acked;
    d["late_acked"] = late;
    FillLost(d);
    d["rtt_sampled"] = out.rttSampled;
    d["persistent_congestion"] = out.persistentCongestion;
    d["rto_episode_ended"] = out.rtoEpisodeEnded;
    d["rto_spurious"] = out.rtoSpurious;
    return d;
}

py::dict
LossDetectorProbe::OnTimeout(double nowS)
{
    auto kind = m_lr->OnLossDetectionTimeout(SecondsChecked(nowS, "now_s"));
    py::dict d;
    d["kind"] = KindName(kind);
    if (kind == MpLossRecovery::TimerKind::LOSS_TIME || kind == MpLossRecovery::TimerKind::RTO)
    {
        FillLost(d);
        d["persistent_congestion"] = m_lr->Outcome().persistentCongestion;
    }
    else
    {
        d["lost"] = py::list();
        d["loss_kinds"] = py::list();
        d["persistent_congestion"] = false;
    }
    return d;
}

py::tuple
LossDetectorProbe::Timer() const
{
    Time deadline;
    auto kind = m_lr->GetTimer(deadline);
    if (kind == MpLossRecovery::TimerKind::NONE)
    {
        return py::make_tuple("none", py::none());
    }
    return py::make_tuple(KindName(kind), deadline.GetSeconds());
}

const MpLossRecovery&
LossDetectorProbe::Lr() const
{
    return *m_lr;
}

MpLossRecovery&
LossDetectorProbe::Lr()
{
    return *m_lr;
}

const char*
LossDetectorProbe::KindName(MpLossRecovery::TimerKind k)
{
    switch (k)
    {
    case MpLossRecovery::TimerKind::NONE:
        return "none";
    case MpLossRecovery::TimerKind::LOSS_TIME:
        return "loss_time";
    case MpLossRecovery::TimerKind::PTO:
        return "pto";
    case MpLossRecovery::TimerKind::TLP:
        return "tlp";
    case MpLossRecovery::TimerKind::RTO:
        return "rto";
    }
    return "none";
}

void
LossDetectorProbe::FillLost(py::dict& d) const
{
    py::list lost;
    py::list kinds;
    for (const auto& p : m_lr->Lost())
    {
        lost.append(p.pn);
        kinds.append(LossKindName(p.lossKind));
    }
    d["lost"] = lost;
    d["loss_kinds"] = kinds;
}

} // namespace leogym
