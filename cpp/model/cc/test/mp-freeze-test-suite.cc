// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of StarQUIC's freeze predicate on the fixed handover grid
// (MpFreeze::InScheduleWindow, cpp/model/cc/mp-freeze.h) and of the attribute defaults that
// place the grid.
//
// Reference: Kamel et al., StarQUIC (LEO-NET '24): Starlink hands over at seconds 12, 27, 42
// and 57 of every minute, and the window is +-100 ms around each handover on the lost packet's
// send time; docs/specs/freeze.md#checks items 1 and 6.

#include "model/cc/mp-freeze.h"

#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/test.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr double kOffsetS = 12.0; //!< the grid's first handover second (StarQUIC)
constexpr double kPeriodS = 15.0; //!< the grid's period (StarQUIC)
constexpr double kBeforeS = 0.1;  //!< the window before a handover (StarQUIC)
constexpr double kAfterS = 0.1;   //!< the window after a handover (StarQUIC)

/// Seconds in integer microseconds, rounded as MpFreeze rounds its attributes.
int64_t
Us(double s)
{
    return std::llround(s * 1e6);
}

/// The fixed-grid predicate with StarQUIC's grid at send time @p tS (EpochPhase = 0,
/// DeltaOff = 0).
bool
InWindow(double tS)
{
    return MpFreeze::InScheduleWindow(Us(tS),
                                      Us(kOffsetS),
                                      Us(kPeriodS),
                                      Us(kBeforeS),
                                      Us(kAfterS));
}

class FreezeDefaultsTestCase : public TestCase
{
  public:
    FreezeDefaultsTestCase()
        : TestCase("the defaults are StarQUIC's grid and window")
    {
    }

  private:
    void DoRun() override
    {
        const Ptr<MpFreeze> f = CreateObject<MpFreeze>();
        DoubleValue d;
        f->GetAttribute("ScheduleOffset", d);
        NS_TEST_EXPECT_MSG_EQ(d.Get(), kOffsetS, "ScheduleOffset: handovers at second 12");
        f->GetAttribute("SchedulePeriod", d);
        NS_TEST_EXPECT_MSG_EQ(d.Get(), kPeriodS, "SchedulePeriod: every 15 s");
        f->GetAttribute("EpochPhase", d);
        NS_TEST_EXPECT_MSG_EQ(d.Get(), 0.0, "EpochPhase");
        TimeValue t;
        f->GetAttribute("Before", t);
        NS_TEST_EXPECT_MSG_EQ(t.Get(), Seconds(kBeforeS), "Before: 100 ms");
        f->GetAttribute("After", t);
        NS_TEST_EXPECT_MSG_EQ(t.Get(), Seconds(kAfterS), "After: 100 ms");
        f->GetAttribute("DeltaOff", t);
        NS_TEST_EXPECT_MSG_EQ(t.Get(), Time(0), "DeltaOff");
    }
};

class FreezeInsideTheWindowTestCase : public TestCase
{
  public:
    FreezeInsideTheWindowTestCase()
        : TestCase("packets sent within 100 ms of a grid handover are frozen")
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/freeze.md#checks item 1 (inclusive edges, integer microseconds, item 6).
        for (double t :
             std::vector<double>{11.900, 12.000, 12.100, 26.95, 42.0, 57.1, 72.0, 117.05})
        {
            NS_TEST_EXPECT_MSG_EQ(InWindow(t), true, "sent at " << t << " s");
        }
    }
};

class FreezeOutsideTheWindowTestCase : public TestCase
{
  public:
    FreezeOutsideTheWindowTestCase()
        : TestCase("packets sent farther from a grid handover are not frozen")
    {
    }

  private:
    void DoRun() override
    {
        // docs/specs/freeze.md#checks item 1: 1 ms beyond either edge is outside.
        for (double t : std::vector<double>{11.899, 12.101, 20.0, 0.0, 59.9})
        {
            NS_TEST_EXPECT_MSG_EQ(InWindow(t), false, "sent at " << t << " s");
        }
    }
};

class MpFreezeTestSuite : public TestSuite
{
  public:
    MpFreezeTestSuite()
        : TestSuite("mp-freeze", Type::UNIT)
    {
        AddTestCase(new FreezeDefaultsTestCase);
        AddTestCase(new FreezeInsideTheWindowTestCase);
        AddTestCase(new FreezeOutsideTheWindowTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
MpFreezeTestSuite g_mpFreezeTestSuite;

} // namespace
