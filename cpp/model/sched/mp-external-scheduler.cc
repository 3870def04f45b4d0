// SPDX-License-Identifier: GPL-2.0-only

#include "mp-external-scheduler.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MpExternalScheduler);

TypeId
MpExternalScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MpExternalScheduler")
                            .SetParent<MpScheduler>()
                            .SetGroupName("Leogym")
                            .AddConstructor<MpExternalScheduler>();
    return tid;
}

std::string
MpExternalScheduler::GetName() const
{
    return "external";
}

bool
MpExternalScheduler::IsExternal() const
{
    return true;
}

void
MpExternalScheduler::Init(MpConnectionView& conn)
{
    m_nPaths = conn.GetNPaths();
    if (m_weights.size() != m_nPaths)
    {
        m_weights.assign(m_nPaths, 1.0);
    }
    m_pass.assign(m_nPaths, 0.0);
}

const std::vector<double>&
MpExternalScheduler::GetWeights() const
{
    return m_weights;
}

int32_t
MpExternalScheduler::GetPathChoice() const
{
    return m_choice;
}

void
MpExternalScheduler::SetWeights(const std::vector<double>& weights)
{
    if (m_nPaths != 0 && weights.size() != m_nPaths)
    {
        throw std::invalid_argument("set_weights: expected " + std::to_string(m_nPaths) +
                                    " weights, got " + std::to_string(weights.size()));
    }
    bool anyPositive = false;
    for (std::size_t i = 0; i < weights.size(); ++i)
    {
        double w = weights[i];
        if (!std::isfinite(w) || w < 0)
        {
            throw std::invalid_argument("set_weights: weights[" + std::to_string(i) +
                                        "] must be finite and >= 0");
        }
        anyPositive |= w > 0;
    }
    if (!anyPositive)
    {
        throw std::invalid_argument("set_weights: at least one weight must be > 0");
    }
    m_weights = weights;
    m_choice = -1;
}

void
MpExternalScheduler::SetPathChoice(int32_t path)
{
    if (path < 0 || (m_nPaths != 0 && static_cast<uint32_t>(path) >= m_nPaths))
    {
        throw std::invalid_argument("set_path_choice: path " + std::to_string(path) +
                                    " out of range [0, " + std::to_string(m_nPaths) + ")");
    }
    m_choice = path;
}

int32_t
MpExternalScheduler::SelectPath(MpConnectionView& conn, const MpSchedRequest& req)
{
    if (m_choice >= 0)
    {
        const MpPathInfo& p = conn.GetPath(static_cast<uint32_t>(m_choice));
        if (!p.IsAvailable(req.bytes))
        {
            return -1;
        }
        return m_choice;
    }
    Candidates(conn, m_cand);
    int32_t best = -1;
    for (uint32_t i : m_cand)
    {
        if (m_weights[i] <= 0 || !conn.GetPath(i).IsAvailable(req.bytes))
        {
            continue;
        }
        // No banking of credit while a path could not send: keep it within one stride of
        // the virtual time (the pass of the last path chosen).
        double floor = m_vtime - static_cast<double>(req.bytes) / m_weights[i];
        if (m_pass[i] < floor)
        {
            m_pass[i] = floor;
        }
        if (best < 0 || m_pass[i] < m_pass[static_cast<uint32_t>(best)])
        {
            best = static_cast<int32_t>(i);
        }
    }
    if (best >= 0)
    {
        m_vtime = m_pass[static_cast<uint32_t>(best)];
    }
    return best;
}

void
MpExternalScheduler::OnPacketSent(MpConnectionView&, uint32_t path, const MpSentPacket& p)
{
    if (p.probe || m_choice >= 0 || path >= m_weights.size() || m_weights[path] <= 0)
    {
        return;
    }
    m_pass[path] += static_cast<double>(p.bytes) / m_weights[path];
}

} // namespace ns3
