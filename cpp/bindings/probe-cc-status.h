// SPDX-License-Identifier: GPL-2.0-only
//
// The controllers' state as the probes of bind-bbr3-testing.cc read it back: BBRv3's model and
// state machine, the DCTCP / Prague ECN estimator and the ECN codepoint, as Python values
// (probe-cc-status.cc).

#ifndef LEOGYM_PROBE_CC_STATUS_H
#define LEOGYM_PROBE_CC_STATUS_H

#include "model/cc/mp-bbr3.h"
#include "model/cc/mp-congestion-ops.h"

#include <pybind11/pybind11.h>

#include "ns3/ptr.h"

#include <cstdint>

namespace leogym
{

/// MpBbr3::GetStatus() of @p b as a dict (rates in bit/s, volumes in bytes, times in s), with
/// the path's @p cwnd.
pybind11::dict Bbr3Status(const ns3::MpBbr3& b, uint64_t cwnd);

/// The DCTCP / Prague ECN estimator of path @p i (controller @p c, through wrappers) as a dict.
/// @throws std::invalid_argument if the path runs neither dctcp nor prague
pybind11::dict EcnCcStatus(ns3::Ptr<ns3::MpCongestionOps> c, uint32_t i);

/// "not_ect", "ect1", "ect0" or "ce".
const char* CodepointName(ns3::MpEcnCodepoint c);

} // namespace leogym

#endif // LEOGYM_PROBE_CC_STATUS_H
