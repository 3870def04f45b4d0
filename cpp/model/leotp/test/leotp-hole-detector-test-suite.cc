// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of LeotpHoleDetector: LEOTP's Algorithm 1 (sequence-hole retransmission and void
// packet headers, section III.B; cpp/doc/leotp.md, "Loss detection"), and its hole expiry on
// ns-3's clock.
//
// Unless a test says otherwise, N = 1 and packet i covers [i, i + 1). The sequences and their
// outcomes are the paper's Fig. 8b and the algorithm's text: a hole is announced (VPH) by the
// node that first sees it, before the packet that reveals it, and is requested upstream once
// more than N later packets skipped it (strictly: the revealing packet does not count).

#include "model/leotp/leotp-hole-detector.h"

#include "ns3/nstime.h"
#include "ns3/test.h"

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// Ranges as text, "[2, 3) [4, 6)" ("" for none), so that a failure prints them.
std::string
Ranges(const std::vector<LeotpRange>& ranges)
{
    std::ostringstream os;
    for (const auto& [start, end] : ranges)
    {
        os << (os.tellp() > 0 ? " " : "") << "[" << start << ", " << end << ")";
    }
    return os.str();
}

/// The hole a result announces as text, "" when it announces none.
std::string
Vph(const LeotpHoleDetector::Result& r)
{
    return r.vph ? Ranges({r.vphRange}) : "";
}

/// The detector's open holes as text, "[start, end) xcount" each.
std::string
Holes(const LeotpHoleDetector& d)
{
    std::ostringstream os;
    for (const auto& h : d.GetHoles())
    {
        os << (os.tellp() > 0 ? " " : "") << "[" << h.start << ", " << h.end << ") x" << h.count;
    }
    return os.str();
}

/// A detector with the given threshold N, chunk and expiry (the resync limit is 100 chunks).
LeotpHoleDetector
Detector(uint32_t threshold = 1, uint32_t chunkBytes = 1, double expiryS = 0.2)
{
    LeotpHoleParams p;
    p.threshold = threshold;
    p.chunkBytes = chunkBytes;
    p.expiryS = expiryS;
    p.Check("params");
    return LeotpHoleDetector(p);
}

/// Feed the single-byte packets starting at @p starts, at time 0; their results.
std::vector<LeotpHoleDetector::Result>
Feed(LeotpHoleDetector& d, const std::vector<uint64_t>& starts)
{
    std::vector<LeotpHoleDetector::Result> out;
    for (uint64_t s : starts)
    {
        out.push_back(d.OnPacket(s, s + 1, 0.0));
    }
    return out;
}

/// Fig. 8b at the Midnode that loses packet 2: it announces the hole, then requests it on the
/// second later packet.
class LeotpHoleFig8bMidnodeTestCase : public TestCase
{
  public:
    LeotpHoleFig8bMidnodeTestCase()
        : TestCase("Fig. 8b: the midnode announces the hole, then requests it on the second "
                   "later packet")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHoleDetector d = Detector();
        const auto r = Feed(d, {1, 3, 4, 5});
        NS_TEST_EXPECT_MSG_EQ(Vph(r[0]), "", "packet 1 announces nothing");
        NS_TEST_EXPECT_MSG_EQ(Ranges(r[0].requests), "", "packet 1 requests nothing");
        NS_TEST_EXPECT_MSG_EQ(Vph(r[1]), "[2, 3)", "VPH [2, 3) before packet 3");
        NS_TEST_EXPECT_MSG_EQ(Ranges(r[1].requests), "", "packet 3 requests nothing");
        NS_TEST_EXPECT_MSG_EQ(Vph(r[2]), "", "packet 4 announces nothing");
        NS_TEST_EXPECT_MSG_EQ(Ranges(r[2].requests), "", "count 1, not > N");
        NS_TEST_EXPECT_MSG_EQ(Ranges(r[3].requests), "[2, 3)", "count 2 > N: Interest [2, 3)");
        NS_TEST_EXPECT_MSG_EQ(Holes(d), "", "SHR does not track the request");
    }
};

/// Fig. 8b downstream: packet 1, the VPH [2, 3) (a header: it is fed like Data), 3, 4, 5.
class LeotpHoleFig8bDownstreamTestCase : public TestCase
{
  public:
    LeotpHoleFig8bDownstreamTestCase()
        : TestCase("Fig. 8b: a downstream node sees no gap")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHoleDetector d = Detector();
        const std::vector<LeotpRange> packets{{1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}};
        for (const auto& [start, end] : packets)
        {
            const auto r = d.OnPacket(start, end, 0.0);
            NS_TEST_EXPECT_MSG_EQ(Vph(r), "", "no VPH at packet " << start);
            NS_TEST_EXPECT_MSG_EQ(Ranges(r.requests), "", "no request at packet " << start);
        }
    }
};

class LeotpHoleReorderingTestCase : public TestCase
{
  public:
    LeotpHoleReorderingTestCase()
        : TestCase("reordering is announced but not requested")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHoleDetector d = Detector();
        const auto r = Feed(d, {1, 3, 2, 4, 5});
        NS_TEST_EXPECT_MSG_EQ(Vph(r[1]), "[2, 3)", "packet 3 announces [2, 3)");
        for (size_t i = 0; i < r.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(Ranges(r[i].requests), "", "no request at packet " << i);
        }
        NS_TEST_EXPECT_MSG_EQ(Holes(d), "", "packet 2 filled the hole");
    }
};

class LeotpHoleLateRetransmissionTestCase : public TestCase
{
  public:
    LeotpHoleLateRetransmissionTestCase()
        : TestCase("a late retransmission changes nothing")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHoleDetector d = Detector();
        Feed(d, {1, 3, 4, 5});
        const auto late = d.OnPacket(2, 3, 0.0);
        NS_TEST_EXPECT_MSG_EQ(Vph(late), "", "no VPH");
        NS_TEST_EXPECT_MSG_EQ(Ranges(late.requests), "", "no request");
        NS_TEST_EXPECT_MSG_EQ(d.GetLastByte(), 6, "lastByte stays at the end of packet 5");
    }
};

class LeotpHoleBurstLossTestCase : public TestCase
{
  public:
    LeotpHoleBurstLossTestCase()
        : TestCase("a burst loss is one hole, requested in chunks")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHoleDetector d = Detector();
        const auto r = Feed(d, {1, 5, 6, 7});
        NS_TEST_EXPECT_MSG_EQ(Vph(r[1]), "[2, 5)", "one VPH for the burst");
        NS_TEST_EXPECT_MSG_EQ(Ranges(r[2].requests), "", "count 1, not > N");
        NS_TEST_EXPECT_MSG_EQ(Ranges(r[3].requests), "[2, 5)", "count 2 > N");
        // Requests (and VPHs) go out per chunk: 3 chunks of 1 byte here.
        NS_TEST_EXPECT_MSG_EQ(Ranges(LeotpHoleDetector::SplitChunks(2, 5, 1)),
                              "[2, 3) [3, 4) [4, 5)",
                              "1-byte chunks");
        // With 1451-byte chunks, a hole is cut at chunk boundaries.
        NS_TEST_EXPECT_MSG_EQ(Ranges(LeotpHoleDetector::SplitChunks(1000, 4000, 1451)),
                              "[1000, 1451) [1451, 2902) [2902, 4000)",
                              "1451-byte chunks");
    }
};

class LeotpHolePartialFillTestCase : public TestCase
{
  public:
    LeotpHolePartialFillTestCase()
        : TestCase("a partial fill splits the hole and keeps its count")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHoleDetector d = Detector();
        Feed(d, {1, 6, 7}); // hole [2, 6), count 1 after packet 7
        NS_TEST_EXPECT_MSG_EQ(Holes(d), "[2, 6) x1", "one hole, skipped once");
        NS_TEST_EXPECT_MSG_EQ(Ranges(d.OnPacket(3, 4, 0.0).requests),
                              "",
                              "a late packet inside the hole requests nothing");
        NS_TEST_EXPECT_MSG_EQ(Holes(d), "[2, 3) x1 [4, 6) x1", "two pieces, the same count");
        // The next later packet takes both pieces over N.
        NS_TEST_EXPECT_MSG_EQ(Ranges(d.OnPacket(8, 9, 0.0).requests),
                              "[2, 3) [4, 6)",
                              "both pieces requested");
    }
};

class LeotpHoleFreshNodeTestCase : public TestCase
{
  public:
    LeotpHoleFreshNodeTestCase()
        : TestCase("a fresh node opens no hole")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHoleDetector d = Detector();
        const auto r = d.OnPacket(1000, 1001, 0.0);
        NS_TEST_EXPECT_MSG_EQ(Vph(r), "", "no VPH for what came before");
        NS_TEST_EXPECT_MSG_EQ(Ranges(r.requests), "", "no request");
        NS_TEST_EXPECT_MSG_EQ(d.GetLastByte(), 1001, "lastByte is the packet's end");
        NS_TEST_EXPECT_MSG_EQ(Holes(d), "", "no hole");
    }
};

class LeotpHoleResyncTestCase : public TestCase
{
  public:
    LeotpHoleResyncTestCase()
        : TestCase("a jump over 100 chunks resynchronises")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHoleDetector d = Detector(1, 1451);
        d.OnPacket(0, 1451, 0.0);
        const uint64_t jump = 1451 + 100 * 1451 + 1; // more than 100 MSS beyond lastByte
        const auto r = d.OnPacket(jump, jump + 1451, 0.0);
        NS_TEST_EXPECT_MSG_EQ(r.resync, true, "resynchronised");
        NS_TEST_EXPECT_MSG_EQ(Vph(r), "", "no VPH");
        NS_TEST_EXPECT_MSG_EQ(Holes(d), "", "no hole");
        NS_TEST_EXPECT_MSG_EQ(d.GetLastByte(), jump + 1451, "lastByte jumps");
        // exactly 100 MSS is still a loss
        LeotpHoleDetector d2 = Detector(1, 1451);
        d2.OnPacket(0, 1451, 0.0);
        const auto r2 = d2.OnPacket(1451 + 100 * 1451, 1451 + 101 * 1451, 0.0);
        NS_TEST_EXPECT_MSG_EQ(r2.resync, false, "100 MSS is not a resync");
        NS_TEST_EXPECT_MSG_EQ(Vph(r2), Ranges({{1451, 1451 + 100 * 1451}}), "a 100-MSS hole");
    }
};

class LeotpHoleExpiryTestCase : public TestCase
{
  public:
    LeotpHoleExpiryTestCase()
        : TestCase("an open hole is requested at its expiry")
    {
    }

  private:
    void DoRun() override
    {
        LeotpHoleDetector d = Detector(1, 1, 0.2);
        d.OnPacket(1, 2, 1.0);
        d.OnPacket(3, 4, 1.01); // hole [2, 3) opened at 1.01, then the flow pauses
        NS_TEST_EXPECT_MSG_EQ_TOL(d.NextExpiryS(), 1.21, 1.21e-6, "opened + 0.2 s");
        NS_TEST_EXPECT_MSG_EQ(Ranges(d.Expire(1.2)), "", "not due at 1.2 s");
        NS_TEST_EXPECT_MSG_EQ(Ranges(d.Expire(1.21)), "[2, 3)", "due at 1.21 s");
        NS_TEST_EXPECT_MSG_EQ(Holes(d), "", "the expired hole is gone");
    }
};

// Hole expiry on the simulator's clock. ns-3's clock counts whole nanoseconds and Seconds(x)
// rounds x to the nearest one, so a timer armed at a for a deadline t (a double) fires at
// a + round(t - a) ns, which can be up to half a nanosecond before t. The detector must count
// such a deadline as due: before it did, the Consumer's hole timer found nothing due,
// re-armed itself for the same deadline (a zero delay) and fired again at the same instant
// without end (variant B on leotp_bj_ny, 120 s, stopped at 47 s). The times below are those
// of that run's time of day; the arithmetic is ns-3's own Time.

/// When ns-3 runs a timer scheduled at @p armedNs with delay Seconds(deadline - now).
double
FireTimeS(int64_t armedNs, double deadlineS)
{
    const Time now = NanoSeconds(armedNs);
    return (now + Seconds(deadlineS - now.GetSeconds())).GetSeconds();
}

class LeotpHoleClockPremiseTestCase : public TestCase
{
  public:
    LeotpHoleClockPremiseTestCase()
        : TestCase("clock: a timer can fire before a double deadline")
    {
    }

  private:
    /// The premise of the next case: around 47 s, a 0.2 s deadline from a time on the
    /// nanosecond grid is not always on the grid, and the rounded timer fires before it.
    void DoRun() override
    {
        int early = 0;
        for (int64_t k = 0; k < 1000; ++k)
        {
            const int64_t armed = 46'800'000'000 + k;
            const double t = NanoSeconds(armed).GetSeconds() + 0.2;
            early += FireTimeS(armed, t) < t ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_GT(early, 0, "some timers fire before their deadline");
    }
};

class LeotpHoleClockDueTestCase : public TestCase
{
  public:
    LeotpHoleClockDueTestCase()
        : TestCase("clock: a hole is due when its timer fires")
    {
    }

  private:
    /// Every hole opened on the nanosecond grid near 47 s (and near 1 s and 1000 s) is
    /// returned by Expire() at the instant its timer fires, and the detector is then empty,
    /// so the timer is not re-armed for the same instant.
    void DoRun() override
    {
        for (int64_t baseNs :
             {int64_t{1'000'000'000}, int64_t{46'800'000'000}, int64_t{1'000'000'000'000}})
        {
            for (int64_t k = 0; k < 500; ++k)
            {
                LeotpHoleDetector d = Detector(1, 1, 0.2);
                const int64_t openedNs = baseNs + 7 * k;
                d.OnPacket(1, 2, NanoSeconds(openedNs - 1000).GetSeconds());
                d.OnPacket(3, 4, NanoSeconds(openedNs).GetSeconds()); // hole [2, 3) opens
                const double t = d.NextExpiryS();
                const double fire = FireTimeS(openedNs, t);
                NS_TEST_ASSERT_MSG_EQ(Ranges(d.Expire(fire)),
                                      "[2, 3)",
                                      "opened at " << openedNs << " ns, fired " << (t - fire)
                                                   << " s early");
                NS_TEST_ASSERT_MSG_EQ(Holes(d), "", "empty after expiry, opened " << openedNs);
                if (IsStatusFailure())
                {
                    return; // the first failing instant says it all
                }
            }
        }
    }
};

class LeotpHoleClockNotEarlyTestCase : public TestCase
{
  public:
    LeotpHoleClockNotEarlyTestCase()
        : TestCase("clock: a hole is not due a tick early")
    {
    }

  private:
    /// The slack is below one tick: a timer two nanoseconds short of the deadline still finds
    /// the hole open (Algorithm 1's 200 ms wait is kept).
    void DoRun() override
    {
        LeotpHoleDetector d = Detector(1, 1, 0.2);
        d.OnPacket(1, 2, 46.8);
        d.OnPacket(3, 4, 46.81);
        const double t = d.NextExpiryS();
        NS_TEST_EXPECT_MSG_EQ(Ranges(d.Expire(t - 2e-9)), "", "2 ns early: still open");
        NS_TEST_EXPECT_MSG_EQ(Ranges(d.Expire(t)), "[2, 3)", "due at the deadline");
    }
};

class LeotpHoleDetectorTestSuite : public TestSuite
{
  public:
    LeotpHoleDetectorTestSuite()
        : TestSuite("leotp-hole-detector", Type::UNIT)
    {
        AddTestCase(new LeotpHoleFig8bMidnodeTestCase);
        AddTestCase(new LeotpHoleFig8bDownstreamTestCase);
        AddTestCase(new LeotpHoleReorderingTestCase);
        AddTestCase(new LeotpHoleLateRetransmissionTestCase);
        AddTestCase(new LeotpHoleBurstLossTestCase);
        AddTestCase(new LeotpHolePartialFillTestCase);
        AddTestCase(new LeotpHoleFreshNodeTestCase);
        AddTestCase(new LeotpHoleResyncTestCase);
        AddTestCase(new LeotpHoleExpiryTestCase);
        AddTestCase(new LeotpHoleClockPremiseTestCase);
        AddTestCase(new LeotpHoleClockDueTestCase);
        AddTestCase(new LeotpHoleClockNotEarlyTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
LeotpHoleDetectorTestSuite g_leotpHoleDetectorTestSuite;

} // namespace
