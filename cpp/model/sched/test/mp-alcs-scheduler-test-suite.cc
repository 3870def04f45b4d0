// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of ALCS's equations (cpp/model/sched/mp-alcs-scheduler.h): the latency estimates
// of eqs. (1)-(4), the compensation step of eqs. (7)/(10), and the attribute defaults they use.
//
// Reference: L. Wang et al., "ALCS: An Adaptive Latency Compensation Scheduler for Multipath
// TCP in Satellite-Terrestrial Integrated Networks": alpha = 0.99, sigma starting at 1;
// the clamp [0.5, 2] is docs/specs/alcs.md's choice ([R], #adaptive-compensation).

#include "model/sched/mp-alcs-scheduler.h"

#include "ns3/double.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <string>

using namespace ns3;

namespace
{

constexpr double kAlpha = 0.99;   //!< the paper's attenuation factor
constexpr double kSigmaMin = 0.5; //!< the lower clamp [R]
constexpr double kSigmaMax = 2.0; //!< the upper clamp [R]

/// A relative tolerance of 1e-6 around @p expected (at least 1e-12).
double
Rel(double expected)
{
    return std::max(1e-12, 1e-6 * std::abs(expected));
}

/// One compensation step with the paper's alpha and the default clamp.
double
Step(double sigma, double atp, double etp)
{
    return MpAlcsScheduler::UpdateSigma(sigma, atp, etp, kAlpha, kSigmaMin, kSigmaMax);
}

class AlcsDefaultsTestCase : public TestCase
{
  public:
    AlcsDefaultsTestCase()
        : TestCase("the defaults are the paper's alpha and sigma and the chosen clamp")
    {
    }

  private:
    /// The double attribute @p name of @p s.
    static double Get(const Ptr<MpAlcsScheduler>& s, const std::string& name)
    {
        DoubleValue v;
        s->GetAttribute(name, v);
        return v.Get();
    }

    void DoRun() override
    {
        const Ptr<MpAlcsScheduler> s = CreateObject<MpAlcsScheduler>();
        NS_TEST_EXPECT_MSG_EQ(Get(s, "Alpha"), kAlpha, "alpha of eqs. (7)/(10)");
        NS_TEST_EXPECT_MSG_EQ(Get(s, "SigmaInit"), 1.0, "sigma starts at 1");
        NS_TEST_EXPECT_MSG_EQ(Get(s, "SigmaMin"), kSigmaMin, "lower clamp");
        NS_TEST_EXPECT_MSG_EQ(Get(s, "SigmaMax"), kSigmaMax, "upper clamp");
    }
};

class AlcsLatencyTestCase : public TestCase
{
  public:
    AlcsLatencyTestCase()
        : TestCase("the latency estimates of eqs. (1)-(4)")
    {
    }

  private:
    void DoRun() override
    {
        // eq. (1)/(3): (k + i_f + q_f) / cwnd_f * (rtt_f + Delta_f) * sigma_f
        double want = 125.0 / 25 * 0.064;
        NS_TEST_EXPECT_MSG_EQ_TOL(MpAlcsScheduler::Latency(100, 20, 5, 25, 0.06, 0.004, 1.0),
                                  want,
                                  Rel(want),
                                  "eq. (1): sigma = 1");
        want = 125.0 / 25 * 0.064 * 0.9;
        NS_TEST_EXPECT_MSG_EQ_TOL(MpAlcsScheduler::Latency(100, 20, 5, 25, 0.06, 0.004, 0.9),
                                  want,
                                  Rel(want),
                                  "eq. (3): sigma = 0.9");
        // eq. (2)/(4): no queue term for S_s
        want = 130.0 / 60 * 0.110 * 1.1;
        NS_TEST_EXPECT_MSG_EQ_TOL(MpAlcsScheduler::Latency(100, 30, 0, 60, 0.108, 0.002, 1.1),
                                  want,
                                  Rel(want),
                                  "eq. (4): sigma = 1.1");
    }
};

class AlcsSigmaUpdateTestCase : public TestCase
{
  public:
    AlcsSigmaUpdateTestCase()
        : TestCase("one compensation step of eqs. (7)-(10)")
    {
    }

  private:
    void DoRun() override
    {
        // Eqs. (7)/(10) with alpha = 0.99.
        NS_TEST_EXPECT_MSG_EQ_TOL(Step(1.0, 12, 10), 0.99, Rel(0.99), "atp > etp: times alpha");
        NS_TEST_EXPECT_MSG_EQ_TOL(Step(1.0, 8, 10),
                                  1 / 0.99,
                                  Rel(1 / 0.99),
                                  "atp < etp: over alpha");
        NS_TEST_EXPECT_MSG_EQ(Step(1.0, 10, 10), 1.0, "atp = etp: unchanged");
        NS_TEST_EXPECT_MSG_EQ(Step(0.5, 12, 10), 0.5, "clamped at sigma_min");
        NS_TEST_EXPECT_MSG_EQ(Step(2.0, 8, 10), 2.0, "clamped at sigma_max");
    }
};

class AlcsSigmaClampStepsTestCase : public TestCase
{
  public:
    AlcsSigmaClampStepsTestCase()
        : TestCase("sigma needs 69 steps from 1 to the lower clamp")
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/alcs.md#adaptive-compensation: alpha = 0.99 needs >= 69 consecutive
        // updates from 1.0 to 0.5 (0.99^68 = 0.505, 0.99^69 = 0.4998).
        double s = 1.0;
        for (int i = 1; i < 70; ++i)
        {
            s = Step(s, 1, 0);
            NS_TEST_EXPECT_MSG_EQ((s == kSigmaMin), (i >= 69), "after " << i << " steps: " << s);
        }
    }
};

class MpAlcsSchedulerTestSuite : public TestSuite
{
  public:
    MpAlcsSchedulerTestSuite()
        : TestSuite("mp-alcs-scheduler", Type::UNIT)
    {
        AddTestCase(new AlcsDefaultsTestCase);
        AddTestCase(new AlcsLatencyTestCase);
        AddTestCase(new AlcsSigmaUpdateTestCase);
        AddTestCase(new AlcsSigmaClampStepsTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
MpAlcsSchedulerTestSuite g_mpAlcsSchedulerTestSuite;

} // namespace
