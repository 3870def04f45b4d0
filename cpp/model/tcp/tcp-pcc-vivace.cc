// SPDX-License-Identifier: GPL-2.0-only

#include "tcp-pcc-vivace.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/object-map.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpPccVivace");
NS_OBJECT_ENSURE_REGISTERED(TcpPccVivace);

namespace
{

/// Results awaited at most this many MIs deep (a guard: bulk senders stay far below).
constexpr std::size_t kMaxPendingIntervals = 4096;

/// The utility gradient a stalled probe stands for: large enough that the step is the
/// change boundary (utility per Mbit/s).
constexpr double kStallGradient = 1e9;

/// A retransmission timeout counts as congestion when the smoothed RTT exceeds the minimum
/// RTT by more than this fraction (a standing queue).
constexpr double kRtoQueueFraction = 0.1;

/// splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a small, seedable mixing generator.
uint64_t
SplitMix64(uint64_t& state)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

} // namespace

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

// --- socket hooks ----------------------------------------------------------------------

void
TcpPccVivace::Attach()
{
    m_attachTried = true;
    // Find the socket whose congestion control is this object. TcpL4Protocol::CreateSocket
    // calls Init before the socket is listed, so this runs at its first transmission.
    Ptr<TcpSocketBase> socket;
    for (auto n = NodeList::Begin(); n != NodeList::End() && !socket; ++n)
    {
        Ptr<TcpL4Protocol> tcp = (*n)->GetObject<TcpL4Protocol>();
        if (!tcp)
        {
            continue;
        }
        ObjectMapValue sockets;
        tcp->GetAttribute("SocketList", sockets);
        for (auto it = sockets.Begin(); it != sockets.End(); ++it)
        {
            Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(it->second);
            if (!s)
            {
                continue;
            }
            PointerValue cc;
            s->GetAttribute("CongestionOps", cc);
            if (PeekPointer(cc.Get<TcpCongestionOps>()) == this)
            {
                socket = s;
                break;
            }
        }
    }
    if (!socket)
    {
        NS_LOG_WARN("TcpPccVivace: socket not found; the rate stays at the initial window");
        return;
    }
    socket->TraceConnectWithoutContext("Tx", MakeCallback(&TcpPccVivace::OnTx, this));
    socket->TraceConnectWithoutContext("Rx", MakeCallback(&TcpPccVivace::OnRx, this));
    // The probing order is drawn from a generator seeded by the run's seed and the socket's
    // node and port: deterministic, and different for each flow.
    Address local;
    uint64_t port = 0;
    if (socket->GetSockName(local) == 0 && InetSocketAddress::IsMatchingType(local))
    {
        port = InetSocketAddress::ConvertFrom(local).GetPort();
    }
    m_rng = (static_cast<uint64_t>(RngSeedManager::GetSeed()) << 32) ^
            (RngSeedManager::GetRun() * 0x9e3779b97f4a7c15ULL) ^
            (static_cast<uint64_t>(socket->GetNode()->GetId()) << 16) ^ port;
    SplitMix64(m_rng);
    m_attached = true;
}

uint64_t
TcpPccVivace::Unwrap(SequenceNumber32 seq) const
{
    const int64_t v = static_cast<int64_t>(m_ref64) + static_cast<int64_t>(seq - m_ref32);
    return v < 0 ? 0 : static_cast<uint64_t>(v);
}

void
TcpPccVivace::OnTx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> s)
{
    const uint32_t size = packet->GetSize();
    if (size == 0)
    {
        return; // SYN, pure ACK or bare FIN
    }
    const Time now = Simulator::Now();
    const SequenceNumber32 seq = header.GetSequenceNumber();
    if (!m_seqInit)
    {
        m_seqInit = true;
        m_ref32 = seq;
        m_ref64 = 0;
        m_nextNew = 0;
    }
    const uint64_t begin = Unwrap(seq);
    const uint64_t end = begin + size;
    MaybeStartInterval(now);
    Interval& mi = m_intervals.back();
    mi.bytesTx += size;
    if (begin >= m_nextNew)
    {
        Segment sgm;
        sgm.begin = begin;
        sgm.end = end;
        sgm.sent = now;
        sgm.interval = mi.id;
        m_segments.push_back(sgm);
        mi.bytesSent += size;
        m_nextNew = end;
        m_ref32 = seq + size;
        m_ref64 = end;
    }
    else
    {
        // A retransmission: TCP declared these bytes lost (fast retransmit, RACK-less SACK
        // recovery or an RTO). Their first transmission counts as lost in its MI.
        MarkLost(begin, std::min(end, m_nextNew));
    }
    ProcessResults();
}

void
TcpPccVivace::MarkLost(uint64_t begin, uint64_t end)
{
    auto it = std::upper_bound(m_segments.begin(),
                               m_segments.end(),
                               begin,
                               [](uint64_t v, const Segment& sgm) { return v < sgm.begin; });
    if (it != m_segments.begin())
    {
        --it;
    }
    for (; it != m_segments.end() && it->begin < end; ++it)
    {
        if (it->end <= begin || it->delivered || it->lost)
        {
            continue;
        }
        it->lost = true;
        if (Interval* mi = FindInterval(it->interval))
        {
            mi->bytesLost += it->end - it->begin;
        }
    }
}

void
TcpPccVivace::Deliver(Segment& segment, const Segment** newest)
{
    if (segment.delivered || segment.lost)
    {
        return;
    }
    segment.delivered = true;
    if (Interval* mi = FindInterval(segment.interval))
    {
        mi->bytesDelivered += segment.end - segment.begin;
    }
    if (*newest == nullptr || segment.sent > (*newest)->sent)
    {
        *newest = &segment;
    }
}

void
TcpPccVivace::OnRx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> s)
{
    if (!(header.GetFlags() & TcpHeader::ACK) || !m_seqInit || m_segments.empty())
    {
        return;
    }
    const Time now = Simulator::Now();
    const uint64_t cum = Unwrap(header.GetAckNumber());
    // The newest segment this ACK newly delivers gives the RTT sample; a copy, since the
    // cumulatively acknowledged ones leave the deque below.
    Segment newestCopy;
    bool haveNewest = false;
    const Segment* newest = nullptr;
    while (!m_segments.empty() && m_segments.front().end <= cum)
    {
        Deliver(m_segments.front(), &newest);
        if (newest == &m_segments.front())
        {
            newestCopy = *newest;
            haveNewest = true;
            newest = nullptr;
        }
        m_segments.pop_front();
    }
    if (header.HasOption(TcpOption::SACK))
    {
        Ptr<const TcpOptionSack> sack =
            DynamicCast<const TcpOptionSack>(header.GetOption(TcpOption::SACK));
        for (const auto& block : sack->GetSackList())
        {
            const uint64_t lo = Unwrap(block.first);
            const uint64_t hi = Unwrap(block.second);
            auto it =
                std::lower_bound(m_segments.begin(),
                                 m_segments.end(),
                                 lo,
                                 [](const Segment& sgm, uint64_t v) { return sgm.begin < v; });
            for (; it != m_segments.end() && it->end <= hi; ++it)
            {
                Deliver(*it, &newest);
            }
        }
    }
    if (newest != nullptr && (!haveNewest || newest->sent > newestCopy.sent))
    {
        newestCopy = *newest;
        haveNewest = true;
    }
    if (haveNewest)
    {
        OnRttSample(newestCopy, now - newestCopy.sent);
    }
    ProcessResults();
}

void
TcpPccVivace::OnRttSample(const Segment& segment, Time rtt)
{
    const double r = rtt.GetSeconds();
    if (!(r > 0.0))
    {
        return;
    }
    if (Interval* mi = FindInterval(segment.interval))
    {
        mi->sampleT.push_back((segment.sent - mi->start).GetSeconds());
        mi->sampleRtt.push_back(r);
    }
    m_srttS = m_srttS > 0.0 ? 0.875 * m_srttS + 0.125 * r : r;
    m_minRttS = std::min(m_minRttS, r);
    if (m_mode == Mode::INITIAL)
    {
        // The initial window took one RTT: r0 = IW / RTT; slow start begins at 2 r0.
        const double iw =
            static_cast<double>(std::max<uint32_t>(m_tcb ? m_tcb->m_initialCWnd : 1, 1)) *
            (m_tcb ? m_tcb->m_segmentSize : 1448);
        m_mode = Mode::STARTING;
        ++m_epoch;
        m_havePrevStart = false;
        m_startNextBps = ClampRate(2.0 * iw * 8.0 / r);
        m_restart = true;
        SetRate(m_startNextBps);
    }
}

// --- monitor intervals and the state machine ------------------------------------------

void
TcpPccVivace::OnRetransmissionTimeout()
{
    // The socket stalled: the MIs in flight no longer measure their rates (UtilityOf).
    // Slow start ends. In probing, a timeout that comes with a standing queue (smoothed RTT
    // above the minimum by more than kRtoQueueFraction) means the rate could not be
    // sustained: a rate-based sender would resume at that rate after the timeout (TCP
    // restarts from one segment), so the rate steps down as far as the change boundary lets
    // it (consecutive timeouts widen the boundary). A timeout without a queue (a random loss
    // of a retransmission) only restarts probing.
    ++m_rtoCount;
    if (m_mode == Mode::STARTING)
    {
        BeginProbing(m_havePrevStart ? m_prevStartRateBps : 0.5 * m_rateBps);
    }
    else if (m_mode == Mode::PROBING)
    {
        if (m_srttS > (1.0 + kRtoQueueFraction) * m_minRttS)
        {
            m_baseRateBps = ClampRate(m_control.Step(m_baseRateBps, -kStallGradient));
            ++m_decisions;
        }
        NewProbeBatch();
        m_restart = true;
        SetRate(m_baseRateBps);
    }
}

void
TcpPccVivace::MaybeStartInterval(Time now)
{
    if (!m_intervals.empty() && !m_intervals.back().isClosed && !m_restart &&
        now < m_intervals.back().end)
    {
        return;
    }
    if (!m_intervals.empty() && !m_intervals.back().isClosed)
    {
        m_intervals.back().isClosed = true;
        m_intervals.back().closed = now;
        m_intervals.back().stalled = m_rtoCount != m_intervals.back().rtoAtStart;
    }
    m_restart = false;
    StartInterval(now);
}

void
TcpPccVivace::StartInterval(Time now)
{
    Interval mi;
    mi.id = m_nextIntervalId++;
    mi.start = now;
    mi.epoch = m_epoch;
    mi.rtoAtStart = m_rtoCount;
    switch (m_mode)
    {
    case Mode::INITIAL:
        mi.role = Role::IGNORE;
        mi.targetBps = m_rateBps;
        break;
    case Mode::STARTING: {
        mi.role = Role::START;
        mi.targetBps = m_startNextBps;
        const double maxRate = m_control.GetParams().maxRateBps;
        if (mi.targetBps >= maxRate)
        {
            // Nothing left to double: learn from the top.
            BeginProbing(maxRate);
            m_restart = false;
            mi.role = Role::PROBE;
            mi.epoch = m_epoch;
            mi.slot = m_batchNextSlot++;
            mi.targetBps = m_batchRateBps[mi.slot];
        }
        else
        {
            m_startNextBps = ClampRate(2.0 * mi.targetBps);
        }
        break;
    }
    case Mode::PROBING:
        if (m_batchNextSlot < m_batchRateBps.size())
        {
            mi.role = Role::PROBE;
            mi.slot = m_batchNextSlot++;
            mi.targetBps = m_batchRateBps[mi.slot];
        }
        else
        {
            mi.role = Role::IGNORE; // waiting for the batch's results
            mi.targetBps = m_baseRateBps;
        }
        break;
    }
    if (m_mode == Mode::INITIAL || mi.targetBps <= 0.0)
    {
        mi.end = Time::Max(); // ends with the first RTT sample
    }
    else
    {
        const double seg = m_tcb ? m_tcb->m_segmentSize : 1448.0;
        const double d =
            std::max(m_miRtts * SrttSeconds(), m_miMinPackets * seg * 8.0 / mi.targetBps);
        mi.end = now + Seconds(d);
    }
    m_intervals.push_back(std::move(mi));
    if (m_mode != Mode::INITIAL)
    {
        SetRate(m_intervals.back().targetBps);
    }
}

TcpPccVivace::Interval*
TcpPccVivace::FindInterval(uint64_t id)
{
    if (m_intervals.empty() || id < m_intervals.front().id)
    {
        return nullptr;
    }
    const uint64_t k = id - m_intervals.front().id;
    return k < m_intervals.size() ? &m_intervals[k] : nullptr;
}

void
TcpPccVivace::ProcessResults()
{
    // Results are used in MI order: an MI waits for the fates of all its segments and for
    // every earlier MI.
    while (!m_intervals.empty())
    {
        const Interval& front = m_intervals.front();
        const bool complete =
            front.isClosed && front.bytesDelivered + front.bytesLost >= front.bytesSent;
        if (!complete && m_intervals.size() <= kMaxPendingIntervals)
        {
            break;
        }
        Interval done = std::move(m_intervals.front());
        m_intervals.pop_front();
        if (!complete)
        {
            continue; // guard: drop the oldest unfinished MI
        }
        ++m_intervalsDone;
        if (done.epoch != m_epoch)
        {
            continue; // from an earlier slow-start run or probing batch
        }
        const bool start = done.role == Role::START && m_mode == Mode::STARTING;
        const bool probe = done.role == Role::PROBE && m_mode == Mode::PROBING;
        if (!start && !probe)
        {
            continue;
        }
        const double utility = UtilityOf(done);
        if (std::isnan(utility))
        {
            ++m_invalidIntervals;
        }
        if (start)
        {
            OnStartResult(done, utility);
        }
        else
        {
            OnProbeResult(done, utility);
        }
    }
}

double
TcpPccVivace::UtilityOf(const Interval& mi) const
{
    const double duration = (mi.closed - mi.start).GetSeconds();
    if (!(duration > 0.0) || mi.bytesSent == 0)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    // An MI measures the utility of its rate only if it was sent at that rate: not when a
    // retransmission timeout stalled the socket during it, nor when the sender fell short of
    // the target by more than the probing step and one segment (window- or application-
    // limited).
    const double xBps = static_cast<double>(mi.bytesTx) * 8.0 / duration;
    const double mss = m_tcb ? m_tcb->m_segmentSize : 1448.0;
    if (mi.stalled || (static_cast<double>(mi.bytesTx) + mss) * 8.0 <
                          (1.0 - m_probeEpsilon) * mi.targetBps * duration)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    PccVivaceUtilityParams p;
    p.exponent = m_exponent;
    p.latencyCoef = m_latencyCoef;
    p.lossCoef = m_lossCoef;
    p.rttGradientTolerance = m_rttGradientTolerance;
    const double xMbps = xBps / 1e6;
    const double loss = static_cast<double>(mi.bytesLost) / static_cast<double>(mi.bytesSent);
    const double gradient = PccRttGradient(mi.sampleT, mi.sampleRtt);
    return PccVivaceUtility(xMbps, gradient, std::min(loss, 1.0), p);
}

void
TcpPccVivace::OnStartResult(const Interval& mi, double utility)
{
    if (std::isnan(utility))
    {
        // The sender could not keep up the doubled rate (a retransmission timeout, or it fell
        // short of the target): as good as a fall in utility.
        BeginProbing(m_havePrevStart ? m_prevStartRateBps : 0.5 * mi.targetBps);
        return;
    }
    if (m_havePrevStart && utility < m_prevStartUtility)
    {
        // The utility fell: the previous rate was the better one; learn from there.
        BeginProbing(m_prevStartRateBps);
        return;
    }
    m_havePrevStart = true;
    m_prevStartUtility = utility;
    m_prevStartRateBps = mi.targetBps;
}

void
TcpPccVivace::OnProbeResult(const Interval& mi, double utility)
{
    if (mi.slot >= m_batchUtility.size())
    {
        return;
    }
    if (std::isnan(utility))
    {
        NewProbeBatch(); // nothing was measured: probe again around the same rate
        m_restart = true;
        return;
    }
    if (std::isnan(m_batchUtility[mi.slot]))
    {
        ++m_batchKnown;
    }
    m_batchUtility[mi.slot] = utility;
    if (m_batchKnown < m_batchUtility.size())
    {
        return;
    }
    // gamma = (u(r(1+eps)) - u(r(1-eps))) / (2 eps r), r in Mbit/s; the mean over the pairs.
    double gradient = 0;
    const std::size_t pairs = m_batchUtility.size() / 2;
    for (std::size_t k = 0; k < pairs; ++k)
    {
        const double du = m_batchUtility[2 * k] - m_batchUtility[2 * k + 1];
        const double dx = (m_batchRateBps[2 * k] - m_batchRateBps[2 * k + 1]) / 1e6;
        gradient += dx != 0.0 ? du / dx : 0.0;
    }
    gradient /= static_cast<double>(pairs);
    m_baseRateBps = ClampRate(m_control.Step(m_baseRateBps, gradient));
    ++m_decisions;
    NewProbeBatch();
    m_restart = true;
    SetRate(m_baseRateBps);
}

void
TcpPccVivace::BeginProbing(double baseBps)
{
    m_mode = Mode::PROBING;
    m_baseRateBps = ClampRate(baseBps);
    m_control.Reset();
    NewProbeBatch();
    m_restart = true;
    SetRate(m_baseRateBps);
}

void
TcpPccVivace::NewProbeBatch()
{
    ++m_epoch;
    const std::size_t n = 2 * static_cast<std::size_t>(m_probePairs);
    m_batchUtility.assign(n, std::numeric_limits<double>::quiet_NaN());
    m_batchRateBps.assign(n, 0.0);
    const double up = ClampRate(m_baseRateBps * (1.0 + m_probeEpsilon));
    const double down = ClampRate(m_baseRateBps * (1.0 - m_probeEpsilon));
    for (std::size_t k = 0; k < m_probePairs; ++k)
    {
        // Each pair in random order, so that competing senders' probes do not line up.
        const bool upFirst = NextRandomBit();
        m_batchRateBps[2 * k] = upFirst ? up : down;
        m_batchRateBps[2 * k + 1] = upFirst ? down : up;
    }
    m_batchNextSlot = 0;
    m_batchKnown = 0;
}

void
TcpPccVivace::SetRate(double bps)
{
    m_rateBps = ClampRate(bps);
    if (!m_tcb)
    {
        return;
    }
    m_tcb->m_pacingRate = DataRate(static_cast<uint64_t>(std::llround(m_rateBps)));
    UpdateWindow();
}

void
TcpPccVivace::UpdateWindow()
{
    if (!m_tcb || m_mode == Mode::INITIAL)
    {
        return;
    }
    // Rate-based: the window only bounds the data in flight, generously, so that pacing and
    // not the window sets the rate (CwndGain x rate x SRTT, at least 4 segments).
    const double seg = m_tcb->m_segmentSize;
    double w = m_cwndGain * m_rateBps / 8.0 * SrttSeconds();
    w = std::clamp(w, 4.0 * seg, 1073741824.0);
    const auto cwnd = static_cast<uint32_t>(w);
    m_tcb->m_cWnd = cwnd;
    m_tcb->m_cWndInfl = cwnd;
}

double
TcpPccVivace::SrttSeconds() const
{
    if (m_srttS > 0.0)
    {
        return m_srttS;
    }
    return m_tcb ? std::max(m_tcb->m_srtt.Get().GetSeconds(), 1e-3) : 1e-3;
}

double
TcpPccVivace::ClampRate(double bps) const
{
    const auto& p = m_control.GetParams();
    if (!std::isfinite(bps))
    {
        return p.minRateBps;
    }
    return std::clamp(bps, p.minRateBps, p.maxRateBps);
}

bool
TcpPccVivace::NextRandomBit()
{
    return (SplitMix64(m_rng) >> 63) != 0;
}

} // namespace ns3
