// SPDX-License-Identifier: GPL-2.0-only
//
// ScriptedOracle: the path oracle under the probes of bind-baselines-testing.cc (CcProbe,
// SchedulerProbe), built from a Python description; probe-scripted-oracle.cc has its members.

#ifndef LEOGYM_PROBE_SCRIPTED_ORACLE_H
#define LEOGYM_PROBE_SCRIPTED_ORACLE_H

#include "model/transport/mp-path-oracle.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace leogym
{

/**
 * A path oracle from a Python description: piecewise-constant link states, handover
 * instants and outage intervals.
 *
 * The dict's keys: satellite (default true); states, a list of dicts {t, delay_down_s,
 * delay_up_s, capacity_down_bps, capacity_up_bps, snr_db, elevation_deg, slant_range_m,
 * serving_sat} (sorted by t; none: one default state); handovers, a list of instants;
 * outages, a list of [start, end) intervals.
 */
class ScriptedOracle : public ns3::MpPathOracle
{
  public:
    /// @throws std::invalid_argument if an outage interval does not have end > start
    explicit ScriptedOracle(const pybind11::dict& spec);

    bool IsSatellite() const override;
    LinkState StateAt(double t) const override;
    double NextHandoverAfter(double t) const override;
    double LastHandoverAtOrBefore(double t) const override;
    uint32_t CountHandovers(double t1, double t2) const override;
    bool InOutage(double t) const override;
    std::pair<double, double> NextOutageAfter(double t) const override;
    LinkState NextPathAfterHandover(double t) const override;

  private:
    bool m_satellite{true};
    std::vector<LinkState> m_states;
    std::vector<double> m_handovers;
    std::vector<std::pair<double, double>> m_outages;
};

} // namespace leogym

#endif // LEOGYM_PROBE_SCRIPTED_ORACLE_H
