// SPDX-License-Identifier: GPL-2.0-only
//
// Input checks shared by the unit-test probes (bind-*-testing.cc): Python values turned into
// ns-3 ones, with a std::invalid_argument (a Python ValueError) naming the field when bad.

#ifndef LEOGYM_PROBE_INPUTS_H
#define LEOGYM_PROBE_INPUTS_H

#include "model/registry/mp-algorithm-registry.h"

#include <pybind11/pybind11.h>

#include "ns3/nstime.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace leogym
{

/// Seconds `s` as a Time. @throws std::invalid_argument naming `field` unless finite and >= 0
inline ns3::Time
SecondsChecked(double s, const char* field)
{
    if (!std::isfinite(s) || s < 0)
    {
        throw std::invalid_argument(std::string(field) + ": must be finite and >= 0");
    }
    return ns3::Seconds(s);
}

/// A probe's `params` dict ({attribute name: number}) as registry parameters; the registry
/// checks the names and values when it creates the algorithm.
inline ns3::MpAlgorithmRegistry::Params
ProbeParams(const pybind11::dict& params)
{
    ns3::MpAlgorithmRegistry::Params ps;
    for (auto item : params)
    {
        ps[pybind11::cast<std::string>(item.first)] = pybind11::cast<double>(item.second);
    }
    return ps;
}

} // namespace leogym

#endif // LEOGYM_PROBE_INPUTS_H
