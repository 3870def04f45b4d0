// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of LeotpTokenBucket: the Responder's token bucket (cpp/doc/leotp.md, "Consumer").

#include "model/leotp/leotp-token-bucket.h"

#include "ns3/test.h"

using namespace ns3;

namespace
{

class LeotpTokenBucketTestCase : public TestCase
{
  public:
    LeotpTokenBucketTestCase()
        : TestCase("depth, refill and rate change")
    {
    }

  private:
    void DoRun() override
    {
        LeotpTokenBucket tb(1e5, 1500.0);
        // Depth max(1 MTU, rate x 1 ms); it starts with one MTU of tokens.
        NS_TEST_EXPECT_MSG_EQ(tb.GetDepth(), 1500.0, "one MTU deep");
        NS_TEST_EXPECT_MSG_EQ(tb.TryConsume(0.0, 1500.0), true, "the first MTU");
        NS_TEST_EXPECT_MSG_EQ(tb.TryConsume(0.0, 1500.0), false, "then empty");
        NS_TEST_EXPECT_MSG_EQ_TOL(tb.WaitS(0.0, 1500.0),
                                  1500 * 8 / 1e5,
                                  0.12e-6,
                                  "120 ms at 0.1 Mbit/s");
        tb.SetRate(0.06, 1e8); // 750 B earned at the old rate; now 100 Mbit/s, depth 12500 B
        NS_TEST_EXPECT_MSG_EQ_TOL(tb.GetTokens(0.06), 750.0, 750e-6, "earned at the old rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(tb.GetDepth(), 12'500.0, 12'500e-6, "1 ms at 100 Mbit/s");
        NS_TEST_EXPECT_MSG_EQ_TOL(tb.WaitS(0.06, 1500.0),
                                  750 * 8 / 1e8,
                                  750 * 8 / 1e8 * 1e-6,
                                  "the missing 750 B at the new rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(tb.GetTokens(10.0),
                                  12'500.0,
                                  12'500e-6,
                                  "full, never more than the depth");
    }
};

class LeotpTokenBucketTestSuite : public TestSuite
{
  public:
    LeotpTokenBucketTestSuite()
        : TestSuite("leotp-token-bucket", Type::UNIT)
    {
        AddTestCase(new LeotpTokenBucketTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
LeotpTokenBucketTestSuite g_leotpTokenBucketTestSuite;

} // namespace
