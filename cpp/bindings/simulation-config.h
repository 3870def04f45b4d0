// SPDX-License-Identifier: GPL-2.0-only
//
// The config dict of _core.Simulation, parsed and checked into LeoSimulationConfig
// (docs/architecture.md, "The native simulation contract").

#ifndef LEOGYM_BINDINGS_SIMULATION_CONFIG_H
#define LEOGYM_BINDINGS_SIMULATION_CONFIG_H

#include "bindings/config-ranges.h"
#include "bindings/leo-python-inputs.h"
#include "helper/leo-simulation.h"

#include <pybind11/pybind11.h>

#include <map>
#include <string>

namespace leogym
{

/**
 * How errors name the keys of a config dict: "config.<key>", or the caller's field path for
 * the key where the optional config["field_paths"] (a dict {key: field path}) has one. The
 * caller passes the user-facing path of each key it sets (``env.transport.ack_every``), so
 * that an error names the user's field as it is.
 */
class ConfigFieldNames
{
  public:
    /// The names of @p config (a dict). @throws std::invalid_argument for a bad field_paths
    explicit ConfigFieldNames(pybind11::handle config);

    /// The name of config key @p key in errors.
    std::string operator()(const std::string& key) const;

  private:
    std::map<std::string, std::string> m_paths; ///< key -> field path
};

/**
 * Parse and check the config dict (every key optional; unknown keys are errors; the keys are
 * listed in the docstring of _core.Simulation). Errors name the keys by ConfigFieldNames.
 * @throws std::invalid_argument naming the field
 */
ns3::LeoSimulationConfig SimulationConfigFromDict(pybind11::handle config);

/// "active" | "standby" | "deactivated". @throws std::invalid_argument naming @p field
ns3::MpPathState PathStateFromString(const std::string& s, const std::string& field);

} // namespace leogym

#endif // LEOGYM_BINDINGS_SIMULATION_CONFIG_H
