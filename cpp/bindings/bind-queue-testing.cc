// SPDX-License-Identifier: GPL-2.0-only
//
// _core.testing (queue disciplines, LEOGYM_TESTING builds only): drive a link's queue disc
// directly, with the queue held at a chosen length, for the RED arithmetic test.

#include "bindings/leo-python-inputs.h"
#include "bindings/registry.h"
#include "helper/sim-context.h"
#include "model/queue/leo-queue-config.h"
#include "model/queue/leo-queue-disc-item.h"

#include "ns3/packet.h"
#include "ns3/queue-disc.h"

#include <cstdint>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <string>

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

} // namespace

LEOGYM_REGISTER_BINDINGS(queue_testing)
{
    py::module_ t = m.def_submodule("testing", "Probes for unit tests of native components.");
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
