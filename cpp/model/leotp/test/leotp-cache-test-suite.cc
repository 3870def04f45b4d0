// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of LeotpCache: a Midnode's cache (paper section IV.B: keyed by flow and byte
// range, 4096-byte blocks, LRU): prefix lookups, block accounting and least-recently-used
// eviction, by arithmetic on the block size.

#include "model/leotp/leotp-cache.h"
#include "test/leogym-test.h"

#include "ns3/test.h"

#include <string>

using namespace ns3;
using ns3::leogymtest::Contains;
using ns3::leogymtest::InvalidArgument;

namespace
{

/// Cache @p c's bytes [start, end) of @p flow (no stamp).
void
Insert(LeotpCache& c, uint32_t flow, uint64_t start, uint64_t end)
{
    c.Insert(flow, start, end, LeotpCacheStamp());
}

class LeotpCachePrefixTestCase : public TestCase
{
  public:
    LeotpCachePrefixTestCase()
        : TestCase("prefix hit and miss")
    {
    }

  private:
    void DoRun() override
    {
        LeotpCache c(16);
        Insert(c, 1, 0, 1451);
        Insert(c, 1, 1451, 2902);
        NS_TEST_EXPECT_MSG_EQ(c.LookupPrefix(1, 0, 1451, nullptr), 1451, "whole hit");
        NS_TEST_EXPECT_MSG_EQ(c.LookupPrefix(1, 1000, 4000, nullptr),
                              2902,
                              "the contiguous cached prefix");
        NS_TEST_EXPECT_MSG_EQ(c.LookupPrefix(1, 2902, 4353, nullptr), 2902, "miss: nothing served");
        NS_TEST_EXPECT_MSG_EQ(c.LookupPrefix(2, 0, 1451, nullptr),
                              0,
                              "another flow's bytes are not ours");
        NS_TEST_EXPECT_MSG_EQ(c.Contains(1, 0, 2902), true, "[0, 2902) cached");
        NS_TEST_EXPECT_MSG_EQ(c.Contains(1, 0, 2903), false, "[0, 2903) not cached");
        NS_TEST_EXPECT_MSG_EQ(c.GetHits(), 2, "two hits");
        NS_TEST_EXPECT_MSG_EQ(c.GetMisses(), 2, "two misses");
    }
};

class LeotpCacheBlockBoundaryTestCase : public TestCase
{
  public:
    LeotpCacheBlockBoundaryTestCase()
        : TestCase("ranges cross block boundaries")
    {
    }

  private:
    void DoRun() override
    {
        LeotpCache c(16);
        Insert(c, 1, 4000, 9000); // blocks 0 (4000..4096), 1 (all), 2 (8192..9000)
        NS_TEST_EXPECT_MSG_EQ(c.GetNBlocks(), 3, "three blocks");
        NS_TEST_EXPECT_MSG_EQ(c.LookupPrefix(1, 4000, 9000, nullptr), 9000, "whole hit");
        Insert(c, 1, 9000, 9100);
        NS_TEST_EXPECT_MSG_EQ(c.LookupPrefix(1, 8500, 12000, nullptr),
                              9100,
                              "the prefix runs on into the added bytes");
    }
};

class LeotpCacheLruTestCase : public TestCase
{
  public:
    LeotpCacheLruTestCase()
        : TestCase("least-recently-used eviction by block")
    {
    }

  private:
    void DoRun() override
    {
        LeotpCache c(2);
        Insert(c, 1, 0, 4096);    // block 0
        Insert(c, 1, 4096, 8192); // block 1
        NS_TEST_EXPECT_MSG_EQ(c.LookupPrefix(1, 0, 100, nullptr),
                              100,
                              "block 0 is now the most recently used");
        Insert(c, 1, 8192, 12288); // block 2 evicts block 1, the least recently used
        NS_TEST_EXPECT_MSG_EQ(c.GetNBlocks(), 2, "at capacity");
        NS_TEST_EXPECT_MSG_EQ(c.GetEvictions(), 1, "one eviction");
        NS_TEST_EXPECT_MSG_EQ(c.Contains(1, 0, 4096), true, "block 0 kept");
        NS_TEST_EXPECT_MSG_EQ(c.Contains(1, 4096, 4097), false, "block 1 evicted");
        NS_TEST_EXPECT_MSG_EQ(c.Contains(1, 8192, 12288), true, "block 2 cached");
    }
};

class LeotpCacheZeroBlocksTestCase : public TestCase
{
  public:
    LeotpCacheZeroBlocksTestCase()
        : TestCase("zero blocks is an error naming cache_blocks")
    {
    }

  private:
    void DoRun() override
    {
        const std::string e = InvalidArgument([] { LeotpCache c(0); });
        NS_TEST_EXPECT_MSG_EQ(Contains(e, "cache_blocks"), true, "message: '" << e << "'");
    }
};

class LeotpCacheTestSuite : public TestSuite
{
  public:
    LeotpCacheTestSuite()
        : TestSuite("leotp-cache", Type::UNIT)
    {
        AddTestCase(new LeotpCachePrefixTestCase);
        AddTestCase(new LeotpCacheBlockBoundaryTestCase);
        AddTestCase(new LeotpCacheLruTestCase);
        AddTestCase(new LeotpCacheZeroBlocksTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
LeotpCacheTestSuite g_leotpCacheTestSuite;

} // namespace
