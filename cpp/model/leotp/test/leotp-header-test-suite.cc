// SPDX-License-Identifier: GPL-2.0-only
//
// Unit tests of LeotpHeader: LEOTP's header (paper Table I) and its timestamp rule (section
// III.C); cpp/doc/leotp.md, "Validation".
//
// Reference values are arithmetic on Table I: type (1) + FlowID (4) + rangeStart (4) +
// rangeEnd (4) + timestamp (4) + sendRate/length (2) = 19 bytes; the srcBacklog extension adds
// 2. On the wire UDP adds 8 and IPv4 20 bytes, so an Interest or a void header is 47 bytes and
// a full Data packet 1500 bytes with MSS = 1500 - 47 = 1453 (1451 with srcBacklog).

#include "model/leotp/leotp-header.h"

#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"

#include <cstdint>
#include <vector>

using namespace ns3;

namespace
{

/// A header serialised into a packet (with its payload) and read back.
struct RoundTrip
{
    uint32_t headerBytes;       //!< the header's serialised size
    uint32_t packetBytes;       //!< header + payload
    uint32_t wireBytes;         //!< + the UDP and IPv4 headers ns-3's stack adds
    std::vector<uint8_t> bytes; //!< the header as serialised
    LeotpHeader read;           //!< the header read back from the packet
};

RoundTrip
RoundTripOf(const LeotpHeader& h)
{
    const uint32_t payload = h.IsData() && !h.IsVph() ? h.rangeEnd - h.rangeStart : 0;
    RoundTrip r;
    r.headerBytes = h.GetSerializedSize();
    Ptr<Packet> p = Create<Packet>(payload);
    p->AddHeader(h);
    r.bytes.resize(r.headerBytes);
    p->CopyData(r.bytes.data(), r.headerBytes);
    r.packetBytes = p->GetSize();
    p->RemoveHeader(r.read);
    Ptr<Packet> w = Create<Packet>(payload);
    w->AddHeader(h);
    w->AddHeader(UdpHeader());
    Ipv4Header ip;
    ip.SetPayloadSize(w->GetSize());
    w->AddHeader(ip);
    r.wireBytes = w->GetSize();
    return r;
}

/**
 * The hop-RTT sample of section III.C through the header's timestamp rules, with the
 * Requester's clock @p offsetS ahead of the Responder's: the Requester stamps an Interest at
 * true time t0; the Responder receives it interestOwdS later (OWD_I = its clock - stamp, mod
 * 2^32 us), holds it holdS, stamps Data with t_send - OWD_I; the Requester receives it
 * dataOwdS later and takes now - stamp.
 */
double
HopRttSample(double t0, double offsetS, double interestOwdS, double holdS, double dataOwdS)
{
    const uint32_t stampI = LeotpHeader::TimestampUs(t0 + offsetS);
    const double tArrive = t0 + interestOwdS;
    const uint32_t owdI = LeotpHeader::TimestampUs(tArrive) - stampI; // mod 2^32
    const double tSend = tArrive + holdS;
    const uint32_t stampD = LeotpHeader::TimestampUs(tSend) - owdI;
    const double tRecv = tSend + dataOwdS;
    return LeotpHeader::ElapsedS(LeotpHeader::TimestampUs(tRecv + offsetS), stampD);
}

class LeotpHeaderNineteenBytesTestCase : public TestCase
{
  public:
    LeotpHeaderNineteenBytesTestCase()
        : TestCase("an Interest and a void header are 19 bytes")
    {
    }

  private:
    void DoRun() override
    {
        const RoundTrip interest =
            RoundTripOf(LeotpHeader::Interest(7, 0, 1453, 0, LeotpHeader::RateField(1e7)));
        NS_TEST_EXPECT_MSG_EQ(interest.headerBytes, 19, "Interest header");
        NS_TEST_EXPECT_MSG_EQ(interest.packetBytes, 19, "an Interest has no payload");
        NS_TEST_EXPECT_MSG_EQ(interest.wireBytes, 47, "Interest on the wire");
        const RoundTrip vph = RoundTripOf(LeotpHeader::Vph(7, 2906, 4359, 0));
        NS_TEST_EXPECT_MSG_EQ(vph.headerBytes, 19, "VPH header");
        NS_TEST_EXPECT_MSG_EQ(vph.packetBytes, 19, "no payload");
        NS_TEST_EXPECT_MSG_EQ(vph.wireBytes, 47, "VPH on the wire");
        NS_TEST_EXPECT_MSG_EQ(vph.read.IsVph(), true, "read back as a VPH");
        NS_TEST_EXPECT_MSG_EQ(vph.read.IsData(), true, "a VPH is Data");
        NS_TEST_EXPECT_MSG_EQ(vph.read.IsInterest(), false, "a VPH is not an Interest");
        NS_TEST_EXPECT_MSG_EQ(vph.read.rateOrLength,
                              0,
                              "length 0: the range is the hole it announces");
        NS_TEST_EXPECT_MSG_EQ(vph.read.rangeStart, 2906, "the hole's start");
        NS_TEST_EXPECT_MSG_EQ(vph.read.rangeEnd, 4359, "the hole's end");
    }
};

class LeotpHeaderDataLengthTestCase : public TestCase
{
  public:
    LeotpHeaderDataLengthTestCase()
        : TestCase("Data is the header plus its length")
    {
    }

  private:
    void DoRun() override
    {
        const RoundTrip data = RoundTripOf(LeotpHeader::Data(3, 1000, 1600, 0, false));
        NS_TEST_EXPECT_MSG_EQ(data.headerBytes, 19, "Data header");
        NS_TEST_EXPECT_MSG_EQ(data.read.rateOrLength, 600, "length = rangeEnd - rangeStart");
        NS_TEST_EXPECT_MSG_EQ(data.packetBytes, 19 + 600, "header + payload");
        const RoundTrip withBacklog = RoundTripOf(LeotpHeader::Data(3, 1000, 1600, 0, true, -4));
        NS_TEST_EXPECT_MSG_EQ(withBacklog.headerBytes, 21, "Data header with srcBacklog");
        NS_TEST_EXPECT_MSG_EQ(withBacklog.packetBytes, 21 + 600, "header + payload");
        NS_TEST_EXPECT_MSG_EQ(withBacklog.read.srcBacklog, -4, "srcBacklog read back");
    }
};

class LeotpHeaderFullPacketTestCase : public TestCase
{
  public:
    LeotpHeaderFullPacketTestCase()
        : TestCase("a full Data packet is 1500 bytes of IP")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(RoundTripOf(LeotpHeader::Data(1, 0, 1453, 0, false)).wireBytes,
                              1500,
                              "MSS 1453");
        NS_TEST_EXPECT_MSG_EQ(RoundTripOf(LeotpHeader::Data(1, 0, 1451, 0, true)).wireBytes,
                              1500,
                              "MSS 1451 with srcBacklog");
    }
};

class LeotpHeaderByteOrderTestCase : public TestCase
{
  public:
    LeotpHeaderByteOrderTestCase()
        : TestCase("fields are big-endian in Table I's order")
    {
    }

  private:
    void DoRun() override
    {
        const RoundTrip h = RoundTripOf(LeotpHeader::Interest(0x01020304,
                                                              0x0A0B0C0D,
                                                              0x11121314,
                                                              0x21222324,
                                                              LeotpHeader::RateField(2.5e6)));
        const std::vector<uint8_t> expected{
            1,                      // TYPE_INT
            0x01, 0x02, 0x03, 0x04, // FlowID
            0x0A, 0x0B, 0x0C, 0x0D, // rangeStart
            0x11, 0x12, 0x13, 0x14, // rangeEnd
            0x21, 0x22, 0x23, 0x24, // timestamp
            0,    250,              // 2.5 Mbit/s in units of 10 kbit/s
        };
        NS_TEST_ASSERT_MSG_EQ(h.bytes.size(), expected.size(), "19 bytes");
        for (size_t i = 0; i < expected.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(unsigned{h.bytes[i]}, unsigned{expected[i]}, "byte " << i);
        }
        NS_TEST_EXPECT_MSG_EQ(LeotpHeader::FieldRate(h.read.rateOrLength),
                              2.5e6,
                              "sendRate read back");
        NS_TEST_EXPECT_MSG_EQ(h.read.flowId, 0x01020304, "FlowID read back");
        NS_TEST_EXPECT_MSG_EQ(h.read.rangeStart, 0x0A0B0C0D, "rangeStart read back");
        NS_TEST_EXPECT_MSG_EQ(h.read.rangeEnd, 0x11121314, "rangeEnd read back");
        NS_TEST_EXPECT_MSG_EQ(h.read.timestamp, 0x21222324, "timestamp read back");
    }
};

class LeotpHeaderRateFieldTestCase : public TestCase
{
  public:
    LeotpHeaderRateFieldTestCase()
        : TestCase("the sendRate field is in units of 10 kbit per second")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(LeotpHeader::RateField(10e6), 1000, "10 Mbit/s");
        NS_TEST_EXPECT_MSG_EQ(LeotpHeader::RateField(123'456.0), 12, "rounded to 10 kbit/s");
        NS_TEST_EXPECT_MSG_EQ(LeotpHeader::RateField(1.0),
                              1,
                              "a positive rate never reads as \"no change\"");
        NS_TEST_EXPECT_MSG_EQ(LeotpHeader::RateField(0.0), 0, "zero");
        NS_TEST_EXPECT_MSG_EQ(LeotpHeader::RateField(1e9),
                              65535,
                              "655.35 Mbit/s, the field's largest");
    }
};

class LeotpHeaderHopRttTestCase : public TestCase
{
  public:
    LeotpHeaderHopRttTestCase()
        : TestCase("a hop-RTT sample cancels the clock offset and the holding time")
    {
    }

  private:
    void DoRun() override
    {
        // Spec 4.2 item 6: Requester clock 37 ms ahead, Interest OWD 4 ms, Responder holds
        // the Data 50 ms, Data OWD 6 ms: the sample is 4 + 6 = 10 ms.
        NS_TEST_EXPECT_MSG_EQ_TOL(HopRttSample(12.345, 0.037, 0.004, 0.050, 0.006),
                                  0.010,
                                  1e-6,
                                  "offset 37 ms");
        // The offset may also be negative, and the 32-bit microsecond clock may wrap in
        // between (2**32 us = 4294.967296 s).
        NS_TEST_EXPECT_MSG_EQ_TOL(HopRttSample(4294.9, -0.2, 0.004, 0.300, 0.006),
                                  0.010,
                                  1e-6,
                                  "offset -200 ms across the wrap");
    }
};

class LeotpHeaderTestSuite : public TestSuite
{
  public:
    LeotpHeaderTestSuite()
        : TestSuite("leotp-header", Type::UNIT)
    {
        AddTestCase(new LeotpHeaderNineteenBytesTestCase);
        AddTestCase(new LeotpHeaderDataLengthTestCase);
        AddTestCase(new LeotpHeaderFullPacketTestCase);
        AddTestCase(new LeotpHeaderByteOrderTestCase);
        AddTestCase(new LeotpHeaderRateFieldTestCase);
        AddTestCase(new LeotpHeaderHopRttTestCase);
    }
};

/// The suite, registered with ns-3's test runner when the program starts.
LeotpHeaderTestSuite g_leotpHeaderTestSuite;

} // namespace
