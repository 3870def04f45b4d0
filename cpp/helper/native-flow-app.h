// SPDX-License-Identifier: GPL-2.0-only
//
// Flows of ns-3's own applications (config flows[i].transport "tcp" and "udp_onoff"): the
// topology's native flows (LeoNetwork::AddCrossTraffic), server -> client on one route.

#ifndef LEO_NATIVE_FLOW_APP_H
#define LEO_NATIVE_FLOW_APP_H

#include "helper/leo-flow-app.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * @ingroup leo-helper
 * What the two native flows share: the sender and sink the topology installs, the monitor's
 * key (the sink's address and port) and taps.
 */
class LeoNativeFlowApp : public LeoFlowApp
{
  public:
    /// The flow's native index in the topology (LeoNetwork::AddCrossTraffic).
    uint32_t GetNativeIndex() const;

  protected:
    /**
     * Build config flow @p index as a native flow of @p kind.
     * @param spec the flow
     * @param index its index in the config's flows
     * @param ctx the simulation
     * @param kind LeoCrossTrafficSpec::TCP_BULK or UDP_ONOFF
     */
    LeoNativeFlowApp(const LeoFlowSpec& spec,
                     uint32_t index,
                     const LeoFlowContext& ctx,
                     LeoCrossTrafficSpec::Kind kind);

    uint64_t GetDeliveredBytes() const override;

    /// Key the flow's packets in the monitor (the sink's address and port) and tap both ends.
    void InstallMonitor(const LeoFlowContext& ctx, uint32_t index) const;

    LeoNetwork& m_topo; //!< the topology that runs the flow
    uint32_t m_route;   //!< the flow's route
    uint32_t m_native;  //!< its native index there
};

/**
 * @ingroup leo-helper
 * A tcp flow: LeoTcpBulkSender with the flow's TcpCongestionOps, a PacketSink, and the
 * socket options the config may set (MinRto, ClockGranularity, the sink's DelAckTimeout).
 */
class LeoTcpFlowApp : public LeoNativeFlowApp
{
  public:
    /// Check the flow's TCP variant.
    static void CheckSpec(const LeoFlowSpec& spec, const std::string& label);

    /// Build config flow @p index (LeoFlowApp::Install).
    LeoTcpFlowApp(const LeoFlowSpec& spec, uint32_t index, const LeoFlowContext& ctx);

    /// The sender's congestion window (bytes) and latest RTT sample (s).
    void GetWindowAndRtt(double& cwndBytes, double& rttS) const override;
};

/**
 * @ingroup leo-helper
 * A udp_onoff flow: ns-3's OnOffApplication at the flow's rate, on for onS and off for offS.
 */
class LeoUdpOnOffFlowApp : public LeoNativeFlowApp
{
  public:
    /// Build config flow @p index (LeoFlowApp::Install).
    LeoUdpOnOffFlowApp(const LeoFlowSpec& spec, uint32_t index, const LeoFlowContext& ctx);

    /// UDP has neither: both NaN.
    void GetWindowAndRtt(double& cwndBytes, double& rttS) const override;
};

} // namespace ns3

#endif // LEO_NATIVE_FLOW_APP_H
