// SPDX-License-Identifier: GPL-2.0-only

#include "leo-flow-app.h"

#include "helper/leo-simulation.h"
#include "helper/leotp-flow-app.h"
#include "helper/mpquic-flow-app.h"
#include "helper/native-flow-app.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{
/**
 * Check the settings of a flow's transport (its algorithms, its own options).
 * @param spec the flow
 * @param label its name in messages
 * @throws std::invalid_argument naming the field
 */
void
CheckTransport(const LeoFlowSpec& spec, const std::string& label)
{
    switch (spec.transport)
    {
    case LeoFlowSpec::MPQUIC:
        LeoMpquicFlowApp::CheckSpec(spec, label);
        break;
    case LeoFlowSpec::TCP:
        LeoTcpFlowApp::CheckSpec(spec, label);
        break;
    case LeoFlowSpec::LEOTP:
        LeoLeotpFlowApp::CheckSpec(spec, label);
        break;
    case LeoFlowSpec::UDP_ONOFF:
        break;
    }
}
} // namespace

void
LeoFlowApp::CheckSpec(const LeoFlowSpec& fl, std::size_t nRoutes, const std::string& ff)
{
    const std::size_t maxRoutes = fl.transport == LeoFlowSpec::MPQUIC ? LeoFlowSpec::kMaxRoutes : 1;
    if (fl.routes.empty() || fl.routes.size() > maxRoutes)
    {
        throw std::invalid_argument(ff + ".routes: needs 1.." + std::to_string(maxRoutes) +
                                    " routes, got " + std::to_string(fl.routes.size()));
    }
    for (std::size_t j = 0; j < fl.routes.size(); ++j)
    {
        if (fl.routes[j] >= nRoutes)
        {
            throw std::invalid_argument(ff + ".routes[" + std::to_string(j) + "]: no route " +
                                        std::to_string(fl.routes[j]) + " (" +
                                        std::to_string(nRoutes) + " routes)");
        }
    }
    // The single-key ranges (start_s, the TCP timers) are checked where the flow is parsed
    // (cpp/bindings/flow-config.cc, from config-ranges.h), the only producer of a LeoFlowSpec.
    if (std::isnan(fl.stopS) || !(fl.stopS > fl.startS))
    {
        throw std::invalid_argument(ff + ".stop_s: must be > start_s");
    }
    CheckTransport(fl, ff);
    // The ns-3 TCP options (0: not set): each only for a tcp flow.
    const std::pair<double, const char*> tcpOnly[] = {{fl.minRtoS, ".min_rto_s"},
                                                      {fl.delAckS, ".delayed_ack_s"},
                                                      {fl.rtoGranularityS, ".rto_granularity_s"}};
    for (const auto& [value, key] : tcpOnly)
    {
        if (value != 0.0 && fl.transport != LeoFlowSpec::TCP)
        {
            throw std::invalid_argument(ff + key + ": only a tcp flow takes it");
        }
    }
    if (fl.ecn && fl.transport != LeoFlowSpec::TCP && fl.transport != LeoFlowSpec::MPQUIC)
    {
        throw std::invalid_argument(ff + ".ecn: only a tcp or mpquic flow takes it");
    }
}

std::unique_ptr<LeoFlowApp>
LeoFlowApp::Install(const LeoFlowSpec& spec, uint32_t index, const LeoFlowContext& ctx)
{
    switch (spec.transport)
    {
    case LeoFlowSpec::MPQUIC:
        return std::make_unique<LeoMpquicFlowApp>(spec, index, ctx);
    case LeoFlowSpec::LEOTP:
        return std::make_unique<LeoLeotpFlowApp>(spec, index, ctx);
    case LeoFlowSpec::TCP:
        return std::make_unique<LeoTcpFlowApp>(spec, index, ctx);
    case LeoFlowSpec::UDP_ONOFF:
        break;
    }
    return std::make_unique<LeoUdpOnOffFlowApp>(spec, index, ctx);
}

std::unique_ptr<LeoFlowApp>
LeoFlowApp::InstallConnection(const LeoFlowContext& ctx)
{
    if (ctx.cfg->leotpConnection)
    {
        return LeoLeotpFlowApp::InstallConnection(ctx);
    }
    return LeoMpquicFlowApp::InstallConnection(ctx);
}

uint64_t
LeoFlowApp::TakeDeliveredBytes()
{
    const uint64_t delivered = GetDeliveredBytes();
    const uint64_t interval = delivered - m_prevDelivered;
    m_prevDelivered = delivered;
    return interval;
}

uint32_t
LeoFlowApp::GetNSubflows() const
{
    return 0;
}

void
LeoFlowApp::CollectSubflows(LeoSimulationMeasurements& /* m */,
                            std::size_t /* first */,
                            uint32_t /* flow */)
{
}

void
LeoFlowApp::CollectConnection(LeoSimulationMeasurements& /* m */, double /* dtS */, double /* t1 */)
{
}

Ptr<MpQuicSender>
LeoFlowApp::GetSender() const
{
    return nullptr;
}

LeotpFlow*
LeoFlowApp::GetLeotpFlow() const
{
    return nullptr;
}

} // namespace ns3
