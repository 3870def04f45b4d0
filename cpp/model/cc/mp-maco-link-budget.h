// SPDX-License-Identifier: GPL-2.0-only
//
// MACO's access-link budget: the capacity C^A of the link to the serving satellite from the
// slant range (W. Yang, L. Cai, S. Shu, J. Pan, "Mobility-Aware Congestion Control for
// Multipath QUIC in Integrated Terrestrial Satellite Networks", IEEE TMC 2024,
// doi:10.1109/TMC.2024.3397164; Algorithm 1, eqs. (2)-(3), Table 3).

#ifndef MP_MACO_LINK_BUDGET_H
#define MP_MACO_LINK_BUDGET_H

namespace ns3::maco
{

/// 10^(db / 10).
double DbToLinear(double db);

/**
 * @ingroup mp-cc
 * Link-budget parameters of MACO eqs. (2)-(3), defaults from the paper's Table 3. All
 * quantities are linear inside the equations:
 *
 *   SNR_r   = P_t g1 g2 / ( (4 pi d_r / lambda)^2 N_0 W )                       (2)
 *   C^A_r   = eta W log2(1 + SNR_r)                                             (3)
 *
 * (Table 3: P_t = 35.12 dBm, g1 = 37.7 dBi, g2 = 37.1 dBi, lambda = 0.086 m,
 * N_0 = 1.6e-20 W/Hz, W = 12.5 MHz, eta = 0.98; 198.6 Mbit/s at 550 km.)
 */
struct LinkBudget
{
    double txPowerDbm{35.12};
    double txGainDbi{37.7};
    double rxGainDbi{37.1};
    double wavelengthM{0.086};
    double noisePsdWPerHz{1.6e-20};
    double bandwidthHz{12.5e6};
    double efficiency{0.98};

    /// SNR (linear) at slant range d (m), eq. (2).
    double Snr(double dM) const;
    /// eta W log2(1 + snr), eq. (3) (bit/s).
    double CapacityFromSnr(double snrLinear) const;
    /// C^A at slant range d (m), eqs. (2)-(3) (bit/s).
    double Capacity(double dM) const;
};

} // namespace ns3::maco

#endif // MP_MACO_LINK_BUDGET_H
