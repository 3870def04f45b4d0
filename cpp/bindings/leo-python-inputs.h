// SPDX-License-Identifier: GPL-2.0-only
//
// Conversion of Python inputs (dicts of NumPy arrays, option dicts) into the network side's
// C++ structs, with validation. Shared by bind-network.cc and the Simulation facade.

#ifndef LEOGYM_BINDINGS_LEO_PYTHON_INPUTS_H
#define LEOGYM_BINDINGS_LEO_PYTHON_INPUTS_H

#include "bindings/config-ranges.h"
#include "helper/leo-topology.h"
#include "model/link/leo-link-counters.h"
#include "model/link/leo-path-schedule.h"

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace leogym
{

/**
 * Convert one PathTimeline dict (docs/architecture.md) to LeoPathArrays.
 *
 * Required keys: dt_s, queue_packets, delay_down_s, delay_up_s, rate_down_bps, rate_up_bps,
 * loss_down, loss_up. Optional: name, t0_s (0), snr_db, elevation_deg, serving_sat, outages
 * (shape (k, 2) or empty), handovers, queue (a dict: QueueConfigFromDict). Other keys are
 * ignored. Arrays may be anything
 * np.asarray(x, dtype=float64) accepts; they must be 1-D.
 *
 * @param label how the path is named in errors, e.g. "paths[0]"
 * @throws std::invalid_argument naming label.field
 */
ns3::LeoPathArrays PathArraysFromDict(pybind11::handle path, const std::string& label);

/**
 * Convert a queue dict (docs/scenario.md, "Queue disciplines"): discipline ("droptail", "red",
 * "codel", "fq_codel", "pie", "dualpi2") and optionally ecn, target_ms, interval_ms, flows,
 * quantum_bytes, t_update_ms, alpha, beta, max_burst_ms, min_th, max_th, max_p, weight,
 * gentle, k, l4s_min_th_ms, l4s_range_ms, time_shift_ms (target_ms, t_update_ms, alpha and
 * beta are DualPI2's for "dualpi2", PIE's for "pie"; target_ms is CoDel's TARGET otherwise).
 * Keys that do not apply to the discipline are ignored; unknown keys are errors.
 * @throws std::invalid_argument naming label.field
 */
ns3::LeoQueueConfig QueueConfigFromDict(pybind11::handle queue, const std::string& label);

/// A list of path dicts ("paths[i]" in errors). @throws std::invalid_argument
std::vector<ns3::LeoPathArrays> PathArraysFromList(pybind11::handle paths,
                                                   const std::string& label = "paths");

/**
 * Convert one cross-traffic dict: kind ("tcp_bulk" | "udp_onoff"), path, and optionally
 * direction ("down" | "up"), start_s, stop_s, tcp_variant, max_bytes, segment_bytes,
 * snd_buf_bytes, rate_bps, packet_bytes, on_s, off_s. Unknown keys are errors.
 * @throws std::invalid_argument naming label.field
 */
ns3::LeoCrossTrafficSpec CrossTrafficFromDict(pybind11::handle spec, const std::string& label);

/// A list of cross-traffic dicts ("cross_traffic[i]" in errors).
std::vector<ns3::LeoCrossTrafficSpec> CrossTrafficFromList(
    pybind11::handle specs,
    const std::string& label = "cross_traffic");

/// "down" -> DOWN, "up" -> UP. @throws std::invalid_argument naming @p field
ns3::LeoDirection DirectionFromString(const std::string& s, const std::string& field);

/// Counters as a dict of ints: enqueued_packets, tx_packets, tx_bytes, rx_packets, rx_bytes,
/// drops_outage, drops_random, drops_overflow, drops_aqm, drop_bytes_outage, drop_bytes_random,
/// drop_bytes_overflow, drop_bytes_aqm, mark_packets, mark_bytes.
pybind11::dict CountersToDict(const ns3::LeoDirectionCounters& c);

// Dict and list access, shared by the parsers of leo-python-inputs.cc and
// leo-python-inputs-paths.cc.

/// @throws std::invalid_argument "field: message"
[[noreturn]] void Fail(const std::string& field, const std::string& message);

/// Whether @p key is absent from @p d or None.
bool IsMissing(const pybind11::dict& d, const char* key);

/// @p o as a dict. @throws std::invalid_argument naming @p field unless it is one
pybind11::dict AsDict(pybind11::handle o, const std::string& field);

/// The items of a sequence other than a str or a dict.
/// @throws std::invalid_argument naming @p field for anything else
std::vector<pybind11::handle> AsSequence(pybind11::handle o, const std::string& field);

/// Whether @p o converts to a complex NumPy array (rejected where a real array is expected).
bool IsComplex(pybind11::handle o);

// Scalar helpers (errors name @p field; str and bool are rejected for numbers).
bool ToBool(pybind11::handle o, const std::string& field);
double ToDouble(pybind11::handle o, const std::string& field);
long long ToInt(pybind11::handle o, const std::string& field, long long lo, long long hi);
std::string ToString(pybind11::handle o, const std::string& field);

/// An int in @p range (config-ranges.h). @throws std::invalid_argument naming @p field
long long ToIntIn(pybind11::handle o, const std::string& field, IntRange range);

/// A finite number in @p range (config-ranges.h; an open end refuses its bound).
/// @throws std::invalid_argument naming @p field
double ToRealIn(pybind11::handle o, const std::string& field, RealRange range);

/// ToRealIn for a number of seconds (the message says so).
/// @throws std::invalid_argument naming @p field
double ToSecondsIn(pybind11::handle o, const std::string& field, RealRange range);

} // namespace leogym

#endif // LEOGYM_BINDINGS_LEO_PYTHON_INPUTS_H
