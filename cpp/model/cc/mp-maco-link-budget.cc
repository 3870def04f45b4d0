// SPDX-License-Identifier: GPL-2.0-only

#include "mp-maco-link-budget.h"

#include <algorithm>
#include <cmath>

namespace ns3::maco
{

double
DbToLinear(double db)
{
    return std::pow(10.0, db / 10.0);
}

// MACO eq. (2): free-space path loss (4 pi d / lambda)^2 between the antennas.
double
LinkBudget::Snr(double dM) const
{
    double pt = DbToLinear(txPowerDbm - 30.0); // W
    double fspl = std::pow(4.0 * M_PI * dM / wavelengthM, 2.0);
    return pt * DbToLinear(txGainDbi) * DbToLinear(rxGainDbi) /
           (fspl * noisePsdWPerHz * bandwidthHz);
}

// MACO eq. (3): Shannon capacity scaled by the system efficiency eta.
double
LinkBudget::CapacityFromSnr(double snrLinear) const
{
    return efficiency * bandwidthHz * std::log2(1.0 + std::max(snrLinear, 0.0));
}

double
LinkBudget::Capacity(double dM) const
{
    return CapacityFromSnr(Snr(dM));
}

} // namespace ns3::maco
