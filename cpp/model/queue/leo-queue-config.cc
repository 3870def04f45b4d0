// SPDX-License-Identifier: GPL-2.0-only

#include "leo-queue-config.h"

#include "leo-dual-pi2-queue-disc.h"

#include "ns3/boolean.h"
#include "ns3/codel-queue-disc.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/fq-codel-queue-disc.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/pie-queue-disc.h"
#include "ns3/queue-size.h"
#include "ns3/red-queue-disc.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace ns3
{

const char*
LeoQueueDisciplineName(LeoQueueDiscipline d)
{
    switch (d)
    {
    case LeoQueueDiscipline::DROPTAIL:
        return "droptail";
    case LeoQueueDiscipline::RED:
        return "red";
    case LeoQueueDiscipline::CODEL:
        return "codel";
    case LeoQueueDiscipline::FQ_CODEL:
        return "fq_codel";
    case LeoQueueDiscipline::PIE:
        return "pie";
    case LeoQueueDiscipline::DUALPI2:
        return "dualpi2";
    }
    return "unknown";
}

const char*
LeoEcnHandlingName(LeoEcnHandling h)
{
    switch (h)
    {
    case LeoEcnHandling::PASS:
        return "pass";
    case LeoEcnHandling::BLEACH:
        return "bleach";
    case LeoEcnHandling::DROP:
        return "drop";
    }
    return "unknown";
}

namespace
{

[[noreturn]] void
Fail(const std::string& field, const std::string& why, double got)
{
    std::ostringstream os;
    os << field << ": " << why << ", got " << got;
    throw std::invalid_argument(os.str());
}

void
Positive(const std::string& field, double v)
{
    if (!std::isfinite(v) || v <= 0.0)
    {
        Fail(field, "must be a finite number > 0", v);
    }
}

/// A time attribute as ns-3 parses it (integer nanoseconds).
StringValue
TimeString(double seconds)
{
    return StringValue(std::to_string(static_cast<int64_t>(std::llround(seconds * 1e9))) + "ns");
}

} // namespace

void
LeoQueueConfig::Validate(const std::string& label) const
{
    const std::string q = label + ".";
    if (static_cast<uint8_t>(discipline) > static_cast<uint8_t>(LeoQueueDiscipline::DUALPI2))
    {
        Fail(q + "discipline", "unknown discipline", static_cast<double>(discipline));
    }
    if (ecn && discipline == LeoQueueDiscipline::DROPTAIL)
    {
        throw std::invalid_argument(q + "ecn: drop-tail cannot mark; choose an AQM discipline");
    }
    if (static_cast<uint8_t>(ecnHandling) > static_cast<uint8_t>(LeoEcnHandling::DROP))
    {
        Fail(q + "ecn_handling", "unknown ECN handling", static_cast<double>(ecnHandling));
    }
    if (ecn && ecnHandling != LeoEcnHandling::PASS)
    {
        throw std::invalid_argument(q + "ecn_handling: a link that cannot carry ECN cannot mark (" +
                                    LeoEcnHandlingName(ecnHandling) +
                                    " with ecn on); use 'pass' or turn ecn off");
    }
    Positive(q + "target_ms", codelTargetS);
    Positive(q + "interval_ms", codelIntervalS);
    if (codelTargetS >= codelIntervalS)
    {
        Fail(q + "target_ms", "must be below interval_ms", codelTargetS * 1e3);
    }
    if (fqFlows < 1 || fqFlows > 65536)
    {
        Fail(q + "flows", "must be in [1, 65536]", fqFlows);
    }
    if (fqQuantumBytes < 64)
    {
        Fail(q + "quantum_bytes", "must be >= 64", fqQuantumBytes);
    }
    Positive(q + "target_ms", pieTargetS);
    Positive(q + "t_update_ms", pieTUpdateS);
    Positive(q + "alpha", pieAlpha);
    Positive(q + "beta", pieBeta);
    if (!std::isfinite(pieMaxBurstS) || pieMaxBurstS < 0.0)
    {
        Fail(q + "max_burst_ms", "must be a finite number >= 0", pieMaxBurstS * 1e3);
    }
    if (!(redMinTh > 0.0 && redMinTh < 1.0))
    {
        Fail(q + "min_th", "must be in (0, 1) (a fraction of the queue limit)", redMinTh);
    }
    if (!(redMaxTh > redMinTh && redMaxTh <= 1.0))
    {
        Fail(q + "max_th", "must be in (min_th, 1] (a fraction of the queue limit)", redMaxTh);
    }
    if (!(redMaxP > 0.0 && redMaxP <= 1.0))
    {
        Fail(q + "max_p", "must be in (0, 1]", redMaxP);
    }
    if (!(redWeight > 0.0 && redWeight <= 1.0))
    {
        Fail(q + "weight", "must be in (0, 1]", redWeight);
    }
    if (discipline != LeoQueueDiscipline::DUALPI2)
    {
        return;
    }
    auto within = [&](const char* key, double v, double lo, double hi, double scale) {
        if (!std::isfinite(v) || v < lo || v > hi)
        {
            std::ostringstream why;
            why << "must be in [" << lo * scale << ", " << hi * scale << "]";
            Fail(q + key, why.str(), v * scale);
        }
    };
    Positive(q + "target_ms", dpTargetS);
    within("target_ms", dpTargetS, 0.0, 10.0, 1e3);
    Positive(q + "t_update_ms", dpTUpdateS);
    within("t_update_ms", dpTUpdateS, 0.0, 10.0, 1e3);
    Positive(q + "alpha", dpAlpha);
    within("alpha", dpAlpha, 0.0, 100.0, 1.0);
    Positive(q + "beta", dpBeta);
    within("beta", dpBeta, 0.0, 100.0, 1.0);
    within("k", dpK, 1.0, 64.0, 1.0);
    within("l4s_min_th_ms", dpL4sMinThS, 0.0, 0.010, 1e3);
    within("l4s_range_ms", dpL4sRangeS, 0.0, 0.010, 1e3);
    within("time_shift_ms", dpTimeShiftS, 0.0, 10.0, 1e3);
}

Ptr<QueueDisc>
MakeLeoQueueDisc(const LeoQueueConfig& c,
                 uint32_t limitPackets,
                 double rateBps,
                 uint32_t meanPacketBytes)
{
    ObjectFactory f;
    const QueueSizeValue limit(QueueSize(QueueSizeUnit::PACKETS, limitPackets));
    switch (c.discipline)
    {
    case LeoQueueDiscipline::RED:
        f.SetTypeId(RedQueueDisc::GetTypeId());
        f.Set("MaxSize", limit);
        f.Set("MeanPktSize", UintegerValue(meanPacketBytes));
        f.Set("IdlePktSize", UintegerValue(0));
        // Floyd & Jacobson 1993: the marking probability grows with the count since the last
        // mark (p_a = p_b / (1 - count p_b)), not the later "wait" variant.
        f.Set("Wait", BooleanValue(false));
        f.Set("Gentle", BooleanValue(c.redGentle));
        f.Set("MinTh", DoubleValue(c.redMinTh * limitPackets));
        f.Set("MaxTh", DoubleValue(c.redMaxTh * limitPackets));
        f.Set("QW", DoubleValue(c.redWeight));
        f.Set("LInterm", DoubleValue(1.0 / c.redMaxP));
        f.Set("LinkBandwidth", DataRateValue(DataRate(static_cast<uint64_t>(rateBps))));
        f.Set("UseEcn", BooleanValue(c.ecn));
        f.Set("UseHardDrop", BooleanValue(true));
        break;
    case LeoQueueDiscipline::CODEL:
        f.SetTypeId(CoDelQueueDisc::GetTypeId());
        f.Set("MaxSize", limit);
        f.Set("Target", TimeString(c.codelTargetS));
        f.Set("Interval", TimeString(c.codelIntervalS));
        f.Set("UseEcn", BooleanValue(c.ecn));
        break;
    case LeoQueueDiscipline::FQ_CODEL:
        f.SetTypeId(FqCoDelQueueDisc::GetTypeId());
        f.Set("MaxSize", limit);
        f.Set("Target", TimeString(c.codelTargetS));
        f.Set("Interval", TimeString(c.codelIntervalS));
        f.Set("Flows", UintegerValue(c.fqFlows));
        f.Set("Perturbation", UintegerValue(0));
        f.Set("UseEcn", BooleanValue(c.ecn));
        break;
    case LeoQueueDiscipline::PIE:
        f.SetTypeId(PieQueueDisc::GetTypeId());
        f.Set("MaxSize", limit);
        f.Set("MeanPktSize", UintegerValue(meanPacketBytes));
        f.Set("QueueDelayReference", TimeString(c.pieTargetS));
        f.Set("Tupdate", TimeString(c.pieTUpdateS));
        f.Set("A", DoubleValue(c.pieAlpha));
        f.Set("B", DoubleValue(c.pieBeta));
        f.Set("MaxBurstAllowance", TimeString(c.pieMaxBurstS));
        // RFC 8033 section 5.1: the queue delay from per-packet timestamps (sojourn time).
        f.Set("UseDequeueRateEstimator", BooleanValue(false));
        f.Set("UseEcn", BooleanValue(c.ecn));
        break;
    case LeoQueueDiscipline::DUALPI2:
        f.SetTypeId(LeoDualPi2QueueDisc::GetTypeId());
        f.Set("MaxSize", limit);
        f.Set("Target", TimeString(c.dpTargetS));
        f.Set("Tupdate", TimeString(c.dpTUpdateS));
        f.Set("Alpha", DoubleValue(c.dpAlpha));
        f.Set("Beta", DoubleValue(c.dpBeta));
        f.Set("CouplingFactor", DoubleValue(c.dpK));
        f.Set("MinTh", TimeString(c.dpL4sMinThS));
        f.Set("Range", TimeString(c.dpL4sRangeS));
        f.Set("TimeShift", TimeString(c.dpTimeShiftS));
        f.Set("UseEcn", BooleanValue(c.ecn));
        break;
    case LeoQueueDiscipline::DROPTAIL:
    default:
        throw std::invalid_argument("MakeLeoQueueDisc: drop-tail uses the device's own queue");
    }
    Ptr<QueueDisc> disc = f.Create<QueueDisc>();
    if (c.discipline == LeoQueueDiscipline::FQ_CODEL)
    {
        // Not an attribute: without a device to ask for its MTU, set it before Initialize.
        DynamicCast<FqCoDelQueueDisc>(disc)->SetQuantum(c.fqQuantumBytes);
    }
    disc->Initialize();
    return disc;
}

bool
LeoQueueDropIsOverflow(LeoQueueDiscipline d, const char* reason)
{
    // The limit: CoDel's and FQ-CoDel's "Overlimit drop", an internal queue that is full,
    // and PIE's "Forced drop" (its queue-limit drop; RED's "Forced drop" is avg > max_th).
    if (std::strstr(reason, "Overlimit drop") || std::strstr(reason, "Dropped by internal queue"))
    {
        return true;
    }
    return d == LeoQueueDiscipline::PIE && std::strstr(reason, "Forced drop");
}

} // namespace ns3
