// SPDX-License-Identifier: GPL-2.0-only
//
// BBRv3 per draft-ietf-ccwg-bbr-04. Each function carries the name of the draft's pseudocode
// routine it implements (BBR prefix dropped) and its section.
// This file: the registration, attributes and accessors; the model, initialisation and
// state transitions are in mp-bbr3-model.cc, the per-ACK steps in mp-bbr3-ack.cc, ProbeBW and
// ProbeRTT in mp-bbr3-probe.cc, control parameters, loss and ECN in mp-bbr3-control.cc.

#include "mp-bbr3.h"

#include "model/registry/mp-algorithm-registry.h"
#include "mp-bbr3-picoquic.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpBbr3);
NS_OBJECT_ENSURE_REGISTERED(MpBbr3Picoquic);

static MpAlgorithmRegistrar g_bbr3Registrar(MpAlgorithmRegistry::Cc(), "bbr3", "ns3::MpBbr3");
static MpAlgorithmRegistrar g_bbr3PicoquicRegistrar(MpAlgorithmRegistry::Cc(),
                                                    "bbr3_picoquic",
                                                    "ns3::MpBbr3Picoquic");

// ---- attributes -----------------------------------------------------------------------------

TypeId
MpBbr3::AddAttributes(TypeId tid, const Defaults& d)
{
    // Each variant's parent is MpCongestionOps, not MpBbr3: ns-3 forbids registering an
    // attribute name twice along a TypeId chain, and the variants need other defaults.
    return tid.SetParent<MpCongestionOps>()
        .SetGroupName("Leogym")
        .AddAttribute("StartupPacingGain",
                      "Startup pacing gain, 4 ln 2 (draft 2.5, 5.3.1.1).",
                      DoubleValue(2.77),
                      MakeDoubleAccessor(&MpBbr3::m_startupPacingGain),
                      MakeDoubleChecker<double>(1.0, 10.0))
        .AddAttribute("DefaultCwndGain",
                      "cwnd gain of Startup and most states (draft 2.6).",
                      DoubleValue(2.0),
                      MakeDoubleAccessor(&MpBbr3::m_defaultCwndGain),
                      MakeDoubleChecker<double>(1.0, 10.0))
        .AddAttribute("DrainPacingGain",
                      "Drain pacing gain (draft 5.3.2 pseudocode: 0.35; its 5.6.1 table "
                      "says 0.5; Linux 1/2.885).",
                      DoubleValue(0.35),
                      MakeDoubleAccessor(&MpBbr3::m_drainPacingGain),
                      MakeDoubleChecker<double>(0.01, 1.0))
        .AddAttribute("ProbeDownPacingGain",
                      "ProbeBW_DOWN pacing gain (draft 5.3.3.1: 0.90; Linux 0.91).",
                      DoubleValue(0.90),
                      MakeDoubleAccessor(&MpBbr3::m_probeDownPacingGain),
                      MakeDoubleChecker<double>(0.01, 1.0))
        .AddAttribute("ProbeUpPacingGain",
                      "ProbeBW_UP pacing gain (draft 5.3.3.4).",
                      DoubleValue(1.25),
                      MakeDoubleAccessor(&MpBbr3::m_probeUpPacingGain),
                      MakeDoubleChecker<double>(1.0, 10.0))
        .AddAttribute("ProbeUpCwndGain",
                      "ProbeBW_UP cwnd gain (draft 5.3.3.4).",
                      DoubleValue(2.25),
                      MakeDoubleAccessor(&MpBbr3::m_probeUpCwndGain),
                      MakeDoubleChecker<double>(1.0, 10.0))
        .AddAttribute("LossThresh",
                      "Highest per-round loss rate tolerated while probing (draft 2.7: 0.02; "
                      "picoquic 0.20).",
                      DoubleValue(d.lossThresh),
                      MakeDoubleAccessor(&MpBbr3::m_lossThresh),
                      MakeDoubleChecker<double>(1e-6, 0.99))
        .AddAttribute("Beta",
                      "Multiplicative decrease per round with loss (draft 2.7).",
                      DoubleValue(0.7),
                      MakeDoubleAccessor(&MpBbr3::m_beta),
                      MakeDoubleChecker<double>(0.01, 1.0))
        .AddAttribute("Headroom",
                      "Fraction of inflight_longterm left free in CRUISE and ProbeRTT "
                      "(draft 2.7).",
                      DoubleValue(0.15),
                      MakeDoubleAccessor(&MpBbr3::m_headroom),
                      MakeDoubleChecker<double>(0.0, 0.99))
        .AddAttribute("MinPipeCwnd",
                      "Smallest cwnd BBR targets, in packets of max_datagram_size (draft 2.7).",
                      UintegerValue(4),
                      MakeUintegerAccessor(&MpBbr3::m_minPipeCwndPackets),
                      MakeUintegerChecker<uint32_t>(1, 1000))
        .AddAttribute("FullBwThresh",
                      "Growth per round below which the bandwidth has plateaued "
                      "(draft 5.3.1.2).",
                      DoubleValue(1.25),
                      MakeDoubleAccessor(&MpBbr3::m_fullBwThresh),
                      MakeDoubleChecker<double>(1.0, 10.0))
        .AddAttribute("FullBwCount",
                      "Rounds without that growth that mean a full pipe (draft 5.3.1.2).",
                      UintegerValue(3),
                      MakeUintegerAccessor(&MpBbr3::m_fullBwCountThresh),
                      MakeUintegerChecker<uint32_t>(1, 100))
        .AddAttribute("StartupFullLossCount",
                      "Discontiguous lost ranges in a round that end Startup on loss "
                      "(draft 5.3.1.3).",
                      UintegerValue(6),
                      MakeUintegerAccessor(&MpBbr3::m_startupFullLossCnt),
                      MakeUintegerChecker<uint32_t>(1, 1000))
        .AddAttribute("ExtraAckedFilterLength",
                      "extra_acked max-filter window in rounds (draft 2.11: 10; Linux 5).",
                      UintegerValue(10),
                      MakeUintegerAccessor(&MpBbr3::m_extraAckedFilterLen),
                      MakeUintegerChecker<uint32_t>(1, 1000))
        .AddAttribute("MinRttFilterLength",
                      "min_rtt min-filter window (draft 2.13.1).",
                      TimeValue(Seconds(10)),
                      MakeTimeAccessor(&MpBbr3::m_minRttFilterLen),
                      MakeTimeChecker(MilliSeconds(10), Seconds(1000)))
        .AddAttribute("ProbeRttInterval",
                      "Time between ProbeRTT episodes (draft-04 2.13.2: 5 s).",
                      TimeValue(Seconds(5)),
                      MakeTimeAccessor(&MpBbr3::m_probeRttInterval),
                      MakeTimeChecker(MilliSeconds(10), Seconds(1000)))
        .AddAttribute("ProbeRttDuration",
                      "Least time at the ProbeRTT cwnd (draft 2.13.2).",
                      TimeValue(MilliSeconds(200)),
                      MakeTimeAccessor(&MpBbr3::m_probeRttDuration),
                      MakeTimeChecker(MilliSeconds(1), Seconds(10)))
        .AddAttribute("ProbeRttCwndGain",
                      "ProbeRTT cwnd as a fraction of the BDP (draft 2.13.2).",
                      DoubleValue(0.5),
                      MakeDoubleAccessor(&MpBbr3::m_probeRttCwndGain),
                      MakeDoubleChecker<double>(0.0, 1.0))
        .AddAttribute("PacingMarginPercent",
                      "Pacing this many percent below bw (draft 2.5).",
                      DoubleValue(1.0),
                      MakeDoubleAccessor(&MpBbr3::m_pacingMarginPercent),
                      MakeDoubleChecker<double>(0.0, 50.0))
        .AddAttribute("ProbeWaitBase",
                      "Least wall-clock time between bandwidth probes, T_bbr = base + "
                      "U(0, range) (draft 5.3.3.5: 2 s).",
                      TimeValue(Seconds(2)),
                      MakeTimeAccessor(&MpBbr3::m_probeWaitBase),
                      MakeTimeChecker(MilliSeconds(1), Seconds(1000)))
        .AddAttribute("ProbeWaitRange",
                      "Width of the random part of T_bbr (draft 5.3.3.5: 1 s).",
                      TimeValue(Seconds(1)),
                      MakeTimeAccessor(&MpBbr3::m_probeWaitRange),
                      MakeTimeChecker(Time(0), Seconds(1000)))
        .AddAttribute("RenoRoundsMax",
                      "Upper bound of the Reno-coexistence probe time in rounds; the start "
                      "count is 0 or 1 at random, so the bound is 62 or 63 (draft 5.3.3.5).",
                      UintegerValue(63),
                      MakeUintegerAccessor(&MpBbr3::m_renoRoundsMax),
                      MakeUintegerChecker<uint32_t>(1, 100000))
        .AddAttribute("MinLostPackets",
                      "A loss response (IsInflightTooHigh, short-term cut, Startup exit) "
                      "needs at least this many packets lost in the round (draft: 1; "
                      "picoquic: 4, i.e. more than 3).",
                      UintegerValue(d.minLostPackets),
                      MakeUintegerAccessor(&MpBbr3::m_minLostPackets),
                      MakeUintegerChecker<uint32_t>(1, 1000000))
        .AddAttribute("StartupOnRtoEnd",
                      "Enter Startup again when a retransmission-timeout episode ends "
                      "(picoquic), besides restoring the saved cwnd.",
                      BooleanValue(d.startupOnRtoEnd),
                      MakeBooleanAccessor(&MpBbr3::m_startupOnRtoEnd),
                      MakeBooleanChecker())
        .AddAttribute("Ecn",
                      "Linux BBRv3's ECN response (bbr_can_use_ecn: a route with ecn_low). "
                      "Off by default, as in Linux: CE marks are then ignored.",
                      BooleanValue(false),
                      MakeBooleanAccessor(&MpBbr3::m_ecn),
                      MakeBooleanChecker())
        .AddAttribute("EcnMaxRtt",
                      "The flow uses ECN once min_rtt is at most this (Linux bbr_ecn_max_rtt_us: "
                      "5 ms); 0: at any RTT.",
                      TimeValue(MilliSeconds(5)),
                      MakeTimeAccessor(&MpBbr3::m_ecnMaxRtt),
                      MakeTimeChecker(Time(0), Seconds(100)))
        .AddAttribute("EcnAlphaGain",
                      "Gain of the per-round EWMA of the CE ratio (Linux bbr_ecn_alpha_gain: "
                      "1/16).",
                      DoubleValue(1.0 / 16.0),
                      MakeDoubleAccessor(&MpBbr3::m_ecnAlphaGain),
                      MakeDoubleChecker<double>(1.0 / 1024.0, 1.0))
        .AddAttribute("EcnAlphaInit",
                      "Initial ecn_alpha (Linux bbr_ecn_alpha_init: 1).",
                      DoubleValue(1.0),
                      MakeDoubleAccessor(&MpBbr3::m_ecnAlphaInit),
                      MakeDoubleChecker<double>(0.0, 1.0))
        .AddAttribute("EcnFactor",
                      "A round with CE cuts inflight_shortterm to (1 - EcnFactor ecn_alpha) "
                      "(Linux bbr_ecn_factor: 1/3); 0: no ECN response at all.",
                      DoubleValue(1.0 / 3.0),
                      MakeDoubleAccessor(&MpBbr3::m_ecnFactor),
                      MakeDoubleChecker<double>(0.0, 1.0))
        .AddAttribute("EcnThresh",
                      "CE ratio above which bandwidth probing went too far, and at or above "
                      "which a Startup round counts towards the ECN exit (Linux bbr_ecn_thresh: "
                      "0.5); 0: neither.",
                      DoubleValue(0.5),
                      MakeDoubleAccessor(&MpBbr3::m_ecnThresh),
                      MakeDoubleChecker<double>(0.0, 1.0))
        .AddAttribute("EcnFullCount",
                      "Rounds in a row with a high CE ratio that end Startup (Linux "
                      "bbr_full_ecn_cnt: 2); 0: no ECN exit.",
                      UintegerValue(2),
                      MakeUintegerAccessor(&MpBbr3::m_ecnFullCount),
                      MakeUintegerChecker<uint32_t>(0, 1000))
        .AddAttribute("EcnReprobeGain",
                      "After a cycle with CE and no loss, probe again at once with "
                      "inflight_longterm growing from this fraction of it (Linux "
                      "bbr_ecn_reprobe_gain: 1/2); 0: no early probe.",
                      DoubleValue(0.5),
                      MakeDoubleAccessor(&MpBbr3::m_ecnReprobeGain),
                      MakeDoubleChecker<double>(0.0, 1.0))
        .AddTraceSource("StateTransition",
                        "BBR changed state: the old and the new State.",
                        MakeTraceSourceAccessor(&MpBbr3::m_stateTrace),
                        "ns3::MpBbr3::StateTracedCallback");
}

TypeId
MpBbr3::GetTypeId()
{
    static TypeId tid =
        AddAttributes(TypeId("ns3::MpBbr3").AddConstructor<MpBbr3>(), Defaults{0.02, 1, false});
    return tid;
}

TypeId
MpBbr3Picoquic::GetTypeId()
{
    static TypeId tid =
        AddAttributes(TypeId("ns3::MpBbr3Picoquic").AddConstructor<MpBbr3Picoquic>(),
                      Defaults{0.20, 4, true});
    return tid;
}

MpBbr3::MpBbr3()
    : m_startupPacingGain(2.77),
      m_defaultCwndGain(2.0),
      m_drainPacingGain(0.35),
      m_probeDownPacingGain(0.90),
      m_probeUpPacingGain(1.25),
      m_probeUpCwndGain(2.25),
      m_lossThresh(0.02),
      m_beta(0.7),
      m_headroom(0.15),
      m_minPipeCwndPackets(4),
      m_fullBwThresh(1.25),
      m_fullBwCountThresh(3),
      m_startupFullLossCnt(6),
      m_extraAckedFilterLen(10),
      m_minRttFilterLen(Seconds(10)),
      m_probeRttInterval(Seconds(5)),
      m_probeRttDuration(MilliSeconds(200)),
      m_probeRttCwndGain(0.5),
      m_pacingMarginPercent(1.0),
      m_probeWaitBase(Seconds(2)),
      m_probeWaitRange(Seconds(1)),
      m_renoRoundsMax(63),
      m_minLostPackets(1),
      m_startupOnRtoEnd(false),
      m_ecn(false),
      m_ecnMaxRtt(MilliSeconds(5)),
      m_ecnAlphaGain(1.0 / 16.0),
      m_ecnAlphaInit(1.0),
      m_ecnFactor(1.0 / 3.0),
      m_ecnThresh(0.5),
      m_ecnFullCount(2),
      m_ecnReprobeGain(0.5)
{
    m_uv = CreateObject<UniformRandomVariable>();
}

MpBbr3Picoquic::MpBbr3Picoquic()
{
    m_name = "bbr3_picoquic";
}

std::string
MpBbr3::GetName() const
{
    return m_name;
}

int64_t
MpBbr3::AssignStreams(int64_t stream)
{
    m_uv->SetStream(stream);
    return 1;
}

bool
MpBbr3::RequiresPacing() const
{
    return true;
}

bool
MpBbr3::InSlowStart() const
{
    return m_state == State::STARTUP;
}

MpBbr3::State
MpBbr3::GetState() const
{
    return m_state;
}

double
MpBbr3::GetSendQuantum() const
{
    return m_sendQuantum;
}

const char*
MpBbr3::StateName(State s)
{
    switch (s)
    {
    case State::STARTUP:
        return "startup";
    case State::DRAIN:
        return "drain";
    case State::PROBE_BW_DOWN:
        return "probe_bw_down";
    case State::PROBE_BW_CRUISE:
        return "probe_bw_cruise";
    case State::PROBE_BW_REFILL:
        return "probe_bw_refill";
    case State::PROBE_BW_UP:
        return "probe_bw_up";
    case State::PROBE_RTT:
        return "probe_rtt";
    }
    return "unknown";
}

MpBbr3::Status
MpBbr3::GetStatus() const
{
    Status s;
    s.state = m_state;
    s.ackPhase = m_ackPhase;
    s.maxBwBps = 8.0 * m_maxBw;
    s.bwBps = 8.0 * m_bw;
    s.bwShorttermBps = 8.0 * m_bwShortterm;
    s.inflightShortterm = m_inflightShortterm;
    s.inflightLongterm = m_inflightLongterm;
    s.bdp = m_bdp;
    s.maxInflight = m_maxInflight;
    s.extraAcked = m_extraAcked;
    s.sendQuantum = m_sendQuantum;
    s.minRtt = HasMinRtt() ? m_minRtt : Time(0);
    s.probeRttMinStamp = m_probeRttMinStamp;
    s.pacingGain = m_pacingGain;
    s.cwndGain = m_cwndGain;
    s.roundCount = m_roundCount;
    s.cycleCount = m_cycleCount;
    s.roundsSinceProbeUp = m_roundsSinceProbeUp;
    s.bwProbeUpRounds = m_bwProbeUpRounds;
    s.probeUpAckedPerInc = m_probeUpAckedPerInc;
    s.bwProbeWait = m_bwProbeWait;
    s.cycleStamp = m_cycleStamp;
    s.fullBwReached = m_fullBwReached;
    s.fullBwNow = m_fullBwNow;
    s.isBwProbeSample = m_isBwProbeSample;
    s.prevProbeTooHigh = m_prevProbeTooHigh;
    s.prevProbePrecautionary = m_prevProbePrecautionary;
    s.isCwndLimited = IsCwndLimited();
    s.inRecovery = m_inRecovery;
    s.inRto = m_inRto;
    s.priorCwnd = m_priorCwnd;
    s.lostBytes = m_lostBytes;
    s.stateTransitions = m_transitions;
    s.ecnEligible = m_ecnEligible;
    s.ecnAlpha = m_ecnAlpha;
    s.lastCeRatio = m_lastCeRatio;
    s.deliveredCe = m_deliveredCe;
    s.ecnInRound = m_ecnInRound;
    s.ecnInCycle = m_ecnInCycle;
    s.startupEcnRounds = m_startupEcnRounds;
    s.ecnTooHigh = m_ecnTooHigh;
    s.ecnShorttermCuts = m_ecnShorttermCuts;
    return s;
}

} // namespace ns3
