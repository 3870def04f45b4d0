// SPDX-License-Identifier: GPL-2.0-only
//
// The state and counters of a LEOTP flow as a Python dict (_core.Simulation.leotp_stats).

#ifndef LEOGYM_LEOTP_STATS_H
#define LEOGYM_LEOTP_STATS_H

#include "helper/leotp-flow.h"

#include <pybind11/pybind11.h>

#include <functional>
#include <string>
#include <vector>

namespace leogym
{

/**
 * The Consumer's, the Producer's and every Midnode's counters and state of @p flow
 * (cpp/doc/leotp.md, "Measurements"). Each Midnode's mean_buffer_bytes covers the time since
 * the previous call. @p nodeName names a node index (empty: none).
 * @param samples add the per-chunk one-way delays (NumPy arrays)
 */
pybind11::dict LeotpStatsDict(ns3::LeotpFlow& flow,
                              const std::function<std::string(uint32_t)>& nodeName,
                              bool samples);

/**
 * The first-copy one-way delays of a flow's data (Simulation.recovery_stats): counts, means
 * and medians of the never-retransmitted and the retransmitted copies, and the recovery time
 * (the paper's Fig. 10 metric: the retransmitted copies' delay less the median of the others).
 * @param clean delays of data never retransmitted before their first arrival (s)
 * @param retx delays of retransmitted data, from the first transmission (s)
 * @param nClean, nRetx how many there were (the samples may be capped)
 * @param samples add the delays as NumPy arrays
 */
pybind11::dict RecoveryStatsDict(const std::vector<double>& clean,
                                 const std::vector<double>& retx,
                                 uint64_t nClean,
                                 uint64_t nRetx,
                                 bool samples);

} // namespace leogym

#endif // LEOGYM_LEOTP_STATS_H
