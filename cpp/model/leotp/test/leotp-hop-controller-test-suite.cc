// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of LeotpHopController: LEOTP's hop-by-hop congestion control, eqs. (6)-(8), and
// the backpressure rate of eqs. (9)-(10) with the corrected sign of eq. (9) (section III.C;
// cpp/doc/leotp.md).
//
// Reference values are arithmetic on the equations: with throughput 20 Mbit/s and
// hopRTT_min 10 ms, BDP = 20e6 / 8 x 0.010 = 25 000 B and QueueLen = 2.5e6 B/s x (hopRTT -
// 10 ms); M = 3000 B, k = 0.8.

#include "model/leotp/leotp-hop-controller.h"
#include "test/leogym-test.h"

#include "ns3/test.h"

#include <limits>
#include <string>

using namespace ns3;
using ns3::leogymtest::Contains;
using ns3::leogymtest::InvalidArgument;

namespace
{

constexpr double kThr = 20e6;  //!< measured throughput (bit/s)
constexpr double kRmin = 0.01; //!< hopRTT_min (s)

/// A controller with the default parameters and cwnd units of @p packetBytes.
LeotpHopController
Controller(double packetBytes)
{
    LeotpHopParams p;
    p.packetBytes = packetBytes;
    p.Check("params");
    return LeotpHopController(p);
}

/// A controller in CongAvoid with cwnd 10 packets of 1453 B (window-limited at 20 Mbit/s).
LeotpHopController
CongAvoid()
{
    LeotpHopController c = Controller(1453.0);
    c.SetState(10.0, LeotpPhase::CONG_AVOID, -std::numeric_limits<double>::infinity());
    return c;
}

class LeotpHopAdditiveIncreaseTestCase : public TestCase
{
  public:
    LeotpHopAdditiveIncreaseTestCase()
        : TestCase("eqs. (6)-(7): additive increase below M")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHopController c = CongAvoid();
        const auto u = c.UpdateWindow(1.0, kThr, 0.011, kRmin);
        NS_TEST_EXPECT_MSG_EQ_TOL(u.bdpBytes, 25'000.0, 25'000e-6, "BDP");
        NS_TEST_EXPECT_MSG_EQ_TOL(u.queueLenBytes, 2500.0, 2500e-6, "QueueLen");
        NS_TEST_EXPECT_MSG_EQ(u.grew, true, "grew");
        NS_TEST_EXPECT_MSG_EQ(u.cut, false, "not cut");
        NS_TEST_EXPECT_MSG_EQ(c.GetCwnd(), 11.0, "one packet more");
    }
};

class LeotpHopQueueAtMTestCase : public TestCase
{
  public:
    LeotpHopQueueAtMTestCase()
        : TestCase("a queue of exactly M is still an increase")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHopController c = CongAvoid();
        const auto u = c.UpdateWindow(1.0, kThr, 0.0112, kRmin);
        NS_TEST_EXPECT_MSG_EQ_TOL(u.queueLenBytes, 3000.0, 3000e-6, "= M: not above it");
        NS_TEST_EXPECT_MSG_EQ(u.cut, false, "not cut");
        NS_TEST_EXPECT_MSG_EQ(c.GetCwnd(), 11.0, "one packet more");
    }
};

class LeotpHopCutTestCase : public TestCase
{
  public:
    LeotpHopCutTestCase()
        : TestCase("a queue above M cuts the window to k BDP")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHopController c = CongAvoid();
        const auto u = c.UpdateWindow(1.0, kThr, 0.012, kRmin);
        NS_TEST_EXPECT_MSG_EQ_TOL(u.queueLenBytes, 5000.0, 5000e-6, "QueueLen");
        NS_TEST_EXPECT_MSG_EQ(u.cut, true, "cut");
        // cwnd = 0.8 x 25 000 B = 20 000 B = 13.76 packets of 1453 B
        NS_TEST_EXPECT_MSG_EQ_TOL(c.GetCwnd() * 1453, 20'000.0, 20'000e-6, "k BDP in bytes");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.GetCwnd(), 13.764625, 1e-6, "k BDP in packets");
    }
};

class LeotpHopCutGuardTestCase : public TestCase
{
  public:
    LeotpHopCutGuardTestCase()
        : TestCase("a second cut is refused within two hop RTTs")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHopController c = CongAvoid();
        c.UpdateWindow(1.0, kThr, 0.012, kRmin); // cut at t = 1.0
        const double cwnd = c.GetCwnd();
        auto u = c.UpdateWindow(1.0 + 0.012, kThr, 0.012, kRmin); // one hopRTT later, queued
        NS_TEST_EXPECT_MSG_EQ(u.cut, false, "no cut one hopRTT later");
        NS_TEST_EXPECT_MSG_EQ(c.GetCwnd(), cwnd, "held, not grown");
        u = c.UpdateWindow(1.0 + 2 * 0.012, kThr, 0.012, kRmin); // two hopRTTs later
        NS_TEST_EXPECT_MSG_EQ(u.cut, true, "cut two hopRTTs later");
    }
};

class LeotpHopSlowStartTestCase : public TestCase
{
  public:
    LeotpHopSlowStartTestCase()
        : TestCase("slow start doubles while window-limited and exits on a queue")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHopController c = Controller(1500.0);
        NS_TEST_EXPECT_MSG_EQ((c.GetPhase() == LeotpPhase::SLOW_START), true, "slow start");
        NS_TEST_EXPECT_MSG_EQ(c.GetCwnd(), 2.0, "initial cwnd [REC]");
        double t = 0.0;
        double cwnd = 2.0;
        for (int i = 0; i < 4; ++i)
        {
            t += 0.010;
            // window-limited: the measured throughput is what the window allows
            const double thr = cwnd * 1500 * 8 / 0.010;
            const auto u = c.UpdateWindow(t, thr, 0.010, 0.010);
            NS_TEST_EXPECT_MSG_EQ(u.limited, true, "window-limited, round " << i);
            NS_TEST_EXPECT_MSG_EQ(u.grew, true, "grew, round " << i);
            cwnd *= 2;
            NS_TEST_EXPECT_MSG_EQ(c.GetCwnd(), cwnd, "doubled, round " << i);
            NS_TEST_EXPECT_MSG_EQ((c.GetPhase() == LeotpPhase::SLOW_START),
                                  true,
                                  "still slow start, round " << i);
        }
        // not window-limited (throughput < 0.5 cwnd / hopRTT): hold
        auto u = c.UpdateWindow(t + 0.01, 0.4 * cwnd * 1500 * 8 / 0.010, 0.010, 0.010);
        NS_TEST_EXPECT_MSG_EQ(u.limited, false, "not window-limited");
        NS_TEST_EXPECT_MSG_EQ(c.GetCwnd(), cwnd, "held");
        // the first QueueLen > M cuts to k BDP and leaves slow start
        u = c.UpdateWindow(t + 0.02, kThr, 0.012, kRmin);
        NS_TEST_EXPECT_MSG_EQ(u.cut, true, "cut");
        NS_TEST_EXPECT_MSG_EQ((c.GetPhase() == LeotpPhase::CONG_AVOID), true, "CongAvoid");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.GetCwnd() * 1500, 20'000.0, 20'000e-6, "k BDP");
    }
};

class LeotpHopMeasurementTestCase : public TestCase
{
  public:
    LeotpHopMeasurementTestCase()
        : TestCase("the measured window updates once per hop RTT")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHopController c = Controller(1500.0);
        c.OnSample(0.0, 0.010);
        NS_TEST_EXPECT_MSG_EQ_TOL(c.GetHopRttS(), 0.010, 0.010e-6, "first sample");
        c.OnSample(0.001, 0.018); // EWMA, gain 1/8: 7/8 x 10 + 1/8 x 18 = 11 ms
        NS_TEST_EXPECT_MSG_EQ_TOL(c.GetHopRttS(), 0.011, 0.011e-6, "EWMA");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.GetHopRttMinS(0.001), 0.010, 0.010e-6, "hopRTT_min");
        NS_TEST_EXPECT_MSG_EQ(c.OnReceive(0.002, 1500.0), false, "the period starts");
        NS_TEST_EXPECT_MSG_EQ(c.OnReceive(0.012, 1500.0), false, "10 ms < hopRTT");
        NS_TEST_EXPECT_MSG_EQ(c.OnReceive(0.0135, 1500.0), true, "11.5 ms >= hopRTT");
        const double thr = 4500 * 8 / 0.0115; // 4500 B in 11.5 ms
        NS_TEST_EXPECT_MSG_EQ_TOL(c.GetThroughputBps(), thr, thr * 1e-6, "throughput");
    }
};

class LeotpHopEq9TestCase : public TestCase
{
  public:
    LeotpHopEq9TestCase()
        : TestCase("eq. (9) with the corrected sign")
    {
    }

  private:
    void DoRun() override
    {
        // Rate_nextHop = 10 Mbit/s, BL = 15 000 B, BL_tar = 7500 B, hopRTT = 20 ms:
        // Rate_bp = 10 - 7500 x 8 / 0.02 x 1e-6 = 7 Mbit/s (the printed sign would give 13).
        NS_TEST_EXPECT_MSG_EQ_TOL(LeotpHopController::BackpressureRate(10e6, 15'000, 7500, 0.02),
                                  7e6,
                                  7,
                                  "BL above BL_tar slows the hop");
        // BL = BL_tar: Rate_bp = Rate_nextHop
        NS_TEST_EXPECT_MSG_EQ_TOL(LeotpHopController::BackpressureRate(10e6, 7500, 7500, 0.02),
                                  10e6,
                                  10,
                                  "BL = BL_tar");
    }
};

class LeotpHopEq10TestCase : public TestCase
{
  public:
    LeotpHopEq10TestCase()
        : TestCase("eq. (10) takes the smaller rate")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHopController c = Controller(1500.0);
        NS_TEST_EXPECT_MSG_EQ_TOL(c.Rate(true, 15'000, 7500, 10e6), 1e5, 0.1, "R_init, no sample");
        c.OnSample(0.0, 0.020);
        c.SetState(20.0, LeotpPhase::CONG_AVOID, -std::numeric_limits<double>::infinity());
        // cwnd / hopRTT = 20 x 1500 x 8 / 0.02 = 12 Mbit/s
        NS_TEST_EXPECT_MSG_EQ_TOL(c.Rate(false, 0, 0, 0), 12e6, 12, "Consumer: no buffer");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.Rate(true, 15'000, 7500, 10e6), 7e6, 7, "min(12, 7)");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.Rate(true, 0, 7500, 10e6), 12e6, 12, "min(12, 13)");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.Rate(true, 1e9, 7500, 10e6),
                                  1e5,
                                  0.1,
                                  "clamped to [0.1, 300] Mbit/s");
    }
};

class LeotpHopBadParametersTestCase : public TestCase
{
  public:
    LeotpHopBadParametersTestCase()
        : TestCase("bad parameters name the field")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHopParams p;
        p.k = 1.5;
        const std::string e = InvalidArgument([&p] { p.Check("params"); });
        NS_TEST_EXPECT_MSG_EQ(Contains(e, "params.k"), true, "'" << e << "'");
    }
};

class LeotpHopZeroRttTestCase : public TestCase
{
  public:
    LeotpHopZeroRttTestCase()
        : TestCase("a zero hop RTT counts as one timestamp step")
    {
    }

  private:
    void DoRun() override
    {
        // A zero-delay link measures 0 us: the sample counts as the timestamp's resolution
        // (1 us), so the window stays finite and the rate hits its ceiling (300 Mbit/s).
        LeotpHopController c = Controller(1500.0);
        c.OnSample(0.0, 0.0);
        NS_TEST_EXPECT_MSG_EQ_TOL(c.GetHopRttS(), 1e-6, 1e-12, "1 us");
        for (int k = 1; k < 200; ++k)
        {
            c.OnReceive(k * 1e-3, 1500.0);
        }
        NS_TEST_EXPECT_MSG_LT_OR_EQ(c.GetCwnd(), 1e7, "a finite window");
        NS_TEST_EXPECT_MSG_EQ_TOL(c.Rate(false, 0, 0, 0), 3e8, 300, "the ceiling");
    }
};

class LeotpHopControllerTestSuite : public TestSuite
{
  public:
    LeotpHopControllerTestSuite()
        : TestSuite("leotp-hop-controller", Type::UNIT)
    {
        AddTestCase(new LeotpHopAdditiveIncreaseTestCase);
        AddTestCase(new LeotpHopQueueAtMTestCase);
        AddTestCase(new LeotpHopCutTestCase);
        AddTestCase(new LeotpHopCutGuardTestCase);
        AddTestCase(new LeotpHopSlowStartTestCase);
        AddTestCase(new LeotpHopMeasurementTestCase);
        AddTestCase(new LeotpHopEq9TestCase);
        AddTestCase(new LeotpHopEq10TestCase);
        AddTestCase(new LeotpHopBadParametersTestCase);
        AddTestCase(new LeotpHopZeroRttTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
LeotpHopControllerTestSuite g_leotpHopControllerTestSuite;

} // namespace
