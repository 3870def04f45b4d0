// SPDX-License-Identifier: GPL-2.0-only

#include "leo-dual-pi2-queue-disc.h"

#include "leo-queue-disc-item.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeoDualPi2QueueDisc");
NS_OBJECT_ENSURE_REGISTERED(LeoDualPi2QueueDisc);

namespace
{

/// The ECN codepoint of an item (Not-ECT for items that are not LeoQueueDiscItems).
uint8_t
CodepointOf(const Ptr<QueueDiscItem>& item)
{
    const LeoQueueDiscItem* leo = dynamic_cast<const LeoQueueDiscItem*>(PeekPointer(item));
    return leo ? leo->GetEcnCodepoint() : LeoDualPi2QueueDisc::kNotEct;
}

} // namespace

TypeId
LeoDualPi2QueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeoDualPi2QueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("Leo")
            .AddConstructor<LeoDualPi2QueueDisc>()
            .AddAttribute("MaxSize",
                          "The limit of both queues together (packets).",
                          QueueSizeValue(QueueSize("10000p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("Target",
                          "The PI2 controller's queue-delay target (RFC 9332 A.1: 15 ms).",
                          TimeValue(MilliSeconds(15)),
                          MakeTimeAccessor(&LeoDualPi2QueueDisc::m_target),
                          MakeTimeChecker(Time(1)))
            .AddAttribute("Tupdate",
                          "Interval between controller updates (Linux and RFC 9332: 16 ms).",
                          TimeValue(MilliSeconds(16)),
                          MakeTimeAccessor(&LeoDualPi2QueueDisc::m_tUpdate),
                          MakeTimeChecker(Time(1)))
            .AddAttribute("Alpha",
                          "Integral gain (Hz), per update (0.1 Tupdate / RTT_max^2 = 0.16).",
                          DoubleValue(0.16),
                          MakeDoubleAccessor(&LeoDualPi2QueueDisc::m_alpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Beta",
                          "Proportional gain (Hz), per update (3.2).",
                          DoubleValue(3.2),
                          MakeDoubleAccessor(&LeoDualPi2QueueDisc::m_beta),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("CouplingFactor",
                          "k: p_CL = k p' (RFC 9332 section 2.1 and Appendix C: 2).",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&LeoDualPi2QueueDisc::m_k),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("MinTh",
                          "Start of the native L4S marking ramp (sojourn time).",
                          TimeValue(MicroSeconds(800)),
                          MakeTimeAccessor(&LeoDualPi2QueueDisc::m_minTh),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Range",
                          "Width of the native L4S ramp; 0: a step at MinTh.",
                          TimeValue(MicroSeconds(400)),
                          MakeTimeAccessor(&LeoDualPi2QueueDisc::m_range),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ThLen",
                          "No native L4S marking while the L queue holds at most this many "
                          "packets (RFC 9332 A.1's Th_len: 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&LeoDualPi2QueueDisc::m_thLenPackets),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TimeShift",
                          "Time-shifted FIFO: the C head goes first once it has waited this "
                          "much longer than the L head.",
                          TimeValue(MilliSeconds(40)),
                          MakeTimeAccessor(&LeoDualPi2QueueDisc::m_timeShift),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("UseEcn",
                          "Mark ECT(0) packets of the C queue instead of dropping them (L4S "
                          "packets are always marked).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&LeoDualPi2QueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddTraceSource("BaseProbability",
                            "The base probability p', after each update.",
                            MakeTraceSourceAccessor(&LeoDualPi2QueueDisc::m_baseProb),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

LeoDualPi2QueueDisc::LeoDualPi2QueueDisc()
    : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES, QueueSizeUnit::PACKETS),
      m_target(MilliSeconds(15)),
      m_tUpdate(MilliSeconds(16)),
      m_alpha(0.16),
      m_beta(3.2),
      m_k(2.0),
      m_minTh(MicroSeconds(800)),
      m_range(MicroSeconds(400)),
      m_timeShift(MilliSeconds(40)),
      m_useEcn(true),
      m_thLenPackets(1),
      m_baseProb(0.0),
      m_prevQ(Time(0)),
      m_lCount(0.0)
{
    m_uv = CreateObject<UniformRandomVariable>();
}

LeoDualPi2QueueDisc::~LeoDualPi2QueueDisc() = default;

double
LeoDualPi2QueueDisc::GetBaseProbability() const
{
    return m_baseProb;
}

double
LeoDualPi2QueueDisc::GetClassicProbability() const
{
    const double p = m_baseProb;
    return p * p;
}

double
LeoDualPi2QueueDisc::GetCoupledProbability() const
{
    return std::min(m_k * m_baseProb.Get(), 1.0);
}

bool
LeoDualPi2QueueDisc::IsOverloaded() const
{
    return m_baseProb.Get() >= 1.0 / m_k;
}

int64_t
LeoDualPi2QueueDisc::AssignStreams(int64_t stream)
{
    m_uv->SetStream(stream);
    return 1;
}

void
LeoDualPi2QueueDisc::DoDispose()
{
    m_updateEvent.Cancel();
    m_uv = nullptr;
    QueueDisc::DoDispose();
}

bool
LeoDualPi2QueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("LeoDualPi2QueueDisc has no classes and no packet filters");
        return false;
    }
    if (GetMaxSize().GetUnit() != QueueSizeUnit::PACKETS || GetMaxSize().GetValue() < 1)
    {
        NS_LOG_ERROR("LeoDualPi2QueueDisc: MaxSize must be at least one packet");
        return false;
    }
    if (GetNInternalQueues() == 0)
    {
        // Each queue may hold the whole limit; DoEnqueue enforces the shared one.
        for (int i = 0; i < 2; ++i)
        {
            Ptr<DropTailQueue<QueueDiscItem>> q = CreateObject<DropTailQueue<QueueDiscItem>>();
            q->SetMaxSize(GetMaxSize());
            AddInternalQueue(q);
        }
    }
    if (GetNInternalQueues() != 2)
    {
        NS_LOG_ERROR("LeoDualPi2QueueDisc needs two internal queues (L and C)");
        return false;
    }
    return true;
}

void
LeoDualPi2QueueDisc::InitializeParams()
{
    m_baseProb = 0.0;
    m_prevQ = Time(0);
    m_lCount = 0.0;
    m_updateEvent = Simulator::Schedule(m_tUpdate, &LeoDualPi2QueueDisc::Update, this);
}

Time
LeoDualPi2QueueDisc::HeadSojourn(std::size_t i) const
{
    Ptr<const QueueDiscItem> head = GetInternalQueue(i)->Peek();
    return head ? Simulator::Now() - head->GetTimeStamp() : Time(0);
}

double
LeoDualPi2QueueDisc::NativeL4sProbability(Time sojourn) const
{
    if (sojourn <= m_minTh)
    {
        return 0.0;
    }
    if (m_range.IsZero() || sojourn >= m_minTh + m_range)
    {
        return 1.0;
    }
    return (sojourn - m_minTh).GetSeconds() / m_range.GetSeconds();
}

void
LeoDualPi2QueueDisc::Update()
{
    // RFC 9332 A.1 (Figure 6) with A.2's overload-safe input: the larger head sojourn.
    const Time q = std::max(HeadSojourn(kCQueue), HeadSojourn(kLQueue));
    const double delta =
        m_alpha * (q - m_target).GetSeconds() + m_beta * (q - m_prevQ).GetSeconds();
    // p' in [0, 1/k]: p_C = p'^2 stops at p_Cmax = 1/k^2 and p_CL = k p' at 1 (A.2).
    m_baseProb = std::clamp(m_baseProb.Get() + delta, 0.0, std::min(1.0, 1.0 / m_k));
    m_prevQ = q;
    m_updateEvent = Simulator::Schedule(m_tUpdate, &LeoDualPi2QueueDisc::Update, this);
}

bool
LeoDualPi2QueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    if (GetCurrentSize().GetValue() + 1 > GetMaxSize().GetValue())
    {
        DropBeforeEnqueue(item, OVERLIMIT_DROP);
        return false;
    }
    item->SetTimeStamp(Simulator::Now());
    // RFC 9331 section 5.1 / RFC 9332 section 2.3: ECT(1) and CE are L4S.
    const uint8_t ecn = CodepointOf(item);
    const std::size_t q = (ecn == kEct1 || ecn == kCe) ? kLQueue : kCQueue;
    return GetInternalQueue(q)->Enqueue(item);
}

Ptr<QueueDiscItem>
LeoDualPi2QueueDisc::DoDequeue()
{
    Ptr<Queue<QueueDiscItem>> lq = GetInternalQueue(kLQueue);
    Ptr<Queue<QueueDiscItem>> cq = GetInternalQueue(kCQueue);
    while (true)
    {
        const bool lEmpty = lq->IsEmpty();
        const bool cEmpty = cq->IsEmpty();
        if (lEmpty && cEmpty)
        {
            return nullptr;
        }
        // Time-shifted FIFO: L first unless the C head has waited TimeShift longer.
        const bool fromL =
            !lEmpty && (cEmpty || HeadSojourn(kLQueue) + m_timeShift >= HeadSojourn(kCQueue));
        const double pC = GetClassicProbability();
        if (fromL)
        {
            const uint32_t before = lq->GetNPackets();
            Ptr<QueueDiscItem> item = lq->Dequeue();
            if (IsOverloaded() && m_uv->GetValue() < pC)
            {
                DropAfterDequeue(item, OVERLOAD_DROP);
                continue;
            }
            const double native =
                before > m_thLenPackets
                    ? NativeL4sProbability(Simulator::Now() - item->GetTimeStamp())
                    : 0.0;
            // RFC 9332 A.1's recur(): marks spaced by the accumulated probability.
            m_lCount += std::max(native, GetCoupledProbability());
            if (m_lCount >= 1.0)
            {
                m_lCount -= 1.0;
                Mark(item, L4S_MARK);
            }
            return item;
        }
        Ptr<QueueDiscItem> item = cq->Dequeue();
        if (pC > 0.0 && m_uv->GetValue() < pC)
        {
            if (m_useEcn && !IsOverloaded() && CodepointOf(item) == kEct0 &&
                Mark(item, CLASSIC_MARK))
            {
                return item;
            }
            DropAfterDequeue(item, CLASSIC_DROP);
            continue;
        }
        return item;
    }
}

} // namespace ns3
