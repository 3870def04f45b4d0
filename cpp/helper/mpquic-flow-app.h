// SPDX-License-Identifier: GPL-2.0-only
//
// A flow of leogym's multipath transport (config flows[i].transport "mpquic") and the
// sender/receiver pair every mpquic connection is made of.

#ifndef LEO_MPQUIC_FLOW_APP_H
#define LEO_MPQUIC_FLOW_APP_H

#include "helper/leo-flow-app.h"
#include "model/transport/mp-quic-receiver.h"
#include "model/transport/mp-quic-sender.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * A sender and a receiver of the multipath transport with the config's transport options
 * (packet size, ACK policy, windows, recovery, carrier), not yet installed.
 * @param cfg the simulation's config
 * @param fileBytes bytes to send (0: bulk)
 * @param flowId the flow's id in its packets
 * @param ecn the transport's ECN
 */
std::pair<Ptr<MpQuicSender>, Ptr<MpQuicReceiver>> MakeMpQuicConnection(
    const LeoSimulationConfig& cfg,
    uint64_t fileBytes,
    uint16_t flowId,
    bool ecn);

/**
 * @ingroup leo-helper
 * An mpquic flow: MpQuicSender on its first route's server end, MpQuicReceiver on its client
 * end, one subflow per route with the flow's congestion control and scheduler.
 */
class LeoMpquicFlowApp : public LeoFlowApp
{
  public:
    /// Check the flow's congestion control and scheduler (names, parameters).
    static void CheckSpec(const LeoFlowSpec& spec, const std::string& label);

    /// Build config flow @p index (LeoFlowApp::Install).
    LeoMpquicFlowApp(const LeoFlowSpec& spec, uint32_t index, const LeoFlowContext& ctx);

    void GetWindowAndRtt(double& cwndBytes, double& rttS) const override;
    uint32_t GetNSubflows() const override;
    void CollectSubflows(LeoSimulationMeasurements& m, std::size_t first, uint32_t flow) override;
    Ptr<MpQuicSender> GetSender() const override;

    /**
     * The window summed over @p sender's subflows and their smallest smoothed RTT (NaN
     * without a sample): an mpquic flow's LeoSimulationMeasurements::flowCwndBytes, flowRttS.
     */
    static void ConnectionState(Ptr<MpQuicSender> sender, double& cwndBytes, double& rttS);

  protected:
    uint64_t GetDeliveredBytes() const override;

  private:
    /// Cumulative counters of one subflow at the last step's end.
    struct SubflowPrev
    {
        uint64_t delivered{0};
        uint64_t sentPackets{0};
        uint64_t lost{0};
        uint64_t rto{0};
        uint64_t ectSent{0};
        uint64_t ce{0};
        uint64_t timedPackets{0}; //!< the receiver's PathCounters.timedPackets
        int64_t queueTicks{0};    //!< ... and queueTicks
    };

    Ptr<MpQuicSender> m_sender;
    Ptr<MpQuicReceiver> m_receiver;
    std::vector<SubflowPrev> m_subPrev; //!< per subflow
};

} // namespace ns3

#endif // LEO_MPQUIC_FLOW_APP_H
