// SPDX-License-Identifier: GPL-2.0-only
//
// Python bindings of the network side: path validation, ns-3's TCP variants and the process's
// simulator (lease, reset, node count). The reference flows, the link probe and schedule
// sampling are test probes (bind-network-testing.cc, LEOGYM_TESTING builds).

#include "bindings/leo-python-inputs.h"
#include "bindings/registry.h"
#include "helper/leo-topology.h"
#include "helper/sim-context.h"
#include "model/link/leo-path-schedule.h"

#include <pybind11/stl.h>

#include "ns3/node-list.h"

#include <limits>
#include <stdexcept>

namespace py = pybind11;

LEOGYM_REGISTER_BINDINGS(network)
{
    m.attr("DROP_CAUSES") = py::make_tuple("OUTAGE", "RANDOM", "OVERFLOW");

    m.def(
        "validate_path",
        [](py::handle path) {
            ns3::LeoPathSchedule s(leogym::PathArraysFromDict(path, "path"), "path");
        },
        py::arg("path"),
        "Validate a PathTimeline dict as the link does; raises ValueError naming the field.");

    m.def("tcp_variants",
          &ns3::LeoTopology::ListTcpVariants,
          "Names of the ns-3 TCP congestion controls usable as ``tcp_variant``.");

    py::class_<ns3::SimLease>(m,
                              "SimulatorLease",
                              "Holds the process's ns-3 simulator (see ``hold_simulator``).")
        .def("release",
             &ns3::SimLease::Release,
             "Destroy the simulator and free the process (idempotent).")
        .def_property_readonly("active", &ns3::SimLease::IsActive)
        .def(
            "__enter__",
            [](ns3::SimLease& self) -> ns3::SimLease& { return self; },
            py::return_value_policy::reference_internal)
        .def("__exit__", [](ns3::SimLease& self, py::args) { self.Release(); });

    m.def(
        "hold_simulator",
        [](long long seed, long long run, const std::string& owner) {
            if (seed < 1 || seed > std::numeric_limits<uint32_t>::max())
            {
                throw std::invalid_argument("seed: must be in [1, 2**32 - 1]");
            }
            if (run < 0)
            {
                throw std::invalid_argument("run: must be >= 0");
            }
            return ns3::SimContext::Acquire(owner,
                                            static_cast<uint32_t>(seed),
                                            static_cast<uint64_t>(run));
        },
        py::arg("seed") = 1,
        py::arg("run") = 1,
        py::arg("owner") = "hold_simulator",
        R"doc(Reset ns-3 and reserve the process's simulator until the lease is released.

ns-3 runs one simulation per process: while the lease is active, every other simulation
(``Simulation``, and the ``testing`` probes) raises RuntimeError.

:return: a ``SimulatorLease`` (context manager; ``release()`` is idempotent)
:raises RuntimeError: if a simulation is already open)doc");

    m.def(
        "live_node_count",
        []() { return ns3::NodeList::GetNNodes(); },
        "Number of ns-3 nodes alive in this process (0 after a simulation is closed).");

    m.def("simulation_busy",
          &ns3::SimContext::IsBusy,
          "True while a simulation holds the process's ns-3 simulator.");

    m.def(
        "reset_simulator",
        [](long long seed, long long run) {
            if (seed < 1 || seed > std::numeric_limits<uint32_t>::max())
            {
                throw std::invalid_argument("seed: must be in [1, 2**32 - 1]");
            }
            if (run < 0)
            {
                throw std::invalid_argument("run: must be >= 0");
            }
            ns3::SimContext::Reset(static_cast<uint32_t>(seed), static_cast<uint64_t>(run));
        },
        py::arg("seed") = 1,
        py::arg("run") = 1,
        "Destroy the ns-3 simulator and reset process-global ns-3 state (RuntimeError while a "
        "simulation is open).");
}
