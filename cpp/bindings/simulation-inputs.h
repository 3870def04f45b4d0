// SPDX-License-Identifier: GPL-2.0-only
//
// The three inputs of _core.Simulation (the config dict, the path dicts and the hop network
// dict), parsed and checked into what LeoSimulation is built from (docs/architecture.md, "The
// native simulation contract").

#ifndef LEOGYM_BINDINGS_SIMULATION_INPUTS_H
#define LEOGYM_BINDINGS_SIMULATION_INPUTS_H

#include "helper/leo-simulation.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace leogym
{

/// Everything a LeoSimulation is built from, as SimulationInputsFromPython parsed it.
struct SimulationInputs
{
    ns3::LeoSimulationConfig config;               ///< the config dict
    std::vector<ns3::LeoPathArrays> paths;         ///< one per path dict, queues applied
    std::vector<std::vector<double>> slantRange;   ///< per path: slant_range_m (empty: none)
    std::vector<bool> satellite;                   ///< per path: a satellite path
    std::optional<ns3::LeoHopNetworkSpec> network; ///< the hop topology (none: path mode)
    std::vector<uint32_t> pathRoutes;              ///< per path: its route in the network
};

/**
 * Parse and check the arguments of _core.Simulation: the config dict
 * (SimulationConfigFromDict; its "queues" applied to the paths and links), the list of path
 * dicts (PathArraysFromDict, plus optional kind and slant_range_m) and the hop network dict
 * (None in path mode).
 * @throws std::invalid_argument naming the field
 */
SimulationInputs SimulationInputsFromPython(pybind11::handle config,
                                            pybind11::handle paths,
                                            pybind11::handle network);

/// A 1-D real array (anything np.asarray takes) as doubles. @throws std::invalid_argument
std::vector<double> DoubleVector(pybind11::handle o, const std::string& field);

} // namespace leogym

#endif // LEOGYM_BINDINGS_SIMULATION_INPUTS_H
