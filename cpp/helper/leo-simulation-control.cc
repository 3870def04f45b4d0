// SPDX-License-Identifier: GPL-2.0-only
//
// LeoSimulation (leo-simulation.cc): the actions from outside, checked before they reach the
// connection's or a flow's sender (windows, pacing rates, gains, scheduler weights, path
// choice and state).

#include "helper/leo-simulation.h"
#include "model/cc/mp-residual.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
/**
 * Check external windows: one per subflow, each finite and in [0, 1e15] bytes.
 * @param bytes the windows
 * @param n subflows
 * @param label prefix of the messages ("set_cwnd", "set_flow_cwnd: flow 2")
 * @throws std::invalid_argument naming the entry
 */
void
CheckCwndValues(const std::vector<double>& bytes, std::size_t n, const std::string& label)
{
    if (bytes.size() != n)
    {
        throw std::invalid_argument(label + ": expected " + std::to_string(n) + " values, got " +
                                    std::to_string(bytes.size()));
    }
    for (std::size_t i = 0; i < bytes.size(); ++i)
    {
        if (!std::isfinite(bytes[i]) || bytes[i] < 0 || bytes[i] > 1e15)
        {
            throw std::invalid_argument(label + ": cwnd[" + std::to_string(i) +
                                        "] must be finite, >= 0 and <= 1e15 bytes");
        }
    }
}

/**
 * Check external pacing rates: one per subflow, each 0 (unpaced) or in [1e3, 1e13] bit/s.
 * @param bps the rates
 * @param n subflows
 * @param label prefix of the messages
 * @throws std::invalid_argument naming the entry
 */
void
CheckPacingValues(const std::vector<double>& bps, std::size_t n, const std::string& label)
{
    if (bps.size() != n)
    {
        throw std::invalid_argument(label + ": expected " + std::to_string(n) + " values, got " +
                                    std::to_string(bps.size()));
    }
    for (std::size_t i = 0; i < bps.size(); ++i)
    {
        if (!std::isfinite(bps[i]) || bps[i] < 0 || (bps[i] > 0 && bps[i] < 1e3) || bps[i] > 1e13)
        {
            throw std::invalid_argument(label + ": rate[" + std::to_string(i) +
                                        "] must be 0 (unpaced) or in [1e3, 1e13] bit/s");
        }
    }
}
} // namespace

Ptr<MpQuicSender>
LeoSimulation::ConnectionSender(const std::string& call) const
{
    CheckOpen();
    Ptr<MpQuicSender> sender = m_flows[0]->GetSender();
    if (!sender)
    {
        throw std::invalid_argument(call + ": the connection is a leotp connection, which "
                                           "takes no external control");
    }
    return sender;
}

void
LeoSimulation::SetCwnd(const std::vector<double>& bytes)
{
    Ptr<MpQuicSender> sender = ConnectionSender("set_cwnd");
    if (!sender->GetCc(0)->IsExternal())
    {
        throw std::invalid_argument("set_cwnd needs cc='external' (this simulation runs '" +
                                    m_cfg.cc + "')");
    }
    CheckCwndValues(bytes, m_nPaths, "set_cwnd");
    for (uint32_t i = 0; i < m_nPaths; ++i)
    {
        sender->SetExternalCwnd(i, static_cast<uint64_t>(bytes[i]));
    }
}

void
LeoSimulation::SetPacingRate(const std::vector<double>& bps)
{
    Ptr<MpQuicSender> sender = ConnectionSender("set_pacing_rate");
    if (!sender->GetCc(0)->IsExternal())
    {
        throw std::invalid_argument("set_pacing_rate needs cc='external' (this simulation runs '" +
                                    m_cfg.cc + "')");
    }
    CheckPacingValues(bps, m_nPaths, "set_pacing_rate");
    for (uint32_t i = 0; i < m_nPaths; ++i)
    {
        sender->SetExternalPacingRate(i, bps[i]);
    }
}

Ptr<MpQuicSender>
LeoSimulation::ExternalFlowSender(uint32_t flow,
                                  std::size_t n,
                                  const std::string& call,
                                  FlowControl control)
{
    CheckOpen();
    const std::string label = call + ": flow " + std::to_string(flow);
    if (flow >= GetNFlows())
    {
        throw std::invalid_argument(label + " does not exist (" + std::to_string(GetNFlows()) +
                                    " flows: 0 the connection, then config flows)");
    }
    Ptr<MpQuicSender> sender = m_flows[flow]->GetSender();
    const std::string cc = flow == 0 ? m_cfg.cc : m_cfg.flows[flow - 1].cc;
    const std::string what =
        flow == 0 ? " (the connection)" : " (flows[" + std::to_string(flow - 1) + "])";
    if (!sender)
    {
        throw std::invalid_argument(label + what +
                                    " is not an mpquic flow; only mpquic flows take external "
                                    "control");
    }
    if (control == FlowControl::EXTERNAL && !sender->GetCc(0)->IsExternal())
    {
        throw std::invalid_argument(label + what + " needs cc='external' (it runs '" + cc + "')");
    }
    if (control == FlowControl::RESIDUAL && !DynamicCast<MpResidual>(sender->GetCc(0)))
    {
        throw std::invalid_argument(label + what + " needs cc='residual+<base>' (it runs '" + cc +
                                    "')");
    }
    if (n != sender->GetNPaths())
    {
        throw std::invalid_argument(label + what + ": expected " +
                                    std::to_string(sender->GetNPaths()) +
                                    " values (one per subflow), got " + std::to_string(n));
    }
    return sender;
}

void
LeoSimulation::SetFlowCwnd(uint32_t flow, const std::vector<double>& bytes)
{
    Ptr<MpQuicSender> sender = ExternalFlowSender(flow, bytes.size(), "set_flow_cwnd");
    CheckCwndValues(bytes, bytes.size(), "set_flow_cwnd: flow " + std::to_string(flow));
    for (uint32_t i = 0; i < bytes.size(); ++i)
    {
        sender->SetExternalCwnd(i, static_cast<uint64_t>(bytes[i]));
    }
}

void
LeoSimulation::SetFlowCwndGain(uint32_t flow, const std::vector<double>& gains)
{
    Ptr<MpQuicSender> sender =
        ExternalFlowSender(flow, gains.size(), "set_flow_cwnd_gain", FlowControl::RESIDUAL);
    const std::string label = "set_flow_cwnd_gain: flow " + std::to_string(flow);
    for (std::size_t i = 0; i < gains.size(); ++i)
    {
        MpResidual::CheckGain(gains[i], label + ": gain[" + std::to_string(i) + "]");
    }
    for (uint32_t i = 0; i < gains.size(); ++i)
    {
        sender->SetCwndGain(i, gains[i]);
    }
}

void
LeoSimulation::SetFlowFollowAlternate(uint32_t flow, const std::vector<double>& follow)
{
    Ptr<MpQuicSender> sender =
        ExternalFlowSender(flow, follow.size(), "set_flow_follow_alternate", FlowControl::RESIDUAL);
    const std::string label = "set_flow_follow_alternate: flow " + std::to_string(flow);
    if (!DynamicCast<MpResidual>(sender->GetCc(0))->GetAlternate())
    {
        throw std::invalid_argument(label + " runs '" + sender->GetCc(0)->GetName() +
                                    "', which has no alternate (cc 'residual+<base>+<alternate>')");
    }
    for (std::size_t i = 0; i < follow.size(); ++i)
    {
        if (follow[i] != 0.0 && follow[i] != 1.0)
        {
            throw std::invalid_argument(label + ": follow[" + std::to_string(i) +
                                        "] must be 0 (the base) or 1 (the alternate), got " +
                                        std::to_string(follow[i]));
        }
    }
    for (uint32_t i = 0; i < follow.size(); ++i)
    {
        sender->SetFollowAlternate(i, follow[i] == 1.0);
    }
}

void
LeoSimulation::SetFlowPacingRate(uint32_t flow, const std::vector<double>& bps)
{
    Ptr<MpQuicSender> sender = ExternalFlowSender(flow, bps.size(), "set_flow_pacing_rate");
    CheckPacingValues(bps, bps.size(), "set_flow_pacing_rate: flow " + std::to_string(flow));
    for (uint32_t i = 0; i < bps.size(); ++i)
    {
        sender->SetExternalPacingRate(i, bps[i]);
    }
}

void
LeoSimulation::SetWeights(const std::vector<double>& w)
{
    Ptr<MpQuicSender> sender = ConnectionSender("set_weights");
    Ptr<MpScheduler> s = sender->GetScheduler();
    if (!s->IsExternal())
    {
        throw std::invalid_argument("set_weights needs scheduler='external' (this simulation "
                                    "runs '" +
                                    m_cfg.scheduler + "')");
    }
    if (w.size() != m_nPaths)
    {
        throw std::invalid_argument("set_weights: expected " + std::to_string(m_nPaths) +
                                    " weights, got " + std::to_string(w.size()));
    }
    s->SetWeights(w);
    sender->Kick();
}

void
LeoSimulation::SetPathChoice(int32_t path)
{
    Ptr<MpQuicSender> sender = ConnectionSender("set_path_choice");
    Ptr<MpScheduler> s = sender->GetScheduler();
    if (!s->IsExternal())
    {
        throw std::invalid_argument("set_path_choice needs scheduler='external' (this "
                                    "simulation runs '" +
                                    m_cfg.scheduler + "')");
    }
    if (path < 0 || static_cast<uint32_t>(path) >= m_nPaths)
    {
        throw std::invalid_argument("set_path_choice: path " + std::to_string(path) +
                                    " out of range [0, " + std::to_string(m_nPaths) + ")");
    }
    s->SetPathChoice(path);
    sender->Kick();
}

void
LeoSimulation::SetPathState(uint32_t path, MpPathState state)
{
    Ptr<MpQuicSender> sender = ConnectionSender("set_path_state");
    if (path >= m_nPaths)
    {
        throw std::invalid_argument("set_path_state: path " + std::to_string(path) +
                                    " out of range [0, " + std::to_string(m_nPaths) + ")");
    }
    sender->SetPathState(path, state);
}

} // namespace ns3
