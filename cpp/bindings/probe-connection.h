// SPDX-License-Identifier: GPL-2.0-only
//
// ProbeConnectionView: the connection view under the unit-test probes of
// bind-transport-testing.cc, bind-baselines-testing.cc and bind-bbr3-testing.cc, and
// ProbeCcDriver: one congestion controller per path on top of it, with the probes' shared
// on_sent / on_ack / on_loss.

#ifndef LEOGYM_PROBE_CONNECTION_H
#define LEOGYM_PROBE_CONNECTION_H

#include "bindings/probe-inputs.h"
#include "model/cc/mp-congestion-ops.h"
#include "model/registry/mp-algorithm-registry.h"
#include "model/transport/mp-connection-view.h"
#include "model/transport/mp-rtt-estimator.h"
#include "model/transport/mp-sent-packet.h"

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
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

    /// Set the clock to `s` seconds. @throws std::invalid_argument naming `field` unless `s` is
    /// finite and >= 0
    void SetNow(double s, const char* field = "now_s")
    {
        m_now = SecondsChecked(s, field);
    }

    /// Path i's record. @throws std::invalid_argument if there is no path i
    ns3::MpPathInfo& Info(uint32_t i)
    {
        return m_info[Check(i)];
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

/**
 * One congestion controller per path on top of a probe connection `View` (a
 * ProbeConnectionView or a class derived from it), driven the way the transport drives it:
 * the path record's bytes in flight, delivered bytes and RTT estimator are kept current,
 * and cwnd, ssthresh and pacing rate are copied back after every call.
 */
template <class View>
class ProbeCcDriver : public View
{
  public:
    using View::View;

    ns3::MpCongestionOps* GetPathCc(uint32_t i) const override
    {
        return ns3::PeekPointer(m_cc[i]);
    }

    ns3::MpCcContext Ctx(uint32_t i)
    {
        return ns3::MpCcContext{this, i};
    }

    /// Path i's controller. @throws std::invalid_argument if there is no path i
    ns3::Ptr<ns3::MpCongestionOps> Cc(uint32_t i) const
    {
        return m_cc[this->Check(i)];
    }

    /// Packets as the probes take them from Python: (packet number, sent time s, bytes).
    using PacketTuples = std::vector<std::tuple<uint64_t, double, uint32_t>>;

    /// The packets of `pk` in packet-number order (the order loss detection reports them in).
    /// @throws std::invalid_argument if a sent time is negative or not finite
    static std::vector<ns3::MpSentPacket> Packets(const PacketTuples& pk)
    {
        std::vector<ns3::MpSentPacket> out;
        for (const auto& [pn, t, bytes] : pk)
        {
            ns3::MpSentPacket p;
            p.pn = pn;
            p.sentTime = SecondsChecked(t, "sent_time_s");
            p.bytes = bytes;
            out.push_back(p);
        }
        std::sort(
            out.begin(),
            out.end(),
            [](const ns3::MpSentPacket& a, const ns3::MpSentPacket& b) { return a.pn < b.pn; });
        return out;
    }

    /// Packet `pn` of `bytes` sent on path i at `tS` seconds.
    void OnSent(uint32_t i, uint64_t pn, double tS, uint32_t bytes)
    {
        this->Check(i);
        this->SetNow(tS, "time_s");
        DriveSent(i, pn, bytes);
    }

    /// One ACK frame of packets `pk` on path i at `nowS`; rttS >= 0 adds an RTT sample.
    void OnAck(uint32_t i, const PacketTuples& pk, double nowS, double rttS)
    {
        this->Check(i);
        this->SetNow(nowS);
        DriveAck(i, Packets(pk), rttS);
    }

    /// Packets `pk` (at least one) declared lost on path i at `nowS`.
    void OnLoss(uint32_t i, const PacketTuples& pk, double nowS, bool persistent)
    {
        this->Check(i);
        this->SetNow(nowS);
        auto packets = Packets(pk);
        if (packets.empty())
        {
            throw std::invalid_argument("packets: at least one lost packet");
        }
        DriveLoss(i, packets, persistent);
    }

    /// Copy path i's controller state (cwnd, ssthresh, pacing rate) into its path record.
    void Sync(uint32_t i)
    {
        this->m_info[i].cwnd = m_cc[i]->GetCwnd();
        this->m_info[i].ssthresh = m_cc[i]->GetSsthresh();
        this->m_info[i].pacingRateBps = m_cc[i]->GetPacingRate();
    }

  protected:
    /// Create, seed (streams 100 + i) and initialise controller `name` on every path.
    void CreateControllers(const std::string& name, const ns3::MpAlgorithmRegistry::Params& ps)
    {
        for (uint32_t i = 0; i < this->GetNPaths(); ++i)
        {
            ns3::Ptr<ns3::Object> o =
                ns3::MpAlgorithmRegistry::Cc().Create(name, ps, "name", "params");
            m_cc.push_back(ns3::DynamicCast<ns3::MpCongestionOps>(o));
        }
        for (uint32_t i = 0; i < this->GetNPaths(); ++i)
        {
            m_cc[i]->AssignStreams(100 + i);
            m_cc[i]->Init(Ctx(i));
            Sync(i);
        }
    }

    /// Packet `pn` of `bytes` sent on path i at the current time.
    void DriveSent(uint32_t i, uint64_t pn, uint32_t bytes)
    {
        ns3::MpSentPacket p;
        p.pn = pn;
        p.sentTime = this->m_now;
        p.bytes = bytes;
        this->m_info[i].bytesInFlight += bytes;
        this->m_info[i].sentBytes += bytes;
        m_cc[i]->OnPacketSent(Ctx(i), p);
        Sync(i);
    }

    /// One ACK frame on path i now; rttS >= 0 adds an RTT sample (no ack delay).
    void DriveAck(uint32_t i, const std::vector<ns3::MpSentPacket>& packets, double rttS)
    {
        ns3::MpAckEvent ev;
        ev.now = this->m_now;
        ev.priorBytesInFlight = this->m_info[i].bytesInFlight;
        for (const auto& p : packets)
        {
            ev.bytesAcked += p.bytes;
            ++ev.packetsAcked;
            ReleaseFlight(i, p.bytes);
        }
        this->m_info[i].deliveredBytes += ev.bytesAcked;
        ev.acked = packets.data();
        ev.nAcked = packets.size();
        if (rttS >= 0)
        {
            this->m_rtt[i].Update(ns3::Seconds(rttS),
                                  ns3::Time(0),
                                  ns3::MilliSeconds(25),
                                  this->m_now);
            ev.rttSampled = true;
            ev.latestRtt = ns3::Seconds(rttS);
        }
        ns3::MpRateSample rs;
        ev.rate = &rs;
        m_cc[i]->OnAck(Ctx(i), ev);
        Sync(i);
    }

    /// One loss detection on path i now (packets non-empty, the last one sent last).
    void DriveLoss(uint32_t i, const std::vector<ns3::MpSentPacket>& packets, bool persistent)
    {
        ns3::MpLossEvent ev;
        ev.now = this->m_now;
        for (const auto& p : packets)
        {
            ev.lostBytes += p.bytes;
            ReleaseFlight(i, p.bytes);
        }
        ev.lost = packets.data();
        ev.nLost = packets.size();
        ev.largestLostSentTime = packets.back().sentTime;
        ev.persistentCongestion = persistent;
        m_cc[i]->OnPacketsLost(Ctx(i), ev);
        if (persistent)
        {
            m_cc[i]->OnPersistentCongestion(Ctx(i));
        }
        Sync(i);
    }

    std::vector<ns3::Ptr<ns3::MpCongestionOps>> m_cc;

  private:
    void ReleaseFlight(uint32_t i, uint32_t bytes)
    {
        uint64_t& f = this->m_info[i].bytesInFlight;
        f -= std::min<uint64_t>(f, bytes);
    }
};

} // namespace leogym

#endif // LEOGYM_PROBE_CONNECTION_H
