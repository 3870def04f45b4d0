// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of LeotpInterestPacer: the Consumer's Interest pacing, rate (C1) and budget
// (cpp/doc/leotp.md, "Consumer").

#include "model/leotp/leotp-interest-pacer.h"

#include "ns3/test.h"

#include <limits>

using namespace ns3;

namespace
{

class LeotpInterestRateC1TestCase : public TestCase
{
  public:
    LeotpInterestRateC1TestCase()
        : TestCase("Interest rate (C1)")
    {
    }

  private:
    void DoRun() override
    {
        // Spec 4.2 item 7: throughput_c = 8 Mbit/s, BL_tar - BL_P = 2906 B, SRTT = 0.2 s:
        // R_int = 8e6 + 8 x 2906 / 0.2 = 8.11624 Mbit/s.
        NS_TEST_EXPECT_MSG_EQ_TOL(LeotpInterestPacer::Rate(8e6, 2906.0, 0.2, 1e5),
                                  8.11624e6,
                                  8.11624e6 * 1e-12,
                                  "R_int");
        NS_TEST_EXPECT_MSG_EQ_TOL(LeotpInterestPacer::Rate(0.0, -50'000.0, 0.2, 1e5),
                                  1e5,
                                  1e5 * 1e-6,
                                  "the floor R_min = 0.1 Mbit/s");
    }
};

class LeotpInterestBudgetTestCase : public TestCase
{
  public:
    LeotpInterestBudgetTestCase()
        : TestCase("Interest budget")
    {
    }

  private:
    void DoRun() override
    {
        LeotpInterestPacer p(1500.0, 7500.0);
        // Before the first rate: BL_tar = 5 packets' worth of Interests, and nothing more.
        int sent = 0;
        for (int i = 0; i < 6; ++i)
        {
            sent += p.TryConsume(0.0) ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(sent, 5, "five Interests of the initial budget");
        NS_TEST_EXPECT_MSG_EQ(p.WaitS(0.0),
                              std::numeric_limits<double>::infinity(),
                              "no rate: wait forever");
        p.SetRate(1.0, 12e6); // 1500 B every 1 ms
        NS_TEST_EXPECT_MSG_EQ_TOL(p.WaitS(1.0), 0.001, 1e-9, "one Interest in 1 ms");
        NS_TEST_EXPECT_MSG_EQ(p.TryConsume(1.001), true, "sent after 1 ms");
        // An idle consumer banks at most max(one Interest, 1 ms of rate): one Interest here.
        NS_TEST_EXPECT_MSG_EQ_TOL(p.GetBudget(5.0), 1500.0, 1500e-6, "one Interest banked");
        NS_TEST_EXPECT_MSG_EQ(p.TryConsume(5.0), true, "the banked Interest");
        NS_TEST_EXPECT_MSG_EQ(p.TryConsume(5.0), false, "and no more");
    }
};

class LeotpInterestPacerTestSuite : public TestSuite
{
  public:
    LeotpInterestPacerTestSuite()
        : TestSuite("leotp-interest-pacer", Type::UNIT)
    {
        AddTestCase(new LeotpInterestRateC1TestCase);
        AddTestCase(new LeotpInterestBudgetTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
LeotpInterestPacerTestSuite g_leotpInterestPacerTestSuite;

} // namespace
