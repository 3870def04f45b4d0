// SPDX-License-Identifier: GPL-2.0-only
//
// A flow of leogym's multipath transport (config flows[i].transport "mpquic", or the
// connection under study) and the sender/receiver pair every mpquic connection is made of.

#ifndef LEO_MPQUIC_FLOW_APP_H
#define LEO_MPQUIC_FLOW_APP_H

#include "helper/leo-flow-app.h"
#include "model/transport/mp-quic-receiver.h"
#include "model/transport/mp-quic-sender.h"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
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
 * end, one subflow per route with the flow's congestion control and scheduler. The connection
 * under study (config "cc", "scheduler", "subflow_paths") is one too (InstallConnection): its
 * subflows are the transport paths, and it fills the per-path measurements.
 */
class LeoMpquicFlowApp : public LeoFlowApp
{
  public:
    /// Check the flow's congestion control and scheduler (names, parameters).
    static void CheckSpec(const LeoFlowSpec& spec, const std::string& label);

    /// Build config flow @p index (LeoFlowApp::Install).
    LeoMpquicFlowApp(const LeoFlowSpec& spec, uint32_t index, const LeoFlowContext& ctx);

    /**
     * Build the connection under study: flow id 0 (its measurement index), one subflow per
     * transport path (config subflow_paths, with its initial state), the config's congestion
     * control, scheduler, start and workload.
     */
    static std::unique_ptr<LeoMpquicFlowApp> InstallConnection(const LeoFlowContext& ctx);

    void GetWindowAndRtt(double& cwndBytes, double& rttS) const override;
    uint32_t GetNSubflows() const override;
    void CollectSubflows(LeoSimulationMeasurements& m, std::size_t first, uint32_t flow) override;
    void CollectConnection(LeoSimulationMeasurements& m, double dtS, double t1) override;
    Ptr<MpQuicSender> GetSender() const override;

  protected:
    uint64_t GetDeliveredBytes() const override;

  private:
    /// Where one subflow runs and what it starts with.
    struct SubflowSetup
    {
        uint32_t route{0};                        //!< its route (the topology's)
        uint16_t port{0};                         //!< its UDP port
        int64_t ccStream{0};                      //!< its controller's random stream
        const LeoScheduleOracle* oracle{nullptr}; //!< its path's oracle, if any
        uint32_t topologyPath{0};                 //!< MpQuicSender::PathConfig::topologyPath
        MpPathState state{MpPathState::ACTIVE};   //!< its state at the start
    };

    /// How a flow or the connection is built (its sender, receiver and subflows).
    struct Setup
    {
        uint32_t flowId{0};             //!< its measurement index
        std::string label;              //!< prefix of its fields in messages ("flows[2].", "")
        const std::string* cc{nullptr}; //!< congestion control (registry name) and parameters
        const std::map<std::string, double>* ccParams{nullptr};
        const std::string* scheduler{nullptr}; //!< scheduler (registry name) and parameters
        const std::map<std::string, double>* schedulerParams{nullptr};
        uint64_t fileBytes{0}; //!< 0: bulk
        bool ecn{false};
        double startS{0.0};
        double stopS{std::numeric_limits<double>::infinity()};
        uint32_t endRoute{0}; //!< the route whose end nodes run the sender and the receiver
        std::vector<SubflowSetup> subflows;
    };

    /// The setup of config flow @p index: one subflow per route, ports and streams by index.
    static Setup FlowSetup(const LeoFlowSpec& spec, uint32_t index, const LeoFlowContext& ctx);

    /// Build from a setup (both constructors end here).
    LeoMpquicFlowApp(const Setup& setup, const LeoFlowContext& ctx);

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
        // Only the connection's per-path measurements (CollectConnection) read these.
        uint64_t sent{0}, retx{0}, pto{0}, spurious{0}, suppressed{0};
        uint64_t pc{0}, reinjected{0};
        uint64_t drops[4]{0, 0, 0, 0}; //!< the route's drops by cause (outage, random, ...)
    };

    /**
     * The mean time the data packets that arrived on subflow @p i in the interval spent in
     * link queues (s; NaN without packets), and start the next interval.
     */
    double TakeQueueDelay(uint32_t i, SubflowPrev& pr) const;

    LeoFlowContext m_ctx;
    Ptr<MpQuicSender> m_sender;
    Ptr<MpQuicReceiver> m_receiver;
    std::vector<SubflowPrev> m_subPrev; //!< per subflow
    uint64_t m_prevGoodput{0};          //!< the connection's delivered bytes at the last step
    double m_prevHol{0};                //!< ... and its head-of-line byte-seconds
};

} // namespace ns3

#endif // LEO_MPQUIC_FLOW_APP_H
