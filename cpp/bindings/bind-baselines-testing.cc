// SPDX-License-Identifier: GPL-2.0-only
//
// _core.testing (baselines part): probes that drive the native congestion controllers and
// schedulers (MACO, freeze, ALCS, ...) through their real interfaces with scripted path oracles
// (ScriptedOracle, probe-scripted-oracle.h). Their equations, tested in isolation, have C++
// unit tests beside them instead (cpp/model/cc/test/, cpp/model/sched/test/).

#include "bindings/probe-connection.h"
#include "bindings/probe-inputs.h"
#include "bindings/probe-scripted-oracle.h"
#include "bindings/registry.h"
#include "model/cc/mp-congestion-ops.h"
#include "model/cc/mp-freeze.h"
#include "model/cc/mp-maco.h"
#include "model/registry/mp-algorithm-registry.h"
#include "model/sched/mp-alcs-scheduler.h"
#include "model/sched/mp-scheduler.h"
#include "model/transport/mp-connection-view.h"

#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace
{

using namespace ns3;
using leogym::ScriptedOracle;
using leogym::SecondsChecked;

/// The probes' connection view plus scripted oracles (one per path, or none).
class ProbeConnection : public leogym::ProbeConnectionView
{
  public:
    ProbeConnection(uint32_t nPaths, uint32_t mss, const py::list& oracles)
        : ProbeConnectionView(nPaths, mss)
    {
        if (!oracles.empty() && oracles.size() != nPaths)
        {
            throw std::invalid_argument("oracles: one per path (or none)");
        }
        for (std::size_t i = 0; i < oracles.size(); ++i)
        {
            if (oracles[i].is_none())
            {
                m_oracles.emplace_back();
                continue;
            }
            m_oracles.push_back(std::make_unique<ScriptedOracle>(py::cast<py::dict>(oracles[i])));
            m_info[i].oracle = m_oracles.back().get();
        }
    }

    void RttSamples(uint32_t i, const std::vector<double>& samples, double nowS)
    {
        SetNow(nowS);
        for (double r : samples)
        {
            m_info[Check(i)].rtt = &m_rtt[i];
            m_rtt[i].Update(SecondsChecked(r, "rtt_s"), Time(0), MilliSeconds(25), m_now);
        }
    }

    py::object Wakeup() const
    {
        if (!m_haveWakeup)
        {
            return py::none();
        }
        return py::float_(m_wakeup.GetSeconds());
    }

    void ClearWakeup()
    {
        m_haveWakeup = false;
    }

    const MpRttEstimator& Rtt(uint32_t i) const
    {
        return m_rtt[Check(i)];
    }

  protected:
    std::vector<std::unique_ptr<ScriptedOracle>> m_oracles;
};

/// Congestion controllers (any registry name) of an n-path connection with scripted oracles.
class CcProbe : public leogym::ProbeCcDriver<ProbeConnection>
{
  public:
    CcProbe(const std::string& name,
            uint32_t nPaths,
            const py::dict& params,
            uint32_t mss,
            const py::list& oracles,
            double startS)
        : ProbeCcDriver(nPaths, mss, oracles)
    {
        SetNow(startS);
        CreateControllers(name, leogym::ProbeParams(params));
    }

    void OnPto(uint32_t i, uint32_t count, double nowS)
    {
        Check(i);
        SetNow(nowS);
        m_info[i].ptoCount = count;
        m_cc[i]->OnPtoExpired(Ctx(i), count);
        Sync(i);
    }

    void PathEvent(uint32_t i, const std::string& kind, double nowS)
    {
        Check(i);
        SetNow(nowS);
        MpPathEvent ev;
        ev.time = m_now;
        ev.state = m_info[i].state;
        if (kind == "handover")
        {
            ev.kind = MpPathEventKind::HANDOVER;
        }
        else if (kind == "outage_start")
        {
            ev.kind = MpPathEventKind::OUTAGE_START;
        }
        else if (kind == "outage_end")
        {
            ev.kind = MpPathEventKind::OUTAGE_END;
        }
        else if (kind == "state_changed")
        {
            ev.kind = MpPathEventKind::STATE_CHANGED;
        }
        else
        {
            throw std::invalid_argument("kind: 'handover' | 'outage_start' | 'outage_end' | "
                                        "'state_changed', got '" +
                                        kind + "'");
        }
        m_cc[i]->OnPathEvent(Ctx(i), ev);
        Sync(i);
    }

    bool ConsiderPc(uint32_t i, uint64_t pn, double sentS)
    {
        MpSentPacket p;
        p.pn = pn;
        p.sentTime = SecondsChecked(sentS, "sent_time_s");
        return m_cc[Check(i)]->ConsiderForPersistentCongestion(Ctx(i), p);
    }

    const MpMaco& Maco(uint32_t i) const
    {
        Ptr<MpCongestionOps> cc = Cc(i);
        for (int depth = 0; cc && depth < 4; ++depth)
        {
            if (auto m = DynamicCast<MpMaco>(cc))
            {
                return *m;
            }
            auto w = DynamicCast<MpCongestionOpsWrapper>(cc);
            cc = w ? w->GetInner() : nullptr;
        }
        throw std::invalid_argument("path " + std::to_string(i) + " does not run maco");
    }

    const MpFreeze& Freeze(uint32_t i) const
    {
        auto f = DynamicCast<MpFreeze>(Cc(i));
        if (!f)
        {
            throw std::invalid_argument("path " + std::to_string(i) + " does not run freeze+");
        }
        return *f;
    }
};

/// A scheduler over n paths whose windows, RTTs and backlog the test sets.
class SchedulerProbe : public ProbeConnection
{
  public:
    SchedulerProbe(const std::string& name,
                   uint32_t nPaths,
                   const py::dict& params,
                   uint32_t mss,
                   const py::list& oracles,
                   double startS)
        : ProbeConnection(nPaths, mss, oracles)
    {
        SetNow(startS);
        Ptr<Object> o = MpAlgorithmRegistry::Scheduler().Create(name,
                                                                leogym::ProbeParams(params),
                                                                "name",
                                                                "params");
        m_sched = DynamicCast<MpScheduler>(o);
        for (uint32_t i = 0; i < nPaths; ++i)
        {
            m_info[i].cwnd = 10 * static_cast<uint64_t>(mss);
        }
        m_sched->Init(*this);
    }

    MpCongestionOps* GetPathCc(uint32_t) const override
    {
        return nullptr;
    }

    void SetWindow(uint32_t i, uint64_t cwnd, uint64_t inflight)
    {
        m_info[Check(i)].cwnd = cwnd;
        m_info[i].bytesInFlight = inflight;
    }

    void SetPending(uint64_t b)
    {
        m_pending = b;
    }

    void SetPto(uint32_t i, uint32_t c)
    {
        m_info[Check(i)].ptoCount = c;
    }

    void SetState(uint32_t i, const std::string& s)
    {
        if (s == "active")
        {
            m_info[Check(i)].state = MpPathState::ACTIVE;
        }
        else if (s == "standby")
        {
            m_info[Check(i)].state = MpPathState::STANDBY;
        }
        else if (s == "deactivated")
        {
            m_info[Check(i)].state = MpPathState::DEACTIVATED;
        }
        else
        {
            throw std::invalid_argument("state: 'active' | 'standby' | 'deactivated'");
        }
    }

    int32_t Select(double nowS, uint32_t bytes, bool retx, uint32_t mask)
    {
        SetNow(nowS);
        MpSchedRequest req;
        req.bytes = bytes == 0 ? m_mss : bytes;
        req.retransmission = retx;
        req.pathMask = mask;
        return m_sched->SelectPath(*this, req);
    }

    void OnAck(uint32_t i, uint32_t packets, double nowS)
    {
        Check(i);
        SetNow(nowS);
        MpAckEvent ev;
        ev.now = m_now;
        ev.packetsAcked = packets;
        ev.bytesAcked = static_cast<uint64_t>(packets) * m_mss;
        m_sched->OnAck(*this, i, ev);
    }

    void OnSent(uint32_t i, double nowS)
    {
        Check(i);
        SetNow(nowS);
        MpSentPacket p;
        p.sentTime = m_now;
        p.bytes = m_mss;
        m_sched->OnPacketSent(*this, i, p);
    }

    std::string StateName(uint32_t i) const
    {
        return MpPathStateName(m_info[Check(i)].state);
    }

    const MpAlcsScheduler& Alcs() const
    {
        auto a = DynamicCast<MpAlcsScheduler>(m_sched);
        if (!a)
        {
            throw std::invalid_argument("the scheduler is not alcs");
        }
        return *a;
    }

  private:
    Ptr<MpScheduler> m_sched;
};

py::dict
MacoState(const MpMaco& m)
{
    py::dict d;
    d["w_pkts"] = m.GetWindowPackets();
    d["ssthresh_pkts"] = m.GetSsthreshPackets();
    d["slow_start"] = m.InSlowStart();
    d["cap_access_bps"] = m.GetAccessCapacity();
    d["cap_network_bps"] = m.GetNetworkCapacity();
    d["tp_bps"] = m.GetThroughput();
    d["prop_rtt_s"] = m.GetPropagationRtt();
    d["bdp_pkts"] = m.GetBdpPackets();
    d["delta_r_s"] = m.GetDeltaR();
    d["tau_s"] = m.GetLatestRtt();
    d["t_max_s"] = m.GetMaxRtt();
    d["d_terr_s"] = m.GetDTerr();
    d["history_max_pkts"] = m.GetHistoryMax();
    d["congestion_events"] = m.GetCongestionEvents();
    d["quick_starts"] = m.GetQuickStarts();
    d["suppressed_losses"] = m.GetSuppressedLosses();
    return d;
}

} // namespace

LEOGYM_REGISTER_BINDINGS(baselines_testing)
{
    py::module_ t = m.def_submodule("testing", "Probes for unit tests of native components.");

    // ---- probes ----
    py::class_<CcProbe>(t,
                        "CcProbe",
                        "Congestion controllers of an n-path connection with scripted path "
                        "oracles (dicts: satellite, states=[{t, slant_range_m, delay_down_s, "
                        "delay_up_s, capacity_down_bps, snr_db, serving_sat}], handovers, "
                        "outages), driven by hand.")
        .def(py::init<const std::string&,
                      uint32_t,
                      const py::dict&,
                      uint32_t,
                      const py::list&,
                      double>(),
             py::arg("name"),
             py::arg("n_paths") = 1,
             py::arg("params") = py::dict(),
             py::arg("mss") = 1500,
             py::arg("oracles") = py::list(),
             py::arg("start_s") = 0.0)
        .def("on_sent",
             &CcProbe::OnSent,
             py::arg("path"),
             py::arg("pn"),
             py::arg("time_s"),
             py::arg("bytes") = 1500)
        .def("on_ack",
             &CcProbe::OnAck,
             py::arg("path"),
             py::arg("packets"),
             py::arg("now_s"),
             py::arg("rtt_s") = -1.0,
             "packets: [(pn, sent_time_s, bytes), ...]; rtt_s < 0: no RTT sample.")
        .def("on_loss",
             &CcProbe::OnLoss,
             py::arg("path"),
             py::arg("packets"),
             py::arg("now_s"),
             py::arg("persistent") = false)
        .def("on_pto", &CcProbe::OnPto, py::arg("path"), py::arg("count"), py::arg("now_s"))
        .def("path_event", &CcProbe::PathEvent, py::arg("path"), py::arg("kind"), py::arg("now_s"))
        .def("consider_for_persistent_congestion",
             &CcProbe::ConsiderPc,
             py::arg("path"),
             py::arg("pn"),
             py::arg("sent_time_s"))
        .def("set_state",
             [](CcProbe& p, uint32_t i, const std::string& s) {
                 p.Info(i).state = s == "deactivated" ? MpPathState::DEACTIVATED
                                   : s == "standby"   ? MpPathState::STANDBY
                                                      : MpPathState::ACTIVE;
             })
        .def("set_app_limited", [](CcProbe& p, uint32_t i, bool v) { p.Info(i).appLimited = v; })
        .def("cwnd", [](CcProbe& p, uint32_t i) { return p.Cc(i)->GetCwnd(); })
        .def("ssthresh", [](CcProbe& p, uint32_t i) { return p.Cc(i)->GetSsthresh(); })
        .def("in_slow_start", [](CcProbe& p, uint32_t i) { return p.Cc(i)->InSlowStart(); })
        .def("suppressed_losses",
             [](CcProbe& p, uint32_t i) { return p.Cc(i)->GetSuppressedLosses(); })
        .def("name", [](CcProbe& p, uint32_t i) { return p.Cc(i)->GetName(); })
        .def("maco_state", [](CcProbe& p, uint32_t i) { return MacoState(p.Maco(i)); })
        .def("freeze_counts",
             [](CcProbe& p, uint32_t i) {
                 const MpFreeze& f = p.Freeze(i);
                 py::dict d;
                 d["frozen"] = f.GetFrozenLosses();
                 d["acted"] = f.GetActedLosses();
                 return d;
             })
        .def("is_frozen", [](CcProbe& p, uint32_t i, double sentS) {
            return p.Freeze(i).IsFrozen(p.Ctx(i), SecondsChecked(sentS, "sent_time_s"));
        });

    py::class_<SchedulerProbe>(t,
                               "SchedulerProbe",
                               "A scheduler over n paths whose windows, RTT samples, backlog "
                               "and oracles the test sets.")
        .def(py::init<const std::string&,
                      uint32_t,
                      const py::dict&,
                      uint32_t,
                      const py::list&,
                      double>(),
             py::arg("name"),
             py::arg("n_paths") = 2,
             py::arg("params") = py::dict(),
             py::arg("mss") = 1448,
             py::arg("oracles") = py::list(),
             py::arg("start_s") = 0.0)
        .def("rtt_samples",
             &SchedulerProbe::RttSamples,
             py::arg("path"),
             py::arg("samples_s"),
             py::arg("now_s") = 0.0,
             "Feed RTT samples to the path's RFC 9002 estimator.")
        .def("set_window",
             &SchedulerProbe::SetWindow,
             py::arg("path"),
             py::arg("cwnd_bytes"),
             py::arg("inflight_bytes"))
        .def("set_pending", &SchedulerProbe::SetPending, py::arg("bytes"))
        .def("set_pto", &SchedulerProbe::SetPto, py::arg("path"), py::arg("count"))
        .def("set_state", &SchedulerProbe::SetState, py::arg("path"), py::arg("state"))
        .def("select",
             &SchedulerProbe::Select,
             py::arg("now_s"),
             py::arg("bytes") = 0,
             py::arg("retransmission") = false,
             py::arg("path_mask") = 0,
             "The scheduler's choice (-1: wait).")
        .def("on_ack",
             &SchedulerProbe::OnAck,
             py::arg("path"),
             py::arg("packets"),
             py::arg("now_s"))
        .def("on_sent", &SchedulerProbe::OnSent, py::arg("path"), py::arg("now_s"))
        .def("state", &SchedulerProbe::StateName, py::arg("path"))
        .def("srtt",
             [](SchedulerProbe& p, uint32_t i) { return p.Rtt(i).GetSmoothed().GetSeconds(); })
        .def("rttvar",
             [](SchedulerProbe& p, uint32_t i) { return p.Rtt(i).GetRttVar().GetSeconds(); })
        .def_property_readonly("wakeup", &SchedulerProbe::Wakeup)
        .def("clear_wakeup", &SchedulerProbe::ClearWakeup)
        .def("alcs_state", [](SchedulerProbe& p, uint32_t i) {
            const MpAlcsScheduler& a = p.Alcs();
            py::dict d;
            d["sigma"] = a.GetSigma(i);
            d["deactivated"] = a.IsDeactivated(i);
            d["atp"] = a.GetAtp(i);
            d["etp"] = a.GetEtp(i);
            d["waits"] = a.GetWaits();
            d["deactivations"] = a.GetDeactivations();
            d["last_update_s"] = a.GetLastUpdate();
            return d;
        });
}
