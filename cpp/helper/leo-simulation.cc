// SPDX-License-Identifier: GPL-2.0-only

#include "leo-simulation.h"

#include "model/registry/mp-algorithm-registry.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
constexpr uint16_t kTransportPortBase = 10000;
constexpr int64_t kCcStreamBase = 30000;
} // namespace

LeoSimulation::LeoSimulation(const LeoSimulationConfig& cfg,
                             std::vector<LeoPathArrays> paths,
                             std::vector<std::vector<double>> slantRangeM,
                             std::vector<bool> satellite)
    : m_cfg(cfg)
{
    // ---- checks that need no simulator --------------------------------------------------
    if (paths.empty())
    {
        throw std::invalid_argument("paths: at least one path is needed");
    }
    if (paths.size() > 254)
    {
        throw std::invalid_argument("paths: at most 254 paths");
    }
    std::vector<Ptr<const LeoPathSchedule>> schedules;
    for (std::size_t i = 0; i < paths.size(); ++i)
    {
        schedules.push_back(
            Create<LeoPathSchedule>(std::move(paths[i]), "paths[" + std::to_string(i) + "]"));
    }
    if (m_cfg.subflowPaths.empty())
    {
        for (uint32_t i = 0; i < schedules.size(); ++i)
        {
            m_cfg.subflowPaths.push_back(i);
        }
    }
    m_nPaths = static_cast<uint32_t>(m_cfg.subflowPaths.size());
    if (m_nPaths > 32)
    {
        throw std::invalid_argument("subflow_paths: at most 32 transport paths");
    }
    for (std::size_t i = 0; i < m_nPaths; ++i)
    {
        if (m_cfg.subflowPaths[i] >= schedules.size())
        {
            throw std::invalid_argument("subflow_paths[" + std::to_string(i) + "]: path " +
                                        std::to_string(m_cfg.subflowPaths[i]) +
                                        " does not exist (" + std::to_string(schedules.size()) +
                                        " paths)");
        }
    }
    if (!m_cfg.initialPathStates.empty() && m_cfg.initialPathStates.size() != m_nPaths)
    {
        throw std::invalid_argument("initial_path_states: expected " + std::to_string(m_nPaths) +
                                    " entries, got " +
                                    std::to_string(m_cfg.initialPathStates.size()));
    }
    if (m_cfg.packetBytes + 28 > m_cfg.mtu)
    {
        throw std::invalid_argument("packet_bytes: " + std::to_string(m_cfg.packetBytes) +
                                    " + 28 (IPv4 + UDP) exceeds the MTU " +
                                    std::to_string(m_cfg.mtu));
    }
    if (m_cfg.packetBytes < 64)
    {
        throw std::invalid_argument("packet_bytes: must be >= 64");
    }
    if (m_cfg.fileWorkload && m_cfg.fileBytes == 0)
    {
        throw std::invalid_argument("file_bytes: must be > 0 for workload 'file'");
    }
    if (!std::isfinite(m_cfg.startS) || m_cfg.startS < 0 || m_cfg.startS > 1e6)
    {
        throw std::invalid_argument("start_s: must be in [0, 1e6] seconds");
    }
    if (!std::isfinite(m_cfg.maxAckDelayS) || m_cfg.maxAckDelayS < 0 || m_cfg.maxAckDelayS > 10)
    {
        throw std::invalid_argument("max_ack_delay_s: must be in [0, 10] seconds");
    }
    if (!std::isfinite(m_cfg.initialRttS) || m_cfg.initialRttS < 1e-6 || m_cfg.initialRttS > 60)
    {
        throw std::invalid_argument("initial_rtt_s: must be in [1e-6, 60] seconds");
    }
    if (!slantRangeM.empty() && slantRangeM.size() != schedules.size())
    {
        throw std::invalid_argument("slant_range_m: one entry per path expected");
    }
    // Algorithm names and parameters: checked before the simulator is touched.
    MpAlgorithmRegistry::Cc().Validate(m_cfg.cc, m_cfg.ccParams, "cc", "cc_params");
    MpAlgorithmRegistry::Scheduler().Validate(m_cfg.scheduler,
                                              m_cfg.schedulerParams,
                                              "scheduler",
                                              "scheduler_params");
    for (std::size_t i = 0; i < schedules.size(); ++i)
    {
        bool sat = i < satellite.size() ? static_cast<bool>(satellite[i])
                                        : std::isfinite(schedules[i]->SnrAt(0.0));
        std::vector<double> slant = i < slantRangeM.size() ? slantRangeM[i] : std::vector<double>{};
        if (!slant.empty() && slant.size() != schedules[i]->GetN())
        {
            throw std::invalid_argument("paths[" + std::to_string(i) +
                                        "].slant_range_m: expected " +
                                        std::to_string(schedules[i]->GetN()) + " samples, got " +
                                        std::to_string(slant.size()));
        }
        m_oracles.push_back(std::make_unique<LeoScheduleOracle>(schedules[i], sat, slant));
    }

    // ---- build ----------------------------------------------------------------------------
    m_lease = SimContext::Acquire("Simulation", m_cfg.seed, m_cfg.run);
    try
    {
        LeoTopologyOptions topt;
        topt.mtu = m_cfg.mtu;
        uint32_t tcpBuf = m_cfg.tcpBufferBytes;
        if (tcpBuf == 0)
        {
            double need = 0;
            for (const auto& sch : schedules)
            {
                double rate = 0;
                double delay = 0;
                for (uint32_t k = 0; k < sch->GetN(); ++k)
                {
                    double t = sch->GetT0() + k * sch->GetDt();
                    rate = std::max(rate, sch->RateAt(LeoDirection::DOWN, t));
                    delay = std::max(delay,
                                     sch->DelayAt(LeoDirection::DOWN, t) +
                                         sch->DelayAt(LeoDirection::UP, t));
                }
                double bdp = rate * delay / 8.0;
                need = std::max(need, 2.0 * (bdp + sch->GetQueuePackets() * double(m_cfg.mtu)));
            }
            tcpBuf = static_cast<uint32_t>(std::clamp(need, 131072.0, 1073741824.0));
        }
        topt.tcpSndBufBytes = tcpBuf;
        topt.tcpRcvBufBytes = tcpBuf;
        m_topo = std::make_unique<LeoTopology>(schedules, topt);
        for (const auto& spec : m_cfg.crossTraffic)
        {
            m_topo->AddCrossTraffic(spec);
        }

        m_sender = CreateObject<MpQuicSender>();
        m_sender->SetAttribute("PacketBytes", UintegerValue(m_cfg.packetBytes));
        m_sender->SetAttribute("MaxAckDelay", TimeValue(Seconds(m_cfg.maxAckDelayS)));
        m_sender->SetAttribute("InitialRtt", TimeValue(Seconds(m_cfg.initialRttS)));
        m_sender->SetAttribute("Pacing", BooleanValue(m_cfg.pacing));
        m_sender->SetAttribute("ReinjectOnPto", BooleanValue(m_cfg.reinjectOnPto));
        m_sender->SetAttribute("CwndValidation", UintegerValue(m_cfg.cwndValidation));
        m_sender->SetAttribute("SendBufferBytes", UintegerValue(m_cfg.sendBufferBytes));
        m_sender->SetAttribute("FileBytes",
                               UintegerValue(m_cfg.fileWorkload ? m_cfg.fileBytes : 0));
        m_sender->SetAttribute("InitialMaxData", UintegerValue(m_cfg.receiveWindowBytes));
        m_receiver = CreateObject<MpQuicReceiver>();
        m_receiver->SetAttribute("AckEvery", UintegerValue(m_cfg.ackEvery));
        m_receiver->SetAttribute("MaxAckDelay", TimeValue(Seconds(m_cfg.maxAckDelayS)));
        m_receiver->SetAttribute("ReceiveWindow", UintegerValue(m_cfg.receiveWindowBytes));

        for (uint32_t i = 0; i < m_nPaths; ++i)
        {
            uint32_t tp = m_cfg.subflowPaths[i];
            auto port = static_cast<uint16_t>(kTransportPortBase + i);
            Ptr<MpCongestionOps> cc = DynamicCast<MpCongestionOps>(
                MpAlgorithmRegistry::Cc().Create(m_cfg.cc, m_cfg.ccParams, "cc", "cc_params"));
            cc->AssignStreams(kCcStreamBase + i);
            MpQuicSender::PathConfig pc;
            pc.local = m_topo->GetServerAddress(tp);
            pc.peer = m_topo->GetClientAddress(tp);
            pc.port = port;
            pc.cc = cc;
            pc.oracle = m_oracles[tp].get();
            pc.topologyPath = tp;
            pc.state =
                m_cfg.initialPathStates.empty() ? MpPathState::ACTIVE : m_cfg.initialPathStates[i];
            m_sender->AddPath(pc);
            m_receiver->AddPath(m_topo->GetClientAddress(tp), m_topo->GetServerAddress(tp), port);
        }
        m_sender->SetScheduler(DynamicCast<MpScheduler>(
            MpAlgorithmRegistry::Scheduler()
                .Create(m_cfg.scheduler, m_cfg.schedulerParams, "scheduler", "scheduler_params")));
        m_topo->GetServerNode()->AddApplication(m_sender);
        m_topo->GetClientNode()->AddApplication(m_receiver);
        m_receiver->SetStartTime(Seconds(0));
        m_sender->SetStartTime(Seconds(m_cfg.startS));
    }
    catch (...)
    {
        Close();
        throw;
    }

    m_prev.assign(m_nPaths, Prev());
    m_prevCross.assign(m_cfg.crossTraffic.size(), 0);
    Collect(0.0);
}

LeoSimulation::~LeoSimulation()
{
    Close();
}

void
LeoSimulation::Close()
{
    if (m_lease)
    {
        m_lease->Release(); // Simulator::Destroy: disposes nodes, applications, channels
        m_lease.reset();
    }
    m_sender = nullptr;
    m_receiver = nullptr;
    m_topo.reset();
    m_oracles.clear();
}

bool
LeoSimulation::IsClosed() const
{
    return !m_lease;
}

void
LeoSimulation::CheckOpen() const
{
    if (!m_lease)
    {
        throw std::runtime_error("Simulation is closed");
    }
}

uint32_t
LeoSimulation::GetNPaths() const
{
    return m_nPaths;
}

const LeoSimulationConfig&
LeoSimulation::GetConfig() const
{
    return m_cfg;
}

Ptr<MpQuicSender>
LeoSimulation::GetSender() const
{
    return m_sender;
}

Ptr<MpQuicReceiver>
LeoSimulation::GetReceiver() const
{
    return m_receiver;
}

double
LeoSimulation::Now() const
{
    CheckOpen();
    return Simulator::Now().GetSeconds();
}

bool
LeoSimulation::Done() const
{
    CheckOpen();
    return m_receiver->IsComplete();
}

void
LeoSimulation::Step(double dtS)
{
    CheckOpen();
    if (!std::isfinite(dtS) || dtS <= 0 || dtS > 1e6)
    {
        throw std::invalid_argument("dt_s: must be in (0, 1e6] seconds");
    }
    Simulator::Stop(Seconds(dtS));
    Simulator::Run();
    Collect(dtS);
}

const LeoSimulationMeasurements&
LeoSimulation::GetMeasurements() const
{
    return m_meas;
}

void
LeoSimulation::SetCwnd(const std::vector<double>& bytes)
{
    CheckOpen();
    if (!m_sender->GetCc(0)->IsExternal())
    {
        throw std::invalid_argument("set_cwnd needs cc='external' (this simulation runs '" +
                                    m_cfg.cc + "')");
    }
    if (bytes.size() != m_nPaths)
    {
        throw std::invalid_argument("set_cwnd: expected " + std::to_string(m_nPaths) +
                                    " values, got " + std::to_string(bytes.size()));
    }
    for (std::size_t i = 0; i < bytes.size(); ++i)
    {
        if (!std::isfinite(bytes[i]) || bytes[i] < 0 || bytes[i] > 1e15)
        {
            throw std::invalid_argument("set_cwnd: cwnd[" + std::to_string(i) +
                                        "] must be finite, >= 0 and <= 1e15 bytes");
        }
    }
    for (uint32_t i = 0; i < m_nPaths; ++i)
    {
        m_sender->SetExternalCwnd(i, static_cast<uint64_t>(bytes[i]));
    }
}

void
LeoSimulation::SetPacingRate(const std::vector<double>& bps)
{
    CheckOpen();
    if (!m_sender->GetCc(0)->IsExternal())
    {
        throw std::invalid_argument("set_pacing_rate needs cc='external' (this simulation runs '" +
                                    m_cfg.cc + "')");
    }
    if (bps.size() != m_nPaths)
    {
        throw std::invalid_argument("set_pacing_rate: expected " + std::to_string(m_nPaths) +
                                    " values, got " + std::to_string(bps.size()));
    }
    for (std::size_t i = 0; i < bps.size(); ++i)
    {
        if (!std::isfinite(bps[i]) || bps[i] < 0 || (bps[i] > 0 && bps[i] < 1e3) || bps[i] > 1e13)
        {
            throw std::invalid_argument("set_pacing_rate: rate[" + std::to_string(i) +
                                        "] must be 0 (unpaced) or in [1e3, 1e13] bit/s");
        }
    }
    for (uint32_t i = 0; i < m_nPaths; ++i)
    {
        m_sender->SetExternalPacingRate(i, bps[i]);
    }
}

void
LeoSimulation::SetWeights(const std::vector<double>& w)
{
    CheckOpen();
    Ptr<MpScheduler> s = m_sender->GetScheduler();
    if (!s->IsExternal())
    {
        throw std::invalid_argument("set_weights needs scheduler='external' (this simulation "
                                    "runs '" +
                                    m_cfg.scheduler + "')");
    }
    if (w.size() != m_nPaths)
    {
        throw std::invalid_argument("set_weights: expected " + std::to_string(m_nPaths) +
                                    " weights, got " + std::to_string(w.size()));
    }
    s->SetWeights(w);
    m_sender->Kick();
}

void
LeoSimulation::SetPathChoice(int32_t path)
{
    CheckOpen();
    Ptr<MpScheduler> s = m_sender->GetScheduler();
    if (!s->IsExternal())
    {
        throw std::invalid_argument("set_path_choice needs scheduler='external' (this "
                                    "simulation runs '" +
                                    m_cfg.scheduler + "')");
    }
    if (path < 0 || static_cast<uint32_t>(path) >= m_nPaths)
    {
        throw std::invalid_argument("set_path_choice: path " + std::to_string(path) +
                                    " out of range [0, " + std::to_string(m_nPaths) + ")");
    }
    s->SetPathChoice(path);
    m_sender->Kick();
}

void
LeoSimulation::SetPathState(uint32_t path, MpPathState state)
{
    CheckOpen();
    if (path >= m_nPaths)
    {
        throw std::invalid_argument("set_path_state: path " + std::to_string(path) +
                                    " out of range [0, " + std::to_string(m_nPaths) + ")");
    }
    m_sender->SetPathState(path, state);
}

void
LeoSimulation::Collect(double dtS)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    LeoSimulationMeasurements& m = m_meas;
    double now = Simulator::Now().GetSeconds();
    double t1 = m_lastStepEndS;
    m.timeS = now;
    m.intervalS = dtS;
    auto resize = [&](std::vector<double>& v) { v.assign(m_nPaths, 0.0); };
    for (auto* v : {&m.cwndBytes,
                    &m.bytesInFlight,
                    &m.srttS,
                    &m.minRttS,
                    &m.rttvarS,
                    &m.latestRttS,
                    &m.deliveredBytes,
                    &m.sentBytes,
                    &m.sentPackets,
                    &m.deliveryRateBps,
                    &m.sendRateBps,
                    &m.lostPackets,
                    &m.retransmittedPackets,
                    &m.dropsOutage,
                    &m.dropsRandom,
                    &m.dropsOverflow,
                    &m.inOutage,
                    &m.pathState,
                    &m.handovers,
                    &m.ssthreshBytes,
                    &m.pacingRateBps,
                    &m.ptoCount,
                    &m.rateSampleBps,
                    &m.spuriousLosses,
                    &m.suppressedLosses,
                    &m.persistentCongestion,
                    &m.reinjected,
                    &m.timeToNextHandoverS,
                    &m.snrDb,
                    &m.elevationDeg})
    {
        resize(*v);
    }
    double inv = dtS > 0 ? 1.0 / dtS : 0.0;
    for (uint32_t i = 0; i < m_nPaths; ++i)
    {
        const MpPathInfo& p = m_sender->GetPath(i);
        const MpQuicSender::PathCounters& c = m_sender->GetCounters(i);
        Ptr<MpCongestionOps> cc = m_sender->GetCc(i);
        Prev& pr = m_prev[i];
        uint32_t tp = p.topologyPath;
        const LeoScheduleOracle& o = *m_oracles[tp];
        m.cwndBytes[i] = static_cast<double>(p.cwnd);
        m.bytesInFlight[i] = static_cast<double>(p.bytesInFlight);
        bool has = p.HasRttSample();
        m.srttS[i] = has ? p.rtt->GetSmoothed().GetSeconds() : nan;
        m.minRttS[i] = has ? p.rtt->GetMin().GetSeconds() : nan;
        m.rttvarS[i] = has ? p.rtt->GetRttVar().GetSeconds() : nan;
        m.latestRttS[i] = has ? p.rtt->GetLatest().GetSeconds() : nan;
        m.deliveredBytes[i] = static_cast<double>(p.deliveredBytes - pr.delivered);
        m.sentBytes[i] = static_cast<double>(p.sentBytes - pr.sent);
        m.sentPackets[i] = static_cast<double>(p.sentPackets - pr.sentPackets);
        m.deliveryRateBps[i] = 8.0 * m.deliveredBytes[i] * inv;
        m.sendRateBps[i] = 8.0 * m.sentBytes[i] * inv;
        m.lostPackets[i] = static_cast<double>(p.lostPackets - pr.lost);
        m.retransmittedPackets[i] = static_cast<double>(p.retransmittedPackets - pr.retx);
        const LeoDirectionCounters& dc = m_topo->GetCounters(tp, LeoDirection::DOWN);
        m.dropsOutage[i] = static_cast<double>(dc.dropPackets[LEO_DROP_OUTAGE] - pr.drops[0]);
        m.dropsRandom[i] = static_cast<double>(dc.dropPackets[LEO_DROP_RANDOM] - pr.drops[1]);
        m.dropsOverflow[i] = static_cast<double>(dc.dropPackets[LEO_DROP_OVERFLOW] - pr.drops[2]);
        m.inOutage[i] = o.InOutage(now) ? 1.0 : 0.0;
        m.pathState[i] = static_cast<double>(static_cast<uint8_t>(p.state));
        m.handovers[i] = dtS > 0 ? static_cast<double>(o.CountHandovers(t1, now)) : 0.0;
        m.ssthreshBytes[i] = p.ssthresh == std::numeric_limits<uint64_t>::max()
                                 ? std::numeric_limits<double>::infinity()
                                 : static_cast<double>(p.ssthresh);
        m.pacingRateBps[i] = p.pacingRateBps;
        m.ptoCount[i] = static_cast<double>(c.ptoEvents - pr.pto);
        m.rateSampleBps[i] = p.deliveryRateBps;
        m.spuriousLosses[i] = static_cast<double>(c.spuriousLosses - pr.spurious);
        uint64_t sup = cc->GetSuppressedLosses();
        m.suppressedLosses[i] = static_cast<double>(sup - pr.suppressed);
        m.persistentCongestion[i] = static_cast<double>(c.persistentCongestion - pr.pc);
        m.reinjected[i] = static_cast<double>(c.reinjectedChunks - pr.reinjected);
        double nh = o.NextHandoverAfter(now);
        m.timeToNextHandoverS[i] =
            std::isfinite(nh) ? nh - now : std::numeric_limits<double>::infinity();
        MpPathOracle::LinkState ls = o.StateAt(now);
        m.snrDb[i] = ls.snrDb;
        m.elevationDeg[i] = ls.elevationDeg;

        pr.delivered = p.deliveredBytes;
        pr.sent = p.sentBytes;
        pr.sentPackets = p.sentPackets;
        pr.lost = p.lostPackets;
        pr.retx = p.retransmittedPackets;
        pr.pto = c.ptoEvents;
        pr.spurious = c.spuriousLosses;
        pr.suppressed = sup;
        pr.pc = c.persistentCongestion;
        pr.reinjected = c.reinjectedChunks;
        pr.drops[0] = dc.dropPackets[LEO_DROP_OUTAGE];
        pr.drops[1] = dc.dropPackets[LEO_DROP_RANDOM];
        pr.drops[2] = dc.dropPackets[LEO_DROP_OVERFLOW];
    }
    uint64_t goodput = m_receiver->GetDeliveredBytes();
    double hol = m_receiver->GetHolByteSeconds();
    uint64_t dGood = goodput - m_prevGoodput;
    m.goodputBytes = static_cast<double>(dGood);
    m.reorderBufferBytes = static_cast<double>(m_receiver->GetReorderBufferBytes());
    m.holDelayS = dGood > 0 ? (hol - m_prevHol) / static_cast<double>(dGood) : 0.0;
    m.completed = m_receiver->IsComplete();
    m.completionTimeS =
        m.completed ? m_receiver->GetCompletionTime().GetSeconds() - m_cfg.startS : nan;
    m_prevGoodput = goodput;
    m_prevHol = hol;
    m.crossTrafficRxBytes.assign(m_prevCross.size(), 0.0);
    for (std::size_t k = 0; k < m_prevCross.size(); ++k)
    {
        uint64_t rx = m_topo->GetCrossTrafficRxBytes(static_cast<uint32_t>(k));
        m.crossTrafficRxBytes[k] = static_cast<double>(rx - m_prevCross[k]);
        m_prevCross[k] = rx;
    }
    m_lastStepEndS = now;
}

} // namespace ns3
