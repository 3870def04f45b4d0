// SPDX-License-Identifier: GPL-2.0-only
//
// _core.testing (LEOTP part, LEOGYM_TESTING builds only): probes that drive LEOTP's pure
// components by hand (cpp/doc/leotp.md): the header, the cache, the hole detector
// (Algorithm 1), the hop controller (eqs. (6)-(10)), the token bucket, the retransmission
// timeout (RFC 6298) and the Consumer's Interest pacing (C1).

#include "bindings/registry.h"
#include "model/leotp/leotp-cache.h"
#include "model/leotp/leotp-header.h"
#include "model/leotp/leotp-hole-detector.h"
#include "model/leotp/leotp-hop-controller.h"
#include "model/leotp/leotp-interest-pacer.h"
#include "model/leotp/leotp-rto.h"
#include "model/leotp/leotp-token-bucket.h"

#include <pybind11/stl.h>

#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/udp-header.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace
{

ns3::LeotpType
TypeFromString(const std::string& s)
{
    if (s == "interest")
    {
        return ns3::LeotpType::INTEREST;
    }
    if (s == "data")
    {
        return ns3::LeotpType::DATA;
    }
    if (s == "data_bl")
    {
        return ns3::LeotpType::DATA_BL;
    }
    if (s == "vph")
    {
        return ns3::LeotpType::DATA;
    }
    throw std::invalid_argument("kind: must be 'interest', 'data', 'data_bl' or 'vph', got '" + s +
                                "'");
}

uint32_t
CheckU32(long long v, const char* field)
{
    if (v < 0 || v > 0xffffffffLL)
    {
        throw std::invalid_argument(std::string(field) + ": must be in [0, 2**32 - 1]");
    }
    return static_cast<uint32_t>(v);
}

/// Build a header, serialise it, read it back: size, bytes and the fields read.
py::dict
HeaderRoundTrip(const std::string& kind,
                long long flow,
                long long start,
                long long end,
                long long timestampUs,
                double sendRateBps,
                int backlog)
{
    const ns3::LeotpType t = TypeFromString(kind);
    const uint32_t f = CheckU32(flow, "flow");
    const uint32_t a = CheckU32(start, "start");
    const uint32_t b = CheckU32(end, "end");
    const uint32_t ts = CheckU32(timestampUs, "timestamp_us");
    if (t != ns3::LeotpType::INTEREST && (b < a || b - a > 65535))
    {
        throw std::invalid_argument("end: a Data range must have 0..65535 bytes");
    }
    if (backlog < -32768 || backlog > 32767)
    {
        throw std::invalid_argument("backlog: must fit in 16 signed bits");
    }
    ns3::LeotpHeader h;
    if (t == ns3::LeotpType::INTEREST)
    {
        h = ns3::LeotpHeader::Interest(f, a, b, ts, ns3::LeotpHeader::RateField(sendRateBps));
    }
    else if (kind == "vph")
    {
        h = ns3::LeotpHeader::Vph(f, a, b, ts);
    }
    else
    {
        h = ns3::LeotpHeader::Data(f,
                                   a,
                                   b,
                                   ts,
                                   t == ns3::LeotpType::DATA_BL,
                                   static_cast<int16_t>(backlog));
    }
    const uint32_t payload = h.IsData() && !h.IsVph() ? b - a : 0;
    ns3::Ptr<ns3::Packet> p = ns3::Create<ns3::Packet>(payload);
    p->AddHeader(h);
    std::vector<uint8_t> bytes(h.GetSerializedSize());
    p->CopyData(bytes.data(), h.GetSerializedSize());
    const uint32_t leotpBytes = p->GetSize();
    ns3::LeotpHeader r;
    p->RemoveHeader(r);
    // On the wire: UDP (8) and IPv4 (20) headers in front, as ns-3's stack adds them.
    ns3::Ptr<ns3::Packet> w = ns3::Create<ns3::Packet>(payload);
    w->AddHeader(h);
    ns3::UdpHeader udp;
    w->AddHeader(udp);
    ns3::Ipv4Header ip;
    ip.SetPayloadSize(w->GetSize());
    w->AddHeader(ip);
    py::dict d;
    d["header_bytes"] = h.GetSerializedSize();
    d["packet_bytes"] = leotpBytes;
    d["wire_bytes"] = w->GetSize();
    d["bytes"] = py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    d["valid"] = r.valid;
    d["is_interest"] = r.IsInterest();
    d["is_data"] = r.IsData();
    d["is_vph"] = r.IsVph();
    d["flow"] = r.flowId;
    d["start"] = r.rangeStart;
    d["end"] = r.rangeEnd;
    d["timestamp_us"] = r.timestamp;
    d["rate_or_length"] = r.rateOrLength;
    d["send_rate_bps"] = r.IsInterest() ? ns3::LeotpHeader::FieldRate(r.rateOrLength) : 0.0;
    d["backlog"] = r.srcBacklog;
    return d;
}

/**
 * The hop-RTT sample of section III.C through the header's timestamp rules, with the
 * Requester's clock @p offsetS ahead of the Responder's: the Requester stamps an Interest at
 * true time t0; the Responder receives it interestOwdS later (OWD_I = its clock - stamp, mod
 * 2^32 us), holds holdS, stamps Data with t_send - OWD_I; the Requester receives it dataOwdS
 * later and takes now - stamp.
 */
double
HopRttSample(double t0, double offsetS, double interestOwdS, double holdS, double dataOwdS)
{
    using ns3::LeotpHeader;
    const uint32_t stampI = LeotpHeader::TimestampUs(t0 + offsetS);
    const double tArrive = t0 + interestOwdS;
    const uint32_t owdI = LeotpHeader::TimestampUs(tArrive) - stampI; // mod 2^32
    const double tSend = tArrive + holdS;
    const uint32_t stampD = LeotpHeader::TimestampUs(tSend) - owdI;
    const double tRecv = tSend + dataOwdS;
    return LeotpHeader::ElapsedS(LeotpHeader::TimestampUs(tRecv + offsetS), stampD);
}

py::dict
DetectResult(const ns3::LeotpHoleDetector::Result& r)
{
    py::dict d;
    d["vph"] = r.vph ? py::cast(std::make_pair(r.vphRange.first, r.vphRange.second)) : py::none();
    d["requests"] = r.requests;
    d["resync"] = r.resync;
    return d;
}

ns3::LeotpHopParams
HopParamsFromDict(const py::dict& d)
{
    ns3::LeotpHopParams p;
    for (auto item : d)
    {
        const std::string k = py::cast<std::string>(item.first);
        const double v = py::cast<double>(item.second);
        if (k == "k")
        {
            p.k = v;
        }
        else if (k == "queue_threshold_bytes")
        {
            p.queueThresholdBytes = v;
        }
        else if (k == "packet_bytes")
        {
            p.packetBytes = v;
        }
        else if (k == "initial_cwnd")
        {
            p.initialCwnd = v;
        }
        else if (k == "min_cwnd")
        {
            p.minCwnd = v;
        }
        else if (k == "min_rtt_window_s")
        {
            p.minRttWindowS = v;
        }
        else if (k == "gain")
        {
            p.gain = v;
        }
        else if (k == "cut_guard_rtts")
        {
            p.cutGuardRtts = v;
        }
        else if (k == "limited_fraction")
        {
            p.limitedFraction = v;
        }
        else if (k == "slow_start_cap")
        {
            p.slowStartCap = v;
        }
        else if (k == "additive_increase")
        {
            p.additiveIncrease = v;
        }
        else if (k == "min_rate_bps")
        {
            p.minRateBps = v;
        }
        else if (k == "max_rate_bps")
        {
            p.maxRateBps = v;
        }
        else if (k == "initial_rate_bps")
        {
            p.initialRateBps = v;
        }
        else
        {
            throw std::invalid_argument("params." + k + ": unknown hop-controller parameter");
        }
    }
    p.Check("params");
    return p;
}

py::dict
WindowUpdate(const ns3::LeotpHopController::Update& u, const ns3::LeotpHopController& c)
{
    py::dict d;
    d["bdp_bytes"] = u.bdpBytes;
    d["queue_len_bytes"] = u.queueLenBytes;
    d["limited"] = u.limited;
    d["cut"] = u.cut;
    d["grew"] = u.grew;
    d["cwnd"] = c.GetCwnd();
    d["phase"] = c.GetPhase() == ns3::LeotpPhase::SLOW_START ? "slow_start" : "cong_avoid";
    return d;
}

} // namespace

LEOGYM_REGISTER_BINDINGS(leotp_testing)
{
    py::module_ t = m.def_submodule("testing", "Probes for unit tests of native components.");

    t.def("leotp_header",
          &HeaderRoundTrip,
          py::arg("kind"),
          py::arg("flow") = 1,
          py::arg("start") = 0,
          py::arg("end") = 0,
          py::arg("timestamp_us") = 0,
          py::arg("send_rate_bps") = 0.0,
          py::arg("backlog") = 0,
          "Build a LEOTP header ('interest' | 'data' | 'data_bl' | 'vph'), serialise and read "
          "it back: header_bytes, packet_bytes (header + payload), wire_bytes (+ UDP and IPv4 "
          "headers), bytes (the header), and the fields read.");
    t.def("leotp_hop_rtt_sample",
          &HopRttSample,
          py::arg("t0_s"),
          py::arg("clock_offset_s"),
          py::arg("interest_owd_s"),
          py::arg("hold_s"),
          py::arg("data_owd_s"),
          "A hop-RTT sample through the header's timestamp rules (section III.C).");
    t.def("leotp_rate_field",
          &ns3::LeotpHeader::RateField,
          py::arg("bps"),
          "A rate as the Interest's sendRate field (units of 10 kbit/s).");

    py::class_<ns3::LeotpHoleDetector>(t,
                                       "LeotpHoleDetectorProbe",
                                       "LEOTP's hole detector (Algorithm 1) driven by hand.")
        .def(
            py::init(
                [](uint32_t threshold, uint32_t chunkBytes, uint32_t resyncChunks, double expiryS) {
                    ns3::LeotpHoleParams p;
                    p.threshold = threshold;
                    p.chunkBytes = chunkBytes;
                    p.resyncChunks = resyncChunks;
                    p.expiryS = expiryS;
                    p.Check("params");
                    return ns3::LeotpHoleDetector(p);
                }),
            py::arg("threshold") = 1,
            py::arg("chunk_bytes") = 1,
            py::arg("resync_chunks") = 100,
            py::arg("expiry_s") = 0.2)
        .def(
            "on_packet",
            [](ns3::LeotpHoleDetector& d, uint64_t start, uint64_t end, double nowS) {
                if (end < start)
                {
                    throw std::invalid_argument("end: must be >= start");
                }
                return DetectResult(d.OnPacket(start, end, nowS));
            },
            py::arg("start"),
            py::arg("end"),
            py::arg("now_s") = 0.0,
            "Algorithm 1 on a packet (Data or VPH) [start, end): vph (the hole to announce, "
            "or None), requests (holes to request upstream), resync.")
        .def("expire", &ns3::LeotpHoleDetector::Expire, py::arg("now_s"))
        .def("next_expiry_s", &ns3::LeotpHoleDetector::NextExpiryS)
        .def_property_readonly("last_byte", &ns3::LeotpHoleDetector::GetLastByte)
        .def_property_readonly("holes",
                               [](const ns3::LeotpHoleDetector& d) {
                                   py::list out;
                                   for (const auto& h : d.GetHoles())
                                   {
                                       out.append(py::make_tuple(h.start, h.end, h.count));
                                   }
                                   return out;
                               })
        .def_static("split_chunks",
                    &ns3::LeotpHoleDetector::SplitChunks,
                    py::arg("start"),
                    py::arg("end"),
                    py::arg("chunk"));

    py::class_<ns3::LeotpHopController>(t,
                                        "LeotpHopControllerProbe",
                                        "LEOTP's hop controller (eqs. (6)-(10)) driven by hand.")
        .def(py::init([](const py::dict& params) {
                 return ns3::LeotpHopController(HopParamsFromDict(params));
             }),
             py::arg("params") = py::dict())
        .def("on_sample", &ns3::LeotpHopController::OnSample, py::arg("now_s"), py::arg("sample_s"))
        .def("on_receive", &ns3::LeotpHopController::OnReceive, py::arg("now_s"), py::arg("bytes"))
        .def(
            "update_window",
            [](ns3::LeotpHopController& c, double now, double thr, double rtt, double rttMin) {
                return WindowUpdate(c.UpdateWindow(now, thr, rtt, rttMin), c);
            },
            py::arg("now_s"),
            py::arg("throughput_bps"),
            py::arg("hop_rtt_s"),
            py::arg("hop_rtt_min_s"),
            "Eq. (8) with these measurements: bdp_bytes, queue_len_bytes, limited, cut, grew, "
            "cwnd, phase.")
        .def("rate",
             &ns3::LeotpHopController::Rate,
             py::arg("has_buffer"),
             py::arg("buffer_bytes"),
             py::arg("target_bytes"),
             py::arg("rate_next_hop_bps"))
        .def_static("backpressure_rate",
                    &ns3::LeotpHopController::BackpressureRate,
                    py::arg("rate_next_hop_bps"),
                    py::arg("buffer_bytes"),
                    py::arg("target_bytes"),
                    py::arg("hop_rtt_s"))
        .def(
            "set_state",
            [](ns3::LeotpHopController& c, double cwnd, const std::string& phase, double lastCut) {
                if (phase != "slow_start" && phase != "cong_avoid")
                {
                    throw std::invalid_argument("phase: 'slow_start' or 'cong_avoid'");
                }
                c.SetState(cwnd,
                           phase == "slow_start" ? ns3::LeotpPhase::SLOW_START
                                                 : ns3::LeotpPhase::CONG_AVOID,
                           lastCut);
            },
            py::arg("cwnd"),
            py::arg("phase"),
            py::arg("last_cut_s") = -1e300)
        .def("reset", &ns3::LeotpHopController::Reset)
        .def("hop_rtt_min_s", &ns3::LeotpHopController::GetHopRttMinS, py::arg("now_s"))
        .def_property_readonly("has_sample", &ns3::LeotpHopController::HasSample)
        .def_property_readonly("hop_rtt_s", &ns3::LeotpHopController::GetHopRttS)
        .def_property_readonly("throughput_bps", &ns3::LeotpHopController::GetThroughputBps)
        .def_property_readonly("cwnd", &ns3::LeotpHopController::GetCwnd)
        .def_property_readonly("phase", [](const ns3::LeotpHopController& c) {
            return c.GetPhase() == ns3::LeotpPhase::SLOW_START ? "slow_start" : "cong_avoid";
        });

    py::class_<ns3::LeotpTokenBucket>(t, "LeotpTokenBucketProbe", "LEOTP's token bucket.")
        .def(py::init<double, double, double>(),
             py::arg("rate_bps"),
             py::arg("mtu_bytes") = 1500.0,
             py::arg("depth_s") = 0.001)
        .def("set_rate", &ns3::LeotpTokenBucket::SetRate, py::arg("now_s"), py::arg("rate_bps"))
        .def("tokens", &ns3::LeotpTokenBucket::GetTokens, py::arg("now_s"))
        .def("try_consume", &ns3::LeotpTokenBucket::TryConsume, py::arg("now_s"), py::arg("bytes"))
        .def("wait_s", &ns3::LeotpTokenBucket::WaitS, py::arg("now_s"), py::arg("bytes"))
        .def_property_readonly("rate_bps", &ns3::LeotpTokenBucket::GetRate)
        .def_property_readonly("depth_bytes", &ns3::LeotpTokenBucket::GetDepth);

    py::class_<ns3::LeotpCache>(t, "LeotpCacheProbe", "A Midnode's cache (4096-byte blocks, LRU).")
        .def(py::init<uint64_t>(), py::arg("capacity_blocks"))
        .def(
            "insert",
            [](ns3::LeotpCache& c, uint32_t flow, uint64_t start, uint64_t end) {
                c.Insert(flow, start, end, ns3::LeotpCacheStamp());
            },
            py::arg("flow"),
            py::arg("start"),
            py::arg("end"))
        .def(
            "lookup_prefix",
            [](ns3::LeotpCache& c, uint32_t flow, uint64_t start, uint64_t end) {
                return c.LookupPrefix(flow, start, end, nullptr);
            },
            py::arg("flow"),
            py::arg("start"),
            py::arg("end"),
            "End of the longest cached prefix of [start, end) (start on a miss).")
        .def("contains",
             &ns3::LeotpCache::Contains,
             py::arg("flow"),
             py::arg("start"),
             py::arg("end"))
        .def_property_readonly("n_blocks", &ns3::LeotpCache::GetNBlocks)
        .def_property_readonly("evictions", &ns3::LeotpCache::GetEvictions)
        .def_property_readonly("hits", &ns3::LeotpCache::GetHits)
        .def_property_readonly("misses", &ns3::LeotpCache::GetMisses);

    py::class_<ns3::LeotpRto>(t, "LeotpRtoProbe", "The Consumer's RFC 6298 timeout and backoff.")
        .def(py::init([](double g,
                         double minRto,
                         double maxRto,
                         double initial,
                         double backoff,
                         bool keepBackoff) {
                 ns3::LeotpRtoParams p;
                 p.granularityS = g;
                 p.minRtoS = minRto;
                 p.maxRtoS = maxRto;
                 p.initialRtoS = initial;
                 p.backoff = backoff;
                 p.keepBackoff = keepBackoff;
                 p.Check("params");
                 return ns3::LeotpRto(p);
             }),
             py::arg("granularity_s") = 0.001,
             py::arg("min_rto_s") = 0.2,
             py::arg("max_rto_s") = 60.0,
             py::arg("initial_rto_s") = 1.0,
             py::arg("backoff") = 1.5,
             py::arg("keep_backoff") = true)
        .def(
            "on_timeout",
            [](ns3::LeotpRto& r, double sentS, double nowS) {
                r.OnTimeout(ns3::Seconds(sentS), ns3::Seconds(nowS));
            },
            py::arg("sent_s"),
            py::arg("now_s"),
            "An Interest last sent at sent_s timed out at now_s (RFC 6298 rule 5.5).")
        .def_property_readonly("base_rto_s",
                               [](const ns3::LeotpRto& r) { return r.GetBaseRto().GetSeconds(); })
        .def_property_readonly("backoff_rounds", &ns3::LeotpRto::GetBackoffRounds)
        .def(
            "on_sample",
            [](ns3::LeotpRto& r, double rttS, double nowS) {
                r.OnSample(ns3::Seconds(rttS), ns3::Seconds(nowS));
            },
            py::arg("rtt_s"),
            py::arg("now_s") = 0.0)
        .def_property_readonly("rto_s",
                               [](const ns3::LeotpRto& r) { return r.GetRto().GetSeconds(); })
        .def_property_readonly(
            "srtt_s",
            [](const ns3::LeotpRto& r) { return r.GetEstimator().GetSmoothed().GetSeconds(); })
        .def_property_readonly(
            "rttvar_s",
            [](const ns3::LeotpRto& r) { return r.GetEstimator().GetRttVar().GetSeconds(); })
        .def(
            "backoff_interval_s",
            [](const ns3::LeotpRto& r, uint32_t n) { return r.GetBackoffInterval(n).GetSeconds(); },
            py::arg("n"),
            "Interval before re-send number n (n >= 1), or before a first timeout (n = 0 or 1): "
            "base RTO x backoff^max(n - 1, backoff_rounds).");

    py::class_<ns3::LeotpInterestPacer>(t,
                                        "LeotpInterestPacerProbe",
                                        "The Consumer's Interest budget (C1).")
        .def(py::init<double, double, double>(),
             py::arg("cost_bytes") = 1500.0,
             py::arg("initial_budget_bytes") = 7500.0,
             py::arg("cap_s") = 0.001)
        .def_static("rate",
                    &ns3::LeotpInterestPacer::Rate,
                    py::arg("throughput_bps"),
                    py::arg("backlog_bytes"),
                    py::arg("srtt_s"),
                    py::arg("min_rate_bps") = 1e5,
                    "(C1): throughput + 8 backlog / srtt, at least min_rate_bps.")
        .def("set_rate", &ns3::LeotpInterestPacer::SetRate, py::arg("now_s"), py::arg("rate_bps"))
        .def("budget", &ns3::LeotpInterestPacer::GetBudget, py::arg("now_s"))
        .def("try_consume", &ns3::LeotpInterestPacer::TryConsume, py::arg("now_s"))
        .def("wait_s", &ns3::LeotpInterestPacer::WaitS, py::arg("now_s"));
}
