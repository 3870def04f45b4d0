// SPDX-License-Identifier: GPL-2.0-only
//
// MACO (cpp/model/cc/mp-maco.h). This file: the registration, the attributes and the
// accessors; the model is in mp-maco-model.cc, the events in mp-maco-events.cc.

#include "mp-maco.h"

#include "model/registry/mp-algorithm-registry.h"
#include "mp-maco-equations.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpMaco);

static MpAlgorithmRegistrar g_macoRegistrar(MpAlgorithmRegistry::Cc(), "maco", "ns3::MpMaco");

// ---- TypeId --------------------------------------------------------------------------------

TypeId
MpMaco::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MpMaco")
            .SetParent<MpCongestionOps>()
            .SetGroupName("Leogym")
            .AddConstructor<MpMaco>()
            .AddAttribute("Gamma",
                          "Quick-start safety factor gamma (paper: 1/2).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&MpMaco::m_gamma),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("InitCwndPackets",
                          "Fallback initial window and floor of Omega (paper: 4 MSS).",
                          DoubleValue(4.0),
                          MakeDoubleAccessor(&MpMaco::m_initPkts),
                          MakeDoubleChecker<double>(1.0, 1e5))
            .AddAttribute("DecreaseFactor",
                          "Window factor on a congestion loss (paper: V_r = w_r / 2).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&MpMaco::m_decrease),
                          MakeDoubleChecker<double>(0.05, 0.95))
            .AddAttribute("MinCwndPackets",
                          "Minimum window (RFC 9002 kMinimumWindow: 2).",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&MpMaco::m_minPkts),
                          MakeDoubleChecker<double>(1.0, 1e4))
            .AddAttribute("TxPowerDbm",
                          "P_t (paper: 35.12 dBm).",
                          DoubleValue(35.12),
                          MakeDoubleAccessor(&MpMaco::m_txPowerDbm),
                          MakeDoubleChecker<double>(-100.0, 100.0))
            .AddAttribute("TxGainDbi",
                          "g1, transmit antenna gain (paper: 37.7 dBi).",
                          DoubleValue(37.7),
                          MakeDoubleAccessor(&MpMaco::m_txGainDbi),
                          MakeDoubleChecker<double>(-50.0, 100.0))
            .AddAttribute("RxGainDbi",
                          "g2, receive antenna gain (paper: 37.1 dBi).",
                          DoubleValue(37.1),
                          MakeDoubleAccessor(&MpMaco::m_rxGainDbi),
                          MakeDoubleChecker<double>(-50.0, 100.0))
            .AddAttribute("WavelengthM",
                          "lambda (paper: 0.086 m).",
                          DoubleValue(0.086),
                          MakeDoubleAccessor(&MpMaco::m_wavelengthM),
                          MakeDoubleChecker<double>(1e-4, 10.0))
            .AddAttribute("NoisePsd",
                          "N_r, noise power spectral density in W/Hz (paper: 1.6e-20).",
                          DoubleValue(1.6e-20),
                          MakeDoubleAccessor(&MpMaco::m_noisePsd),
                          MakeDoubleChecker<double>(1e-30, 1e-10))
            .AddAttribute("BandwidthHz",
                          "W, spot-beam bandwidth (paper: 12.5 MHz).",
                          DoubleValue(12.5e6),
                          MakeDoubleAccessor(&MpMaco::m_bandwidthHz),
                          MakeDoubleChecker<double>(1e3, 1e11))
            .AddAttribute("Efficiency",
                          "eta, system efficiency (paper: 0.98).",
                          DoubleValue(0.98),
                          MakeDoubleAccessor(&MpMaco::m_efficiency),
                          MakeDoubleChecker<double>(1e-3, 1.0))
            .AddAttribute("SpeedOfLight",
                          "Propagation speed for eq. (11), m/s (paper: about 3e8).",
                          DoubleValue(3e8),
                          MakeDoubleAccessor(&MpMaco::m_c),
                          MakeDoubleChecker<double>(1e7, 1e9))
            .AddAttribute("DelayMode",
                          "D of eq. (11): 0 = legs from the slant range plus an EWMA of "
                          "D_terr [REC, docs/specs/maco.md#terrestrial-delay]; 1 = the path "
                          "oracle's propagation delays.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpMaco::m_delayMode),
                          MakeUintegerChecker<uint32_t>(0, 1))
            .AddAttribute("TargetInitialRtt",
                          "D(t0) that sets the initial D_terr (paper: 99th-percentile RTT "
                          "100 ms).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&MpMaco::m_targetInitialRtt),
                          MakeDoubleChecker<double>(1e-4, 10.0))
            .AddAttribute("DTerrAlpha",
                          "EWMA weight of the D_terr update [REC 1/8].",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&MpMaco::m_dTerrAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("RttMinWindow",
                          "Window of the minimum RTT feeding D_terr [REC 10 s].",
                          TimeValue(Seconds(10)),
                          MakeTimeAccessor(&MpMaco::m_rttMinWindow),
                          MakeTimeChecker(MilliSeconds(1), Seconds(3600)))
            .AddAttribute("DeltaWindow",
                          "RTT samples in the Delta_R standard deviation [REC 20].",
                          UintegerValue(20),
                          MakeUintegerAccessor(&MpMaco::m_deltaWindow),
                          MakeUintegerChecker<uint32_t>(2, 100000))
            .AddAttribute("DeltaFloor",
                          "Floor of Delta_R [REC 1 ms].",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&MpMaco::m_deltaFloor),
                          MakeTimeChecker(Time(0), Seconds(10)))
            .AddAttribute("TpMinInterval",
                          "Minimum time between throughput samples of eq. (4) [REC 10 ms].",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&MpMaco::m_tpMinInterval),
                          MakeTimeChecker(MicroSeconds(1), Seconds(100)))
            .AddAttribute("AkfWindow",
                          "Innovations in the AKF covariance matching [REC 20].",
                          UintegerValue(20),
                          MakeUintegerAccessor(&MpMaco::m_akfWindow),
                          MakeUintegerChecker<uint32_t>(1, 100000))
            .AddAttribute("AkfAdaptive",
                          "Adapt Q and R by covariance matching [REC]; false keeps Q0, R0.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpMaco::m_akfAdaptive),
                          MakeBooleanChecker())
            .AddAttribute("Con1Bottleneck",
                          "Compare TP with min(C^A, C^N) in (17a) instead of C^A "
                          "(docs/specs/maco.md#capacity-in-the-congestion-test).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_con1Bottleneck),
                          MakeBooleanChecker())
            .AddAttribute("BdpFuture",
                          "Average C D over the next RTT with predicted C^A and D instead of "
                          "the past RTT (docs/specs/maco.md#averaging-window-of-the-bdp).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_bdpFuture),
                          MakeBooleanChecker())
            .AddAttribute("HistoryLastK",
                          "Keep only the last K congestion windows in W_r (0: running max).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MpMaco::m_historyLastK),
                          MakeUintegerChecker<uint32_t>(0, 100000))
            .AddAttribute("IncrementUsesSrtt",
                          "Use smoothed RTTs in eq. (26) instead of the latest samples "
                          "(docs/specs/maco.md#congestion-avoidance).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_incrementUsesSrtt),
                          MakeBooleanChecker())
            .AddAttribute("QsOnPto",
                          "Re-enter quick start on a probe timeout (paper: on timeout).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MpMaco::m_qsOnPto),
                          MakeBooleanChecker())
            .AddAttribute(
                "ResetMaxRttOnReconnect",
                "Reset T_r at a reconnection (docs/specs/maco.md#largest-rtt; paper: never).",
                BooleanValue(false),
                MakeBooleanAccessor(&MpMaco::m_resetTmaxOnReconnect),
                MakeBooleanChecker())
            .AddAttribute("ProactiveClamp",
                          "One RTT before a handover, clamp w to the post-handover BDP share "
                          "of the subflows that will share the satellite "
                          "(docs/specs/maco.md#proactive-reduction).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_proactiveClamp),
                          MakeBooleanChecker())
            .AddAttribute("FreezeOnHandover",
                          "MACO + freeze: losses of packets sent near a handover are not "
                          "congestion (docs/specs/maco.md#events-and-how-the-controller-reacts).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MpMaco::m_freezeOnHandover),
                          MakeBooleanChecker())
            .AddAttribute("FreezeBefore",
                          "MACO + freeze: window before a handover.",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&MpMaco::m_freezeBefore),
                          MakeTimeChecker(Time(0), Seconds(60)))
            .AddAttribute("FreezeAfter",
                          "MACO + freeze: window after a handover.",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&MpMaco::m_freezeAfter),
                          MakeTimeChecker(Time(0), Seconds(60)))
            .AddTraceSource("CongestionTest",
                            "The eq. (17) test of a loss: TP, C, tau, D, Delta_R, verdict.",
                            MakeTraceSourceAccessor(&MpMaco::m_congestionTrace),
                            "ns3::MpMaco::CongestionTestCallback")
            .AddTraceSource("QuickStart",
                            "Quick start: the new window and ssthresh (packets).",
                            MakeTraceSourceAccessor(&MpMaco::m_quickStartTrace),
                            "ns3::MpMaco::QuickStartCallback");
    return tid;
}

MpMaco::MpMaco()
    : m_gamma(0.5),
      m_initPkts(4.0),
      m_decrease(0.5),
      m_minPkts(2.0),
      m_txPowerDbm(35.12),
      m_txGainDbi(37.7),
      m_rxGainDbi(37.1),
      m_wavelengthM(0.086),
      m_noisePsd(1.6e-20),
      m_bandwidthHz(12.5e6),
      m_efficiency(0.98),
      m_c(3e8),
      m_delayMode(0),
      m_targetInitialRtt(0.1),
      m_dTerrAlpha(0.125),
      m_rttMinWindow(Seconds(10)),
      m_deltaWindow(20),
      m_deltaFloor(MilliSeconds(1)),
      m_tpMinInterval(MilliSeconds(10)),
      m_akfWindow(20),
      m_akfAdaptive(true),
      m_con1Bottleneck(false),
      m_bdpFuture(false),
      m_historyLastK(0),
      m_incrementUsesSrtt(false),
      m_qsOnPto(true),
      m_resetTmaxOnReconnect(false),
      m_proactiveClamp(false),
      m_freezeOnHandover(false),
      m_freezeBefore(MilliSeconds(100)),
      m_freezeAfter(MilliSeconds(100))
{
}

std::string
MpMaco::GetName() const
{
    return "maco";
}

// ---- getters -------------------------------------------------------------------------------

double
MpMaco::GetWindowPackets() const
{
    return m_w;
}

double
MpMaco::GetSsthreshPackets() const
{
    return m_ssthreshPkts;
}

double
MpMaco::GetAccessCapacity() const
{
    return m_capA;
}

double
MpMaco::GetNetworkCapacity() const
{
    return m_capN;
}

double
MpMaco::GetThroughput() const
{
    return m_tp;
}

double
MpMaco::GetPropagationRtt() const
{
    return m_d;
}

double
MpMaco::GetBdpPackets() const
{
    return m_bdpPkts;
}

double
MpMaco::GetDeltaR() const
{
    return maco::DeltaR(m_resid, m_deltaFloor.GetSeconds()); // (17b)
}

double
MpMaco::GetLatestRtt() const
{
    return m_tau;
}

double
MpMaco::GetMaxRtt() const
{
    return m_tmax;
}

double
MpMaco::GetDTerr() const
{
    return m_dTerr;
}

double
MpMaco::GetHistoryMax() const
{
    return m_histMax;
}

uint64_t
MpMaco::GetCongestionEvents() const
{
    return m_congestionEvents;
}

uint64_t
MpMaco::GetQuickStarts() const
{
    return m_quickStarts;
}

MpEcnCodepoint
MpMaco::GetEcnCodepoint() const
{
    return MpEcnCodepoint::NOT_ECT;
}

} // namespace ns3
