// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of PCC Vivace's utility, its loss tolerance and the RTT gradient of a monitor
// interval (cpp/model/tcp/pcc-vivace-utility.h; cpp/doc/vivace.md).
//
// Reference values come from the paper (M. Dong et al., "PCC Vivace: Online-Learning
// Congestion Control", NSDI 2018): the utility u = x^t - b x dRTT/dT - c x L with t = 0.9,
// b = 900, c = 11.35 (x in Mbit/s), and from arithmetic.

#include "model/tcp/pcc-vivace-utility.h"
#include "test/leogym-test.h"

#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace ns3;
using ns3::leogymtest::Contains;
using ns3::leogymtest::InvalidArgument;

namespace
{

constexpr double kT = 0.9;   //!< the paper's exponent t
constexpr double kB = 900.0; //!< the paper's latency coefficient b
constexpr double kC = 11.35; //!< the paper's loss coefficient c

/// The paper's parameters, with the RTT-gradient noise filter at @p tolerance.
PccVivaceUtilityParams
Paper(double tolerance = 0.0)
{
    PccVivaceUtilityParams p;
    p.exponent = kT;
    p.latencyCoef = kB;
    p.lossCoef = kC;
    p.rttGradientTolerance = tolerance;
    return p;
}

class VivaceUtilityFormulaTestCase : public TestCase
{
  public:
    VivaceUtilityFormulaTestCase()
        : TestCase("the utility is the paper's formula")
    {
    }

  private:
    void DoRun() override
    {
        struct Point
        {
            double x;    //!< rate (Mbit/s)
            double g;    //!< RTT gradient
            double loss; //!< loss rate
        };

        for (const Point& q : std::vector<Point>{{10.0, 0.0, 0.0},
                                                 {20.0, 0.01, 0.0},
                                                 {20.0, 0.0, 0.02},
                                                 {50.0, 0.02, 0.01},
                                                 {5.0, -0.03, 0.0}})
        {
            const double want = std::pow(q.x, kT) - kB * q.x * q.g - kC * q.x * q.loss;
            NS_TEST_EXPECT_MSG_EQ_TOL(PccVivaceUtility(q.x, q.g, q.loss, Paper()),
                                      want,
                                      std::max(1e-12, 1e-12 * std::abs(want)),
                                      "x " << q.x << ", g " << q.g << ", loss " << q.loss);
        }
    }
};

class VivaceUtilityHandValuesTestCase : public TestCase
{
  public:
    VivaceUtilityHandValuesTestCase()
        : TestCase("the utility at hand-computed points")
    {
    }

  private:
    void DoRun() override
    {
        // 10^0.9 = 7.9432823; 100^0.9 - 11.35 * 100 * 0.05 = 63.0957344 - 56.75
        NS_TEST_EXPECT_MSG_EQ_TOL(PccVivaceUtility(10.0, 0.0, 0.0, Paper()),
                                  7.9432823,
                                  1e-7,
                                  "10^0.9");
        NS_TEST_EXPECT_MSG_EQ_TOL(PccVivaceUtility(100.0, 0.0, 0.05, Paper()),
                                  6.3457344,
                                  1e-7,
                                  "100 Mbit/s at 5 % loss");
        // A queue growing 1 ms per second at 10 Mbit/s costs 900 * 10 * 0.001 = 9.
        NS_TEST_EXPECT_MSG_EQ_TOL(PccVivaceUtility(10.0, 0.001, 0.0, Paper()),
                                  7.9432823 - 9.0,
                                  1e-7,
                                  "a growing queue");
        // A draining queue raises the utility; the noise filter zeroes small gradients.
        NS_TEST_EXPECT_MSG_EQ_TOL(PccVivaceUtility(10.0, -0.02, 0.0, Paper()),
                                  7.9432823 + 180.0,
                                  1e-7,
                                  "a draining queue");
        NS_TEST_EXPECT_MSG_EQ_TOL(PccVivaceUtility(10.0, 0.005, 0.0, Paper(0.01)),
                                  7.9432823,
                                  1e-7,
                                  "a gradient below the tolerance");
    }
};

class VivaceLossToleranceTestCase : public TestCase
{
  public:
    VivaceLossToleranceTestCase()
        : TestCase("the loss tolerance is 5 % at 100 Mbit per second")
    {
    }

  private:
    void DoRun() override
    {
        // du/dx = t x^(t-1) - c L = 0: c = 11.35 puts the tolerance at 5 % for 100 Mbit/s.
        NS_TEST_EXPECT_MSG_EQ_TOL(PccVivaceLossTolerance(100.0, Paper()), 0.0500, 2e-4, "5 %");
        for (double x : {10.0, 20.0, 50.0})
        {
            const double want = kT * std::pow(x, kT - 1) / kC;
            NS_TEST_EXPECT_MSG_EQ_TOL(PccVivaceLossTolerance(x, Paper()),
                                      want,
                                      1e-12 * want,
                                      "t x^(t-1) / c at " << x << " Mbit/s");
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(PccVivaceLossTolerance(20.0, Paper()),
                                  0.0588,
                                  1e-4,
                                  "5.88 % at 20 Mbit/s");
    }
};

class VivaceRttGradientTestCase : public TestCase
{
  public:
    VivaceRttGradientTestCase()
        : TestCase("the RTT gradient is the least-squares slope")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<double> t{0.0, 0.01, 0.02, 0.03, 0.04};
        std::vector<double> rtt;
        for (double s : t)
        {
            rtt.push_back(0.040 + 0.25 * s);
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(PccRttGradient(t, rtt), 0.25, 0.25e-6, "a line");
        // Symmetric noise around a line leaves its slope: points (0,0) (1,2) (2,1) (3,3).
        NS_TEST_EXPECT_MSG_EQ_TOL(PccRttGradient({0, 1, 2, 3}, {0, 2, 1, 3}),
                                  0.8,
                                  0.8e-6,
                                  "noise around a line");
        NS_TEST_EXPECT_MSG_EQ(PccRttGradient({0.5}, {0.04}), 0.0, "one point");
        NS_TEST_EXPECT_MSG_EQ(PccRttGradient({0.5, 0.5}, {0.04, 0.05}), 0.0, "one send time");
        const std::string e = InvalidArgument([] { PccRttGradient({0.0, 1.0}, {0.04}); });
        NS_TEST_EXPECT_MSG_EQ(Contains(e, "same length"), true, "'" << e << "'");
    }
};

class VivaceUtilityBadValuesTestCase : public TestCase
{
  public:
    VivaceUtilityBadValuesTestCase()
        : TestCase("bad utility inputs name the field")
    {
    }

  private:
    void DoRun() override
    {
        PccVivaceUtilityParams linear = Paper();
        linear.exponent = 1.0;
        const std::string exponent =
            InvalidArgument([&linear] { PccVivaceUtility(10.0, 0.0, 0.0, linear); });
        NS_TEST_EXPECT_MSG_EQ(Contains(exponent, "exponent"), true, "'" << exponent << "'");
        const std::string loss = InvalidArgument([] { PccVivaceUtility(10.0, 0.0, 1.5, Paper()); });
        NS_TEST_EXPECT_MSG_EQ(Contains(loss, "loss_rate"), true, "'" << loss << "'");
        const std::string rate = InvalidArgument([] { PccVivaceUtility(-1.0, 0.0, 0.0, Paper()); });
        NS_TEST_EXPECT_MSG_EQ(Contains(rate, "rate_mbps"), true, "'" << rate << "'");
    }
};

class PccVivaceUtilityTestSuite : public TestSuite
{
  public:
    PccVivaceUtilityTestSuite()
        : TestSuite("pcc-vivace-utility", Type::UNIT)
    {
        AddTestCase(new VivaceUtilityFormulaTestCase);
        AddTestCase(new VivaceUtilityHandValuesTestCase);
        AddTestCase(new VivaceLossToleranceTestCase);
        AddTestCase(new VivaceRttGradientTestCase);
        AddTestCase(new VivaceUtilityBadValuesTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
PccVivaceUtilityTestSuite g_pccVivaceUtilityTestSuite;

} // namespace
