// SPDX-License-Identifier: GPL-2.0-only
//
// _core.testing: small probes that drive the transport's pure components (congestion
// controllers, ECN validation) with constructed inputs, for unit tests. The RFC 9002 loss
// detection (MpLossRecovery) is tested in C++, beside it:
// cpp/model/transport/test/mp-loss-recovery-test-suite.cc.

#include "bindings/probe-connection.h"
#include "bindings/probe-inputs.h"
#include "bindings/registry.h"
#include "model/cc/mp-congestion-ops.h"
#include "model/cc/mp-cubic.h"
#include "model/cc/mp-hystart.h"
#include "model/cc/mp-new-reno.h"
#include "model/registry/mp-algorithm-registry.h"
#include "model/transport/mp-ecn-validator.h"

#include <pybind11/stl.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace
{

using namespace ns3;
using leogym::SecondsChecked;

/// A connection of n paths whose state the test sets, with one controller per path.
class CongestionProbe : public leogym::ProbeCcDriver<leogym::ProbeConnectionView>
{
  public:
    CongestionProbe(const std::string& name, uint32_t nPaths, const py::dict& params, uint32_t mss)
        : ProbeCcDriver(nPaths, mss)
    {
        CreateControllers(name, leogym::ProbeParams(params));
    }

    void RttSample(uint32_t i, double rttS, double ackDelayS, double nowS)
    {
        SetNow(nowS);
        m_rtt[Check(i)].Update(SecondsChecked(rttS, "rtt_s"),
                               SecondsChecked(ackDelayS, "ack_delay_s"),
                               MilliSeconds(25),
                               m_now);
    }

    /// One ACK frame's validated ECN feedback on path i now (MpCongestionOps::OnEcnFeedback).
    void OnEcn(uint32_t i,
               uint64_t ect0,
               uint64_t ect1,
               uint64_t ce,
               uint64_t newlyAckedEct,
               double largestAckedSentS,
               double nowS)
    {
        Check(i);
        SetNow(nowS);
        MpEcnEvent ev;
        ev.now = m_now;
        ev.newlyAckedEct = newlyAckedEct;
        ev.ect0Increase = ect0;
        ev.ect1Increase = ect1;
        ev.ceIncrease = ce;
        ev.largestAckedSentTime = SecondsChecked(largestAckedSentS, "largest_acked_sent_s");
        m_cc[i]->OnEcnFeedback(Ctx(i), ev);
        Sync(i);
    }
};

/// RFC 9000 Appendix A.4's ECN validation of one path (MpEcnValidator), driven by hand.
class EcnValidatorProbe
{
  public:
    explicit EcnValidatorProbe(bool enabled)
    {
        m_v.Start(enabled);
    }

    int Send(int codepoint)
    {
        if (codepoint < 0 || codepoint > 3)
        {
            throw std::invalid_argument("codepoint: must be 0..3");
        }
        return static_cast<int>(m_v.OnPacketSent(static_cast<MpEcnCodepoint>(codepoint)));
    }

    py::dict Ack(uint64_t ackedEct0, uint64_t ackedEct1, py::object counts, bool largestIncreased)
    {
        MpEcnCounts c;
        const bool has = !counts.is_none();
        if (has)
        {
            auto t = counts.cast<std::tuple<uint64_t, uint64_t, uint64_t>>();
            c.ect0 = std::get<0>(t);
            c.ect1 = std::get<1>(t);
            c.ce = std::get<2>(t);
        }
        const MpEcnValidator::Feedback fb =
            m_v.OnAck(ackedEct0, ackedEct1, largestIncreased, has, c);
        py::dict d;
        d["accepted"] = fb.accepted;
        d["ect0_increase"] = fb.ect0Increase;
        d["ect1_increase"] = fb.ect1Increase;
        d["ce_increase"] = fb.ceIncrease;
        return d;
    }

    MpEcnValidator m_v;
};

} // namespace

LEOGYM_REGISTER_BINDINGS(transport_testing)
{
    py::module_ t = m.def_submodule("testing", "Probes for unit tests of native components.");

    py::class_<EcnValidatorProbe>(t,
                                  "EcnValidatorProbe",
                                  "ECN validation of one path (RFC 9000 section 13.4.2, Appendix "
                                  "A.4), driven by hand.")
        .def(py::init<bool>(), py::arg("enabled") = true)
        .def("send",
             &EcnValidatorProbe::Send,
             py::arg("codepoint") = 2,
             "A data packet whose controller asks for `codepoint` (2 ECT(0), 1 ECT(1)): the "
             "codepoint it is sent with.")
        .def(
            "pto",
            [](EcnValidatorProbe& p) { p.m_v.OnPtoExpired(); },
            "A probe timeout.")
        .def(
            "lost",
            [](EcnValidatorProbe& p, uint64_t n) { p.m_v.OnPacketsLost(n); },
            py::arg("ect_packets"),
            "ECN-capable packets declared lost.")
        .def("ack",
             &EcnValidatorProbe::Ack,
             py::arg("acked_ect0") = 0,
             py::arg("acked_ect1") = 0,
             py::arg("counts") = py::none(),
             py::arg("largest_increased") = true,
             "An ACK frame newly acknowledging packets sent ECT(0) / ECT(1), with ECN counts "
             "(ect0, ect1, ce) or None (a plain ACK frame): accepted and the increases.")
        .def_property_readonly("state", [](const EcnValidatorProbe& p) {
            return std::string(MpEcnStateName(p.m_v.GetState()));
        });

    py::class_<CongestionProbe>(t,
                                "CongestionProbe",
                                "Congestion controllers of an n-path connection, driven by hand.")
        .def(py::init<const std::string&, uint32_t, const py::dict&, uint32_t>(),
             py::arg("name"),
             py::arg("n_paths") = 1,
             py::arg("params") = py::dict(),
             py::arg("mss") = 1200)
        .def("rtt_sample",
             &CongestionProbe::RttSample,
             py::arg("path"),
             py::arg("rtt_s"),
             py::arg("ack_delay_s") = 0.0,
             py::arg("now_s") = 0.0)
        .def("on_sent",
             &CongestionProbe::OnSent,
             py::arg("path"),
             py::arg("pn"),
             py::arg("time_s"),
             py::arg("bytes") = 1200)
        .def("on_ack",
             &CongestionProbe::OnAck,
             py::arg("path"),
             py::arg("packets"),
             py::arg("now_s"),
             py::arg("rtt_s") = -1.0,
             "packets: [(pn, sent_time_s, bytes), ...]; rtt_s < 0: no RTT sample.")
        .def("on_loss",
             &CongestionProbe::OnLoss,
             py::arg("path"),
             py::arg("packets"),
             py::arg("now_s"),
             py::arg("persistent") = false)
        .def("on_ecn_feedback",
             &CongestionProbe::OnEcn,
             py::arg("path"),
             py::arg("ect0") = 0,
             py::arg("ect1") = 0,
             py::arg("ce") = 0,
             py::arg("newly_acked_ect") = 0,
             py::arg("largest_acked_sent_s") = 0.0,
             py::arg("now_s") = 0.0,
             "An ACK frame's validated ECN count increases (OnEcnFeedback; RFC 9002 section "
             "7.1 by default: a CE increase is a congestion event for the largest acked "
             "packet's send time).")
        .def(
            "ecn_codepoint",
            [](CongestionProbe& p, uint32_t i) {
                return static_cast<int>(p.Cc(i)->GetEcnCodepoint());
            },
            py::arg("path"),
            "The codepoint of the path's data packets with ECN on (0 Not-ECT, 1 ECT(1), "
            "2 ECT(0)).")
        .def("cwnd", [](CongestionProbe& p, uint32_t i) { return p.Cc(i)->GetCwnd(); })
        .def("ssthresh", [](CongestionProbe& p, uint32_t i) { return p.Cc(i)->GetSsthresh(); })
        .def("in_slow_start", [](CongestionProbe& p, uint32_t i) { return p.Cc(i)->InSlowStart(); })
        .def("pacing_rate", [](CongestionProbe& p, uint32_t i) { return p.Cc(i)->GetPacingRate(); })
        .def("set_app_limited",
             [](CongestionProbe& p, uint32_t i, bool v) { p.Info(i).appLimited = v; })
        .def("set_external_cwnd",
             [](CongestionProbe& p, uint32_t i, uint64_t b) {
                 p.Cc(i)->SetExternalCwnd(b);
                 p.Sync(i);
             })
        .def(
            "hystart_state",
            [](CongestionProbe& p, uint32_t i) -> py::object {
                Ptr<MpCongestionOps> cc = p.Cc(i);
                const MpHyStart* h = nullptr;
                if (auto c = DynamicCast<MpCubic>(cc))
                {
                    h = c->GetHyStart();
                }
                else if (auto n = DynamicCast<MpNewReno>(cc))
                {
                    h = n->GetHyStart();
                }
                if (h == nullptr)
                {
                    return py::none();
                }
                auto sec = [](Time t) {
                    return t == Time::Max() ? std::numeric_limits<double>::infinity()
                                            : t.GetSeconds();
                };
                static const char* phases[] = {"slow_start", "css", "done"};
                py::dict d;
                d["phase"] = phases[static_cast<int>(h->GetPhase())];
                d["round"] = h->GetRound();
                d["rtt_sample_count"] = h->GetRttSampleCount();
                d["last_round_min_rtt_s"] = sec(h->GetLastRoundMinRtt());
                d["current_round_min_rtt_s"] = sec(h->GetCurrentRoundMinRtt());
                d["css_baseline_min_rtt_s"] = sec(h->GetCssBaselineMinRtt());
                d["css_rounds_done"] = h->GetCssRoundsDone();
                d["css_entries"] = h->GetCssEntries();
                d["css_returns"] = h->GetCssReturns();
                return d;
            },
            py::arg("path"),
            "HyStart++ (RFC 9406) state of a newreno/cubic path: phase ('slow_start' | 'css' | "
            "'done'), round, rtt_sample_count, last/current round and CSS baseline minimum RTTs "
            "(s, inf while unknown), css_rounds_done, css_entries, css_returns; None when "
            "HyStart is off.")
        .def("cubic_state", [](CongestionProbe& p, uint32_t i) {
            Ptr<MpCubic> c = DynamicCast<MpCubic>(p.Cc(i));
            if (!c)
            {
                throw std::invalid_argument("path " + std::to_string(i) + " does not run cubic");
            }
            py::dict d;
            d["w_max"] = c->GetWMax();
            d["k"] = c->GetK();
            return d;
        });
}
