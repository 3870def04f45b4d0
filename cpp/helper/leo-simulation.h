// SPDX-License-Identifier: GPL-2.0-only
//
// LeoSimulation: the facade behind _core.Simulation (docs/architecture.md, "The native
// simulation contract").

#ifndef LEO_SIMULATION_H
#define LEO_SIMULATION_H

#include "helper/leo-flow-app.h"
#include "helper/leo-flow-monitor.h"
#include "helper/leo-hop-topology.h"
#include "helper/leo-network.h"
#include "helper/leo-schedule-oracle.h"
#include "helper/leo-topology.h"
#include "helper/leotp-flow.h"
#include "helper/sim-context.h"
#include "model/link/leo-path-schedule.h"
#include "model/transport/mp-quic-sender.h"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * A flow beside the connection under study (the config's "flows"). It runs natively: leogym's
 * multipath transport with a named congestion control and scheduler (MPQUIC), ns-3's TCP with
 * a TcpCongestionOps (TCP) or an on/off UDP source (UDP_ONOFF), server -> client.
 */
struct LeoFlowSpec
{
    enum Transport
    {
        MPQUIC,
        TCP,
        UDP_ONOFF,
        LEOTP, //!< LEOTP (cpp/doc/leotp.md): Consumer, Producer and the route's Midnodes
    };

    /// Most routes (subflows) of one MPQUIC flow.
    static constexpr std::size_t kMaxRoutes = 8;

    Transport transport{TCP};
    std::string cc{"NewReno"}; //!< MPQUIC: registry name; TCP: TcpCongestionOps name
    std::map<std::string, double> ccParams;
    std::string scheduler{"minrtt"}; //!< MPQUIC only
    std::map<std::string, double> schedulerParams;
    std::vector<uint32_t> routes; //!< route indices (hop topology) or path indices (path)
    double startS{0.0};
    double stopS{std::numeric_limits<double>::infinity()};
    uint64_t fileBytes{0}; //!< 0 = bulk
    double rateBps{1e6};   //!< UDP_ONOFF
    double onS{1.0};
    double offS{0.0};
    LeotpFlowSettings leotp; //!< LEOTP: variant, target buffer, cache, Midnode fraction, ...
    double minRtoS{0.0};     //!< TCP: the socket's MinRto (s); 0 = ns-3's default (1 s)
    double delAckS{0.0};     //!< TCP: the receiver's DelAckTimeout (s); 0 = ns-3's default (0.2 s)
    /// TCP: RFC 6298's clock granularity G in RTO = SRTT + max(G, 4 RTTVAR) (the socket's
    /// ClockGranularity, s); 0 = ns-3's default (1 ms). Linux's rto_min floors this term.
    double rtoGranularityS{0.0};
    /// ECN (the scenario's traffic.flows[i].ecn). TCP: both ends' TcpSocketBase::UseEcn On,
    /// data ECT(0), or ECT(1) for TcpDctcp (L4S, both ends DCTCP); MPQUIC: the transport's ECN
    /// with its controller's codepoint. Refused for UDP_ONOFF and LEOTP.
    bool ecn{false};
};

/**
 * @ingroup leo-helper
 * Transport, congestion-control and scheduler settings of a simulation (the `config` dict).
 * Defaults are those of the contract; the bindings validate the dict and fill this struct.
 */
struct LeoSimulationConfig
{
    uint32_t seed{1};
    uint64_t run{1};
    uint32_t packetBytes{1200}; //!< UDP payload of a full DATA packet
    std::string cc{"cubic"};
    std::map<std::string, double> ccParams;
    std::string scheduler{"minrtt"};
    std::map<std::string, double> schedulerParams;
    bool fileWorkload{false}; //!< "file" (else "bulk")
    uint64_t fileBytes{0};
    uint32_t ackEvery{2};
    double maxAckDelayS{0.025};
    bool pacing{false};
    std::vector<MpPathState> initialPathStates; //!< per transport path (empty: all active)
    std::vector<LeoCrossTrafficSpec> crossTraffic;
    double startS{0.0};
    // Additions to the contract's keys (all optional):
    std::vector<uint32_t> subflowPaths; //!< topology path of each transport path (default 0..n-1)
    uint64_t receiveWindowBytes{6 * 1024 * 1024};
    uint64_t sendBufferBytes{4 * 1024 * 1024};
    bool reinjectOnPto{true};
    uint32_t cwndValidation{0}; //!< 0 = RFC 9002, 1 = Linux (MpQuicSender::CwndValidation)
    /// The connection's ECN (config "ecn"; MpQuicSender / MpQuicReceiver attribute Ecn).
    bool ecn{false};
    double initialRttS{0.333};
    /// Loss recovery of every leogym connection (the preset and its values).
    MpRecoveryConfig recovery{MpRecoveryConfig::Preset(MpLossRecovery::Recovery::RFC9002)};
    uint16_t mtu{1500};
    /// What carries leogym's transport: LeoShimProtocol on the link devices (the default) or
    /// ns-3 UDP sockets over IPv4 (config "carrier": "leo" | "udp"; cpp/doc/transport.md).
    MpCarrierKind carrier{MpCarrierKind::LEO};
    /**
     * ns-3 TCP send and receive buffers of the cross traffic (bytes); 0 = automatic:
     * 2 (BDP + queue) of the largest path, at least 131072, so that TCP cross traffic is
     * limited by the link, not by its window (as the reference flows do).
     */
    uint32_t tcpBufferBytes{0};
    std::vector<LeoFlowSpec> flows; //!< flows beside the connection (flow 0 in measurements)
    /**
     * The connection under study is a LEOTP flow (config "connection": "leotp") instead of
     * the multipath transport: its Producer and Consumer on the route of the first transport
     * path, with @c leotp's settings (cpp/doc/leotp.md, "The connection under study").
     */
    bool leotpConnection{false};
    LeotpFlowSettings leotp; //!< the LEOTP connection's settings
};

/**
 * @ingroup leo-helper
 * Measurements of one step interval. Per-path vectors have one entry per transport path;
 * "interval" values cover the step just ended, the others are snapshots at its end.
 */
struct LeoSimulationMeasurements
{
    double timeS{0};     //!< simulation time at the end of the step
    double intervalS{0}; //!< length of the step
    // per path
    std::vector<double> cwndBytes, bytesInFlight, srttS, minRttS, rttvarS, latestRttS;
    std::vector<double> deliveredBytes, sentBytes, sentPackets, deliveryRateBps, sendRateBps;
    std::vector<double> lostPackets, retransmittedPackets;
    std::vector<double> dropsOutage, dropsRandom, dropsOverflow;
    /// Interval: drops by an AQM's own decision on the path's route (LEO_DROP_AQM).
    std::vector<double> dropsAqm;
    /// Interval: mean time the connection's data packets that arrived on the path spent in
    /// link queues, summed over their hops (s; NaN without packets or for a LEOTP connection).
    std::vector<double> queueDelayS;
    std::vector<double> inOutage, pathState, handovers;
    // per path, additions
    std::vector<double> ssthreshBytes, pacingRateBps, ptoCount, rateSampleBps;
    std::vector<double> spuriousLosses, suppressedLosses, persistentCongestion, reinjected;
    /// Timer-based recovery: retransmission timeouts in the interval; in RTO recovery at the
    /// end (0/1); time left until the retransmission timer fires (inf: none runs).
    std::vector<double> rtoCount, inLossState, timeToRtoS;
    /// ECN (cpp/doc/transport.md, "ECN"): the path's MpEcnState at the end (0 off, 1 testing,
    /// 2 unknown, 3 capable, 4 failed); interval: data packets sent ECN-capable, and the
    /// increase of the peer's CE count accepted by validation.
    std::vector<double> ecnState, ectSentPackets, cePackets;
    // connection
    double goodputBytes{0};
    double reorderBufferBytes{0};
    double holDelayS{0};
    bool completed{false};
    double completionTimeS{0};               //!< NaN until completed
    std::vector<double> crossTrafficRxBytes; //!< per cross-traffic flow, interval
    // per flow (0: the connection, then the config's flows), interval
    std::vector<double> flowGoodputBytes, flowPackets;
    std::vector<double> flowOwdMeanS, flowOwdP50S, flowOwdP99S, flowOwdMaxS, flowQueueDelayS;
    /// Snapshots: congestion window (bytes; mpquic: summed over subflows; NaN for UDP) and
    /// RTT (s; mpquic: smallest smoothed RTT of its subflows; ns-3 TCP: latest sample).
    std::vector<double> flowCwndBytes, flowRttS;
    /// Interval: data packets the flow's source sent (every transmission, at its IPv4 layer)
    /// and packets its sender declared lost (mpquic: summed over subflows; NaN otherwise).
    std::vector<double> flowSentPackets, flowLostPackets;
    /**
     * Per subflow of every mpquic flow (the connection's transport paths first, then each
     * mpquic flow's in config order; flows of other transports have none): the flow it belongs to
     * and the per-path values above for it (snapshots: window, flight, RTTs, pacing rate, state,
     * loss state, timer; the rest per interval).
     */
    std::vector<double> subflowFlow;
    std::vector<double> subflowCwndBytes, subflowBytesInFlight, subflowSrttS, subflowMinRttS;
    std::vector<double> subflowRttvarS, subflowDeliveredBytes, subflowSentPackets;
    std::vector<double> subflowLostPackets, subflowPacingRateBps, subflowPathState;
    std::vector<double> subflowRtoCount, subflowInLossState, subflowTimeToRtoS;
    std::vector<double> subflowEcnState, subflowEctSentPackets, subflowCePackets;
    std::vector<double> subflowQueueDelayS; //!< as queueDelayS, per subflow
    // per link and direction, index 2 * link + dir (DOWN = a -> b = 0, UP = 1)
    std::vector<double> linkQueuePackets;             //!< snapshot at the end of the step
    std::vector<double> linkTxBytes, linkUtilization; //!< interval
    std::vector<double> linkDropsOutage, linkDropsRandom, linkDropsOverflow; //!< interval
    /// Interval: drops by the discipline's own decision, packets marked ECN CE, and the mean
    /// sojourn in the queue of the packets that started serialization (s; NaN if none did).
    std::vector<double> linkDropsAqm, linkMarkPackets, linkSojournS;
    /// Interval: ECN-capable packets dropped by a link that drops them (`ecn_handling: drop`).
    std::vector<double> linkDropsEcn;
    std::vector<double> routeNoRouteDrops; //!< hop topology, per route, interval
};

/**
 * @ingroup leo-helper
 * One simulation: a LeoTopology built from the paths' timelines, a multipath QUIC-like
 * connection (MpQuicSender on the server, MpQuicReceiver on the client) with one transport
 * path per entry of subflowPaths, optional cross traffic, and per-step measurements.
 *
 * The constructor acquires the process's SimContext (one live simulation per process) and
 * Close() (or the destructor) releases it. Step() runs the simulator for dt and collects the
 * measurements of that interval in C++ (no per-packet callbacks into Python).
 */
class LeoSimulation
{
  public:
    /**
     * Build the simulation.
     * @param cfg validated settings
     * @param paths the paths' timeline arrays (validated by LeoPathSchedule)
     * @param slantRangeM per path, optional slant-range samples (may be empty)
     * @param satellite per path, true for satellite paths (empty: decided by finite SNR)
     * @param network the hop topology (none: the path topology, one link per path); the
     *        paths are then the connection's routes collapsed end to end (oracle, features)
     * @param pathRoutes hop topology: the route of each path
     * @throws std::invalid_argument for bad input (naming the field)
     * @throws std::runtime_error if another simulation is open in this process
     */
    LeoSimulation(const LeoSimulationConfig& cfg,
                  std::vector<LeoPathArrays> paths,
                  std::vector<std::vector<double>> slantRangeM = {},
                  std::vector<bool> satellite = {},
                  std::optional<LeoHopNetworkSpec> network = std::nullopt,
                  std::vector<uint32_t> pathRoutes = {});
    ~LeoSimulation();
    LeoSimulation(const LeoSimulation&) = delete;
    LeoSimulation& operator=(const LeoSimulation&) = delete;

    /// Run for dtS seconds (> 0) and collect the interval's measurements.
    void Step(double dtS);
    const LeoSimulationMeasurements& GetMeasurements() const;

    /// Per-path windows (bytes) for cc = "external".
    void SetCwnd(const std::vector<double>& bytes);
    /// Per-path pacing rates (bit/s, 0 = unpaced) for cc = "external".
    void SetPacingRate(const std::vector<double>& bps);
    /// Per-path weights for scheduler = "external".
    void SetWeights(const std::vector<double>& w);
    /// One path for everything, for scheduler = "external".
    void SetPathChoice(int32_t path);
    /// Change a transport path's state.
    void SetPathState(uint32_t path, MpPathState state);
    /**
     * Set the windows of flow @p flow's subflows (0: the connection; then the config's
     * flows). The flow must be an mpquic flow whose cc is "external".
     * @param flow flow index, 0 .. GetNFlows() - 1
     * @param bytes one window per subflow (bytes, finite, in [0, 1e15]; the controller keeps
     *        at least its minimum window)
     * @throws std::invalid_argument naming the flow and the value
     */
    void SetFlowCwnd(uint32_t flow, const std::vector<double>& bytes);
    /**
     * Set the pacing rates of flow @p flow's subflows (cc "external", as SetFlowCwnd).
     * @param flow flow index, 0 .. GetNFlows() - 1
     * @param bps one rate per subflow (bit/s): 0 = unpaced, or in [1e3, 1e13]
     * @throws std::invalid_argument naming the flow and the value
     */
    void SetFlowPacingRate(uint32_t flow, const std::vector<double>& bps);
    /**
     * Set the gains of flow @p flow's subflows (cc "residual+<base>", cpp/model/cc/mp-residual.h):
     * each subflow's window (and pacing rate) is its base controller's times the gain, held
     * until the next call. A gain equal to the one in force changes nothing, not even the
     * event schedule.
     * @param flow flow index, 0 .. GetNFlows() - 1
     * @param gains one gain per subflow, finite, in [1/16, 16]
     * @throws std::invalid_argument naming the flow and the value
     */
    void SetFlowCwndGain(uint32_t flow, const std::vector<double>& gains);
    /**
     * Choose, per subflow of flow @p flow (cc "residual+<base>+<alternate>",
     * cpp/model/cc/mp-residual.h), which of the two controllers the sender follows: 0 the
     * base, 1 the alternate, held until the next call. The same choice as the one in force
     * changes nothing, not even the event schedule.
     * @param flow flow index, 0 .. GetNFlows() - 1
     * @param follow one value per subflow, 0 or 1
     * @throws std::invalid_argument naming the flow and the value, or if the flow's controller
     *         has no alternate
     */
    void SetFlowFollowAlternate(uint32_t flow, const std::vector<double>& follow);
    /**
     * @param flow flow index, 0 .. GetNFlows() - 1
     * @return the number of subflows of an mpquic flow (the connection: its transport
     *         paths), 0 for a flow of another transport
     */
    uint32_t GetFlowNPaths(uint32_t flow) const;
    /**
     * The LEOTP flow behind flow @p flow (0 .. GetNFlows() - 1), or nullptr if it is not one.
     * Its Consumer, Producer and Midnodes hold the per-node LEOTP state and counters.
     */
    LeotpFlow* GetLeotpFlow(uint32_t flow) const;
    /**
     * The first-copy delays of flow @p flow's TCP segments (LeoFlowMonitor::Recovery; empty
     * for other transports).
     * @param flow flow index, 0 .. GetNFlows() - 1
     */
    const LeoFlowMonitor::Recovery& GetFlowRecovery(uint32_t flow) const;
    /// Name of node @p index of the hop topology ("" in the path topology).
    std::string GetNodeName(uint32_t index) const;

    double Now() const;
    /// The file was delivered completely (file workload).
    bool Done() const;
    bool IsClosed() const;
    uint32_t GetNPaths() const;
    /// 1 + the config's flows.
    uint32_t GetNFlows() const;
    uint32_t GetNLinks() const;
    const LeoSimulationConfig& GetConfig() const;
    /// Destroy the simulator and free the process (idempotent).
    void Close();

  private:
    // ---- construction steps, in the order the constructor runs them ----------------------
    /// The paths' schedules (each validated by LeoPathSchedule, named "paths[i]").
    static std::vector<Ptr<const LeoPathSchedule>> MakeSchedules(std::vector<LeoPathArrays> paths);
    /**
     * Check the connection's settings that depend on each other or on the paths (transport
     * paths, packet size against the MTU, algorithms) and fill the defaults that depend on the
     * paths (subflow_paths, m_nPaths). The single-key ranges (packet_bytes, start_s,
     * max_ack_delay_s, initial_rtt_s, ...) are checked where the config is parsed
     * (cpp/bindings/simulation-config.cc, from config-ranges.h), the only producer of a
     * LeoSimulationConfig.
     * @param nSchedules number of topology paths
     * @param nSlantRanges number of slant-range entries given (0: none)
     */
    void ValidateTransport(std::size_t nSchedules, std::size_t nSlantRanges);
    /// One schedule oracle per topology path (checks each path's slant ranges).
    void MakeOracles(const std::vector<Ptr<const LeoPathSchedule>>& schedules,
                     const std::vector<std::vector<double>>& slantRangeM,
                     const std::vector<bool>& satellite);
    /**
     * Check and store the route of each topology path (m_pathRoute).
     * @return the number of routes flows may name
     */
    std::size_t ResolvePathRoutes(const std::optional<LeoHopNetworkSpec>& network,
                                  const std::vector<uint32_t>& pathRoutes,
                                  std::size_t nSchedules);
    /// Check the config's flows and a LEOTP connection's settings.
    void ValidateFlows(std::size_t nRoutes) const;
    /// Check that every cross-traffic flow names an existing path.
    void ValidateCrossTraffic(std::size_t nSchedules) const;
    /**
     * Build the path or hop topology (m_topo) with the config's TCP buffers.
     * @return the send buffer of the cross-traffic flows (bytes; 0: the topology's default)
     */
    uint32_t BuildTopology(const std::vector<Ptr<const LeoPathSchedule>>& schedules,
                           const std::optional<LeoHopNetworkSpec>& network);
    /// Add the config's cross traffic on its paths' routes.
    void InstallCrossTraffic(uint32_t sndBufBytes);
    /**
     * Install the connection under study (multipath transport or LEOTP;
     * LeoFlowApp::InstallConnection), then the config's flows in config order
     * (LeoFlowApp::Install).
     */
    void InstallFlows();
    /// What the flows see of this simulation (LeoFlowApp::Install).
    LeoFlowContext FlowContext();
    /// Size the interval counters and take the measurements at time 0.
    void StartCollection(bool hopTopology);

    void CheckOpen() const;
    void Collect(double dtS);
    void CollectFlows();
    /// The subflow measurements (after the per-path ones of the connection).
    void CollectSubflows();
    void CollectLinks(double dtS);
    /**
     * The connection's sender, checked: the simulation is open and the connection runs
     * leogym's transport (not LEOTP).
     * @param call the caller's name for the error ("set_cwnd")
     * @throws std::invalid_argument for a LEOTP connection
     */
    Ptr<MpQuicSender> ConnectionSender(const std::string& call) const;
    /// What a flow's controller must be for an action from outside.
    enum class FlowControl
    {
        EXTERNAL, //!< cc "external": windows and pacing rates
        RESIDUAL, //!< cc "residual+<base>": gains on the base controller's window
    };

    /**
     * The sender of flow @p flow for an external action, checked: the flow exists, is an
     * mpquic flow, its cc is "external" (or "residual+<base>" for @p control RESIDUAL) and
     * @p n values were given (one per subflow).
     * @param flow flow index
     * @param n number of values given
     * @param call the caller's name for messages ("set_flow_cwnd")
     * @param control what the flow's controller must be
     * @return the sender
     * @throws std::invalid_argument naming the flow
     */
    Ptr<MpQuicSender> ExternalFlowSender(uint32_t flow,
                                         std::size_t n,
                                         const std::string& call,
                                         FlowControl control = FlowControl::EXTERNAL);

    LeoSimulationConfig m_cfg;
    std::unique_ptr<SimLease> m_lease;
    std::unique_ptr<LeoNetwork> m_topo;
    std::vector<uint32_t> m_pathRoute; //!< route of each topology path
    /// The connection under study (flow 0), then the config's flows in order.
    std::vector<std::unique_ptr<LeoFlowApp>> m_flows;
    std::unique_ptr<LeoFlowMonitor> m_monitor;

    struct LinkPrev
    {
        uint64_t tx{0};
        uint64_t txPackets{0};
        uint64_t marks{0};
        int64_t sojournTicks{0};
        uint64_t drops[LEO_N_DROP_CAUSES]{};
    };

    std::vector<LinkPrev> m_linkPrev; //!< per link and direction
    std::vector<uint64_t> m_prevNoRoute;
    std::vector<std::unique_ptr<LeoScheduleOracle>> m_oracles; //!< per topology path

    uint32_t m_nPaths{0};
    LeoSimulationMeasurements m_meas;

    std::vector<uint64_t> m_prevCross; //!< cross-traffic bytes received at the last step
    double m_lastStepEndS{0};
};

} // namespace ns3

#endif // LEO_SIMULATION_H
