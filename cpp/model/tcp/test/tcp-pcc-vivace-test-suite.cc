// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of TcpPccVivace's attribute defaults: the constants of the paper (M. Dong et al.,
// "PCC Vivace: Online-Learning Congestion Control", NSDI 2018; cpp/doc/vivace.md).

#include "model/tcp/tcp-pcc-vivace.h"

#include "ns3/double.h"
#include "ns3/test.h"

#include <string>

using namespace ns3;

namespace
{

class TcpPccVivaceDefaultsTestCase : public TestCase
{
  public:
    TcpPccVivaceDefaultsTestCase()
        : TestCase("the defaults are the paper's constants")
    {
    }

  private:
    /// The double attribute @p name of @p cc.
    static double Get(const Ptr<TcpPccVivace>& cc, const std::string& name)
    {
        DoubleValue v;
        cc->GetAttribute(name, v);
        return v.Get();
    }

    void DoRun() override
    {
        const Ptr<TcpPccVivace> cc = CreateObject<TcpPccVivace>();
        NS_TEST_EXPECT_MSG_EQ(cc->GetName(), "TcpPccVivace", "its ns-3 name");
        NS_TEST_EXPECT_MSG_EQ(cc->HasCongControl(), true, "it sets the rate itself");
        NS_TEST_EXPECT_MSG_EQ(Get(cc, "Exponent"), 0.9, "t");
        NS_TEST_EXPECT_MSG_EQ(Get(cc, "LatencyCoefficient"), 900.0, "b");
        NS_TEST_EXPECT_MSG_EQ(Get(cc, "LossCoefficient"), 11.35, "c");
        NS_TEST_EXPECT_MSG_EQ(Get(cc, "ProbeEpsilon"), 0.05, "probing at r(1 + eps), r(1 - eps)");
        NS_TEST_EXPECT_MSG_EQ(Get(cc, "InitialChangeBound"), 0.05, "omega0");
        NS_TEST_EXPECT_MSG_EQ(Get(cc, "StepScale"),
                              1.0,
                              "theta0: 1 Mbit/s per unit of utility gradient");
    }
};

class TcpPccVivaceTestSuite : public TestSuite
{
  public:
    TcpPccVivaceTestSuite()
        : TestSuite("tcp-pcc-vivace", Type::UNIT)
    {
        AddTestCase(new TcpPccVivaceDefaultsTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
TcpPccVivaceTestSuite g_tcpPccVivaceTestSuite;

} // namespace
