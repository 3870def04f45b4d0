// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of PccVivaceRateControl: PCC Vivace's gradient ascent with its confidence
// amplifier and dynamic change boundary (M. Dong et al., "PCC Vivace: Online-Learning
// Congestion Control", NSDI 2018; cpp/doc/vivace.md), the steps worked by hand.

#include "model/tcp/pcc-vivace-rate-control.h"
#include "test/leogym-test.h"

#include "ns3/test.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace ns3;
using ns3::leogymtest::Contains;
using ns3::leogymtest::InvalidArgument;

namespace
{

/// The defaults (theta0 = 1 Mbit/s, omega0 = 0.05, delta = 0.06, kappa = 0.5) within
/// [@p minRateBps, @p maxRateBps].
PccVivaceRateControl::Params
Params(double minRateBps = 1e5, double maxRateBps = 4e9)
{
    PccVivaceRateControl::Params p;
    p.theta0Mbps = 1.0;
    p.omega0 = 0.05;
    p.omegaStep = 0.06;
    p.amplifierStep = 0.5;
    p.minRateBps = minRateBps;
    p.maxRateBps = maxRateBps;
    return p;
}

class VivaceGradientStepsTestCase : public TestCase
{
  public:
    VivaceGradientStepsTestCase()
        : TestCase("gradient steps with the amplifier and the change boundary")
    {
    }

  private:
    void DoRun() override
    {
        // theta0 = 1 Mbit/s, omega0 = 0.05, delta = 0.06, m(tau) = 1 + 0.5 (tau - 1); from
        // 10 Mbit/s.
        struct Want
        {
            double gradient;
            double rateMbps;
            uint32_t tau;
            double m;
            bool bounded;
            uint32_t k;
            double omega; //!< the next step's boundary
        };

        const std::vector<Want> want{
            {3, 10.5, 1, 1.0, true, 1, 0.11},            // 3 Mbit/s cut to 5 % of 10
            {3, 11.655, 2, 1.5, true, 2, 0.17},          // 4.5 cut to 11 % of 10.5
            {3, 13.63635, 3, 2.0, true, 3, 0.23},        // 6 cut to 17 % of 11.655
            {-3, 12.9545325, 1, 1.0, true, 1, 0.11},     // new direction: -3 cut to 5 % of 13.63635
            {0.1, 13.0545325, 1, 1.0, false, 0, 0.05},   // new direction: 0.1 fits in 5 %
            {0.5, 13.707259125, 2, 1.5, true, 1, 0.11},  // 0.75 cut to 5 % of 13.0545325
            {0.5, 14.707259125, 3, 2.0, false, 1, 0.11}, // 1.0 = 7.3 %: within 11 %, k = 1
            {0.0, 14.707259125, 3, 2.0, false, 1, 0.11}, // a zero gradient changes nothing
        };
        PccVivaceRateControl control(Params());
        double rate = 10e6;
        for (size_t i = 0; i < want.size(); ++i)
        {
            const Want& w = want[i];
            rate = control.Step(rate, w.gradient);
            NS_TEST_EXPECT_MSG_EQ_TOL(rate,
                                      w.rateMbps * 1e6,
                                      w.rateMbps * 1e-6,
                                      "rate, step " << i);
            NS_TEST_EXPECT_MSG_EQ(control.GetConsecutive(), w.tau, "tau, step " << i);
            NS_TEST_EXPECT_MSG_EQ(control.GetLastStepBounded(), w.bounded, "bounded, step " << i);
            NS_TEST_EXPECT_MSG_EQ(control.GetBoundarySteps(), w.k, "k, step " << i);
            NS_TEST_EXPECT_MSG_EQ_TOL(control.GetAmplifier(), w.m, w.m * 1e-6, "m, step " << i);
            NS_TEST_EXPECT_MSG_EQ_TOL(control.GetChangeBound(),
                                      w.omega,
                                      w.omega * 1e-6,
                                      "next omega, step " << i);
        }
    }
};

class VivaceRateLimitsTestCase : public TestCase
{
  public:
    VivaceRateLimitsTestCase()
        : TestCase("steps stop at the lowest and the highest rate")
    {
    }

  private:
    void DoRun() override
    {
        // Down by 5 %, 11 %, then 17 % would fall below the floor.
        PccVivaceRateControl low(Params(1.5e5));
        double rate = 2e5;
        const std::vector<double> want{1.9e5, 1.691e5, 1.5e5};
        for (size_t i = 0; i < want.size(); ++i)
        {
            rate = low.Step(rate, -1e9);
            NS_TEST_EXPECT_MSG_EQ_TOL(rate, want[i], want[i] * 1e-6, "down, step " << i);
        }
        PccVivaceRateControl high(Params(1e5, 1e7));
        NS_TEST_EXPECT_MSG_EQ_TOL(high.Step(9.9e6, 1e9), 1e7, 10, "up to the ceiling");
    }
};

class VivaceRateBadValuesTestCase : public TestCase
{
  public:
    VivaceRateBadValuesTestCase()
        : TestCase("bad rate-control inputs name the field")
    {
    }

  private:
    void DoRun() override
    {
        PccVivaceRateControl::Params omega = Params();
        omega.omega0 = 0.0;
        std::string e = InvalidArgument([&omega] { PccVivaceRateControl c(omega); });
        NS_TEST_EXPECT_MSG_EQ(Contains(e, "omega0"), true, "'" << e << "'");
        PccVivaceRateControl::Params amplifier = Params();
        amplifier.amplifierStep = -1.0;
        e = InvalidArgument([&amplifier] { PccVivaceRateControl c(amplifier); });
        NS_TEST_EXPECT_MSG_EQ(Contains(e, "amplifier_step"), true, "'" << e << "'");
        e = InvalidArgument([] { PccVivaceRateControl c(Params(2e7, 1e7)); });
        NS_TEST_EXPECT_MSG_EQ(Contains(e, "max_rate_bps"), true, "'" << e << "'");
        e = InvalidArgument([] {
            PccVivaceRateControl c(Params());
            c.Step(1e7, std::numeric_limits<double>::quiet_NaN());
        });
        NS_TEST_EXPECT_MSG_EQ(Contains(e, "gradient"), true, "'" << e << "'");
    }
};

class PccVivaceRateControlTestSuite : public TestSuite
{
  public:
    PccVivaceRateControlTestSuite()
        : TestSuite("pcc-vivace-rate-control", Type::UNIT)
    {
        AddTestCase(new VivaceGradientStepsTestCase);
        AddTestCase(new VivaceRateLimitsTestCase);
        AddTestCase(new VivaceRateBadValuesTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
PccVivaceRateControlTestSuite g_pccVivaceRateControlTestSuite;

} // namespace
