// SPDX-License-Identifier: GPL-2.0-only
//
// _core.Simulation: the native simulation contract of docs/architecture.md, over LeoSimulation.

#include "bindings/leo-python-inputs.h"
#include "bindings/leotp-stats.h"
#include "bindings/recovery-config.h"
#include "bindings/registry.h"
#include "bindings/simulation-config.h"
#include "bindings/simulation-inputs.h"
#include "helper/leo-simulation.h"
#include "model/registry/mp-algorithm-registry.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/integer.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace
{

using leogym::DoubleVector;
using leogym::ToInt;

/// A new, uninitialised NumPy array of T with ``nd`` (0 or 1) dimensions of ``n`` elements, made
/// with a single NumPy call: py::array_t's general constructor costs several times more, and a
/// step returns about 80 arrays.
template <typename T>
py::array_t<T>
NewArray(int nd, py::ssize_t n)
{
    auto& api = py::detail::npy_api::get();
    Py_intptr_t dims[1] = {static_cast<Py_intptr_t>(n)};
    PyObject* descr = py::dtype::of<T>().release().ptr(); // reference stolen below
    PyObject* a =
        api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, nd, dims, nullptr, nullptr, 0, nullptr);
    if (a == nullptr)
    {
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::array_t<T>>(a);
}

py::array_t<double>
F64(const std::vector<double>& v)
{
    auto a = NewArray<double>(1, static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

py::array_t<int64_t>
I64(const std::vector<double>& v)
{
    auto a = NewArray<int64_t>(1, static_cast<py::ssize_t>(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        a.mutable_data()[i] = static_cast<int64_t>(v[i]);
    }
    return a;
}

/// A per-path state code (path_state, ecn_state) as int8.
py::array_t<int8_t>
I8(const std::vector<double>& v)
{
    auto a = NewArray<int8_t>(1, static_cast<py::ssize_t>(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        a.mutable_data()[i] = static_cast<int8_t>(v[i]);
    }
    return a;
}

py::array_t<bool>
Bool(const std::vector<double>& v)
{
    auto a = NewArray<bool>(1, static_cast<py::ssize_t>(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        a.mutable_data()[i] = v[i] != 0.0;
    }
    return a;
}

/// The Python str for a key literal, created (interned) on first use and kept for the life of
/// the process, so the measurement dict of a step does not build its key strings again.
/// Called with the GIL held.
py::handle
Key(const char* literal)
{
    static std::unordered_map<const char*, PyObject*> cache;
    auto it = cache.find(literal);
    if (it != cache.end())
    {
        return it->second;
    }
    PyObject* s = PyUnicode_InternFromString(literal);
    if (s == nullptr)
    {
        throw py::error_already_set();
    }
    cache.emplace(literal, s);
    return s;
}

/// A per-link-and-direction vector (2 * link + dir) as an (n_links, 2) array.
template <typename T>
py::array
Links(py::array_t<T> flat)
{
    const py::ssize_t n = flat.size() / 2;
    return flat.reshape({n, py::ssize_t{2}});
}

template <typename T>
py::array
Scalar(T x)
{
    auto a = NewArray<T>(0, 1);
    *a.mutable_data() = x;
    return a;
}

/// The Python-facing object: owns a LeoSimulation and converts its measurements.
class PySimulation
{
  public:
    PySimulation(py::handle config, py::handle paths, py::handle network)
    {
        leogym::SimulationInputs in = leogym::SimulationInputsFromPython(config, paths, network);
        m_sim = std::make_unique<ns3::LeoSimulation>(in.config,
                                                     std::move(in.paths),
                                                     in.slantRange,
                                                     in.satellite,
                                                     std::move(in.network),
                                                     std::move(in.pathRoutes));
    }

    py::dict Step(double dtS)
    {
        Check();
        if (!std::isfinite(dtS) || dtS <= 0 || dtS > 1e6)
        {
            throw std::invalid_argument("dt_s: must be in (0, 1e6] seconds");
        }
        {
            py::gil_scoped_release release;
            m_sim->Step(dtS);
        }
        return Measurements();
    }

    py::dict Measurements() const
    {
        Check();
        const ns3::LeoSimulationMeasurements& m = m_sim->GetMeasurements();
        py::dict d;
        d[Key("cwnd_bytes")] = F64(m.cwndBytes);
        d[Key("bytes_in_flight")] = F64(m.bytesInFlight);
        d[Key("srtt_s")] = F64(m.srttS);
        d[Key("min_rtt_s")] = F64(m.minRttS);
        d[Key("rttvar_s")] = F64(m.rttvarS);
        d[Key("latest_rtt_s")] = F64(m.latestRttS);
        d[Key("delivered_bytes")] = I64(m.deliveredBytes);
        d[Key("sent_bytes")] = I64(m.sentBytes);
        d[Key("sent_packets")] = I64(m.sentPackets);
        d[Key("delivery_rate_bps")] = F64(m.deliveryRateBps);
        d[Key("send_rate_bps")] = F64(m.sendRateBps);
        d[Key("lost_packets")] = I64(m.lostPackets);
        d[Key("retransmitted_packets")] = I64(m.retransmittedPackets);
        d[Key("drops_outage")] = I64(m.dropsOutage);
        d[Key("drops_random")] = I64(m.dropsRandom);
        d[Key("drops_overflow")] = I64(m.dropsOverflow);
        d[Key("drops_aqm")] = I64(m.dropsAqm);
        d[Key("queue_delay_s")] = F64(m.queueDelayS);
        d[Key("in_outage")] = Bool(m.inOutage);
        {
            auto a = NewArray<int8_t>(1, static_cast<py::ssize_t>(m.pathState.size()));
            for (std::size_t i = 0; i < m.pathState.size(); ++i)
            {
                a.mutable_data()[i] = static_cast<int8_t>(m.pathState[i]);
            }
            d[Key("path_state")] = a;
        }
        d[Key("handovers")] = I64(m.handovers);
        d[Key("ssthresh_bytes")] = F64(m.ssthreshBytes);
        d[Key("pacing_rate_bps")] = F64(m.pacingRateBps);
        d[Key("pto_count")] = I64(m.ptoCount);
        d[Key("rate_sample_bps")] = F64(m.rateSampleBps);
        d[Key("spurious_losses")] = I64(m.spuriousLosses);
        d[Key("suppressed_losses")] = I64(m.suppressedLosses);
        d[Key("persistent_congestion")] = I64(m.persistentCongestion);
        d[Key("reinjected_packets")] = I64(m.reinjected);
        d[Key("rto_count")] = I64(m.rtoCount);
        d[Key("in_loss_state")] = Bool(m.inLossState);
        d[Key("time_to_rto_s")] = F64(m.timeToRtoS);
        d[Key("ecn_state")] = I8(m.ecnState);
        d[Key("ect_sent_packets")] = I64(m.ectSentPackets);
        d[Key("ce_packets")] = I64(m.cePackets);
        d[Key("goodput_bytes")] = Scalar<int64_t>(static_cast<int64_t>(m.goodputBytes));
        d[Key("reorder_buffer_bytes")] =
            Scalar<int64_t>(static_cast<int64_t>(m.reorderBufferBytes));
        d[Key("hol_delay_s")] = Scalar<double>(m.holDelayS);
        d[Key("completed")] = Scalar<bool>(m.completed);
        d[Key("completion_time_s")] = Scalar<double>(m.completionTimeS);
        d[Key("time_s")] = Scalar<double>(m.timeS);
        d[Key("interval_s")] = Scalar<double>(m.intervalS);
        d[Key("cross_traffic_rx_bytes")] = I64(m.crossTrafficRxBytes);
        d[Key("flow_goodput_bytes")] = I64(m.flowGoodputBytes);
        d[Key("flow_packets")] = I64(m.flowPackets);
        d[Key("flow_owd_mean_s")] = F64(m.flowOwdMeanS);
        d[Key("flow_owd_p50_s")] = F64(m.flowOwdP50S);
        d[Key("flow_owd_p99_s")] = F64(m.flowOwdP99S);
        d[Key("flow_owd_max_s")] = F64(m.flowOwdMaxS);
        d[Key("flow_queue_delay_s")] = F64(m.flowQueueDelayS);
        d[Key("flow_cwnd_bytes")] = F64(m.flowCwndBytes);
        d[Key("flow_rtt_s")] = F64(m.flowRttS);
        d[Key("flow_sent_packets")] = I64(m.flowSentPackets);
        d[Key("flow_lost_packets")] = F64(m.flowLostPackets);
        d[Key("subflow_flow")] = I64(m.subflowFlow);
        d[Key("subflow_cwnd_bytes")] = F64(m.subflowCwndBytes);
        d[Key("subflow_bytes_in_flight")] = F64(m.subflowBytesInFlight);
        d[Key("subflow_srtt_s")] = F64(m.subflowSrttS);
        d[Key("subflow_min_rtt_s")] = F64(m.subflowMinRttS);
        d[Key("subflow_rttvar_s")] = F64(m.subflowRttvarS);
        d[Key("subflow_delivered_bytes")] = I64(m.subflowDeliveredBytes);
        d[Key("subflow_sent_packets")] = I64(m.subflowSentPackets);
        d[Key("subflow_lost_packets")] = I64(m.subflowLostPackets);
        d[Key("subflow_pacing_rate_bps")] = F64(m.subflowPacingRateBps);
        {
            auto a = NewArray<int8_t>(1, static_cast<py::ssize_t>(m.subflowPathState.size()));
            for (std::size_t i = 0; i < m.subflowPathState.size(); ++i)
            {
                a.mutable_data()[i] = static_cast<int8_t>(m.subflowPathState[i]);
            }
            d[Key("subflow_path_state")] = a;
        }
        d[Key("subflow_rto_count")] = I64(m.subflowRtoCount);
        d[Key("subflow_in_loss_state")] = Bool(m.subflowInLossState);
        d[Key("subflow_time_to_rto_s")] = F64(m.subflowTimeToRtoS);
        d[Key("subflow_ecn_state")] = I8(m.subflowEcnState);
        d[Key("subflow_ect_sent_packets")] = I64(m.subflowEctSentPackets);
        d[Key("subflow_ce_packets")] = I64(m.subflowCePackets);
        d[Key("subflow_queue_delay_s")] = F64(m.subflowQueueDelayS);
        d[Key("link_queue_packets")] = Links(I64(m.linkQueuePackets));
        d[Key("link_tx_bytes")] = Links(I64(m.linkTxBytes));
        d[Key("link_utilization")] = Links(F64(m.linkUtilization));
        d[Key("link_drops_outage")] = Links(I64(m.linkDropsOutage));
        d[Key("link_drops_random")] = Links(I64(m.linkDropsRandom));
        d[Key("link_drops_overflow")] = Links(I64(m.linkDropsOverflow));
        d[Key("link_drops_aqm")] = Links(I64(m.linkDropsAqm));
        d[Key("link_drops_ecn")] = Links(I64(m.linkDropsEcn));
        d[Key("link_mark_packets")] = Links(I64(m.linkMarkPackets));
        d[Key("link_sojourn_s")] = Links(F64(m.linkSojournS));
        d[Key("route_drops_no_route")] = I64(m.routeNoRouteDrops);
        return d;
    }

    void SetCwnd(py::handle v)
    {
        Check();
        m_sim->SetCwnd(DoubleVector(v, "cwnd"));
    }

    void SetPacingRate(py::handle v)
    {
        Check();
        m_sim->SetPacingRate(DoubleVector(v, "pacing_rate"));
    }

    void SetFlowCwnd(py::handle flow, py::handle v)
    {
        Check();
        auto f =
            static_cast<uint32_t>(ToInt(flow, "set_flow_cwnd: flow", 0, m_sim->GetNFlows() - 1LL));
        m_sim->SetFlowCwnd(f, DoubleVector(v, "set_flow_cwnd: flow " + std::to_string(f)));
    }

    void SetFlowPacingRate(py::handle flow, py::handle v)
    {
        Check();
        auto f = static_cast<uint32_t>(
            ToInt(flow, "set_flow_pacing_rate: flow", 0, m_sim->GetNFlows() - 1LL));
        m_sim->SetFlowPacingRate(
            f,
            DoubleVector(v, "set_flow_pacing_rate: flow " + std::to_string(f)));
    }

    void SetFlowCwndGain(py::handle flow, py::handle v)
    {
        Check();
        auto f = static_cast<uint32_t>(
            ToInt(flow, "set_flow_cwnd_gain: flow", 0, m_sim->GetNFlows() - 1LL));
        m_sim->SetFlowCwndGain(f, DoubleVector(v, "set_flow_cwnd_gain: flow " + std::to_string(f)));
    }

    uint32_t FlowNPaths(py::handle flow) const
    {
        Check();
        return m_sim->GetFlowNPaths(
            static_cast<uint32_t>(ToInt(flow, "flow", 0, m_sim->GetNFlows() - 1LL)));
    }

    uint32_t NFlows() const
    {
        Check();
        return m_sim->GetNFlows();
    }

    py::dict LeotpStats(py::handle flow, bool samples)
    {
        Check();
        const auto f =
            static_cast<uint32_t>(ToInt(flow, "leotp_stats: flow", 0, m_sim->GetNFlows() - 1LL));
        ns3::LeotpFlow* lf = m_sim->GetLeotpFlow(f);
        if (!lf)
        {
            throw std::invalid_argument("leotp_stats: flow " + std::to_string(f) +
                                        " is not a leotp flow");
        }
        return leogym::LeotpStatsDict(
            *lf,
            [this](uint32_t n) { return m_sim->GetNodeName(n); },
            samples);
    }

    py::dict RecoveryStats(py::handle flow, bool samples)
    {
        Check();
        const auto f =
            static_cast<uint32_t>(ToInt(flow, "recovery_stats: flow", 0, m_sim->GetNFlows() - 1LL));
        if (const ns3::LeotpFlow* lf = m_sim->GetLeotpFlow(f))
        {
            // LEOTP: the Consumer's first copies of every chunk (the LeotpTraceTag)
            const auto& clean = lf->GetConsumer()->GetOwdSamples();
            const auto& retx = lf->GetConsumer()->GetRecoveredOwdSamples();
            return leogym::RecoveryStatsDict(clean, retx, clean.size(), retx.size(), samples);
        }
        const ns3::LeoFlowMonitor::Recovery& r = m_sim->GetFlowRecovery(f);
        return leogym::RecoveryStatsDict(r.cleanOwdS,
                                         r.retxOwdS,
                                         r.clean,
                                         r.retransmitted,
                                         samples);
    }

    void SetWeights(py::handle v)
    {
        Check();
        m_sim->SetWeights(DoubleVector(v, "weights"));
    }

    void SetPathChoice(py::handle v)
    {
        Check();
        m_sim->SetPathChoice(static_cast<int32_t>(
            ToInt(v, "path", 0, static_cast<long long>(m_sim->GetNPaths()) - 1)));
    }

    void SetPathState(py::handle i, const std::string& state)
    {
        Check();
        auto idx = static_cast<uint32_t>(
            ToInt(i, "path", 0, static_cast<long long>(m_sim->GetNPaths()) - 1));
        m_sim->SetPathState(idx, leogym::PathStateFromString(state, "state"));
    }

    double Now() const
    {
        Check();
        return m_sim->Now();
    }

    bool Done() const
    {
        Check();
        return m_sim->Done();
    }

    uint32_t NPaths() const
    {
        Check();
        return m_sim->GetNPaths();
    }

    bool Closed() const
    {
        return !m_sim;
    }

    uint64_t Events() const
    {
        Check();
        return ns3::Simulator::GetEventCount();
    }

    void Close()
    {
        if (m_sim)
        {
            m_sim->Close();
            m_sim.reset();
        }
    }

  private:
    void Check() const
    {
        if (!m_sim)
        {
            throw std::runtime_error("Simulation is closed");
        }
    }

    std::unique_ptr<ns3::LeoSimulation> m_sim;
};

/// Keys of an ordered search: doubles as order-preserving integers, integers and times (ns) as
/// they are.
using OrderKey = __int128;

OrderKey
DoubleKey(double x)
{
    int64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits >= 0 ? OrderKey(bits) : -OrderKey(bits & std::numeric_limits<int64_t>::max());
}

double
KeyDouble(OrderKey k)
{
    int64_t bits = k >= 0 ? static_cast<int64_t>(k)
                          : static_cast<int64_t>(-k) | std::numeric_limits<int64_t>::min();
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

/// The smallest and the largest value in [lowest, highest] that the checker accepts, given one
/// value it accepts (the attribute's default): a bisection each way, so the bounds are the
/// checker's own, exactly, whatever their type. Empty where the type's limit itself passes.
template <typename Make>
std::pair<std::optional<OrderKey>, std::optional<OrderKey>>
AcceptedRange(const ns3::AttributeChecker& checker,
              OrderKey lowest,
              OrderKey highest,
              OrderKey anchor,
              Make make)
{
    auto edge = [&](OrderKey limit) -> std::optional<OrderKey> {
        if (checker.Check(*make(limit)))
        {
            return std::nullopt;
        }
        OrderKey rejected = limit;
        OrderKey accepted = anchor;
        while (rejected - accepted > 1 || accepted - rejected > 1)
        {
            OrderKey mid = accepted + (rejected - accepted) / 2;
            (checker.Check(*make(mid)) ? accepted : rejected) = mid;
        }
        return accepted;
    };
    return {edge(lowest), edge(highest)};
}

/// Default, min and max of one attribute in the units the config takes (seconds for times,
/// 0/1 for booleans); min/max are None where the checker sets no bound below the type's limit.
void
DescribeRange(const ns3::TypeId::AttributeInformation& info, py::dict& out)
{
    const ns3::AttributeChecker& c = *info.checker;
    const ns3::AttributeValue* initial = PeekPointer(info.originalInitialValue);
    py::object lo = py::none();
    py::object hi = py::none();
    py::object dflt = py::none();
    auto set = [&](auto range, auto convert) {
        if (range.first)
        {
            lo = convert(*range.first);
        }
        if (range.second)
        {
            hi = convert(*range.second);
        }
    };
    if (auto d = dynamic_cast<const ns3::DoubleValue*>(initial))
    {
        dflt = py::float_(d->Get());
        const double big = std::numeric_limits<double>::max();
        set(AcceptedRange(c,
                          DoubleKey(-big),
                          DoubleKey(big),
                          DoubleKey(d->Get()),
                          [](OrderKey k) { return ns3::Create<ns3::DoubleValue>(KeyDouble(k)); }),
            [](OrderKey k) { return py::float_(KeyDouble(k)); });
    }
    else if (auto u = dynamic_cast<const ns3::UintegerValue*>(initial))
    {
        dflt = py::int_(u->Get());
        auto range = AcceptedRange(
            c,
            0,
            OrderKey(std::numeric_limits<uint64_t>::max()),
            OrderKey(u->Get()),
            [](OrderKey k) { return ns3::Create<ns3::UintegerValue>(static_cast<uint64_t>(k)); });
        // an unsigned attribute is bounded below by 0 in any case
        lo = py::int_(range.first ? static_cast<uint64_t>(*range.first) : 0);
        if (range.second)
        {
            hi = py::int_(static_cast<uint64_t>(*range.second));
        }
    }
    else if (auto i = dynamic_cast<const ns3::IntegerValue*>(initial))
    {
        dflt = py::int_(i->Get());
        set(AcceptedRange(
                c,
                OrderKey(std::numeric_limits<int64_t>::min()),
                OrderKey(std::numeric_limits<int64_t>::max()),
                OrderKey(i->Get()),
                [](OrderKey k) { return ns3::Create<ns3::IntegerValue>(static_cast<int64_t>(k)); }),
            [](OrderKey k) { return py::int_(static_cast<int64_t>(k)); });
    }
    else if (auto t = dynamic_cast<const ns3::TimeValue*>(initial))
    {
        // seconds as nanoseconds / 1e9 (correctly rounded; GetSeconds() is not)
        dflt = py::float_(static_cast<double>(t->Get().GetNanoSeconds()) / 1e9);
        set(AcceptedRange(c,
                          OrderKey(ns3::Time::Min().GetTimeStep()),
                          OrderKey(ns3::Time::Max().GetTimeStep()),
                          OrderKey(t->Get().GetTimeStep()),
                          [](OrderKey k) {
                              return ns3::Create<ns3::TimeValue>(
                                  ns3::Time(static_cast<long long>(k)));
                          }),
            [](OrderKey k) {
                return py::float_(
                    static_cast<double>(ns3::Time(static_cast<long long>(k)).GetNanoSeconds()) /
                    1e9);
            });
    }
    else if (auto b = dynamic_cast<const ns3::BooleanValue*>(initial))
    {
        dflt = py::bool_(b->Get());
    }
    out["default"] = dflt;
    out["min"] = lo;
    out["max"] = hi;
}

py::dict
DescribeAlgorithm(ns3::MpAlgorithmRegistry& reg, const std::string& name)
{
    // The TypeIds behind the name, a wrapper's first: its attributes take precedence, as in
    // the registry's Validate ("freeze+cubic": MpFreeze, then MpCubic).
    auto description = reg.Describe(name); // checks the name
    std::vector<ns3::TypeId> tids;
    auto plus = name.find('+');
    std::vector<std::string> parts = {name};
    if (plus != std::string::npos)
    {
        parts = {name.substr(0, plus), name.substr(plus + 1)};
    }
    for (const auto& part : parts)
    {
        for (const auto& e : reg.List())
        {
            ns3::TypeId tid;
            if (e.name == part && ns3::TypeId::LookupByNameFailSafe(e.typeId, &tid))
            {
                tids.push_back(tid);
            }
        }
    }
    py::dict d;
    for (const auto& [k, v] : description)
    {
        py::dict a;
        a["type"] = v[0];
        a["help"] = v[2];
        a["default_text"] = v[1];
        for (const auto& tid : tids)
        {
            ns3::TypeId::AttributeInformation info;
            if (tid.LookupAttributeByName(k, &info))
            {
                DescribeRange(info, a);
                break;
            }
        }
        d[py::str(k)] = a;
    }
    return d;
}

} // namespace

LEOGYM_REGISTER_BINDINGS(simulation)
{
    py::class_<PySimulation>(m,
                             "Simulation",
                             R"doc(One packet-level simulation: LEO paths, a multipath QUIC-like
connection (server -> client bulk or file transfer), cross traffic, per-step measurements.

ns-3 runs one simulation per process: creating a second one while this one is open raises
RuntimeError. ``close()`` (idempotent, also on ``with`` exit) destroys the simulator.

:param config: transport, congestion-control and scheduler settings; every key is optional:
    ``seed`` (1), ``run`` (1), ``packet_bytes`` (1200, UDP payload of a full packet, at most
    8972: a 9000-byte jumbo MTU less the IPv4 and UDP headers), ``cc``
    ("cubic"; "newreno", "cubic", "bbr", "lia", "olia", "balia", "external", ...),
    ``cc_params`` ({attribute: number}), ``scheduler`` ("minrtt"; "roundrobin", "ecf",
    "blest", "external", ...), ``scheduler_params``, ``workload`` ("bulk" | "file"),
    ``file_bytes``, ``ack_every`` (2), ``max_ack_delay_s`` (0.025), ``pacing`` (False),
    ``initial_path_states`` (["active" | "standby" | "deactivated"] per transport path),
    ``cross_traffic`` (list of dicts, docs/architecture.md), ``start_s`` (0),
    ``subflow_paths`` (topology path of each transport path; default one per path),
    ``receive_window_bytes`` (6 MiB), ``send_buffer_bytes`` (4 MiB), ``reinject_on_pto``
    (True), ``cwnd_validation`` ("rfc9002": an under-used window never grows; "linux": slow
    start grows while the window's peak flight is at least half of cwnd), ``initial_rtt_s``
    (0.333), ``mtu`` (1500), ``carrier`` ("leo": the
    transport on the link devices with its own 28-byte header; "udp": over ns-3 UDP sockets
    and IPv4, the same trajectories, slower; cpp/doc/transport.md), ``tcp_buffer_bytes`` (0 = automatic: send buffer BDP + queue
    of the largest path, receive buffer twice that, for TCP cross traffic), ``recovery`` ("rfc9002"; "tcp", "quic-draft",
    "picoquic": the loss-recovery preset, ``recovery_presets()``), ``recovery_params``
    ({setting: value} overriding the timer preset's values), ``hystart`` (HyStart++, RFC 9406,
    for cc "cubic" and "newreno"; default off), ``ecn`` (the transport's ECN, RFC 9000
    section 13.4: ECT data packets, ACK_ECN counts, validation; default off), ``flows`` (flows
    beside the connection:
    ``transport`` "mpquic" | "tcp" | "udp_onoff" | "leotp", docs/architecture.md; a leotp flow
    takes a ``leotp`` dict: ``variant`` "A".."D", ``target_buffer_packets``, ``cache_blocks``,
    ``midnode_fraction``, cpp/doc/leotp.md), ``field_paths`` ({key: field path}: how errors
    name each key; "config.<key>" for a key it lacks)
:param paths: PathTimeline dicts (NumPy arrays plus ``t0_s``, ``dt_s``, ``queue_packets``;
    optional ``kind`` and ``slant_range_m``); in the hop topology, the connection's routes
    collapsed end to end
:param network: ``None`` (the path topology: one link per path) or the hop topology's dict:
    ``nodes`` (names), optional ``kinds`` (one node kind per node: "terminal", "satellite",
    "ground_station", "server", "router"; LEOTP places its Midnodes by kind), ``links`` (dicts
    with ``a``, ``b`` and the PathTimeline arrays, down =
    a -> b), ``routes`` (dicts with ``times_s``, ``nodes``, ``offsets``) and ``path_routes``
    (route of each path); config ``flows`` then name routes (``cross_traffic`` still names
    paths: each runs over its path's route)
:raises ValueError: for any invalid key or value (the message names it)
:raises RuntimeError: if another simulation is open in this process)doc")
        .def(py::init<py::handle, py::handle, py::handle>(),
             py::arg("config"),
             py::arg("paths"),
             py::arg("network") = py::none())
        .def("step",
             &PySimulation::Step,
             py::arg("dt_s"),
             R"doc(Advance the simulation by ``dt_s`` seconds.

:return: measurements of the interval: per transport path arrays of shape ``(n_paths,)``
    (``cwnd_bytes``, ``bytes_in_flight``, ``srtt_s``, ``min_rtt_s``, ``rttvar_s``,
    ``latest_rtt_s``, ``delivered_bytes``, ``sent_bytes``, ``sent_packets``, ``delivery_rate_bps``,
    ``send_rate_bps``, ``lost_packets``, ``retransmitted_packets``, ``drops_outage``,
    ``drops_random``, ``drops_overflow``, ``drops_aqm``, ``queue_delay_s`` (the connection's
    data packets' mean time in link queues, NaN without packets), ``in_outage``,
    ``path_state``, ``handovers``,
    ``ssthresh_bytes``, ``pacing_rate_bps``, ``pto_count``, ``rate_sample_bps``,
    ``spurious_losses``, ``suppressed_losses``, ``persistent_congestion``,
    ``reinjected_packets``, ``rto_count``, ``in_loss_state``, ``time_to_rto_s``, ``ecn_state`` (0 off, 1 testing,
    2 unknown, 3 capable, 4 failed), ``ect_sent_packets``, ``ce_packets``) and
    0-d connection arrays (``goodput_bytes``, ``reorder_buffer_bytes``, ``hol_delay_s``,
    ``completed``, ``completion_time_s``, ``time_s``, ``interval_s``), plus
    ``cross_traffic_rx_bytes`` (one entry per cross-traffic flow); per flow (0: the
    connection, then config ``flows``) ``flow_goodput_bytes``, ``flow_packets``,
    ``flow_owd_mean_s``, ``flow_owd_p50_s``, ``flow_owd_p99_s``, ``flow_owd_max_s``,
    ``flow_queue_delay_s`` (NaN without packets), ``flow_cwnd_bytes``, ``flow_rtt_s``
    (snapshots; NaN for UDP), ``flow_sent_packets`` (data packets the source sent),
    ``flow_lost_packets`` (declared by mpquic senders; NaN for other flows); per subflow
    of every mpquic flow (the connection's paths first, then config ``flows``' in order)
    ``subflow_flow`` (its flow), ``subflow_cwnd_bytes``, ``subflow_bytes_in_flight``,
    ``subflow_srtt_s``, ``subflow_min_rtt_s``, ``subflow_rttvar_s``,
    ``subflow_delivered_bytes``, ``subflow_sent_packets``, ``subflow_lost_packets``,
    ``subflow_pacing_rate_bps``, ``subflow_path_state``, ``subflow_rto_count``,
    ``subflow_in_loss_state``, ``subflow_time_to_rto_s``, ``subflow_ecn_state``,
    ``subflow_ect_sent_packets``, ``subflow_ce_packets``, ``subflow_queue_delay_s``; per link ``(n_links, 2)`` arrays (column 0:
    down = a -> b, 1: up) ``link_queue_packets``, ``link_tx_bytes``, ``link_utilization``,
    ``link_drops_outage``, ``link_drops_random``, ``link_drops_overflow``, ``link_drops_aqm``,
    ``link_drops_ecn`` (ECN-capable packets a link drops, ``ecn_handling: drop``),
    ``link_mark_packets`` (ECN CE marks), ``link_sojourn_s`` (mean queue sojourn of the packets
    sent, NaN if none); per route (hop
    topology) ``route_drops_no_route``)doc")
        .def("measurements",
             &PySimulation::Measurements,
             "The measurements of the last step (or of time 0 before the first step).")
        .def("set_cwnd",
             &PySimulation::SetCwnd,
             py::arg("cwnd_bytes"),
             "Per-path congestion windows in bytes (cc='external'; at least 2 packets).")
        .def("set_pacing_rate",
             &PySimulation::SetPacingRate,
             py::arg("rate_bps"),
             "Per-path pacing rates in bit/s, 0 = unpaced (cc='external').")
        .def("set_flow_cwnd",
             &PySimulation::SetFlowCwnd,
             py::arg("flow"),
             py::arg("cwnd_bytes"),
             R"doc(Congestion windows in bytes of flow ``flow``'s subflows, one per subflow.

Flow 0 is the connection, then config ``flows``; the flow must be an ``mpquic`` flow with cc
'external' (its controller keeps at least 2 packets).

:raises ValueError: naming the flow: no such flow, not mpquic, not external, wrong count, or
    a value that is not finite or outside [0, 1e15])doc")
        .def("set_flow_pacing_rate",
             &PySimulation::SetFlowPacingRate,
             py::arg("flow"),
             py::arg("rate_bps"),
             R"doc(Pacing rates in bit/s of flow ``flow``'s subflows, 0 = unpaced (cc 'external').

:raises ValueError: naming the flow, as ``set_flow_cwnd``; rates must be 0 or in [1e3, 1e13])doc")
        .def("set_flow_cwnd_gain",
             &PySimulation::SetFlowCwndGain,
             py::arg("flow"),
             py::arg("gains"),
             R"doc(Window gains of flow ``flow``'s subflows, one per subflow (cc 'residual+<base>').

Each subflow's window and pacing rate become its base controller's times the gain, held until
the next call (cpp/model/cc/mp-residual.h); a gain equal to the one in force changes nothing.

:raises ValueError: naming the flow: no such flow, not mpquic, not residual, wrong count, or a
    gain that is not finite or outside [1/16, 16])doc")
        .def("leotp_stats",
             &PySimulation::LeotpStats,
             py::arg("flow"),
             py::arg("samples") = false,
             R"doc(The state and counters of LEOTP flow ``flow`` (cpp/doc/leotp.md, "Measurements").

``consumer``: bytes delivered, Interests by kind, TR timeouts, void headers received, RTT and
RTO, its last-hop controller, and the one-way delays of chunks' first copies (never
retransmitted / retransmitted: ``recovery_time_median_s``); ``producer``: payload bytes sent
(retransmissions included), its buffer and rate; ``midnodes``: per Midnode (node order) its
counters and state (``rate_bps`` the rate it sends downstream at, ``send_rate_bps`` the rate
it asks upstream, buffer, ``mean_buffer_bytes`` since the previous call, window, hop RTT).
``samples=True`` adds the delays as arrays.)doc")
        .def(
            "recovery_stats",
            &PySimulation::RecoveryStats,
            py::arg("flow"),
            py::arg("samples") = false,
            R"doc(The first-copy one-way delays of flow ``flow``'s data, cumulative since the start.

For an ns-3 TCP flow, each data segment from its first transmission at the source's IP layer to
its first arrival at the sink's (a segment sent again before it arrived is retransmitted); for
a LEOTP flow, each chunk's first copy at the Consumer from the Producer's first transmission.
``clean`` / ``retransmitted``: how many; ``owd_mean_s``, ``owd_median_s`` and the
``retransmitted_owd_*`` of each; ``recovery_time_median_s`` (``_mean_s``): the retransmitted
copies' median (mean) delay less the others' median (cpp/doc/leotp.md, "Measurements"). Zero
counts and NaN for mpquic and UDP flows (their retransmissions are new packets).
``samples=True`` adds the delays as arrays (``owd_s``, ``retransmitted_owd_s``).)doc")
        .def("flow_n_paths",
             &PySimulation::FlowNPaths,
             py::arg("flow"),
             "Subflows of flow ``flow`` (the connection: its transport paths; 0 for a flow that "
             "is not mpquic).")
        .def_property_readonly("n_flows",
                               &PySimulation::NFlows,
                               "Flows: the connection and config ``flows``.")
        .def("set_weights",
             &PySimulation::SetWeights,
             py::arg("weights"),
             "Per-path scheduler weights, >= 0, one > 0 (scheduler='external').")
        .def("set_path_choice",
             &PySimulation::SetPathChoice,
             py::arg("path"),
             "Send everything on one path (scheduler='external').")
        .def("set_path_state",
             &PySimulation::SetPathState,
             py::arg("path"),
             py::arg("state"),
             "Set a path 'active', 'standby' or 'deactivated'.")
        .def_property_readonly("now", &PySimulation::Now, "Simulation time (s).")
        .def_property_readonly("done",
                               &PySimulation::Done,
                               "True once the file (workload 'file') was delivered.")
        .def_property_readonly("n_paths", &PySimulation::NPaths, "Number of transport paths.")
        .def_property_readonly("closed", &PySimulation::Closed)
        .def_property_readonly("events",
                               &PySimulation::Events,
                               "ns-3 events executed so far (for benchmarks).")
        .def("close", &PySimulation::Close, "Destroy the simulator (idempotent).")
        .def(
            "__enter__",
            [](PySimulation& s) -> PySimulation& { return s; },
            py::return_value_policy::reference_internal)
        .def("__exit__", [](PySimulation& s, py::args) { s.Close(); });

    m.def(
        "cc_algorithms",
        []() {
            // every name config['cc'] accepts: the plain controllers, then each wrapper around
            // each of them ("freeze+cubic")
            std::vector<std::string> plain;
            std::vector<std::string> wrappers;
            for (const auto& e : ns3::MpAlgorithmRegistry::Cc().List())
            {
                (e.wrapper ? wrappers : plain).push_back(e.name);
            }
            std::vector<std::string> out = plain;
            for (const auto& w : wrappers)
            {
                for (const auto& p : plain)
                {
                    out.push_back(w + "+" + p);
                }
            }
            return out;
        },
        "Every name config['cc'] accepts: the controllers, then each wrapper around each "
        "controller ('freeze+cubic').");
    m.def(
        "recovery_presets",
        []() {
            py::dict out;
            for (const auto& name : ns3::MpRecoveryConfig::Names())
            {
                ns3::MpLossRecovery::Recovery r;
                ns3::MpRecoveryConfig::Parse(name, r);
                out[py::str(name)] = leogym::RecoveryToDict(ns3::MpRecoveryConfig::Preset(r));
            }
            return out;
        },
        "The loss-recovery presets config['recovery'] accepts, each with the values that "
        "config['recovery_params'] may override (cpp/doc/transport.md, 'Recovery presets').");
    m.def(
        "schedulers",
        []() {
            std::vector<std::string> out;
            for (const auto& e : ns3::MpAlgorithmRegistry::Scheduler().List())
            {
                out.push_back(e.name);
            }
            return out;
        },
        "Names usable as config['scheduler'].");
    m.def(
        "algorithm_parameters",
        [](const std::string& kind, const std::string& name) {
            if (kind == "cc")
            {
                return DescribeAlgorithm(ns3::MpAlgorithmRegistry::Cc(), name);
            }
            if (kind == "scheduler")
            {
                return DescribeAlgorithm(ns3::MpAlgorithmRegistry::Scheduler(), name);
            }
            throw std::invalid_argument("kind: must be 'cc' or 'scheduler'");
        },
        py::arg("kind"),
        py::arg("name"),
        "Parameters (ns-3 attributes) of an algorithm: {name: {type, default, min, max, help, "
        "default_text}}. default, min and max are in the units config['cc_params'] takes "
        "(seconds for times, bool for booleans); min/max are None where the attribute's "
        "checker sets no bound (booleans, or the type's own limit). default_text is ns-3's "
        "serialisation of the default.");
    m.def(
        "validate_simulation_config",
        [](py::handle config) { leogym::SimulationConfigFromDict(config); },
        py::arg("config"),
        "Check a Simulation config dict without building anything; raises ValueError naming "
        "the key.");
}
