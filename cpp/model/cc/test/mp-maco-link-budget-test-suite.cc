// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of MACO's access-link budget, eqs. (2)-(3) (cpp/model/cc/mp-maco-link-budget.h).
//
// Reference values: W. Yang et al., "Mobility-Aware Congestion Control for Multipath QUIC in
// Integrated Terrestrial Satellite Networks", IEEE TMC 2024, Table 3 (the defaults of
// maco::LinkBudget), and the derived tables of docs/specs/maco.md#access-link-capacity and
// #checks.

#include "model/cc/mp-maco-link-budget.h"

#include "ns3/test.h"

#include <cmath>
#include <vector>

using namespace ns3;

namespace
{

/// C^A (Mbit/s) at slant range @p dM with the link budget @p lb.
double
CapacityMbps(const maco::LinkBudget& lb, double dM)
{
    return lb.Capacity(dM) / 1e6;
}

class MacoCapacityChecksTestCase : public TestCase
{
  public:
    MacoCapacityChecksTestCase()
        : TestCase("C^A is 198.6 Mbps at 550 km and 195.5 at 600 km")
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/maco.md#checks item 1: Table 3 with P_t = 35.12 dBm, within 0.1 Mbit/s.
        const maco::LinkBudget table3;
        NS_TEST_EXPECT_MSG_EQ_TOL(CapacityMbps(table3, 550e3), 198.6, 0.1, "C^A(550 km)");
        NS_TEST_EXPECT_MSG_EQ_TOL(CapacityMbps(table3, 600e3), 195.5, 0.1, "C^A(600 km)");
    }
};

class MacoLinkTableTestCase : public TestCase
{
  public:
    MacoLinkTableTestCase()
        : TestCase("SNR and capacity against the slant-range table")
    {
    }

  private:
    void DoRun() override
    {
        struct Row
        {
            double dKm;     //!< slant range (km)
            double snrDb;   //!< eq. (2), dB
            double capMbps; //!< eq. (3), Mbit/s
        };

        // docs/specs/maco.md#access-link-capacity: Table 3 values, P_t = 35.12 dBm.
        const maco::LinkBudget table3;
        for (const Row& r : std::vector<Row>{{550, 48.81, 198.62},
                                             {560, 48.65, 197.98},
                                             {575, 48.42, 197.05},
                                             {600, 48.05, 195.54},
                                             {650, 47.36, 192.71},
                                             {700, 46.71, 190.09},
                                             {800, 45.55, 185.37},
                                             {1000, 43.62, 177.49}})
        {
            const double d = r.dKm * 1e3;
            NS_TEST_EXPECT_MSG_EQ_TOL(10.0 * std::log10(table3.Snr(d)),
                                      r.snrDb,
                                      0.005,
                                      "SNR (dB) at " << r.dKm << " km");
            NS_TEST_EXPECT_MSG_EQ_TOL(CapacityMbps(table3, d),
                                      r.capMbps,
                                      0.005,
                                      "C^A (Mbit/s) at " << r.dKm << " km");
        }
    }
};

class MacoBandwidthTableTestCase : public TestCase
{
  public:
    MacoBandwidthTableTestCase()
        : TestCase("capacity against the beam bandwidth at 550 km")
    {
    }

  private:
    void DoRun() override
    {
        struct Row
        {
            double wMhz;    //!< beam bandwidth W (MHz)
            double capMbps; //!< C^A at 550 km (Mbit/s)
        };

        // docs/specs/maco.md#access-link-capacity: W (MHz) at 550 km -> C^A (Mbit/s).
        for (const Row& r : std::vector<Row>{{5, 85.9},
                                             {10, 162.0},
                                             {12.5, 198.6},
                                             {15, 234.5},
                                             {20, 304.5},
                                             {25, 372.7},
                                             {30, 439.6},
                                             {35, 505.2},
                                             {40, 569.8}})
        {
            maco::LinkBudget lb;
            lb.bandwidthHz = r.wMhz * 1e6;
            NS_TEST_EXPECT_MSG_EQ_TOL(CapacityMbps(lb, 550e3),
                                      r.capMbps,
                                      0.05,
                                      "C^A (Mbit/s) with W = " << r.wMhz << " MHz");
        }
    }
};

class MacoPowerFor200MbpsTestCase : public TestCase
{
  public:
    MacoPowerFor200MbpsTestCase()
        : TestCase("P_t = 35.46 dBm gives 200 Mbps at 550 km")
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/maco.md#access-link-capacity: solving backwards for 200 Mbit/s gives
        // P_t = 35.46 dBm.
        maco::LinkBudget lb;
        lb.txPowerDbm = 35.46;
        NS_TEST_EXPECT_MSG_EQ_TOL(CapacityMbps(lb, 550e3), 200.0, 0.1, "C^A (Mbit/s)");
    }
};

class MpMacoLinkBudgetTestSuite : public TestSuite
{
  public:
    MpMacoLinkBudgetTestSuite()
        : TestSuite("mp-maco-link-budget", Type::UNIT)
    {
        AddTestCase(new MacoCapacityChecksTestCase);
        AddTestCase(new MacoLinkTableTestCase);
        AddTestCase(new MacoBandwidthTableTestCase);
        AddTestCase(new MacoPowerFor200MbpsTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
MpMacoLinkBudgetTestSuite g_mpMacoLinkBudgetTestSuite;

} // namespace
