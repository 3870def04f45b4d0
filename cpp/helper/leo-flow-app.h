// SPDX-License-Identifier: GPL-2.0-only
//
// LeoFlowApp: one flow as LeoSimulation sees it, whatever its transport (mpquic, tcp,
// udp_onoff, leotp): the connection under study (flow 0) and each of the config's "flows".
// The facade installs, measures and controls its flows through this interface only.

#ifndef LEO_FLOW_APP_H
#define LEO_FLOW_APP_H

#include "helper/leo-flow-monitor.h"
#include "helper/leo-network.h"
#include "helper/leo-schedule-oracle.h"
#include "model/transport/mp-quic-sender.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

struct LeoFlowSpec;
struct LeoSimulationConfig;
struct LeoSimulationMeasurements;
class LeotpFlow;

/**
 * @ingroup leo-helper
 * What a flow needs from its simulation to be installed and measured. Every pointer is owned
 * by the LeoSimulation and outlives its flows.
 */
struct LeoFlowContext
{
    const LeoSimulationConfig* cfg{nullptr};         //!< the connection's transport options
    LeoNetwork* topo{nullptr};                       //!< the path or hop topology
    LeoFlowMonitor* monitor{nullptr};                //!< per-flow delays (flow keys, taps)
    const std::vector<uint32_t>* pathRoute{nullptr}; //!< route of each topology path
    /// One schedule oracle per topology path.
    const std::vector<std::unique_ptr<LeoScheduleOracle>>* oracles{nullptr};
};

/**
 * @ingroup leo-helper
 * A flow behind one interface: LeoMpquicFlowApp (leogym's multipath transport), LeoTcpFlowApp
 * and LeoUdpOnOffFlowApp (ns-3's own applications) and LeoLeotpFlowApp (LEOTP,
 * cpp/doc/leotp.md). Install() builds a flow of the config's "flows" in the simulator;
 * InstallConnection() builds the connection under study (mpquic or LEOTP). The facade then
 * reads their counters once per step.
 */
class LeoFlowApp
{
  public:
    virtual ~LeoFlowApp() = default;

    /**
     * Check one flow of the config before the simulator is touched.
     * @param spec the flow
     * @param nRoutes number of routes (hop topology) or paths (path topology) it may name
     * @param label its name in messages ("flows[2]")
     * @throws std::invalid_argument naming the field
     */
    static void CheckSpec(const LeoFlowSpec& spec, std::size_t nRoutes, const std::string& label);

    /**
     * Build flow @p index of the config (its measurement index is index + 1) in the simulator:
     * its applications, the monitor's keys and taps.
     * @param spec the flow (checked by CheckSpec)
     * @param index its index in the config's flows
     * @param ctx the simulation it joins
     * @return the flow
     */
    static std::unique_ptr<LeoFlowApp> Install(const LeoFlowSpec& spec,
                                               uint32_t index,
                                               const LeoFlowContext& ctx);

    /**
     * Build the connection under study (measurement index 0): leogym's multipath transport,
     * or LEOTP for config "connection": "leotp".
     * @param ctx the simulation it joins (ctx.cfg: its settings, checked)
     * @return the connection
     */
    static std::unique_ptr<LeoFlowApp> InstallConnection(const LeoFlowContext& ctx);

    /// Bytes the receiving application got since the last call (the flow's goodput).
    uint64_t TakeDeliveredBytes();

    /**
     * Snapshot of the flow's congestion state.
     * @param[out] cwndBytes congestion window (bytes; NaN where the transport has none)
     * @param[out] rttS round-trip time (s; NaN without a sample)
     */
    virtual void GetWindowAndRtt(double& cwndBytes, double& rttS) const = 0;

    /// Subflows measured per subflow (mpquic: one per route; others: none).
    virtual uint32_t GetNSubflows() const;

    /**
     * Write the flow's subflow measurements (LeoSimulationMeasurements::subflow*) to the rows
     * @p first .. @p first + GetNSubflows() - 1 and start the next interval.
     * @param m the measurements, subflow vectors already sized
     * @param first the flow's first row
     * @param flow the flow's measurement index
     */
    virtual void CollectSubflows(LeoSimulationMeasurements& m, std::size_t first, uint32_t flow);

    /**
     * As the connection under study: write the per-path measurements (one row per transport
     * path of the config) and the connection's (goodput, reorder buffer, head-of-line delay,
     * completion), and start the next interval. A flow that cannot be the connection writes
     * nothing.
     * @param m the measurements, per-path vectors sized and zeroed
     * @param dtS the step's length (s)
     * @param t1 the step's start (s)
     */
    virtual void CollectConnection(LeoSimulationMeasurements& m, double dtS, double t1);

    /// The sender taking external control (mpquic), else null.
    virtual Ptr<MpQuicSender> GetSender() const;

    /// The LEOTP flow (Consumer, Producer, Midnodes), else null.
    virtual LeotpFlow* GetLeotpFlow() const;

  protected:
    /// Cumulative bytes delivered to the receiving application so far.
    virtual uint64_t GetDeliveredBytes() const = 0;

  private:
    uint64_t m_prevDelivered{0}; //!< GetDeliveredBytes() at the last TakeDeliveredBytes()
};

} // namespace ns3

#endif // LEO_FLOW_APP_H
