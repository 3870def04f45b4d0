// SPDX-License-Identifier: GPL-2.0-only
//
// The controllers' state as the probes of bind-bbr3-testing.cc read it back (probe-cc-status.h).

#include "bindings/probe-cc-status.h"

#include "model/cc/mp-dctcp.h"
#include "model/cc/mp-prague.h"

#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace leogym
{

using namespace ns3;

py::dict
Bbr3Status(const MpBbr3& b, uint64_t cwnd)
{
    MpBbr3::Status s = b.GetStatus();
    static const char* phases[] = {"init",
                                   "refilling",
                                   "probe_starting",
                                   "probe_feedback",
                                   "probe_stopping"};
    py::dict d;
    d["state"] = MpBbr3::StateName(s.state);
    d["ack_phase"] = phases[static_cast<int>(s.ackPhase)];
    d["max_bw_bps"] = s.maxBwBps;
    d["bw_bps"] = s.bwBps;
    d["bw_shortterm_bps"] = s.bwShorttermBps;
    d["inflight_shortterm"] = s.inflightShortterm;
    d["inflight_longterm"] = s.inflightLongterm;
    d["bdp"] = s.bdp;
    d["max_inflight"] = s.maxInflight;
    d["extra_acked"] = s.extraAcked;
    d["send_quantum"] = s.sendQuantum;
    d["min_rtt_s"] = s.minRtt.GetSeconds();
    d["probe_rtt_min_stamp_s"] = s.probeRttMinStamp.GetSeconds();
    d["pacing_gain"] = s.pacingGain;
    d["cwnd_gain"] = s.cwndGain;
    d["round_count"] = s.roundCount;
    d["cycle_count"] = s.cycleCount;
    d["rounds_since_probe_up"] = s.roundsSinceProbeUp;
    d["bw_probe_up_rounds"] = s.bwProbeUpRounds;
    d["probe_up_acked_per_inc"] = s.probeUpAckedPerInc;
    d["bw_probe_wait_s"] = s.bwProbeWait.GetSeconds();
    d["cycle_stamp_s"] = s.cycleStamp.GetSeconds();
    d["full_bw_reached"] = s.fullBwReached;
    d["full_bw_now"] = s.fullBwNow;
    d["is_bw_probe_sample"] = s.isBwProbeSample;
    d["prev_probe_too_high"] = s.prevProbeTooHigh;
    d["prev_probe_precautionary"] = s.prevProbePrecautionary;
    d["is_cwnd_limited"] = s.isCwndLimited;
    d["in_recovery"] = s.inRecovery;
    d["in_rto"] = s.inRto;
    d["prior_cwnd"] = s.priorCwnd;
    d["lost_bytes"] = s.lostBytes;
    d["state_transitions"] = s.stateTransitions;
    d["cwnd"] = cwnd;
    d["ecn_eligible"] = s.ecnEligible;
    d["ecn_alpha"] = s.ecnAlpha;
    d["last_ce_ratio"] = s.lastCeRatio;
    d["delivered_ce"] = s.deliveredCe;
    d["ecn_in_round"] = s.ecnInRound;
    d["ecn_in_cycle"] = s.ecnInCycle;
    d["startup_ecn_rounds"] = s.startupEcnRounds;
    d["ecn_too_high"] = s.ecnTooHigh;
    d["ecn_shortterm_cuts"] = s.ecnShorttermCuts;
    return d;
}

/// The DCTCP / Prague estimator of path i (through wrappers); throws for other controllers.
py::dict
EcnCcStatus(Ptr<MpCongestionOps> c, uint32_t i)
{
    while (c)
    {
        if (Ptr<MpDctcp> d = DynamicCast<MpDctcp>(c))
        {
            MpDctcp::EcnStatus s = d->GetEcnStatus();
            py::dict r;
            r["alpha"] = s.alpha;
            r["alpha_updates"] = s.alphaUpdates;
            r["windows"] = s.windows;
            r["last_fraction"] = s.lastFraction;
            r["window_acked"] = s.windowAcked;
            r["window_marked"] = s.windowMarked;
            r["ecn_reductions"] = s.ecnReductions;
            r["marked_bytes"] = s.markedBytes;
            if (Ptr<MpPrague> p = DynamicCast<MpPrague>(c))
            {
                r["rtt_independent"] = p->IsRttIndependent();
                r["round"] = p->GetRound();
                r["saw_ce"] = p->SawCe();
            }
            return r;
        }
        Ptr<MpCongestionOpsWrapper> w = DynamicCast<MpCongestionOpsWrapper>(c);
        if (!w)
        {
            break;
        }
        c = w->GetInner();
    }
    throw std::invalid_argument("path " + std::to_string(i) + " runs neither dctcp nor prague");
}

const char*
CodepointName(MpEcnCodepoint c)
{
    switch (c)
    {
    case MpEcnCodepoint::NOT_ECT:
        return "not_ect";
    case MpEcnCodepoint::ECT1:
        return "ect1";
    case MpEcnCodepoint::ECT0:
        return "ect0";
    case MpEcnCodepoint::CE:
        return "ce";
    }
    return "unknown";
}

} // namespace leogym
