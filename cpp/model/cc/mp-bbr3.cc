// SPDX-License-Identifier: GPL-2.0-only
//
// BBRv3 per draft-ietf-ccwg-bbr-04. Each function carries the name of the draft's pseudocode
// routine it implements (BBR prefix dropped) and its section.

#include "mp-bbr3.h"

#include "model/registry/mp-algorithm-registry.h"
#include "mp-ecn-marks.h"

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

namespace
{
/// Packets older than this many packet numbers below the largest acknowledged one are
/// resolved (RFC 9002's packet threshold is 3): their records can go.
constexpr uint64_t kRecordLag = 64;
/// Upper bound on the per-packet records kept (a safety net; never reached in practice).
constexpr std::size_t kMaxRecords = 1u << 20;
/// ProbeBW_UP's in-flight slope doubles per round up to 2^30 SMSS (draft 5.3.3.6).
constexpr uint32_t kMaxProbeUpRounds = 30;
} // namespace

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

// ---- model helpers (draft 5.5, 5.6.4) ------------------------------------------------------

double
MpBbr3::Smss() const
{
    return static_cast<double>(m_mss);
}

double
MpBbr3::MinPipeCwnd() const
{
    return static_cast<double>(m_minPipeCwndPackets) * Smss();
}

double
MpBbr3::InitialCwnd() const
{
    return static_cast<double>(m_initialWindowPackets > 0
                                   ? static_cast<uint64_t>(m_initialWindowPackets) * m_mss
                                   : InitialWindow(m_mss));
}

bool
MpBbr3::HasMinRtt() const
{
    return m_minRtt != Time::Max();
}

void
MpBbr3::UpdateBdp()
{
    m_bdp = HasMinRtt() ? m_bw * m_minRtt.GetSeconds() : InitialCwnd();
}

/// BBRBDPMultiple (5.6.4.2): gain * bw * min_rtt, or the initial window before an RTT sample.
double
MpBbr3::BdpMultiple(double gain) const
{
    if (!HasMinRtt())
    {
        return InitialCwnd();
    }
    return gain * m_bw * m_minRtt.GetSeconds();
}

/// BBRQuantizationBudget (5.6.4.2): at least the offload budget (QUIC: one send quantum) and
/// MinPipeCwnd, plus 2 SMSS in ProbeBW_UP.
double
MpBbr3::QuantizationBudget(double inflightCap) const
{
    inflightCap = std::max(inflightCap, m_sendQuantum);
    inflightCap = std::max(inflightCap, MinPipeCwnd());
    if (m_state == State::PROBE_BW_UP)
    {
        inflightCap += 2 * Smss();
    }
    return inflightCap;
}

double
MpBbr3::Inflight(double gain) const
{
    return QuantizationBudget(BdpMultiple(gain));
}

/// BBRInflightWithHeadroom (5.3.3.6): inflight_longterm less max(1 SMSS, Headroom * it).
double
MpBbr3::InflightWithHeadroom() const
{
    if (m_inflightLongterm == kInf)
    {
        return kInf;
    }
    double headroom = std::max(Smss(), m_headroom * m_inflightLongterm);
    return std::max(m_inflightLongterm - headroom, MinPipeCwnd());
}

/// BBRTargetInflight (5.3.3.5): the BDP unless congestion cut cwnd below it.
double
MpBbr3::TargetInflight() const
{
    return std::min(m_bdp, static_cast<double>(m_cwnd));
}

/// BBRProbeRTTCwnd (5.6.4.5): max(ProbeRTTCwndGain * bdp, MinPipeCwnd).
double
MpBbr3::ProbeRttCwnd() const
{
    return std::max(BdpMultiple(m_probeRttCwndGain), MinPipeCwnd());
}

bool
MpBbr3::IsInAProbeBwState() const
{
    return m_state == State::PROBE_BW_DOWN || m_state == State::PROBE_BW_CRUISE ||
           m_state == State::PROBE_BW_REFILL || m_state == State::PROBE_BW_UP;
}

bool
MpBbr3::IsProbingBw() const
{
    return m_state == State::STARTUP || m_state == State::PROBE_BW_REFILL ||
           m_state == State::PROBE_BW_UP;
}

bool
MpBbr3::InLossRecovery() const
{
    return m_inRecovery || m_inRto;
}

/// C.is_cwnd_limited (2.2): cwnd was fully used at some point in the last round trip.
bool
MpBbr3::IsCwndLimited() const
{
    return m_cwndLimitedSeen && m_roundCount <= m_cwndLimitedRound + 1;
}

/// IsInflightTooHigh (5.5.10.2). QUIC has selective ACKs, so only the rate test applies; the
/// picoquic variant also wants more than 3 packets lost in the round.
bool
MpBbr3::IsInflightTooHigh(const Sample& rs) const
{
    if (m_lostPacketsInRound < m_minLostPackets)
    {
        return false;
    }
    return rs.lost > rs.txInFlight * m_lossThresh;
}

/// BBRInflightAtLoss (5.5.10.2): the in-flight volume at which the loss rate crossed
/// LossThresh, solving (lost_prev + x) / (inflight_prev + x) = LossThresh for x within P.
double
MpBbr3::InflightAtLoss(const Sample& rs, double size) const
{
    double inflightPrev = std::max(rs.txInFlight - size, 0.0);
    double lostPrev = std::max(rs.lost - size, 0.0);
    double lostPrefix = (m_lossThresh * inflightPrev - lostPrev) / (1.0 - m_lossThresh);
    lostPrefix = std::max(lostPrefix, 0.0);
    return inflightPrev + lostPrefix;
}

// ---- initialisation (5.2.1) -------------------------------------------------------------------

void
MpBbr3::Init(const MpCcContext& ctx)
{
    MpCongestionOps::Init(ctx);
    m_now = ctx.Now();
    const MpPathInfo& path = ctx.Path();
    m_maxBw = 0;
    m_bwHi[0] = m_bwHi[1] = 0;
    m_bw = 0;
    m_cycleCount = 0;
    m_minRtt = path.HasRttSample() ? path.Srtt() : Time::Max();
    m_minRttStamp = m_now;
    m_probeRttMinDelay = m_minRtt;
    m_probeRttMinStamp = m_now;
    m_probeRttExpired = false;
    m_probeRttDoneSet = false;
    m_probeRttRoundDone = false;
    m_priorCwnd = 0;
    m_haveUndoState = false;
    m_undoBwShortterm = 0;
    m_undoInflightShortterm = 0;
    m_undoInflightLongterm = 0;
    m_idleRestart = false;
    m_extraAckedIntervalStart = m_now;
    m_extraAckedDelivered = 0;
    m_extraAckedFilter.Reset(0, 0);
    m_extraAcked = 0;
    m_fullBwReached = false;
    m_inflightLongterm = kInf;
    m_probeUpAckedPerInc = kInf;
    m_bwProbeUpAcked = 0;
    m_bwProbeUpRounds = 0;
    m_roundsSinceProbeUp = 0;
    m_isBwProbeSample = false;
    m_prevProbeTooHigh = false;
    m_prevProbePrecautionary = false;
    m_ackPhase = AckPhase::INIT;
    m_cycleStamp = Time(0);
    m_bwProbeWait = Time(0);
    m_lossRoundDelivered = 0;
    m_lostPacketsInRound = 0;
    m_startupLossRanges = 0;
    m_startupLostBytes = 0;
    m_startupRoundDeliveredBase = 0;
    m_haveLastLostPn = false;
    m_inRecovery = false;
    m_inRto = false;
    m_lostBytes = 0;
    m_appLimitedUntil = 0;
    m_cwndLimitedSeen = false;
    m_records.clear();
    m_recordBase = 0;
    m_ecnEligible = false;
    m_ecnAlpha = m_ecnAlphaInit;
    m_lastCeRatio = -1;
    m_deliveredCe = 0;
    m_alphaLastDelivered = 0;
    m_alphaLastDeliveredCe = 0;
    m_startupEcnRounds = 0;
    m_ecnRoundPending = false;
    m_ecnLossRoundPending = false;
    m_ecnSampleValid = false;
    m_ecnTooHigh = 0;
    m_ecnShorttermCuts = 0;
    ResetCongestionSignals();
    ResetShortTermModel();
    // InitRoundCounting
    m_nextRoundDelivered = 0;
    m_roundStart = false;
    m_roundCount = 0;
    ResetFullBw();
    // InitPacingRate (5.6.2): StartupPacingGain * InitialCwnd / (SRTT or 1 ms).
    m_hasSeenRtt = path.HasRttSample();
    double srtt = m_hasSeenRtt ? path.Srtt().GetSeconds() : 0.001;
    m_pacingRateBytes = m_startupPacingGain * static_cast<double>(m_cwnd) / srtt;
    m_state = State::STARTUP;
    EnterStartup();
    UpdateBdp();
    SetSendQuantum();
    m_maxInflight = static_cast<double>(m_cwnd);
    Publish();
}

void
MpBbr3::Publish()
{
    m_pacingRate = 8.0 * m_pacingRateBytes;
}

// ---- state transitions (5.3) ------------------------------------------------------------------

void
MpBbr3::SetState(State s, double pacingGain, double cwndGain)
{
    if (s != m_state)
    {
        State old = m_state;
        m_state = s;
        ++m_transitions;
        m_stateTrace(static_cast<uint8_t>(old), static_cast<uint8_t>(s));
    }
    m_pacingGain = pacingGain;
    m_cwndGain = cwndGain;
}

/// BBREnterStartup (5.3.1.1).
void
MpBbr3::EnterStartup()
{
    SetState(State::STARTUP, m_startupPacingGain, m_defaultCwndGain);
}

/// BBREnterDrain (5.3.2).
void
MpBbr3::EnterDrain()
{
    SetState(State::DRAIN, m_drainPacingGain, m_defaultCwndGain);
    m_drainStartRound = m_roundCount;
}

/// BBREnterProbeBW (5.3.3.6).
void
MpBbr3::EnterProbeBw()
{
    m_cwndGain = m_defaultCwndGain;
    StartProbeBwDown();
}

/// BBRStartProbeBW_DOWN (5.3.3.6).
void
MpBbr3::StartProbeBwDown()
{
    ResetCongestionSignals();
    m_probeUpAckedPerInc = kInf;
    PickProbeWait();
    m_cycleStamp = m_now;
    m_ackPhase = AckPhase::PROBE_STOPPING;
    StartRound();
    SetState(State::PROBE_BW_DOWN, m_probeDownPacingGain, m_defaultCwndGain);
}

/// BBRStartProbeBW_CRUISE (5.3.3.6).
void
MpBbr3::StartProbeBwCruise()
{
    SetState(State::PROBE_BW_CRUISE, 1.0, m_defaultCwndGain);
}

/// BBRStartProbeBW_REFILL (5.3.3.6): forget the short-term model, refill the pipe one round.
void
MpBbr3::StartProbeBwRefill(uint32_t probeUpRounds)
{
    ResetShortTermModel();
    m_bwProbeUpRounds = probeUpRounds;
    m_bwProbeUpAcked = 0;
    m_prevProbePrecautionary = false;
    m_ackPhase = AckPhase::REFILLING;
    StartRound();
    SetState(State::PROBE_BW_REFILL, 1.0, m_defaultCwndGain);
}

/// BBRStartProbeBW_UP (5.3.3.6).
void
MpBbr3::StartProbeBwUp(const Sample& rs)
{
    m_ackPhase = AckPhase::PROBE_STARTING;
    StartRound();
    ResetFullBw();
    m_fullBw = rs.deliveryRate;
    SetState(State::PROBE_BW_UP, m_probeUpPacingGain, m_probeUpCwndGain);
    RaiseInflightLongtermSlope();
}

/// BBREnterProbeRTT (5.3.4.4).
void
MpBbr3::EnterProbeRtt()
{
    SetState(State::PROBE_RTT, 1.0, m_probeRttCwndGain);
}

/// BBRExitProbeRTT (5.3.4.5): reset the short-term model; the probe clock restarts in DOWN,
/// and since inflight is already below the BDP, CRUISE follows at once.
void
MpBbr3::ExitProbeRtt()
{
    ResetShortTermModel();
    if (m_fullBwReached)
    {
        StartProbeBwDown();
        StartProbeBwCruise();
    }
    else
    {
        EnterStartup();
    }
}

/// BBRPickProbeWait (5.3.3.5): a random start of 0 or 1 for the round count (so the round
/// bound is 62 or 63) and T_bbr = 2 + U(0, 1) s.
void
MpBbr3::PickProbeWait()
{
    m_roundsSinceProbeUp = static_cast<uint64_t>(m_uv->GetInteger(0, 1));
    m_bwProbeWait = m_probeWaitBase + Seconds(m_uv->GetValue(0.0, m_probeWaitRange.GetSeconds()));
}

/// BBRStartRound (5.5.1): the round ends when a packet sent from now on is acknowledged.
void
MpBbr3::StartRound()
{
    m_nextRoundDelivered = m_delivered;
}

// ---- per-transmit steps (5.2.2, 5.4) ----------------------------------------------------------

void
MpBbr3::OnPacketSent(const MpCcContext& ctx, const MpSentPacket& p)
{
    m_now = ctx.Now();
    const MpPathInfo& path = ctx.Path();
    m_inflight = static_cast<double>(path.bytesInFlight);
    m_delivered = path.deliveredBytes;
    HandleRestartFromIdle(p);
    // Remember P.lost (and BBR's own app-limited mark) under the packet number.
    if (m_records.empty())
    {
        m_recordBase = p.pn;
    }
    if (p.pn >= m_recordBase)
    {
        while (m_recordBase + m_records.size() < p.pn)
        {
            m_records.push_back(SentRecord{m_lostBytes, false, true, m_deliveredCe});
        }
        if (m_recordBase + m_records.size() == p.pn)
        {
            m_records.push_back(
                SentRecord{m_lostBytes, m_appLimitedUntil != 0, false, m_deliveredCe});
        }
    }
    if (m_records.size() > kMaxRecords)
    {
        m_records.pop_front();
        ++m_recordBase;
    }
    // C.is_cwnd_limited: the window is full once this packet is out.
    if (path.bytesInFlight + m_mss > m_cwnd)
    {
        m_cwndLimitedRound = m_roundCount;
        m_cwndLimitedSeen = true;
    }
}

/// BBRHandleRestartFromIdle (5.4.1): pace at exactly bw when restarting an idle ProbeBW flow.
void
MpBbr3::HandleRestartFromIdle(const MpSentPacket& p)
{
    // C.inflight before this packet is 0 and the transport marked the connection app-limited.
    double before = m_inflight - static_cast<double>(p.bytes);
    if (before <= 0 && p.isAppLimited)
    {
        m_idleRestart = true;
        m_extraAckedIntervalStart = m_now;
        if (IsInAProbeBwState())
        {
            SetPacingRateWithGain(1.0);
            Publish();
        }
        else if (m_state == State::PROBE_RTT)
        {
            CheckProbeRttDone();
            Publish();
        }
    }
}

MpBbr3::SentRecord*
MpBbr3::Record(uint64_t pn)
{
    if (pn < m_recordBase || pn - m_recordBase >= m_records.size())
    {
        return nullptr;
    }
    return &m_records[pn - m_recordBase];
}

void
MpBbr3::TrimRecords(uint64_t largestAcked)
{
    while (!m_records.empty() &&
           (m_records.front().done || m_recordBase + kRecordLag < largestAcked))
    {
        m_records.pop_front();
        ++m_recordBase;
    }
}

// ---- per-ACK steps (5.2.3) --------------------------------------------------------------------

void
MpBbr3::OnAck(const MpCcContext& ctx, const MpAckEvent& ev)
{
    if (m_ecn)
    {
        ResolveEcnRound(); // the last frame's, if no ECN feedback came with it
        m_ecnSampleValid = false;
    }
    m_now = ev.now;
    const MpPathInfo& path = ctx.Path();
    m_inflight = static_cast<double>(path.bytesInFlight);
    m_delivered = path.deliveredBytes;
    if (m_appLimitedUntil != 0 && m_delivered > m_appLimitedUntil)
    {
        m_appLimitedUntil = 0;
    }

    // The newest in-flight packet acknowledged (ev.acked is in ascending packet numbers).
    const MpSentPacket* newest = nullptr;
    bool leftRecovery = false;
    uint64_t largest = 0;
    for (std::size_t i = 0; i < ev.nAcked; ++i)
    {
        const MpSentPacket& p = ev.acked[i];
        largest = std::max(largest, p.pn);
        if (p.wasLost || !p.inFlight)
        {
            continue;
        }
        newest = &p;
        if (m_inRecovery && p.sentTime > m_recoveryStart)
        {
            leftRecovery = true;
        }
    }
    Sample rs;
    const SentRecord* newestRec = newest ? Record(newest->pn) : nullptr;
    SentRecord newestCopy =
        newestRec ? *newestRec : SentRecord{m_lostBytes, false, false, m_deliveredCe};
    for (std::size_t i = 0; i < ev.nAcked; ++i)
    {
        if (SentRecord* r = Record(ev.acked[i].pn))
        {
            r->done = true;
        }
    }
    TrimRecords(largest);

    // Fast recovery ends once a packet sent after it began is acknowledged (RFC 9002
    // section 7.3.2); BBR then restores the cwnd it saved (5.6.4.4).
    if (leftRecovery)
    {
        m_inRecovery = false;
        RestoreCwnd();
    }
    if (!newest || ev.bytesAcked == 0)
    {
        return; // nothing newly delivered: no rate sample, no model update
    }

    const MpRateSample* r = ev.rate;
    if (r && r->valid)
    {
        rs.deliveryRate = r->deliveryRateBps / 8.0;
    }
    rs.delivered = r ? static_cast<double>(r->delivered) : static_cast<double>(ev.bytesAcked);
    rs.priorDelivered = r ? r->priorDelivered : newest->delivered;
    rs.isAppLimited = (r ? r->isAppLimited : newest->isAppLimited) || newestCopy.appLimited;
    rs.txInFlight = static_cast<double>(newest->txInFlight);
    rs.lost = static_cast<double>(m_lostBytes - std::min(m_lostBytes, newestCopy.lost));
    rs.newlyAcked = static_cast<double>(ev.bytesAcked);
    if (r && r->rtt.IsStrictlyPositive())
    {
        rs.rtt = r->rtt;
        rs.hasRtt = true;
    }
    else if (ev.rttSampled)
    {
        rs.rtt = ev.latestRtt;
        rs.hasRtt = true;
    }

    if (m_ecn)
    {
        // RS.delivered and P.delivered_ce for the frame's ECN feedback (CheckEcnTooHigh).
        m_ecnSampleValid = true;
        m_ecnSampleDelivered = rs.delivered;
        m_ecnSampleTxInFlight = rs.txInFlight;
        m_ecnSampleAppLimited = rs.isAppLimited;
        m_ecnSampleCeAtSend = newestCopy.deliveredCe;
    }

    // BBRUpdateModelAndState
    UpdateLatestDeliverySignals(rs);
    UpdateCongestionSignals(rs);
    UpdateAckAggregation(rs);
    CheckFullBwReached(rs);
    CheckStartupDone();
    CheckDrainDone();
    UpdateProbeBwCyclePhase(rs);
    UpdateMinRtt(rs);
    CheckProbeRtt(rs);
    AdvanceLatestDeliverySignals(rs);
    BoundBwForModel();

    // BBRUpdateControlParameters. Init had no RTT sample when the path opened without a
    // handshake; like Linux (bbr_init_pacing_rate_from_rtt), InitPacingRate runs again with
    // the first smoothed RTT.
    if (!m_hasSeenRtt && path.HasRttSample())
    {
        m_hasSeenRtt = true;
        m_pacingRateBytes =
            m_startupPacingGain * InitialCwnd() / std::max(path.Srtt().GetSeconds(), 1e-6);
    }
    SetPacingRateWithGain(m_pacingGain);
    SetSendQuantum();
    SetCwnd(rs);
    Publish();
}

/// BBRUpdateLatestDeliverySignals (5.5.10.3): 1-round maxima of rate and volume; a loss round
/// ends when a packet sent after its start is acknowledged.
void
MpBbr3::UpdateLatestDeliverySignals(const Sample& rs)
{
    m_lossRoundStart = false;
    m_bwLatest = std::max(m_bwLatest, rs.deliveryRate);
    m_inflightLatest = std::max(m_inflightLatest, rs.delivered);
    if (rs.priorDelivered >= m_lossRoundDelivered)
    {
        m_lossRoundDelivered = m_delivered;
        m_lossRoundStart = true;
    }
}

/// BBRUpdateCongestionSignals (5.5.10.3).
void
MpBbr3::UpdateCongestionSignals(const Sample& rs)
{
    UpdateMaxBw(rs);
    if (m_ecn && m_roundStart)
    {
        m_ecnRoundPending = true; // bbr_update_ecn_alpha, with this frame's CE counts
    }
    if (!m_lossRoundStart)
    {
        return; // wait for the end of the round trip
    }
    if (m_ecn)
    {
        // The ECN cut starts from inflight_shortterm before this round's loss cut.
        m_ecnLossRoundPending = true;
        m_ecnLossRoundProbing = IsProbingBw();
        m_ecnShorttermBase =
            m_inflightShortterm == kInf ? static_cast<double>(m_cwnd) : m_inflightShortterm;
    }
    AdaptLowerBoundsFromCongestion();
    m_isLossInRound = false;
    m_lostPacketsInRound = 0;
}

/// BBRUpdateRound (5.5.1).
void
MpBbr3::UpdateRound(const Sample& rs)
{
    if (rs.priorDelivered >= m_nextRoundDelivered)
    {
        StartRound();
        ++m_roundCount;
        ++m_roundsSinceProbeUp;
        m_roundStart = true;
    }
    else
    {
        m_roundStart = false;
    }
}

/// BBRUpdateMaxBw (5.5.4): max over the current and the previous ProbeBW cycle (the two
/// slots of MaxBwFilterLen = 2); app-limited samples only if they raise the estimate.
void
MpBbr3::UpdateMaxBw(const Sample& rs)
{
    UpdateRound(rs);
    if (rs.deliveryRate > 0 && (rs.deliveryRate >= m_maxBw || !rs.isAppLimited))
    {
        m_bwHi[1] = std::max(m_bwHi[1], rs.deliveryRate);
        m_maxBw = std::max(m_bwHi[0], m_bwHi[1]);
    }
}

/// BBRAdvanceMaxBwFilter (5.5.5): a new cycle slot; the older one drops out.
void
MpBbr3::AdvanceMaxBwFilter()
{
    ++m_cycleCount;
    if (m_bwHi[1] <= 0)
    {
        return; // an empty cycle (app-limited throughout) keeps the previous one
    }
    m_bwHi[0] = m_bwHi[1];
    m_bwHi[1] = 0;
    m_maxBw = m_bwHi[0];
}

/// BBRAdaptLowerBoundsFromCongestion, BBRInitLowerBounds, BBRLossLowerBounds (5.5.10.3):
/// once per round with loss, when not probing, x_shortterm = max(x_latest, Beta x_shortterm).
void
MpBbr3::AdaptLowerBoundsFromCongestion()
{
    if (IsProbingBw())
    {
        return;
    }
    if (!m_isLossInRound || m_lostPacketsInRound < m_minLostPackets)
    {
        return;
    }
    if (m_bwShortterm == kInf)
    {
        m_bwShortterm = m_maxBw;
    }
    if (m_inflightShortterm == kInf)
    {
        m_inflightShortterm = static_cast<double>(m_cwnd);
    }
    m_bwShortterm = std::max(m_bwLatest, m_beta * m_bwShortterm);
    m_inflightShortterm = std::max(m_inflightLatest, m_beta * m_inflightShortterm);
}

/// BBRUpdateACKAggregation (5.5.9).
void
MpBbr3::UpdateAckAggregation(const Sample& rs)
{
    double interval = (m_now - m_extraAckedIntervalStart).GetSeconds();
    double expected = m_bw * interval;
    if (m_extraAckedDelivered <= expected)
    {
        // The ACK rate fell below the expected rate: a new aggregation epoch.
        m_extraAckedDelivered = 0;
        m_extraAckedIntervalStart = m_now;
        expected = 0;
    }
    m_extraAckedDelivered += rs.newlyAcked;
    double extra = std::min(m_extraAckedDelivered - expected, static_cast<double>(m_cwnd));
    uint64_t window = m_fullBwReached ? m_extraAckedFilterLen : 1;
    m_extraAcked = m_extraAckedFilter.Update(std::max(extra, 0.0), m_roundCount, window);
}

/// BBRResetFullBW (5.3.1.2).
void
MpBbr3::ResetFullBw()
{
    m_fullBw = 0;
    m_fullBwCount = 0;
    m_fullBwNow = false;
}

/// BBRCheckFullBWReached (5.3.1.2): three rounds in a row with less than 25 % growth of the
/// delivery rate. Rounds without a valid (non-app-limited) sample do not count.
void
MpBbr3::CheckFullBwReached(const Sample& rs)
{
    if (m_fullBwNow || !m_roundStart || rs.isAppLimited || rs.deliveryRate <= 0)
    {
        return;
    }
    if (rs.deliveryRate >= m_fullBw * m_fullBwThresh)
    {
        ResetFullBw();
        m_fullBw = rs.deliveryRate;
        return;
    }
    ++m_fullBwCount;
    m_fullBwNow = m_fullBwCount >= m_fullBwCountThresh;
    if (m_fullBwNow)
    {
        m_fullBwReached = true;
    }
}

/// BBRCheckStartupDone (5.3.1).
void
MpBbr3::CheckStartupDone()
{
    CheckStartupHighLoss();
    if (m_state == State::STARTUP && m_fullBwReached)
    {
        EnterDrain();
    }
}

/// BBRCheckStartupHighLoss (5.3.1.3): at the end of a loss round, after a full round in
/// recovery, a loss rate above LossThresh over at least StartupFullLossCount discontiguous
/// lost ranges ends Startup. The loss rate is lost / (delivered + lost) over the round.
void
MpBbr3::CheckStartupHighLoss()
{
    if (!m_lossRoundStart)
    {
        return;
    }
    if (!m_fullBwReached && m_state == State::STARTUP && m_inRecovery &&
        m_roundCount > m_recoveryStartRound && m_startupLossRanges >= m_startupFullLossCnt)
    {
        double delivered =
            static_cast<double>(m_delivered - std::min(m_delivered, m_startupRoundDeliveredBase));
        double lost = static_cast<double>(m_startupLostBytes);
        if (lost > m_lossThresh * (delivered + lost))
        {
            HandleQueueTooHighInStartup();
        }
    }
    m_startupLossRanges = 0;
    m_startupLostBytes = 0;
    m_startupRoundDeliveredBase = m_delivered;
    m_haveLastLostPn = false;
}

/// The Startup loss exit (5.3.1.3): undo_state = Startup, full_bw_reached, and
/// inflight_longterm = max(bdp, inflight_latest).
void
MpBbr3::HandleQueueTooHighInStartup()
{
    m_haveUndoState = true;
    m_undoState = State::STARTUP;
    m_fullBwReached = true;
    m_fullBwNow = true;
    UpdateBdp();
    m_inflightLongterm = std::max(m_bdp, m_inflightLatest);
}

/// BBRCheckDrainDone (5.3.2): inflight down to the BDP, or 3 rounds in Drain.
void
MpBbr3::CheckDrainDone()
{
    if (m_state == State::DRAIN &&
        (m_inflight <= Inflight(1.0) || m_roundCount > m_drainStartRound + 3))
    {
        EnterProbeBw();
    }
}

/// BBRUpdateProbeBWCyclePhase (5.3.3.6).
void
MpBbr3::UpdateProbeBwCyclePhase(const Sample& rs)
{
    if (!m_fullBwReached)
    {
        return; // only steady-state behaviour here
    }
    if (AdaptLongTermModel(rs))
    {
        return; // a state transition was decided
    }
    if (!IsInAProbeBwState())
    {
        return;
    }
    switch (m_state)
    {
    case State::PROBE_BW_DOWN:
        if (IsTimeToProbeBw())
        {
            return;
        }
        if (IsTimeToCruise())
        {
            StartProbeBwCruise();
        }
        break;
    case State::PROBE_BW_CRUISE:
        IsTimeToProbeBw();
        break;
    case State::PROBE_BW_REFILL:
        // After one round of REFILL, start UP.
        if (m_roundStart)
        {
            m_isBwProbeSample = true;
            StartProbeBwUp(rs);
        }
        break;
    case State::PROBE_BW_UP:
        if (IsTimeToGoDown(rs))
        {
            m_prevProbeTooHigh = false; // no high loss (yet)
            StartProbeBwDown();
        }
        break;
    default:
        break;
    }
}

/// BBRAdaptLongTermModel (5.3.3.6): track the ACK phase, advance the max_bw filter one round
/// after a probe, and raise inflight_longterm while the loss rate is safe.
bool
MpBbr3::AdaptLongTermModel(const Sample& rs)
{
    if (m_ackPhase == AckPhase::PROBE_STARTING && m_roundStart)
    {
        m_ackPhase = AckPhase::PROBE_FEEDBACK; // samples from the probe start arriving
    }
    if (m_ackPhase == AckPhase::PROBE_STOPPING && m_roundStart)
    {
        // The end of the samples from the bandwidth probe.
        m_isBwProbeSample = false;
        m_ackPhase = AckPhase::INIT;
        if (IsInAProbeBwState() && !rs.isAppLimited)
        {
            AdvanceMaxBwFilter();
        }
        // Precautionary probing, acceleration: the cautious probe found no excess loss.
        if (IsInAProbeBwState() && m_prevProbePrecautionary && !m_prevProbeTooHigh)
        {
            StartProbeBwRefill();
            return true;
        }
    }
    if (!IsInflightTooHigh(rs))
    {
        // Loss rate is safe: adjust the upper bound upward.
        if (m_inflightLongterm == kInf)
        {
            return false;
        }
        if (rs.txInFlight > m_inflightLongterm)
        {
            m_inflightLongterm = rs.txInFlight;
        }
        if (m_state == State::PROBE_BW_UP)
        {
            ProbeInflightLongtermUpward(rs);
        }
    }
    return false;
}

/// BBRIsTimeToProbeBW (5.3.3.5): T_probe = min(T_bbr, T_reno) has passed.
bool
MpBbr3::IsTimeToProbeBw()
{
    // Linux bbr_check_time_to_probe_bw: CE but no loss in this cycle, probe again at once.
    if (m_ecnReprobeGain > 0 && m_ecnEligible && m_ecnInCycle && !m_lossInCycle &&
        !InLossRecovery())
    {
        uint32_t n = kMaxProbeUpRounds;
        if (m_inflightLongterm != kInf)
        {
            double packets = m_ecnReprobeGain * m_inflightLongterm / Smss();
            n = packets >= 1.0 ? static_cast<uint32_t>(std::floor(std::log2(packets))) : 0;
        }
        StartProbeBwRefill(std::min(n, kMaxProbeUpRounds));
        return true;
    }
    if (m_now > m_cycleStamp + m_bwProbeWait || IsRenoCoexistenceProbeTime())
    {
        StartProbeBwRefill();
        return true;
    }
    return false;
}

/// BBRIsRenoCoexistenceProbeTime (5.3.3.5): min(TargetInflight in packets, 63) rounds.
bool
MpBbr3::IsRenoCoexistenceProbeTime() const
{
    double renoRounds = std::floor(TargetInflight() / Smss());
    double rounds = std::min(renoRounds, static_cast<double>(m_renoRoundsMax));
    return static_cast<double>(m_roundsSinceProbeUp) >= rounds;
}

/// BBRIsTimeToCruise (5.3.3.6): headroom left below inflight_longterm and no queue.
bool
MpBbr3::IsTimeToCruise() const
{
    if (m_inflight > InflightWithHeadroom())
    {
        return false;
    }
    if (m_inflight > Inflight(1.0))
    {
        return false;
    }
    return true;
}

/// BBRIsTimeToGoDown (5.3.3.6).
bool
MpBbr3::IsTimeToGoDown(const Sample& rs)
{
    // Precautionary probing, deceleration: stop at the level that lost too much last time.
    if (m_prevProbeTooHigh && m_inflight >= m_inflightLongterm)
    {
        m_prevProbePrecautionary = true;
        return true;
    }
    if (IsCwndLimited() && static_cast<double>(m_cwnd) >= m_inflightLongterm)
    {
        // Bandwidth is limited by inflight_longterm: the plateau test starts over.
        ResetFullBw();
        m_fullBw = rs.deliveryRate;
    }
    else if (m_fullBwNow)
    {
        return true; // the path's bandwidth is fully used
    }
    return false;
}

/// BBRRaiseInflightLongtermSlope (5.3.3.6): this round inflight_longterm grows by
/// 2^bw_probe_up_rounds SMSS, spread over a cwnd of ACKs.
void
MpBbr3::RaiseInflightLongtermSlope()
{
    double growthThisRound = std::ldexp(1.0, static_cast<int>(m_bwProbeUpRounds));
    m_bwProbeUpRounds = std::min(m_bwProbeUpRounds + 1, kMaxProbeUpRounds);
    m_probeUpAckedPerInc = std::max(static_cast<double>(m_cwnd) / growthThisRound, Smss());
}

/// BBRProbeInflightLongtermUpward (5.3.3.6).
void
MpBbr3::ProbeInflightLongtermUpward(const Sample& rs)
{
    if (!IsCwndLimited() || static_cast<double>(m_cwnd) < m_inflightLongterm)
    {
        return; // inflight_longterm is not fully used: do not grow it
    }
    m_bwProbeUpAcked += rs.newlyAcked;
    if (m_bwProbeUpAcked >= m_probeUpAckedPerInc)
    {
        double delta = std::floor(m_bwProbeUpAcked / m_probeUpAckedPerInc);
        m_bwProbeUpAcked -= delta * m_probeUpAckedPerInc;
        m_inflightLongterm += delta * Smss();
    }
    if (m_roundStart)
    {
        RaiseInflightLongtermSlope();
    }
}

/// BBRUpdateMinRTT (5.3.4.4, draft-04): the 5 s ProbeRTT min filter feeds the 10 s min_rtt.
void
MpBbr3::UpdateMinRtt(const Sample& rs)
{
    m_probeRttExpired = m_now > m_probeRttMinStamp + m_probeRttInterval;
    if (rs.hasRtt && (rs.rtt < m_probeRttMinDelay || m_probeRttExpired))
    {
        m_probeRttMinDelay = rs.rtt;
        m_probeRttMinStamp = m_now;
    }
    bool minRttExpired = m_now > m_minRttStamp + m_minRttFilterLen;
    if (m_probeRttMinDelay < m_minRtt || minRttExpired)
    {
        m_minRtt = m_probeRttMinDelay;
        m_minRttStamp = m_probeRttMinStamp;
    }
}

/// BBRCheckProbeRTT (5.3.4.4).
void
MpBbr3::CheckProbeRtt(const Sample& rs)
{
    if (m_state != State::PROBE_RTT && m_probeRttExpired && !m_idleRestart)
    {
        EnterProbeRtt();
        SaveCwnd();
        m_probeRttDoneSet = false;
        m_ackPhase = AckPhase::PROBE_STOPPING;
        StartRound();
    }
    if (m_state == State::PROBE_RTT)
    {
        HandleProbeRtt();
    }
    if (rs.delivered > 0)
    {
        m_idleRestart = false;
    }
}

/// BBRHandleProbeRTT (5.3.4.4): hold inflight at the ProbeRTT cwnd for 200 ms and a round.
void
MpBbr3::HandleProbeRtt()
{
    // Ignore low rate samples during ProbeRTT.
    MarkConnectionAppLimited();
    if (!m_probeRttDoneSet && m_inflight <= ProbeRttCwnd())
    {
        m_probeRttDoneStamp = m_now + m_probeRttDuration;
        m_probeRttDoneSet = true;
        m_probeRttRoundDone = false;
        StartRound();
    }
    else if (m_probeRttDoneSet)
    {
        if (m_roundStart)
        {
            m_probeRttRoundDone = true;
        }
        if (m_probeRttRoundDone)
        {
            CheckProbeRttDone();
        }
    }
}

/// BBRCheckProbeRTTDone (5.3.4.4).
void
MpBbr3::CheckProbeRttDone()
{
    if (m_probeRttDoneSet && m_now > m_probeRttDoneStamp)
    {
        m_probeRttMinStamp = m_now; // schedule the next ProbeRTT
        RestoreCwnd();
        ExitProbeRtt();
    }
}

/// MarkConnectionAppLimited (4.1.2.4), kept by BBR itself: packets sent until C.delivered
/// passes C.delivered + C.inflight give app-limited samples.
void
MpBbr3::MarkConnectionAppLimited()
{
    uint64_t v = m_delivered + static_cast<uint64_t>(m_inflight);
    m_appLimitedUntil = v > 0 ? v : 1;
}

/// BBRAdvanceLatestDeliverySignals (5.5.10.3).
void
MpBbr3::AdvanceLatestDeliverySignals(const Sample& rs)
{
    if (m_lossRoundStart)
    {
        m_bwLatest = rs.deliveryRate;
        m_inflightLatest = rs.delivered;
    }
}

/// BBRBoundBWForModel (5.5.10.3): bw = min(max_bw, bw_shortterm).
void
MpBbr3::BoundBwForModel()
{
    m_bw = std::min(m_maxBw, m_bwShortterm);
    UpdateBdp();
}

/// BBRResetCongestionSignals (5.5.10.3).
void
MpBbr3::ResetCongestionSignals()
{
    m_isLossInRound = false;
    m_lostPacketsInRound = 0;
    m_bwLatest = 0;
    m_inflightLatest = 0;
    m_ecnInRound = false;
    m_ecnInCycle = false;
    m_lossInCycle = false;
}

/// BBRResetShortTermModel (5.5.10.3).
void
MpBbr3::ResetShortTermModel()
{
    m_bwShortterm = kInf;
    m_inflightShortterm = kInf;
}

// ---- control parameters (5.6) -----------------------------------------------------------------

/// BBRSetPacingRateWithGain (5.6.2): gain * bw less the pacing margin; before the pipe is
/// full the rate never falls.
void
MpBbr3::SetPacingRateWithGain(double gain)
{
    double rate = gain * m_bw * (100.0 - m_pacingMarginPercent) / 100.0;
    if (rate <= 0)
    {
        return;
    }
    if (m_fullBwReached || rate > m_pacingRateBytes)
    {
        m_pacingRateBytes = rate;
    }
}

/// BBRSetSendQuantum (5.6.3): pacing_rate * 1 ms within [2 SMSS, 64 KB].
void
MpBbr3::SetSendQuantum()
{
    double q = m_pacingRateBytes * 1e-3;
    q = std::min(q, 65536.0);
    m_sendQuantum = std::max(q, 2 * Smss());
}

/// BBRUpdateMaxInflight (5.6.4.2).
void
MpBbr3::UpdateMaxInflight()
{
    double cap = BdpMultiple(m_cwndGain) + m_extraAcked;
    m_maxInflight = QuantizationBudget(cap);
}

/// BBRSetCwnd (5.6.4.6): towards max_inflight by at most the newly acked bytes per ACK.
void
MpBbr3::SetCwnd(const Sample& rs)
{
    UpdateMaxInflight();
    double cwnd = static_cast<double>(m_cwnd);
    if (m_fullBwReached)
    {
        cwnd = std::min(cwnd + rs.newlyAcked, m_maxInflight);
    }
    else if (cwnd < m_maxInflight || static_cast<double>(m_delivered) < InitialCwnd())
    {
        cwnd += rs.newlyAcked;
    }
    cwnd = std::max(cwnd, MinPipeCwnd());
    m_cwnd = static_cast<uint64_t>(cwnd);
    BoundCwndForProbeRtt();
    BoundCwndForModel();
}

/// BBRBoundCwndForProbeRTT (5.6.4.5).
void
MpBbr3::BoundCwndForProbeRtt()
{
    if (m_state == State::PROBE_RTT)
    {
        m_cwnd = std::min(m_cwnd, static_cast<uint64_t>(ProbeRttCwnd()));
    }
}

/// BBRBoundCwndForModel (5.6.4.7): inflight_longterm in DOWN, REFILL and UP,
/// InflightWithHeadroom in CRUISE and ProbeRTT, and inflight_shortterm always.
void
MpBbr3::BoundCwndForModel()
{
    double cap = kInf;
    if (IsInAProbeBwState() && m_state != State::PROBE_BW_CRUISE)
    {
        cap = m_inflightLongterm;
    }
    else if (m_state == State::PROBE_RTT || m_state == State::PROBE_BW_CRUISE)
    {
        cap = InflightWithHeadroom();
    }
    cap = std::min(cap, m_inflightShortterm);
    cap = std::max(cap, MinPipeCwnd());
    if (cap < static_cast<double>(m_cwnd))
    {
        m_cwnd = static_cast<uint64_t>(cap);
    }
}

// ---- loss (5.5.10, 5.5.11, 5.6.4.4) -----------------------------------------------------------

void
MpBbr3::OnPacketsLost(const MpCcContext& ctx, const MpLossEvent& ev)
{
    m_now = ev.now;
    const MpPathInfo& path = ctx.Path();
    m_inflight = static_cast<double>(path.bytesInFlight);
    m_delivered = path.deliveredBytes;
    if (ev.nLost == 0)
    {
        return;
    }
    // A loss of a packet sent after the current recovery began starts a new episode
    // (RFC 9002 section 7.3.2). BBROnEnterFastRecovery (5.6.4.4): save cwnd and the model.
    if (!m_inRecovery || ev.largestLostSentTime > m_recoveryStart)
    {
        SaveCwnd();
        SaveStateUponLoss();
        m_inRecovery = true;
        m_recoveryStart = ev.now;
        m_recoveryStartRound = m_roundCount;
    }
    for (std::size_t i = 0; i < ev.nLost; ++i)
    {
        const MpSentPacket& p = ev.lost[i];
        if (!p.inFlight)
        {
            continue;
        }
        m_lostBytes += p.bytes;
        ++m_lostPacketsInRound;
        // Startup's loss exit counts discontiguous lost ranges and lost bytes per round.
        if (!m_haveLastLostPn || p.pn != m_lastLostPn + 1)
        {
            ++m_startupLossRanges;
        }
        m_haveLastLostPn = true;
        m_lastLostPn = p.pn;
        m_startupLostBytes += p.bytes;
        SentRecord rec{m_lostBytes - p.bytes, p.isAppLimited, true};
        if (SentRecord* r = Record(p.pn))
        {
            rec.lost = r->lost;
            rec.appLimited = rec.appLimited || r->appLimited;
            r->done = true;
        }
        HandleLostPacket(p, rec);
    }
}

/// BBRNoteLoss (5.5.10.2).
void
MpBbr3::NoteLoss()
{
    if (!m_isLossInRound)
    {
        m_lossRoundDelivered = m_delivered; // the first loss in this round trip
        SaveStateUponLoss();
    }
    m_isLossInRound = true;
    m_lossInCycle = true;
}

/// BBRHandleLostPacket (5.5.10.2): while probing, a loss rate above LossThresh since P was
/// sent caps inflight_longterm at the in-flight volume where the rate crossed it.
void
MpBbr3::HandleLostPacket(const MpSentPacket& p, const SentRecord& rec)
{
    NoteLoss();
    if (!m_isBwProbeSample)
    {
        return; // not a packet sent while probing bandwidth
    }
    Sample rs;
    rs.txInFlight = static_cast<double>(p.txInFlight);
    rs.lost = static_cast<double>(m_lostBytes - std::min(m_lostBytes, rec.lost));
    rs.isAppLimited = rec.appLimited;
    if (IsInflightTooHigh(rs))
    {
        rs.txInFlight = InflightAtLoss(rs, static_cast<double>(p.bytes));
        HandleInflightTooHigh(rs);
    }
}

/// BBRHandleInflightTooHigh (5.5.10.2): react once per probe; UP goes DOWN.
void
MpBbr3::HandleInflightTooHigh(const Sample& rs)
{
    m_prevProbeTooHigh = true;
    m_isBwProbeSample = false; // only react once per bandwidth probe
    if (!rs.isAppLimited)
    {
        UpdateBdp();
        m_inflightLongterm = std::max(rs.txInFlight, TargetInflight() * m_beta);
    }
    if (m_state == State::PROBE_BW_UP)
    {
        m_haveUndoState = true;
        m_undoState = State::PROBE_BW_UP;
        StartProbeBwDown();
    }
}

/// BBRSaveStateUponLoss (5.5.11.1).
void
MpBbr3::SaveStateUponLoss()
{
    SaveCwnd();
    m_haveUndoState = false;
    m_undoBwShortterm = m_bwShortterm;
    m_undoInflightShortterm = m_inflightShortterm;
    m_undoInflightLongterm = m_inflightLongterm;
}

/// BBRHandleSpuriousLossDetection (5.5.11.2): restore cwnd and the bounds; return to
/// Startup or to the bandwidth probe the loss ended.
void
MpBbr3::HandleSpuriousLossDetection()
{
    RestoreCwnd();
    m_isLossInRound = false;
    ResetFullBw();
    m_bwShortterm = std::max(m_bwShortterm, m_undoBwShortterm);
    m_inflightShortterm = std::max(m_inflightShortterm, m_undoInflightShortterm);
    m_inflightLongterm = std::max(m_inflightLongterm, m_undoInflightLongterm);
    if (m_haveUndoState && m_undoState == State::STARTUP && m_state != State::STARTUP)
    {
        m_fullBwReached = false;
        if (m_state != State::PROBE_RTT)
        {
            EnterStartup();
        }
    }
    else if (m_haveUndoState && m_undoState == State::PROBE_BW_UP && m_state != State::PROBE_BW_UP)
    {
        if (m_state != State::PROBE_RTT)
        {
            StartProbeBwRefill();
        }
    }
    m_haveUndoState = false;
}

/// BBRSaveCwnd (5.6.4.4): the last cwnd not modulated by loss recovery or ProbeRTT.
void
MpBbr3::SaveCwnd()
{
    if (!InLossRecovery() && m_state != State::PROBE_RTT)
    {
        m_priorCwnd = m_cwnd;
    }
    else
    {
        m_priorCwnd = std::max(m_priorCwnd, m_cwnd);
    }
}

/// BBRRestoreCwnd (5.6.4.4).
void
MpBbr3::RestoreCwnd()
{
    m_cwnd = std::max(m_cwnd, m_priorCwnd);
}

/// RFC 9002 section 7.6.2 persistent congestion, answered as the draft answers an RTO
/// (5.6.4.4): save cwnd and the model, cwnd = inflight + 1 SMSS (at least kMinimumWindow);
/// the saved cwnd returns when the recovery period ends.
void
MpBbr3::OnPersistentCongestion(const MpCcContext& ctx)
{
    m_now = ctx.Now();
    SaveCwnd();
    SaveStateUponLoss();
    m_inRecovery = true;
    m_recoveryStart = m_now;
    m_recoveryStartRound = m_roundCount;
    m_cwnd = std::max<uint64_t>(ctx.Path().bytesInFlight + m_mss, MinimumWindow(m_mss));
    Publish();
}

/// BBROnEnterRTO (5.6.4.4): SaveCwnd, SaveStateUponLoss on the first expiry of an episode;
/// cwnd = C.inflight + 1 SMSS on every expiry.
void
MpBbr3::OnRetransmissionTimeout(const MpCcContext& ctx, const MpRtoEvent& ev)
{
    m_now = ev.now;
    if (ev.first || !m_inRto)
    {
        SaveCwnd();
        m_priorCwnd = std::max(m_priorCwnd, ev.priorCwnd);
        SaveStateUponLoss();
        m_inRto = true;
    }
    m_cwnd = ev.bytesInFlight + m_mss;
    Publish();
}

/// The end of the timeout episode (5.6.4.4): the saved cwnd returns; a spurious timeout also
/// undoes the model (5.5.11.2). The picoquic variant re-enters Startup.
void
MpBbr3::OnRtoEpisodeEnd(const MpCcContext& ctx, const MpRtoEnd& ev)
{
    m_now = ev.now;
    m_inRto = false;
    if (ev.spurious)
    {
        HandleSpuriousLossDetection();
    }
    else
    {
        RestoreCwnd();
    }
    if (m_startupOnRtoEnd)
    {
        ResetShortTermModel();
        ResetFullBw();
        m_fullBwReached = false;
        EnterStartup();
    }
    Publish();
}

void
MpBbr3::OnIdleRestart(const MpCcContext&, Time, Time)
{
}

// ---- ECN (Linux BBRv3, tcp_bbr.c; the draft has none) ---------------------------------------

void
MpBbr3::OnEcnFeedback(const MpCcContext& ctx, const MpEcnEvent& ev)
{
    if (!m_ecn)
    {
        return; // Linux without ecn_low: CE changes nothing
    }
    m_now = ev.now;
    uint64_t marked = MpEcnMarkedBytes(ev, m_mss);
    m_deliveredCe += marked;
    if (ev.ceIncrease > 0)
    {
        m_ecnInCycle = true;
        if (m_ecnEligible)
        {
            m_ecnInRound = true;
        }
    }
    bool changed = m_ecnRoundPending || m_ecnLossRoundPending;
    ResolveEcnRound();
    uint64_t tooHigh = m_ecnTooHigh;
    CheckEcnTooHigh();
    if (changed || m_ecnTooHigh != tooHigh)
    {
        m_inflight = static_cast<double>(ctx.Path().bytesInFlight);
        ApplyEcnControl();
    }
}

MpEcnCodepoint
MpBbr3::GetEcnCodepoint() const
{
    return m_ecn ? MpEcnCodepoint::ECT0 : MpEcnCodepoint::NOT_ECT;
}

void
MpBbr3::ResolveEcnRound()
{
    if (m_ecnRoundPending)
    {
        m_ecnRoundPending = false;
        UpdateEcnAlpha();
        if (m_state == State::STARTUP && m_fullBwReached)
        {
            EnterDrain(); // BBRCheckStartupDone, for the ECN exit
        }
    }
    if (m_ecnLossRoundPending)
    {
        m_ecnLossRoundPending = false;
        EcnLowerBounds();
        m_ecnInRound = false;
    }
}

/// bbr_update_ecn_alpha: eligibility (sticky), then the per-round EWMA of the CE ratio.
void
MpBbr3::UpdateEcnAlpha()
{
    if (!m_ecnEligible && m_ecnFactor > 0 && HasMinRtt() &&
        (m_ecnMaxRtt.IsZero() || m_minRtt <= m_ecnMaxRtt))
    {
        m_ecnEligible = true;
    }
    if (!m_ecnEligible)
    {
        return;
    }
    uint64_t delivered = m_delivered - std::min(m_delivered, m_alphaLastDelivered);
    uint64_t ce = m_deliveredCe - std::min(m_deliveredCe, m_alphaLastDeliveredCe);
    if (delivered == 0)
    {
        return;
    }
    double ratio = std::min(1.0, static_cast<double>(ce) / static_cast<double>(delivered));
    m_ecnAlpha = std::min(1.0, (1.0 - m_ecnAlphaGain) * m_ecnAlpha + m_ecnAlphaGain * ratio);
    m_alphaLastDelivered = m_delivered;
    m_alphaLastDeliveredCe = m_deliveredCe;
    m_lastCeRatio = ratio;
    // bbr_check_ecn_too_high_in_startup
    if (m_fullBwReached || m_ecnFullCount == 0 || m_ecnThresh <= 0)
    {
        return;
    }
    m_startupEcnRounds = ratio >= m_ecnThresh ? m_startupEcnRounds + 1 : 0;
    if (m_startupEcnRounds >= m_ecnFullCount)
    {
        HandleQueueTooHighInStartup();
    }
}

/// bbr_ecn_lower_bounds: once per loss round with CE, when not probing,
/// inflight_shortterm = min(its loss cut, base (1 - EcnFactor ecn_alpha)).
void
MpBbr3::EcnLowerBounds()
{
    if (m_ecnLossRoundProbing || !m_ecnInRound || m_ecnFactor <= 0)
    {
        return;
    }
    if (m_inflightShortterm == kInf)
    {
        m_inflightShortterm = m_ecnShorttermBase; // bbr_init_lower_bounds
    }
    double cut = m_ecnShorttermBase * (1.0 - m_ecnFactor * m_ecnAlpha);
    m_inflightShortterm = std::min(m_inflightShortterm, cut);
    ++m_ecnShorttermCuts;
}

/// The ECN clause of bbr_is_inflight_too_high on the frame's rate sample: while the ACKs are
/// samples of a bandwidth probe, RS.delivered_ce > EcnThresh RS.delivered is too high.
void
MpBbr3::CheckEcnTooHigh()
{
    if (!m_ecnEligible || m_ecnThresh <= 0 || !m_ecnSampleValid || !m_fullBwReached ||
        !m_isBwProbeSample)
    {
        return;
    }
    double ce = static_cast<double>(m_deliveredCe - std::min(m_deliveredCe, m_ecnSampleCeAtSend));
    if (ce <= 0 || m_ecnSampleDelivered <= 0 || ce <= m_ecnThresh * m_ecnSampleDelivered)
    {
        return;
    }
    Sample rs;
    rs.txInFlight = m_ecnSampleTxInFlight;
    rs.isAppLimited = m_ecnSampleAppLimited;
    ++m_ecnTooHigh;
    HandleInflightTooHigh(rs);
}

void
MpBbr3::ApplyEcnControl()
{
    BoundBwForModel();
    SetPacingRateWithGain(m_pacingGain);
    SetSendQuantum();
    UpdateMaxInflight();
    BoundCwndForProbeRtt();
    BoundCwndForModel();
    Publish();
}

} // namespace ns3
