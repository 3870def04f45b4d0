// SPDX-License-Identifier: GPL-2.0-only
//
// The flow dicts of a Simulation config (config["flows"], config["leotp"]) and the small
// list and dict readers the config parser shares.

#ifndef LEOGYM_BINDINGS_FLOW_CONFIG_H
#define LEOGYM_BINDINGS_FLOW_CONFIG_H

#include "helper/leo-simulation.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace leogym
{

/// A dict of {name: number} (bools as 1 and 0). @throws std::invalid_argument naming @p field
std::map<std::string, double> ParamsFromDict(pybind11::handle o, const std::string& field);

/// A list of ints in [@p lo, @p hi]. @throws std::invalid_argument naming @p field
std::vector<uint32_t> IntList(pybind11::handle o,
                              const std::string& field,
                              long long lo,
                              long long hi);

/**
 * The "leotp" dict of a leotp flow or connection: variant ("A" .. "D"),
 * target_buffer_packets, cache_blocks, midnode_fraction and optional protocol constants
 * (cpp/doc/leotp.md, "Parameters"). Ranges are checked with the flow
 * (LeotpFlowSettings::Check). Unknown keys are errors.
 * @throws std::invalid_argument naming @p label.<key>
 */
ns3::LeotpFlowSettings LeotpFromDict(pybind11::handle o, const std::string& label);

/**
 * One flow dict of config["flows"]: transport ("mpquic" | "tcp" | "udp_onoff" | "leotp"),
 * routes, and optionally cc, cc_params, scheduler, scheduler_params, start_s, stop_s,
 * file_bytes, rate_bps, on_s, off_s, leotp, min_rto_s, delayed_ack_s, rto_granularity_s, ecn,
 * name. Unknown keys are errors.
 * @throws std::invalid_argument naming @p label.<key>
 */
ns3::LeoFlowSpec FlowFromDict(pybind11::handle o, const std::string& label);

} // namespace leogym

#endif // LEOGYM_BINDINGS_FLOW_CONFIG_H
