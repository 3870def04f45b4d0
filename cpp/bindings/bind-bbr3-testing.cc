// SPDX-License-Identifier: GPL-2.0-only
//
// _core.testing (BBRv3 part): congestion controllers driven by hand through the transport's
// own delivery-rate estimator (with ECN feedback for DCTCP, Prague and BBRv3's ECN response),
// and the BBRv3 model and state machine read back (the dicts of probe-cc-status.{h,cc}).

#include "bindings/probe-cc-status.h"
#include "bindings/probe-connection.h"
#include "bindings/probe-inputs.h"
#include "bindings/registry.h"
#include "model/cc/mp-bbr3.h"
#include "model/cc/mp-congestion-ops.h"
#include "model/transport/mp-delivery-rate.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace
{

using namespace ns3;
using leogym::Bbr3Status;
using leogym::CodepointName;
using leogym::EcnCcStatus;
using leogym::SecondsChecked;

/**
 * A connection of n paths whose packets the test sends, acknowledges and loses by packet
 * number, the way MpQuicSender drives its controllers: each path has an MpDeliveryRate (rate
 * samples, P.tx_in_flight, P.lost), an RTT estimator and bytes-in-flight / delivered counters.
 */
class SampledCongestionProbe : public leogym::ProbeCcDriver<leogym::ProbeConnectionView>
{
  public:
    SampledCongestionProbe(const std::string& name,
                           uint32_t nPaths,
                           const py::dict& params,
                           uint32_t mss)
        : ProbeCcDriver(nPaths, mss)
    {
        CreateControllers(name, leogym::ProbeParams(params));
        m_paths.resize(nPaths);
    }

    void Sent(uint32_t i, uint64_t pn, double tS, uint32_t bytes)
    {
        Check(i);
        Path& path = m_paths[i];
        if (path.any && pn <= path.lastPn)
        {
            throw std::invalid_argument("pn " + std::to_string(pn) +
                                        ": packet numbers must increase");
        }
        if (bytes == 0)
        {
            throw std::invalid_argument("bytes must be > 0");
        }
        SetNow(tS, "time_s");
        MpPathInfo& info = m_info[i];
        MpSentPacket p;
        p.pn = pn;
        p.sentTime = m_now;
        p.bytes = bytes;
        p.inFlight = true;
        path.rate.OnPacketSent(p, info.bytesInFlight, m_now);
        info.bytesInFlight += bytes;
        info.sentBytes += bytes;
        ++info.sentPackets;
        path.packets[pn] = p;
        path.any = true;
        path.lastPn = pn;
        m_cc[i]->OnPacketSent(Ctx(i), p);
        Sync(i);
    }

    /// The sender had window room and nothing to send (C.app_limited).
    void SetAppLimited(uint32_t i)
    {
        Check(i);
        m_paths[i].rate.MarkAppLimited(m_info[i].bytesInFlight);
        m_info[i].appLimited = true;
    }

    py::dict Ack(uint32_t i, std::vector<uint64_t> pns, double nowS, double rttS)
    {
        Check(i);
        SetNow(nowS);
        Path& path = m_paths[i];
        MpPathInfo& info = m_info[i];
        std::sort(pns.begin(), pns.end());
        pns.erase(std::unique(pns.begin(), pns.end()), pns.end());
        std::vector<MpSentPacket> acked;
        uint64_t priorInFlight = info.bytesInFlight;
        uint64_t bytesAcked = 0;
        uint32_t packetsAcked = 0;
        path.rate.BeginAck();
        for (uint64_t pn : pns)
        {
            auto it = path.packets.find(pn);
            if (it == path.packets.end())
            {
                continue; // unknown or already acknowledged
            }
            MpSentPacket p = it->second;
            if (p.state == MpSentPacket::LOST)
            {
                p.wasLost = true; // a late ACK of a packet declared lost
            }
            else
            {
                p.state = MpSentPacket::ACKED;
                bytesAcked += p.bytes;
                ++packetsAcked;
                info.bytesInFlight -= std::min<uint64_t>(info.bytesInFlight, p.bytes);
                path.rate.OnPacketAcked(p, m_now);
            }
            acked.push_back(p);
            path.packets.erase(it);
        }
        py::dict d;
        if (acked.empty())
        {
            d["valid"] = false;
            return d;
        }
        const MpSentPacket& largest = acked.back();
        Time rtt = rttS >= 0 ? Seconds(rttS) : m_now - largest.sentTime;
        m_rtt[i].Update(rtt, Time(0), MilliSeconds(25), m_now);
        const MpRateSample& rs = path.rate.EndAck(m_rtt[i].GetMin(), path.pendingLost);
        path.pendingLost = 0;
        info.deliveredBytes += bytesAcked;
        info.ackedPackets += packetsAcked;
        if (rs.valid)
        {
            info.deliveryRateBps = rs.deliveryRateBps;
        }
        MpAckEvent ev;
        ev.now = m_now;
        ev.bytesAcked = bytesAcked;
        ev.packetsAcked = packetsAcked;
        ev.acked = acked.data();
        ev.nAcked = acked.size();
        ev.rttSampled = true;
        ev.latestRtt = rtt;
        ev.priorBytesInFlight = priorInFlight;
        ev.rate = &rs;
        m_cc[i]->OnAck(Ctx(i), ev);
        Sync(i);
        path.lastAckBytes = bytesAcked;
        path.lastAckPackets = packetsAcked;
        path.lastAckLargestSent = largest.sentTime;
        d["valid"] = rs.valid;
        d["delivery_rate_bps"] = rs.deliveryRateBps;
        d["delivered"] = rs.delivered;
        d["app_limited"] = rs.isAppLimited;
        d["tx_in_flight"] = rs.txInFlight;
        d["lost"] = rs.lost;
        return d;
    }

    void Loss(uint32_t i, std::vector<uint64_t> pns, double nowS, bool persistent)
    {
        Check(i);
        SetNow(nowS);
        Path& path = m_paths[i];
        MpPathInfo& info = m_info[i];
        std::sort(pns.begin(), pns.end());
        std::vector<MpSentPacket> lost;
        for (uint64_t pn : pns)
        {
            auto it = path.packets.find(pn);
            if (it == path.packets.end() || it->second.state != MpSentPacket::OUTSTANDING)
            {
                continue;
            }
            it->second.state = MpSentPacket::LOST;
            it->second.lossKind = static_cast<uint8_t>(MpLossKind::PACKET_THRESHOLD);
            path.pendingLost += it->second.bytes;
            lost.push_back(it->second);
        }
        if (lost.empty())
        {
            return;
        }
        info.lostPackets += lost.size();
        DriveLoss(i, lost, persistent);
    }

    /// A retransmission timeout: `lose` first marks every outstanding packet lost (as the
    /// timer presets do), then the controller hears of the expiry.
    void Rto(uint32_t i, double nowS, bool first, uint32_t count, bool lose)
    {
        Check(i);
        SetNow(nowS);
        uint64_t prior = m_cc[i]->GetCwnd();
        if (lose)
        {
            std::vector<uint64_t> out;
            for (const auto& [pn, p] : m_paths[i].packets)
            {
                if (p.state == MpSentPacket::OUTSTANDING)
                {
                    out.push_back(pn);
                }
            }
            if (!out.empty())
            {
                Loss(i, out, nowS, false);
            }
        }
        MpRtoEvent ev;
        ev.now = m_now;
        ev.rtoCount = count;
        ev.first = first;
        ev.bytesInFlight = m_info[i].bytesInFlight;
        ev.priorCwnd = prior;
        ev.priorSsthresh = m_cc[i]->GetSsthresh();
        m_cc[i]->OnRetransmissionTimeout(Ctx(i), ev);
        Sync(i);
    }

    void RtoEnd(uint32_t i, double nowS, bool spurious)
    {
        Check(i);
        SetNow(nowS);
        MpRtoEnd ev;
        ev.now = m_now;
        ev.spurious = spurious;
        m_cc[i]->OnRtoEpisodeEnd(Ctx(i), ev);
        Sync(i);
    }

    /**
     * The ECN feedback of the last ACK frame (OnEcnFeedback after its OnAck): `ce` of its
     * newly acknowledged packets were CE-marked, the others arrived with the controller's
     * codepoint (or `ect` of them, if given).
     */
    void Ecn(uint32_t i, uint64_t ce, int64_t ect)
    {
        Check(i);
        const Path& path = m_paths[i];
        MpEcnEvent ev;
        ev.now = m_now;
        ev.newlyAckedEct = path.lastAckPackets;
        uint64_t plain = ect >= 0
                             ? static_cast<uint64_t>(ect)
                             : path.lastAckPackets - std::min<uint64_t>(ce, path.lastAckPackets);
        if (m_cc[i]->GetEcnCodepoint() == MpEcnCodepoint::ECT1)
        {
            ev.ect1Increase = plain;
        }
        else
        {
            ev.ect0Increase = plain;
        }
        ev.ceIncrease = ce;
        ev.bytesAcked = path.lastAckBytes;
        ev.largestAckedSentTime = path.lastAckLargestSent;
        m_cc[i]->OnEcnFeedback(Ctx(i), ev);
        Sync(i);
    }

    uint64_t PathLost(uint32_t i) const
    {
        return m_paths[Check(i)].rate.GetLost();
    }

    /// The MpBbr3 of path i, looking through wrappers (freeze+bbr3).
    const MpBbr3& Bbr3(uint32_t i) const
    {
        Ptr<MpCongestionOps> c = Cc(i);
        while (c)
        {
            if (Ptr<MpBbr3> b = DynamicCast<MpBbr3>(c))
            {
                return *b;
            }
            Ptr<MpCongestionOpsWrapper> w = DynamicCast<MpCongestionOpsWrapper>(c);
            if (!w)
            {
                break;
            }
            c = w->GetInner();
        }
        throw std::invalid_argument("path " + std::to_string(i) + " does not run bbr3");
    }

  private:
    struct Path
    {
        MpDeliveryRate rate;
        std::map<uint64_t, MpSentPacket> packets; //!< sent, not yet acknowledged
        uint64_t pendingLost{0}; //!< lost bytes to report with the next ACK's rate sample
        uint64_t lastPn{0};
        bool any{false};
        uint64_t lastAckBytes{0};   //!< the last ACK frame's newly acknowledged bytes
        uint64_t lastAckPackets{0}; //!< ... and packets
        Time lastAckLargestSent;    //!< send time of its largest acknowledged packet
    };

    std::vector<Path> m_paths;
};

} // namespace

LEOGYM_REGISTER_BINDINGS(bbr3_testing)
{
    py::module_ t = m.def_submodule("testing", "Probes for unit tests of native components.");

    py::class_<SampledCongestionProbe>(
        t,
        "SampledCongestionProbe",
        "Congestion controllers of an n-path connection driven by hand through the transport's "
        "delivery-rate estimator: send, acknowledge and lose packets by packet number.")
        .def(py::init<const std::string&, uint32_t, const py::dict&, uint32_t>(),
             py::arg("name"),
             py::arg("n_paths") = 1,
             py::arg("params") = py::dict(),
             py::arg("mss") = 1200)
        .def("on_sent",
             &SampledCongestionProbe::Sent,
             py::arg("path"),
             py::arg("pn"),
             py::arg("time_s"),
             py::arg("bytes") = 1200,
             "Send packet pn (increasing per path) at time_s.")
        .def("on_ack",
             &SampledCongestionProbe::Ack,
             py::arg("path"),
             py::arg("pns"),
             py::arg("now_s"),
             py::arg("rtt_s") = -1.0,
             "One ACK frame for packet numbers pns (rtt_s < 0: now - send time of the largest). "
             "Returns the rate sample: valid, delivery_rate_bps, delivered, app_limited, "
             "tx_in_flight, lost.")
        .def("on_loss",
             &SampledCongestionProbe::Loss,
             py::arg("path"),
             py::arg("pns"),
             py::arg("now_s"),
             py::arg("persistent") = false,
             "Declare outstanding packets lost (one loss detection).")
        .def("on_rto",
             &SampledCongestionProbe::Rto,
             py::arg("path"),
             py::arg("now_s"),
             py::arg("first") = true,
             py::arg("count") = 1,
             py::arg("lose_outstanding") = true,
             "A retransmission timeout (MpRtoEvent); lose_outstanding marks every outstanding "
             "packet lost first.")
        .def("on_rto_end",
             &SampledCongestionProbe::RtoEnd,
             py::arg("path"),
             py::arg("now_s"),
             py::arg("spurious") = false,
             "The end of the retransmission-timeout episode (MpRtoEnd).")
        .def("on_ecn",
             &SampledCongestionProbe::Ecn,
             py::arg("path"),
             py::arg("ce"),
             py::arg("ect") = -1,
             "ECN feedback of the last ACK frame (OnEcnFeedback): ce of its newly acknowledged "
             "packets were CE-marked, ect (default: the others) arrived with the controller's "
             "codepoint.")
        .def(
            "ecn_codepoint",
            [](SampledCongestionProbe& p, uint32_t i) {
                return CodepointName(p.Cc(i)->GetEcnCodepoint());
            },
            py::arg("path"),
            "The codepoint path i's data carries with ECN on: 'ect0', 'ect1' (or 'not_ect').")
        .def(
            "ecn_state",
            [](SampledCongestionProbe& p, uint32_t i) { return EcnCcStatus(p.Cc(i), i); },
            py::arg("path"),
            "The DCTCP / Prague ECN estimator of path i: alpha, alpha_updates, windows, "
            "last_fraction, window_acked, window_marked, ecn_reductions, marked_bytes "
            "(Prague also rtt_independent, round, saw_ce).")
        .def("ssthresh",
             [](SampledCongestionProbe& p, uint32_t i) { return p.Cc(i)->GetSsthresh(); })
        .def("set_app_limited",
             &SampledCongestionProbe::SetAppLimited,
             py::arg("path"),
             "The sender has window room but nothing to send (C.app_limited).")
        .def("cwnd", [](SampledCongestionProbe& p, uint32_t i) { return p.Cc(i)->GetCwnd(); })
        .def("pacing_rate",
             [](SampledCongestionProbe& p, uint32_t i) { return p.Cc(i)->GetPacingRate(); })
        .def("in_slow_start",
             [](SampledCongestionProbe& p, uint32_t i) { return p.Cc(i)->InSlowStart(); })
        .def("suppressed_losses",
             [](SampledCongestionProbe& p, uint32_t i) { return p.Cc(i)->GetSuppressedLosses(); })
        .def("bytes_in_flight",
             [](SampledCongestionProbe& p, uint32_t i) { return p.Info(i).bytesInFlight; })
        .def("delivered",
             [](SampledCongestionProbe& p, uint32_t i) { return p.Info(i).deliveredBytes; })
        .def("path_lost",
             &SampledCongestionProbe::PathLost,
             py::arg("path"),
             "C.lost as the delivery-rate estimator counts it (every loss, frozen ones too).")
        .def(
            "bbr3_state",
            [](SampledCongestionProbe& p, uint32_t i) {
                return Bbr3Status(p.Bbr3(i), p.Cc(i)->GetCwnd());
            },
            py::arg("path"),
            "The BBRv3 model and state of path i (through wrappers such as freeze): state "
            "('startup' | 'drain' | 'probe_bw_down' | 'probe_bw_cruise' | 'probe_bw_refill' | "
            "'probe_bw_up' | 'probe_rtt'), rates in bit/s, volumes in bytes (inf = unset).");
}
