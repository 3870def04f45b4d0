// SPDX-License-Identifier: GPL-2.0-only
//
// _core.testing (queue disciplines, LEOGYM_TESTING builds only): drive a link's queue disc
// directly, with the queue held at a chosen length, for the RED arithmetic test; drive a
// DualPI2 disc in simulated time (its controller, classification and scheduler).

#include "bindings/leo-python-inputs.h"
#include "bindings/registry.h"
#include "helper/sim-context.h"
#include "model/network/leo-shim-header.h"
#include "model/queue/leo-dual-pi2-queue-disc.h"
#include "model/queue/leo-queue-config.h"
#include "model/queue/leo-queue-disc-item.h"

#include <pybind11/stl.h>

#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/queue-disc.h"
#include "ns3/simulator.h"

#include <cmath>
#include <cstdint>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace
{

/// Drop and mark counts of a driven queue disc.
struct DriveCounts
{
    ns3::LeoQueueDiscipline discipline;
    uint64_t overflow{0};
    uint64_t aqm{0};
    uint64_t marks{0};

    void Drop(ns3::Ptr<const ns3::QueueDiscItem>, const char* reason)
    {
        ++(ns3::LeoQueueDropIsOverflow(discipline, reason) ? overflow : aqm);
    }

    void Mark(ns3::Ptr<const ns3::QueueDiscItem>, const char*)
    {
        ++marks;
    }
};

py::dict
DriveQueueDisc(py::handle queue,
               uint32_t limitPackets,
               uint32_t standing,
               uint64_t n,
               double rateBps,
               uint32_t packetBytes,
               uint32_t seed,
               uint64_t run)
{
    const ns3::LeoQueueConfig config = leogym::QueueConfigFromDict(queue, "queue");
    if (config.discipline == ns3::LeoQueueDiscipline::DROPTAIL)
    {
        throw std::invalid_argument("queue.discipline: drive an AQM discipline");
    }
    if (limitPackets < 1 || standing < 1 || standing >= limitPackets)
    {
        throw std::invalid_argument("standing: must be in [1, limit_packets)");
    }
    if (!(rateBps > 0.0) || packetBytes < 1)
    {
        throw std::invalid_argument("rate_bps and packet_bytes: must be > 0");
    }
    std::unique_ptr<ns3::SimLease> lease = ns3::SimContext::Acquire("drive_queue_disc", seed, run);
    ns3::Ptr<ns3::QueueDisc> disc =
        ns3::MakeLeoQueueDisc(config, limitPackets, rateBps, packetBytes);
    DriveCounts counts{config.discipline};
    for (const char* trace : {"DropBeforeEnqueue", "DropAfterDequeue"})
    {
        disc->TraceConnectWithoutContext(trace, ns3::MakeCallback(&DriveCounts::Drop, &counts));
    }
    disc->TraceConnectWithoutContext("Mark", ns3::MakeCallback(&DriveCounts::Mark, &counts));
    auto item = [packetBytes]() {
        return ns3::Create<ns3::LeoQueueDiscItem>(ns3::Create<ns3::Packet>(packetBytes), 0);
    };
    for (uint64_t tries = 0; disc->GetNPackets() < standing; ++tries)
    {
        if (tries > 1000ull * standing)
        {
            disc->Dispose();
            throw std::invalid_argument(
                "standing: the discipline drops every arrival before the queue reaches it");
        }
        disc->Enqueue(item());
    }
    counts = DriveCounts{config.discipline};
    uint64_t accepted = 0;
    const std::clock_t c0 = std::clock();
    for (uint64_t i = 0; i < n; ++i)
    {
        // One arrival; one departure whenever it was kept, so every arrival sees `standing`
        // packets in the queue.
        disc->Enqueue(item());
        if (disc->GetNPackets() > standing)
        {
            disc->Dequeue();
            ++accepted;
        }
    }
    const double cpuS = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    disc->Dispose();
    lease->Release();
    py::dict d;
    d["arrivals"] = n;
    d["accepted"] = accepted;
    d["drops_overflow"] = counts.overflow;
    d["drops_aqm"] = counts.aqm;
    d["marks"] = counts.marks;
    d["cpu_s"] = cpuS;
    return d;
}

/// A packet of @p bytes with an IPv4 (protocol 0x0800) or shim (0x88B5) header carrying
/// the ECN codepoint @p ecn.
ns3::Ptr<ns3::LeoQueueDiscItem>
EcnItem(uint8_t ecn, bool shim, uint32_t bytes)
{
    using ns3::LeoQueueDiscItem;
    if (shim)
    {
        ns3::Ptr<ns3::Packet> p = ns3::Create<ns3::Packet>(bytes - ns3::LeoShimHeader::kSize);
        ns3::LeoShimHeader h;
        h.ecn = ecn;
        h.length = static_cast<uint16_t>(bytes - ns3::LeoShimHeader::kSize);
        p->AddHeader(h);
        return ns3::Create<LeoQueueDiscItem>(p, LeoQueueDiscItem::kShimProtocol);
    }
    ns3::Ptr<ns3::Packet> p = ns3::Create<ns3::Packet>(bytes - 20);
    ns3::Ipv4Header h;
    h.SetProtocol(17);
    h.SetPayloadSize(bytes - 20);
    h.SetEcn(static_cast<ns3::Ipv4Header::EcnType>(ecn));
    p->AddHeader(h);
    return ns3::Create<LeoQueueDiscItem>(p, LeoQueueDiscItem::kIpv4Protocol);
}

/// The ECN codepoint of a dequeued item.
int
DequeuedCodepoint(const ns3::Ptr<ns3::QueueDiscItem>& item)
{
    auto* leo = dynamic_cast<ns3::LeoQueueDiscItem*>(ns3::PeekPointer(item));
    return leo ? leo->GetEcnCodepoint() : -1;
}

py::dict
DriveDualPi2(py::handle queue,
             uint32_t limitPackets,
             const std::vector<double>& arrivalsS,
             const std::vector<int>& codepoints,
             const std::vector<double>& dequeuesS,
             const std::vector<double>& samplesS,
             double untilS,
             const std::string& protocol,
             uint32_t packetBytes,
             uint32_t seed)
{
    ns3::LeoQueueConfig config = leogym::QueueConfigFromDict(queue, "queue");
    if (config.discipline != ns3::LeoQueueDiscipline::DUALPI2)
    {
        throw std::invalid_argument("queue.discipline: must be 'dualpi2'");
    }
    if (arrivalsS.size() != codepoints.size())
    {
        throw std::invalid_argument("codepoints: one per arrival");
    }
    for (int c : codepoints)
    {
        if (c < 0 || c > 3)
        {
            throw std::invalid_argument("codepoints: each in [0, 3]");
        }
    }
    if (protocol != "ipv4" && protocol != "shim")
    {
        throw std::invalid_argument("protocol: 'ipv4' or 'shim'");
    }
    if (packetBytes < 64 || packetBytes > 9000 || limitPackets < 1)
    {
        throw std::invalid_argument("packet_bytes in [64, 9000], limit_packets >= 1");
    }
    auto checkTimes = [untilS](const std::vector<double>& v, const char* name) {
        for (double t : v)
        {
            if (!std::isfinite(t) || t < 0.0 || t > untilS)
            {
                throw std::invalid_argument(std::string(name) + ": times in [0, until_s]");
            }
        }
    };
    if (!std::isfinite(untilS) || untilS <= 0.0 || untilS > 1e4)
    {
        throw std::invalid_argument("until_s: must be in (0, 1e4]");
    }
    checkTimes(arrivalsS, "arrivals_s");
    checkTimes(dequeuesS, "dequeues_s");
    checkTimes(samplesS, "samples_s");
    std::unique_ptr<ns3::SimLease> lease = ns3::SimContext::Acquire("drive_dualpi2", seed, 1);
    ns3::Ptr<ns3::QueueDisc> disc = ns3::MakeLeoQueueDisc(config, limitPackets, 10e6, packetBytes);
    auto dp = ns3::DynamicCast<ns3::LeoDualPi2QueueDisc>(disc);
    DriveCounts counts{config.discipline};
    for (const char* trace : {"DropBeforeEnqueue", "DropAfterDequeue"})
    {
        disc->TraceConnectWithoutContext(trace, ns3::MakeCallback(&DriveCounts::Drop, &counts));
    }
    disc->TraceConnectWithoutContext("Mark", ns3::MakeCallback(&DriveCounts::Mark, &counts));
    const bool shim = protocol == "shim";
    for (std::size_t i = 0; i < arrivalsS.size(); ++i)
    {
        const auto ecn = static_cast<uint8_t>(codepoints[i]);
        ns3::Simulator::Schedule(ns3::Seconds(arrivalsS[i]), [disc, ecn, shim, packetBytes]() {
            disc->Enqueue(EcnItem(ecn, shim, packetBytes));
        });
    }
    std::vector<int> dequeued(dequeuesS.size(), -2);
    for (std::size_t i = 0; i < dequeuesS.size(); ++i)
    {
        ns3::Simulator::Schedule(ns3::Seconds(dequeuesS[i]), [disc, &dequeued, i]() {
            ns3::Ptr<ns3::QueueDiscItem> item = disc->Dequeue();
            dequeued[i] = item ? DequeuedCodepoint(item) : -1;
        });
    }
    std::vector<double> sampled(samplesS.size(), 0.0);
    for (std::size_t i = 0; i < samplesS.size(); ++i)
    {
        ns3::Simulator::Schedule(ns3::Seconds(samplesS[i]),
                                 [dp, &sampled, i]() { sampled[i] = dp->GetBaseProbability(); });
    }
    ns3::Simulator::Stop(ns3::Seconds(untilS));
    ns3::Simulator::Run();
    py::dict d;
    d["base_probability"] = sampled;
    d["dequeued_codepoints"] = dequeued;
    d["l_packets"] = disc->GetInternalQueue(ns3::LeoDualPi2QueueDisc::kLQueue)->GetNPackets();
    d["c_packets"] = disc->GetInternalQueue(ns3::LeoDualPi2QueueDisc::kCQueue)->GetNPackets();
    d["drops_overflow"] = counts.overflow;
    d["drops_aqm"] = counts.aqm;
    d["marks"] = counts.marks;
    disc->Dispose();
    lease->Release();
    return d;
}

} // namespace

LEOGYM_REGISTER_BINDINGS(queue_testing)
{
    py::module_ t = m.def_submodule("testing", "Probes for unit tests of native components.");
    t.def("drive_dualpi2",
          &DriveDualPi2,
          py::arg("queue"),
          py::arg("limit_packets"),
          py::arg("arrivals_s"),
          py::arg("codepoints"),
          py::arg("dequeues_s"),
          py::arg("samples_s"),
          py::arg("until_s"),
          py::arg("protocol") = "ipv4",
          py::arg("packet_bytes") = 1000,
          py::arg("seed") = 1,
          R"doc(Drive a DualPI2 queue disc (``queue["discipline"] == "dualpi2"``) without a link,
in simulated time: packets with the given ECN codepoints (0 Not-ECT, 1 ECT(1), 2 ECT(0),
3 CE) arrive at ``arrivals_s`` (IPv4 or shim headers), one packet is dequeued at each of
``dequeues_s``, and the base probability p' is read at each of ``samples_s``; the
controller updates every Tupdate from t = 0.

:return: dict ``base_probability`` (one per sample), ``dequeued_codepoints`` (the codepoint
    of each dequeued packet, -1 when the disc was empty), ``l_packets`` and ``c_packets``
    (the L and C queues at ``until_s``), ``drops_overflow``, ``drops_aqm``, ``marks``
:raises ValueError: on invalid input (the message names the field))doc");
    t.def("drive_queue_disc",
          &DriveQueueDisc,
          py::arg("queue"),
          py::arg("limit_packets"),
          py::arg("standing"),
          py::arg("n"),
          py::arg("rate_bps") = 10e6,
          py::arg("packet_bytes") = 1000,
          py::arg("seed") = 1,
          py::arg("run") = 1,
          R"doc(Drive a link's queue disc without a link: fill it to ``standing`` packets, then
``n`` times enqueue one packet and, if it was kept, dequeue one (simulated time stands still,
so time-based disciplines see zero sojourn). For RED with ``weight`` 1 every arrival sees an
average queue of exactly ``standing``.

:param queue: a queue dict (``discipline`` not ``droptail``), as in a path dict
:param limit_packets: the queue limit (packets)
:param standing: the held queue length, in [1, limit_packets)
:return: dict ``arrivals``, ``accepted``, ``drops_overflow``, ``drops_aqm``, ``marks``,
    ``cpu_s`` (CPU time of the driving loop)
:raises ValueError: on invalid input (the message names the field))doc");
}
