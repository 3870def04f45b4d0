// SPDX-License-Identifier: GPL-2.0-only

#include "native-flow-app.h"

#include "helper/leo-simulation.h"
#include "model/apps/leo-tcp-bulk-sender.h"

#include "ns3/inet-socket-address.h"
#include "ns3/nstime.h"
#include "ns3/packet-sink.h"
#include "ns3/simulator.h"

#include <limits>

namespace ns3
{

namespace
{
/**
 * Set the delayed-ACK timeout (TcpSocket::DelAckTimeout) of the TCP sink listening on @p port
 * of @p node. The sockets it accepts are copies of the listening one and keep the value. The
 * sink creates that socket when it starts (at 0 s, an event the node's initialisation
 * schedules at 0 s): a call before that retries once the events already due now have run.
 * @param node the sink's node
 * @param port its port
 * @param timeout the timeout
 * @param tries retries left
 */
void
SetSinkDelAck(Ptr<Node> node, uint16_t port, Time timeout, uint32_t tries = 4)
{
    for (uint32_t i = 0; i < node->GetNApplications(); ++i)
    {
        Ptr<PacketSink> sink = DynamicCast<PacketSink>(node->GetApplication(i));
        if (!sink)
        {
            continue;
        }
        AddressValue local;
        sink->GetAttribute("Local", local);
        if (!InetSocketAddress::IsMatchingType(local.Get()) ||
            InetSocketAddress::ConvertFrom(local.Get()).GetPort() != port)
        {
            continue;
        }
        Ptr<Socket> socket = sink->GetListeningSocket();
        if (socket)
        {
            socket->SetAttribute("DelAckTimeout", TimeValue(timeout));
        }
        else if (tries > 0)
        {
            Simulator::ScheduleNow(&SetSinkDelAck, node, port, timeout, tries - 1);
        }
        return;
    }
}

/**
 * The topology's description of a native flow.
 * @param fl the config's flow
 * @param packetBytes the UDP payload of a full packet (udp_onoff)
 * @param kind TCP_BULK or UDP_ONOFF
 */
LeoCrossTrafficSpec
NativeSpec(const LeoFlowSpec& fl, uint32_t packetBytes, LeoCrossTrafficSpec::Kind kind)
{
    LeoCrossTrafficSpec spec;
    spec.kind = kind;
    spec.path = fl.routes[0];
    spec.startS = fl.startS;
    spec.stopS = fl.stopS;
    spec.tcpVariant = fl.cc;
    spec.ecn = fl.ecn;
    spec.maxBytes = fl.fileBytes;
    spec.rateBps = fl.rateBps;
    spec.packetBytes = packetBytes;
    spec.onS = fl.onS;
    spec.offS = fl.offS;
    return spec;
}
} // namespace

LeoNativeFlowApp::LeoNativeFlowApp(const LeoFlowSpec& fl,
                                   uint32_t /* index */,
                                   const LeoFlowContext& ctx,
                                   LeoCrossTrafficSpec::Kind kind)
    : m_topo(*ctx.topo),
      m_route(fl.routes[0]),
      m_native(ctx.topo->AddCrossTraffic(NativeSpec(fl, ctx.cfg->packetBytes, kind)))
{
}

uint32_t
LeoNativeFlowApp::GetNativeIndex() const
{
    return m_native;
}

uint64_t
LeoNativeFlowApp::GetDeliveredBytes() const
{
    return m_topo.GetCrossTrafficRxBytes(m_native);
}

void
LeoNativeFlowApp::InstallMonitor(const LeoFlowContext& ctx, uint32_t index) const
{
    ctx.monitor->AddFlowKey(index + 1,
                            m_topo.GetCrossTrafficSinkAddress(m_native),
                            m_topo.GetCrossTrafficPort(m_native));
    ctx.monitor->InstallSource(m_topo.GetRouteServer(m_route));
    ctx.monitor->InstallSink(m_topo.GetRouteClient(m_route));
}

void
LeoTcpFlowApp::CheckSpec(const LeoFlowSpec& spec, const std::string& label)
{
    LeoNetwork::ResolveTcpVariant(spec.cc, label + ".cc");
}

LeoTcpFlowApp::LeoTcpFlowApp(const LeoFlowSpec& fl, uint32_t index, const LeoFlowContext& ctx)
    : LeoNativeFlowApp(fl, index, ctx, LeoCrossTrafficSpec::TCP_BULK)
{
    if (fl.minRtoS > 0)
    {
        // Linux's 200 ms floor instead of ns-3's 1 s (RFC 6298), where a config asks.
        DynamicCast<LeoTcpBulkSender>(m_topo.GetCrossTrafficSender(m_native))
            ->SetAttribute("MinRto", TimeValue(Seconds(fl.minRtoS)));
    }
    if (fl.rtoGranularityS > 0)
    {
        // RTO = SRTT + max(G, 4 RTTVAR): G = Linux's rto_min gives Linux's timer
        // (tcp_set_rto: srtt + rttvar, rttvar never below rto_min).
        DynamicCast<LeoTcpBulkSender>(m_topo.GetCrossTrafficSender(m_native))
            ->SetAttribute("ClockGranularity", TimeValue(Seconds(fl.rtoGranularityS)));
    }
    if (fl.delAckS > 0)
    {
        // The receiver's delayed-ACK timer (Linux: 40 ms to 200 ms) instead of ns-3's 200 ms.
        SetSinkDelAck(m_topo.GetRouteClient(m_route),
                      m_topo.GetCrossTrafficPort(m_native),
                      Seconds(fl.delAckS));
    }
    InstallMonitor(ctx, index);
}

void
LeoTcpFlowApp::GetWindowAndRtt(double& cwndBytes, double& rttS) const
{
    if (auto tcp = DynamicCast<LeoTcpBulkSender>(m_topo.GetCrossTrafficSender(m_native)))
    {
        cwndBytes = static_cast<double>(tcp->GetCwnd());
        rttS = tcp->GetLatestRttS();
        return;
    }
    cwndBytes = std::numeric_limits<double>::quiet_NaN();
    rttS = std::numeric_limits<double>::quiet_NaN();
}

LeoUdpOnOffFlowApp::LeoUdpOnOffFlowApp(const LeoFlowSpec& fl,
                                       uint32_t index,
                                       const LeoFlowContext& ctx)
    : LeoNativeFlowApp(fl, index, ctx, LeoCrossTrafficSpec::UDP_ONOFF)
{
    InstallMonitor(ctx, index);
}

void
LeoUdpOnOffFlowApp::GetWindowAndRtt(double& cwndBytes, double& rttS) const
{
    cwndBytes = std::numeric_limits<double>::quiet_NaN();
    rttS = std::numeric_limits<double>::quiet_NaN();
}

} // namespace ns3
