// SPDX-License-Identifier: GPL-2.0-only
//
// ProbeConnectionView: the connection view under the unit-test probes of
// bind-transport-testing.cc and bind-baselines-testing.cc.

#ifndef LEOGYM_PROBE_CONNECTION_H
#define LEOGYM_PROBE_CONNECTION_H

#include "model/transport/mp-connection-view.h"
#include "model/transport/mp-rtt-estimator.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace leogym
{

/**
 * An n-path connection whose state a test sets by hand: one RTT estimator and one path
 * record per path, a clock the test advances, a pending-bytes figure, unlimited flow control
 * and a record of the earliest wake-up an algorithm asked for. Probes derive from it and add
 * the algorithms they drive.
 */
class ProbeConnectionView : public ns3::MpConnectionView
{
  public:
    /// @throws std::invalid_argument unless 1 <= nPaths <= 32 and 64 <= mss <= 65000
    ProbeConnectionView(uint32_t nPaths, uint32_t mss)
        : m_mss(mss)
    {
        if (nPaths < 1 || nPaths > 32)
        {
            throw std::invalid_argument("n_paths: must be in [1, 32]");
        }
        if (mss < 64 || mss > 65000)
        {
            throw std::invalid_argument("mss: must be in [64, 65000]");
        }
        m_rtt.resize(nPaths);
        m_info.resize(nPaths);
        for (uint32_t i = 0; i < nPaths; ++i)
        {
            m_info[i].index = i;
            m_info[i].rtt = &m_rtt[i];
        }
    }

    ns3::Time Now() const override
    {
        return m_now;
    }

    uint32_t GetNPaths() const override
    {
        return static_cast<uint32_t>(m_info.size());
    }

    const ns3::MpPathInfo& GetPath(uint32_t i) const override
    {
        return m_info[i];
    }

    uint32_t GetMaxDatagramSize() const override
    {
        return m_mss;
    }

    uint64_t GetPendingBytes() const override
    {
        return m_pending;
    }

    uint64_t GetFlowControlCredit() const override
    {
        return std::numeric_limits<uint64_t>::max();
    }

    uint64_t GetReceiveWindow() const override
    {
        return std::numeric_limits<uint64_t>::max();
    }

    uint64_t GetUnackedStreamBytes() const override
    {
        return 0;
    }

    void SetPathState(uint32_t i, ns3::MpPathState s) override
    {
        m_info[Check(i)].state = s;
    }

    void RequestWakeup(ns3::Time at) override
    {
        if (!m_haveWakeup || at < m_wakeup)
        {
            m_wakeup = at;
        }
        m_haveWakeup = true;
    }

    /// @return i  @throws std::invalid_argument if there is no path i
    uint32_t Check(uint32_t i) const
    {
        if (i >= m_info.size())
        {
            throw std::invalid_argument("path " + std::to_string(i) + " out of range");
        }
        return i;
    }

  protected:
    uint32_t m_mss;
    ns3::Time m_now{0};
    uint64_t m_pending{0};
    std::vector<ns3::MpRttEstimator> m_rtt;
    std::vector<ns3::MpPathInfo> m_info;
    ns3::Time m_wakeup{0};
    bool m_haveWakeup{false};
};

} // namespace leogym

#endif // LEOGYM_PROBE_CONNECTION_H
