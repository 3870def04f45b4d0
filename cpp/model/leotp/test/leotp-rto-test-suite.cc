// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of LeotpRto: the Consumer's RFC 6298 retransmission timeout with the paper's x1.5
// backoff (section III.B; cpp/doc/leotp.md, "Consumer").
//
// RFC 6298 section 2 with G = 1 ms: first sample R: SRTT = R, RTTVAR = R / 2; later: RTTVAR =
// 3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R; RTO = SRTT + max(G, 4 RTTVAR).

#include "model/leotp/leotp-rto.h"
#include "test/leogym-test.h"

#include "ns3/nstime.h"
#include "ns3/test.h"

#include <array>
#include <cmath>
#include <string>

using namespace ns3;
using ns3::leogymtest::Contains;
using ns3::leogymtest::InvalidArgument;

namespace
{

/// Milliseconds of @p t.
double
Ms(Time t)
{
    return t.GetSeconds() * 1000;
}

/// A timer with the defaults (G = 1 ms, RTO in [0.2, 60] s, 1 s initially, x1.5 backoff kept).
LeotpRto
Rto(bool keepBackoff = true, double minRtoS = 0.2, double maxRtoS = 60.0)
{
    LeotpRtoParams p;
    p.granularityS = 0.001;
    p.minRtoS = minRtoS;
    p.maxRtoS = maxRtoS;
    p.keepBackoff = keepBackoff;
    p.Check("params");
    return LeotpRto(p);
}

/// Samples of 100 and 120 ms: RTO = 272.5 ms.
LeotpRto
Rto272()
{
    LeotpRto r = Rto();
    r.OnSample(Seconds(0.100), Seconds(0));
    r.OnSample(Seconds(0.120), Seconds(0));
    return r;
}

/// The n-th re-send of an unanswered Interest is due RTO x 1.5^(n - 1) after the previous.
const std::array<double, 4> kResendTimesMs{272.5, 681.25, 1294.375, 2214.0625};

class LeotpRtoRfc6298TestCase : public TestCase
{
  public:
    LeotpRtoRfc6298TestCase()
        : TestCase("RFC 6298 sequence")
    {
    }

  private:
    void DoRun() override
    {
        LeotpRto rto = Rto();
        NS_TEST_EXPECT_MSG_EQ_TOL(rto.GetRto().GetSeconds(),
                                  1.0,
                                  1e-6,
                                  "RFC 6298 section 2.1: 1 s before a sample");
        const std::array<double, 4> samplesMs{100, 120, 100, 200};
        const std::array<std::array<double, 3>, 4> expected{{
            {100.0, 50.0, 300.0},
            {102.5, 42.5, 272.5},
            {102.1875, 32.5, 232.1875},
            {114.4140625, 48.828125, 309.7265625},
        }};
        for (size_t i = 0; i < samplesMs.size(); ++i)
        {
            rto.OnSample(Seconds(samplesMs[i] / 1000.0), Seconds(0));
            const auto& [srtt, rttvar, rtoMs] = expected[i];
            NS_TEST_EXPECT_MSG_EQ_TOL(Ms(rto.GetEstimator().GetSmoothed()),
                                      srtt,
                                      1e-5,
                                      "SRTT after sample " << i);
            NS_TEST_EXPECT_MSG_EQ_TOL(Ms(rto.GetEstimator().GetRttVar()),
                                      rttvar,
                                      1e-5,
                                      "RTTVAR after sample " << i);
            NS_TEST_EXPECT_MSG_EQ_TOL(Ms(rto.GetRto()), rtoMs, 1e-5, "RTO after sample " << i);
        }
    }
};

class LeotpRtoBackoffTimesTestCase : public TestCase
{
  public:
    LeotpRtoBackoffTimesTestCase()
        : TestCase("backoff times of an unanswered Interest")
    {
    }

  private:
    void DoRun() override
    {
        const LeotpRto rto = Rto272();
        double t = 0;
        for (uint32_t n = 1; n <= 4; ++n)
        {
            t += Ms(rto.GetBackoffInterval(n)); // RTO x 1.5^(n - 1) after the previous send
            NS_TEST_EXPECT_MSG_EQ_TOL(t, kResendTimesMs[n - 1], 1e-5, "re-send " << n);
        }
    }
};

class LeotpRtoKeptBackoffTestCase : public TestCase
{
  public:
    LeotpRtoKeptBackoffTestCase()
        : TestCase("the backoff is kept for new Interests until a valid sample")
    {
    }

  private:
    void DoRun() override
    {
        // RFC 6298 rule 5.5 and Karn's algorithm (section 3), with the paper's x1.5: a timeout
        // backs the timer off and new Interests keep the backed-off value until an RTT sample.
        LeotpRto rto = Rto272();
        rto.OnTimeout(Seconds(1.0), Seconds(1.2725));
        NS_TEST_EXPECT_MSG_EQ(rto.GetBackoffRounds(), 1, "one round");
        NS_TEST_EXPECT_MSG_EQ_TOL(Ms(rto.GetBaseRto()), 272.5, 272.5e-6, "base RTO");
        NS_TEST_EXPECT_MSG_EQ_TOL(Ms(rto.GetRto()),
                                  272.5 * 1.5,
                                  272.5 * 1.5e-6,
                                  "a new Interest's first timer");
        NS_TEST_EXPECT_MSG_EQ_TOL(Ms(rto.GetBackoffInterval(1)),
                                  272.5 * 1.5,
                                  272.5 * 1.5e-6,
                                  "interval before the first re-send");
        // Interests sent before that round had the shorter timer: their timeouts add no round
        rto.OnTimeout(Seconds(1.1), Seconds(1.5));
        NS_TEST_EXPECT_MSG_EQ(rto.GetBackoffRounds(), 1, "still one round");
        // one sent after it that still times out: the backed-off timer is too short as well
        rto.OnTimeout(Seconds(1.3), Seconds(1.8));
        NS_TEST_EXPECT_MSG_EQ(rto.GetBackoffRounds(), 2, "two rounds");
        NS_TEST_EXPECT_MSG_EQ_TOL(Ms(rto.GetRto()),
                                  272.5 * 1.5 * 1.5,
                                  272.5 * 2.25e-6,
                                  "RTO x 1.5^2");
        // a valid sample (an Interest sent once) recomputes RFC 6298's RTO: the backoff
        // collapses
        rto.OnSample(Seconds(0.100), Seconds(0));
        NS_TEST_EXPECT_MSG_EQ(rto.GetBackoffRounds(), 0, "no round after a sample");
        NS_TEST_EXPECT_MSG_EQ_TOL(rto.GetRto().GetSeconds(),
                                  rto.GetBaseRto().GetSeconds(),
                                  1e-6 * rto.GetBaseRto().GetSeconds(),
                                  "RTO = base RTO");
    }
};

class LeotpRtoLoneInterestTestCase : public TestCase
{
  public:
    LeotpRtoLoneInterestTestCase()
        : TestCase("the kept backoff leaves a lone Interest's schedule unchanged")
    {
    }

  private:
    void DoRun() override
    {
        // One Interest never answered: each of its timeouts is a round, and its n-th re-send
        // is due RTO x 1.5^(n - 1) after the previous one, as without the kept backoff (RFC
        // 6298 section 5.5).
        LeotpRto rto = Rto272();
        double t = 0;
        for (uint32_t n = 1; n <= 4; ++n)
        {
            const double sent = t;
            t += rto.GetBackoffInterval(n).GetSeconds();
            NS_TEST_EXPECT_MSG_EQ_TOL(t * 1000, kResendTimesMs[n - 1], 1e-5, "re-send " << n);
            rto.OnTimeout(Seconds(sent), Seconds(t));
        }
        // without the kept backoff a timeout changes nothing for new Interests
        LeotpRto plain = Rto(false);
        plain.OnSample(Seconds(0.100), Seconds(0));
        plain.OnSample(Seconds(0.120), Seconds(0));
        plain.OnTimeout(Seconds(0.0), Seconds(0.2725));
        NS_TEST_EXPECT_MSG_EQ(plain.GetBackoffRounds(), 0, "no round kept");
        NS_TEST_EXPECT_MSG_EQ_TOL(Ms(plain.GetRto()), 272.5, 272.5e-6, "RTO unchanged");
    }
};

class LeotpRtoClampTestCase : public TestCase
{
  public:
    LeotpRtoClampTestCase()
        : TestCase("the RTO is clamped")
    {
    }

  private:
    void DoRun() override
    {
        LeotpRto rto = Rto(true, 0.2, 60.0);
        rto.OnSample(Seconds(0.010), Seconds(0)); // 10 + 4 x 5 = 30 ms, below the 200 ms floor
        NS_TEST_EXPECT_MSG_EQ_TOL(rto.GetRto().GetSeconds(), 0.2, 0.2e-6, "the floor");
        NS_TEST_EXPECT_MSG_EQ_TOL(rto.GetBackoffInterval(40).GetSeconds(),
                                  60.0,
                                  60e-6,
                                  "0.2 x 1.5^39 > 60 s: the ceiling");
    }
};

class LeotpRtoBadParametersTestCase : public TestCase
{
  public:
    LeotpRtoBadParametersTestCase()
        : TestCase("bad timer parameters name the field")
    {
    }

  private:
    void DoRun() override
    {
        LeotpRtoParams p;
        p.minRtoS = -1.0;
        const std::string minRto = InvalidArgument([&p] { p.Check("params"); });
        NS_TEST_EXPECT_MSG_EQ(Contains(minRto, "min_rto_s"), true, "'" << minRto << "'");
        LeotpRtoParams q;
        q.backoff = 0.5;
        const std::string backoff = InvalidArgument([&q] { q.Check("params"); });
        NS_TEST_EXPECT_MSG_EQ(Contains(backoff, "backoff"), true, "'" << backoff << "'");
    }
};

class LeotpRtoTestSuite : public TestSuite
{
  public:
    LeotpRtoTestSuite()
        : TestSuite("leotp-rto", Type::UNIT)
    {
        AddTestCase(new LeotpRtoRfc6298TestCase);
        AddTestCase(new LeotpRtoBackoffTimesTestCase);
        AddTestCase(new LeotpRtoKeptBackoffTestCase);
        AddTestCase(new LeotpRtoLoneInterestTestCase);
        AddTestCase(new LeotpRtoClampTestCase);
        AddTestCase(new LeotpRtoBadParametersTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
LeotpRtoTestSuite g_leotpRtoTestSuite;

} // namespace
