// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of MACO's equations as pure functions (cpp/model/cc/mp-maco-equations.h): the
// propagation RTT (eq. 11), the quick-start window (Algorithm 2, eqs. 15-16), the per-ACK
// increase of congestion avoidance (eq. 26), the congestion test (eq. 17) and the time average
// of eq. (14).
//
// Reference values: W. Yang et al., "Mobility-Aware Congestion Control for Multipath QUIC in
// Integrated Terrestrial Satellite Networks", IEEE TMC 2024, and the derived tables of
// docs/specs/maco.md (#congestion-avoidance, #checks).

#include "model/cc/mp-maco-equations.h"

#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

constexpr double kNone = std::numeric_limits<double>::quiet_NaN(); //!< no history
constexpr double kGamma = 0.5;                                     //!< MACO's gamma
constexpr double kInitPkts = 4.0;                                  //!< the 4-MSS floor

/// A relative tolerance of 1e-6 around @p expected (at least 1e-12).
double
Rel(double expected)
{
    return std::max(1e-12, 1e-6 * std::abs(expected));
}

/// Eq. (26) of path @p r over the vectors @p w, @p tau, @p T (packets per ACK).
double
Increment(const std::vector<double>& w,
          const std::vector<double>& tau,
          const std::vector<double>& T,
          std::size_t r)
{
    return maco::CaIncrement(w.data(), tau.data(), T.data(), w.size(), r);
}

class MacoPropagationRttTestCase : public TestCase
{
  public:
    MacoPropagationRttTestCase()
        : TestCase("eq. (11) gives 100 ms for 550 km and 600 km legs")
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/maco.md#checks item 2: 550 km / 600 km legs, D_terr = 46.17 ms: 100.0 ms.
        NS_TEST_EXPECT_MSG_EQ_TOL(maco::PropagationRtt(550e3 / 3e8, 600e3 / 3e8, 46.17e-3),
                                  0.1000,
                                  5e-5,
                                  "D = 2 (D_ul + D_dl + D_terr)");
    }
};

class MacoQuickStartTestCase : public TestCase
{
  public:
    MacoQuickStartTestCase()
        : TestCase("the quick-start window, eqs. (15)-(16)")
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/maco.md#checks item 3.
        NS_TEST_EXPECT_MSG_EQ(maco::QuickStartWindow(1650.0, kNone, kNone, kGamma, kInitPkts),
                              4.0,
                              "no history: the initial window");
        NS_TEST_EXPECT_MSG_EQ(maco::QuickStartWindow(1650.0, 120.0, kNone, kGamma, kInitPkts),
                              60.0,
                              "own history max 120, B = 1650: gamma * 120");
        NS_TEST_EXPECT_MSG_EQ(maco::QuickStartWindow(80.0, kNone, 120.0, kGamma, kInitPkts),
                              40.0,
                              "another subflow's history max 120, B = 80: gamma * 80");
        // Eq. (16) uses W_r when it exists, even if another path's history is larger.
        NS_TEST_EXPECT_MSG_EQ(maco::QuickStartWindow(1650.0, 100.0, 500.0, kGamma, kInitPkts),
                              50.0,
                              "own history preferred");
        // gamma * min(B, w) below the 4-MSS floor.
        NS_TEST_EXPECT_MSG_EQ(maco::QuickStartWindow(5.0, 120.0, kNone, kGamma, kInitPkts),
                              4.0,
                              "floored at four packets");
    }
};

class MacoCaIncrementTableTestCase : public TestCase
{
  public:
    MacoCaIncrementTableTestCase()
        : TestCase("eq. (26) against the reference table")
    {
    }

  private:
    void DoRun() override
    {
        struct Row
        {
            std::vector<double> w;        //!< windows (packets)
            std::vector<double> tau;      //!< latest RTTs (s)
            std::vector<double> T;        //!< largest RTTs (s)
            std::vector<double> expected; //!< per-ACK increase of each path (packets)
            double tol;                   //!< absolute tolerance
        };

        // docs/specs/maco.md#congestion-avoidance reference table (eq. 26, packets per ACK).
        const std::vector<Row> table{
            {{100}, {0.1}, {0.1}, {0.15000}, 5e-6},
            {{300}, {0.1}, {0.1}, {0.08660}, 5e-6},
            {{300}, {0.1}, {0.2}, {0.12247}, 5e-6},
            {{1000}, {0.1}, {0.1}, {0.04743}, 5e-6},
            {{150, 150}, {0.1, 0.1}, {0.1, 0.1}, {0.021651, 0.021651}, 5e-7},
            {{200, 100}, {0.1, 0.05}, {0.12, 0.06}, {0.020540, 0.041079}, 5e-7},
        };
        for (std::size_t row = 0; row < table.size(); ++row)
        {
            const Row& t = table[row];
            for (std::size_t r = 0; r < t.expected.size(); ++r)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(Increment(t.w, t.tau, t.T, r),
                                          t.expected[r],
                                          t.tol,
                                          "row " << row << ", path " << r);
            }
        }
    }
};

class MacoCaIncrementSinglePathTestCase : public TestCase
{
  public:
    MacoCaIncrementSinglePathTestCase()
        : TestCase("one path adds 1.5 times Elastic-TCP's increase")
    {
    }

  private:
    void DoRun() override
    {
        // One path: U = 1.5 sqrt(T / (tau w)), 1.5 x Elastic-TCP's per-ACK increase.
        for (const auto& [w, tau, t] :
             std::vector<std::tuple<double, double, double>>{{10, 0.05, 0.3},
                                                             {700, 0.2, 0.25},
                                                             {42, 0.6, 0.6}})
        {
            const double elastic = std::sqrt(t / (tau * w));
            NS_TEST_EXPECT_MSG_EQ_TOL(Increment({w}, {tau}, {t}, 0),
                                      1.5 * elastic,
                                      Rel(1.5 * elastic),
                                      "w " << w << ", tau " << tau << ", T " << t);
        }
    }
};

class MacoCaIncrementCouplingTestCase : public TestCase
{
  public:
    MacoCaIncrementCouplingTestCase()
        : TestCase("n identical subflows add 1 over n squared in aggregate")
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/maco.md#congestion-avoidance: n identical subflows with total rate X add
        // 3 sqrt(T X) / (2 n^2) per RTT in aggregate.
        const double tau = 0.1;
        const double t = 0.1;
        const double totalW = 600.0;
        const double xTotal = totalW / tau;
        for (std::size_t n = 1; n <= 4; ++n)
        {
            const double nd = static_cast<double>(n);
            const std::vector<double> w(n, totalW / nd);
            const double u =
                Increment(w, std::vector<double>(n, tau), std::vector<double>(n, t), 0);
            const double perRttAggregate = nd * u * (totalW / nd); // w ACKs per subflow per RTT
            const double want = 3.0 * std::sqrt(t * xTotal) / (2.0 * nd * nd);
            NS_TEST_EXPECT_MSG_EQ_TOL(perRttAggregate, want, Rel(want), "n = " << n);
        }
    }
};

class MacoCongestionPredicateTestCase : public TestCase
{
  public:
    MacoCongestionPredicateTestCase()
        : TestCase("eq. (17) needs both (17a) and (17b)")
    {
    }

  private:
    void DoRun() override
    {
        // C = 198.6 Mbit/s, D = 100 ms, Delta_R = 1 ms: (17a) holds at 10 Mbit/s and not at
        // 300; (17b) holds at tau = 150 ms and not at 100.5 ms.
        for (bool con1 : {false, true})
        {
            for (bool con2 : {false, true})
            {
                const double tp = con1 ? 10e6 : 300e6;
                const double tau = con2 ? 0.15 : 0.1005;
                NS_TEST_EXPECT_MSG_EQ(maco::IsCongestion(tp, 198.6e6, tau, 0.1, 0.001),
                                      (con1 && con2),
                                      "(17a) " << con1 << ", (17b) " << con2);
            }
        }
    }
};

class MacoTimeAverageTestCase : public TestCase
{
  public:
    MacoTimeAverageTestCase()
        : TestCase("eq. (14) as a trapezoid time average")
    {
    }

  private:
    void DoRun() override
    {
        const std::deque<std::pair<double, double>> s{{0.0, 0.0}, {1.0, 2.0}, {2.0, 2.0}};
        NS_TEST_EXPECT_MSG_EQ_TOL(maco::TimeAverage(s, 0.0, 2.0), 1.5, Rel(1.5), "[0, 2]");
        // Window starting mid-segment: value at t1 = 0.5 interpolated as 1.0.
        const double mid = (0.5 * (1.0 + 2.0) * 0.5 + 2.0) / 1.5;
        NS_TEST_EXPECT_MSG_EQ_TOL(maco::TimeAverage(s, 0.5, 2.0), mid, Rel(mid), "[0.5, 2]");
        // Shorter history than the window: average what exists.
        const std::deque<std::pair<double, double>> shortHistory{{1.0, 3.0}, {1.5, 5.0}};
        NS_TEST_EXPECT_MSG_EQ_TOL(maco::TimeAverage(shortHistory, 0.0, 1.5),
                                  4.0,
                                  Rel(4.0),
                                  "history shorter than the window");
    }
};

class MpMacoEquationsTestSuite : public TestSuite
{
  public:
    MpMacoEquationsTestSuite()
        : TestSuite("mp-maco-equations", Type::UNIT)
    {
        AddTestCase(new MacoPropagationRttTestCase);
        AddTestCase(new MacoQuickStartTestCase);
        AddTestCase(new MacoCaIncrementTableTestCase);
        AddTestCase(new MacoCaIncrementSinglePathTestCase);
        AddTestCase(new MacoCaIncrementCouplingTestCase);
        AddTestCase(new MacoCongestionPredicateTestCase);
        AddTestCase(new MacoTimeAverageTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
MpMacoEquationsTestSuite g_mpMacoEquationsTestSuite;

} // namespace
