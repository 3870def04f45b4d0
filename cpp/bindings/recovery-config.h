// SPDX-License-Identifier: GPL-2.0-only
//
// The loss-recovery settings of a connection from Python: a preset name and optional values
// that override the preset's (config keys `recovery` and `recovery_params`).

#ifndef LEOGYM_BINDINGS_RECOVERY_CONFIG_H
#define LEOGYM_BINDINGS_RECOVERY_CONFIG_H

#include "model/transport/mp-recovery-preset.h"

#include <pybind11/pybind11.h>

#include <string>

namespace leogym
{

/**
 * The recovery of preset @p preset with the values in @p params (a dict, or None) applied.
 *
 * Keys of @p params (each optional; the preset's value otherwise; numeric ranges in
 * config-ranges.h, generated from the Python schema): min_rto_s, max_rto_s (0: no cap),
 * initial_rto_s, rto_formula ("rfc6298" | "linux" | "quic"), rto_backoff ("double" | "xor" |
 * "picoquic"), tail_loss_probes, tlp_timing ("draft" | "module"), time_threshold_loss,
 * detect_lost_retransmissions, rto_undo, slow_start_after_idle, loss_state, fast_retransmit,
 * prr (bools), loss_window_packets, rto_probes, verified_window_packets. `rfc9002` takes none
 * of them.
 *
 * @param field how the preset is named in errors (e.g. "config.recovery"); the params are
 *        named field + "_params.<key>"
 * @throws std::invalid_argument naming the field
 */
ns3::MpRecoveryConfig RecoveryFromPython(const std::string& preset,
                                         pybind11::handle params,
                                         const std::string& field);

/// The values of a recovery, keyed as RecoveryFromPython reads them.
pybind11::dict RecoveryToDict(const ns3::MpRecoveryConfig& c);

} // namespace leogym

#endif // LEOGYM_BINDINGS_RECOVERY_CONFIG_H
