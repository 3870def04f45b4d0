// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of MACO's adaptive Kalman filter, eqs. (5)-(10) (cpp/model/cc/mp-maco-filter.h).
//
// Reference: W. Yang et al., "Mobility-Aware Congestion Control for Multipath QUIC in
// Integrated Terrestrial Satellite Networks", IEEE TMC 2024, Algorithm 1, eqs. (5)-(10);
// docs/specs/maco.md#checks item 6 and #kalman-filter-covariances (initial Z0 = C0^2,
// Q0 = (0.05 C0)^2, R0 = (0.2 C0)^2).

#include "model/cc/mp-maco-filter.h"

#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A relative tolerance of @p rel around @p expected (at least 1e-12).
double
Rel(double expected, double rel = 1e-6)
{
    return std::max(1e-12, rel * std::abs(expected));
}

/// "adaptive" or "fixed Q and R", for test names and messages.
std::string
Mode(bool adaptive)
{
    return adaptive ? "adaptive" : "fixed Q and R";
}

class MacoAkfFirstPosteriorTestCase : public TestCase
{
  public:
    explicit MacoAkfFirstPosteriorTestCase(bool adaptive)
        : TestCase("the first posterior follows the first measurement, " + Mode(adaptive)),
          m_adaptive(adaptive)
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/maco.md#checks item 6: with Z0 >> R0 the first posterior is about the
        // first sample. With Z0 = C0^2, Q0 = (0.05 C0)^2, R0 = (0.2 C0)^2:
        // K = 1.0025 / 1.0425.
        maco::Akf akf;
        akf.Reset(100e6, 20, m_adaptive);
        const double est = akf.Update(50e6, 100e6);
        const double k = (1.0 + 0.0025) / (1.0 + 0.0025 + 0.04);
        NS_TEST_EXPECT_MSG_EQ_TOL(akf.Gain(), k, Rel(k), "K, eq. (8)");
        const double want = 100e6 + k * (50e6 - 100e6);
        NS_TEST_EXPECT_MSG_EQ_TOL(est, want, Rel(want), "C^N+, eq. (9)");
        NS_TEST_EXPECT_MSG_LT(std::abs(est - 50e6), 0.05 * 50e6, "within 5 % of the sample");
    }

    bool m_adaptive;
};

class MacoAkfConvergesTestCase : public TestCase
{
  public:
    explicit MacoAkfConvergesTestCase(bool adaptive)
        : TestCase("Z shrinks and the estimate converges, " + Mode(adaptive)),
          m_adaptive(adaptive)
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/maco.md#checks item 6: Z shrinks monotonically and the estimate converges.
        maco::Akf akf;
        akf.Reset(100e6, 20, m_adaptive);
        double z = akf.Z();
        for (int i = 0; i < 300; ++i)
        {
            akf.Update(80e6, 100e6);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(akf.Z(), z, "Z after update " << i + 1);
            z = akf.Z();
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(akf.Estimate(), 80e6, Rel(80e6, 1e-4), "after 300 updates");
    }

    bool m_adaptive;
};

class MacoAkfKalmanRecursionTestCase : public TestCase
{
  public:
    MacoAkfKalmanRecursionTestCase()
        : TestCase("with Q and R fixed it is the Kalman recursion")
    {
    }

  private:
    void DoRun() override
    {
        // Eqs. (5)-(10) with Q, R fixed, against the recursion written out here.
        const double c0 = 50e6;
        maco::Akf akf;
        akf.Reset(c0, 20, false);
        double c = c0;
        double z = c0 * c0;
        const double q = (0.05 * c0) * (0.05 * c0);
        const double r = (0.2 * c0) * (0.2 * c0);
        for (double y : std::vector<double>{40e6, 45e6, 30e6, 60e6, 52e6})
        {
            const double zm = z + q;        // (6)
            const double k = zm / (zm + r); // (8)
            c = c + k * (y - c);            // (9)
            z = (1 - k) * zm;               // (10)
            // (the check macros evaluate their argument more than once: update first)
            const double est = akf.Update(y, c0);
            NS_TEST_EXPECT_MSG_EQ_TOL(est, c, Rel(c), "C^N+ after y = " << y);
            NS_TEST_EXPECT_MSG_EQ_TOL(akf.Z(), z, Rel(z), "Z+ after y = " << y);
        }
    }
};

class MpMacoFilterTestSuite : public TestSuite
{
  public:
    MpMacoFilterTestSuite()
        : TestSuite("mp-maco-filter", Type::UNIT)
    {
        for (bool adaptive : {true, false})
        {
            AddTestCase(new MacoAkfFirstPosteriorTestCase(adaptive));
            AddTestCase(new MacoAkfConvergesTestCase(adaptive));
        }
        AddTestCase(new MacoAkfKalmanRecursionTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
MpMacoFilterTestSuite g_mpMacoFilterTestSuite;

} // namespace
