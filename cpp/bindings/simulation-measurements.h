// SPDX-License-Identifier: GPL-2.0-only
//
// The measurement dict of _core.Simulation: LeoSimulationMeasurements as NumPy arrays under
// the keys of docs/architecture.md, "The native simulation contract".

#ifndef LEOGYM_BINDINGS_SIMULATION_MEASUREMENTS_H
#define LEOGYM_BINDINGS_SIMULATION_MEASUREMENTS_H

#include "helper/leo-simulation.h"

#include <pybind11/pybind11.h>

namespace leogym
{

/**
 * The measurements of one step as the dict that Simulation.step returns: per-path, per-flow,
 * per-subflow and per-route vectors as 1-D arrays, per-link vectors as (n_links, 2) arrays,
 * connection values as 0-d arrays. Called with the GIL held.
 * @param m the measurements (LeoSimulation::GetMeasurements)
 * @return a new dict
 */
pybind11::dict MeasurementsDict(const ns3::LeoSimulationMeasurements& m);

} // namespace leogym

#endif // LEOGYM_BINDINGS_SIMULATION_MEASUREMENTS_H
