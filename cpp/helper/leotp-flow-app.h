// SPDX-License-Identifier: GPL-2.0-only
//
// LEOTP behind LeoSimulation (cpp/doc/leotp.md): a flow of the config's "flows" (transport
// "leotp") or the connection under study itself (config "connection": "leotp").

#ifndef LEO_LEOTP_FLOW_APP_H
#define LEO_LEOTP_FLOW_APP_H

#include "helper/leo-flow-app.h"
#include "helper/leotp-flow.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ns3
{

/**
 * @ingroup leo-helper
 * A LEOTP flow (LeotpFlow: Producer, Consumer and the route's Midnodes) on one route. As the
 * connection under study it also fills the per-path measurements (CollectConnection).
 */
class LeoLeotpFlowApp : public LeoFlowApp
{
  public:
    /// Check a flow's LEOTP settings and size (32-bit ranges).
    static void CheckSpec(const LeoFlowSpec& spec, const std::string& label);
    /// Check the LEOTP connection's settings and file size (config "leotp", "file_bytes").
    static void CheckConnection(const LeoSimulationConfig& cfg);

    /// Build config flow @p index (LeoFlowApp::Install).
    LeoLeotpFlowApp(const LeoFlowSpec& spec, uint32_t index, const LeoFlowContext& ctx);

    /**
     * Build the connection under study as a LEOTP flow: on the first transport path's route,
     * flow id 0 (its measurement index), its own port, the config's LEOTP settings.
     */
    static std::unique_ptr<LeoLeotpFlowApp> InstallConnection(const LeoFlowContext& ctx);

    /// The Consumer's window on its last hop (bytes) and its end-to-end smoothed RTT (s).
    void GetWindowAndRtt(double& cwndBytes, double& rttS) const override;
    LeotpFlow* GetLeotpFlow() const override;

    /**
     * The per-path and connection measurements of the LEOTP connection: its values go to
     * path 0 (the route it runs on); the other paths carry nothing (cpp/doc/leotp.md, "The
     * connection under study").
     */
    void CollectConnection(LeoSimulationMeasurements& m, double dtS, double t1) override;

  protected:
    uint64_t GetDeliveredBytes() const override;

  private:
    /// Build from a LeotpFlow description.
    LeoLeotpFlowApp(const LeotpFlowSpec& spec, const std::string& label, const LeoFlowContext& ctx);

    /// The LEOTP connection's cumulative counters at the last step's end.
    struct ConnectionPrev
    {
        uint64_t delivered{0}, sent{0}, packets{0}, retx{0}, timeouts{0}, lost{0};
        uint64_t drops[4]{0, 0, 0, 0};
        uint64_t goodput{0};
    };

    LeoFlowContext m_ctx;
    std::unique_ptr<LeotpFlow> m_flow;
    ConnectionPrev m_prev;
};

} // namespace ns3

#endif // LEO_LEOTP_FLOW_APP_H
