// SPDX-License-Identifier: GPL-2.0-only
//
// _core.Simulation: the native simulation contract of docs/architecture.md, over LeoSimulation.

#include "bindings/leo-python-inputs.h"
#include "bindings/leotp-stats.h"
#include "bindings/recovery-config.h"
#include "bindings/registry.h"
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

using leogym::ToBool;
using leogym::ToDouble;
using leogym::ToInt;
using leogym::ToString;

ns3::MpPathState
StateFromString(const std::string& s, const std::string& field)
{
    if (s == "active")
    {
        return ns3::MpPathState::ACTIVE;
    }
    if (s == "standby")
    {
        return ns3::MpPathState::STANDBY;
    }
    if (s == "deactivated")
    {
        return ns3::MpPathState::DEACTIVATED;
    }
    throw std::invalid_argument(field + ": unknown path state '" + s +
                                "' (known: 'active', 'standby', 'deactivated')");
}

std::map<std::string, double>
ParamsFromDict(py::handle o, const std::string& field)
{
    if (!py::isinstance<py::dict>(o))
    {
        throw std::invalid_argument(field + ": must be a dict of {name: number}");
    }
    std::map<std::string, double> out;
    for (auto item : py::reinterpret_borrow<py::dict>(o))
    {
        if (!py::isinstance<py::str>(item.first))
        {
            throw std::invalid_argument(field + ": keys must be strings");
        }
        std::string key = py::str(item.first);
        if (py::isinstance<py::bool_>(item.second))
        {
            out[key] = item.second.cast<bool>() ? 1.0 : 0.0;
            continue;
        }
        out[key] = ToDouble(item.second, field + "." + key);
    }
    return out;
}

std::vector<uint32_t>
IntList(py::handle o, const std::string& field, long long lo, long long hi)
{
    if (py::isinstance<py::str>(o) || !py::isinstance<py::sequence>(o))
    {
        throw std::invalid_argument(field + ": must be a list of ints");
    }
    std::vector<uint32_t> out;
    auto seq = py::reinterpret_borrow<py::sequence>(o);
    for (std::size_t i = 0; i < seq.size(); ++i)
    {
        out.push_back(
            static_cast<uint32_t>(ToInt(seq[i], field + "[" + std::to_string(i) + "]", lo, hi)));
    }
    return out;
}

/// Largest UDP payload of a data packet: a 9000-byte jumbo-frame IP MTU less the IPv4 (20 B) and
/// UDP (8 B) headers. Python's scenario schema (traffic.packet_bytes) has the same bound.
constexpr long long kMaxPacketBytes = 9000 - 20 - 8;

/// The "leotp" dict of a leotp flow: variant ("A" .. "D"), target_buffer_packets, cache_blocks,
/// midnode_fraction and optional protocol constants (cpp/doc/leotp.md, "Parameters"). Ranges
/// are checked with the flow (LeotpFlowSettings::Check). Unknown keys are errors.
ns3::LeotpFlowSettings
LeotpFromDict(py::handle o, const std::string& label)
{
    if (!py::isinstance<py::dict>(o))
    {
        throw std::invalid_argument(label + ": must be a dict");
    }
    ns3::LeotpFlowSettings s;
    for (auto item : py::reinterpret_borrow<py::dict>(o))
    {
        const std::string key = py::str(item.first);
        const std::string f = label + "." + key;
        py::handle v = item.second;
        if (key == "variant")
        {
            s.variant = ns3::LeotpFlowSettings::ParseVariant(ToString(v, f), f);
        }
        else if (key == "target_buffer_packets")
        {
            s.targetBufferPackets = ToDouble(v, f);
        }
        else if (key == "cache_blocks")
        {
            s.cacheBlocks = static_cast<uint64_t>(ToInt(v, f, 0, 1LL << 40));
        }
        else if (key == "midnode_fraction")
        {
            s.midnodeFraction = ToDouble(v, f);
        }
        else if (key == "hole_threshold")
        {
            s.hole.threshold = static_cast<uint32_t>(ToInt(v, f, 0, 1000000));
        }
        else if (key == "hole_expiry_s")
        {
            s.hole.expiryS = ToDouble(v, f);
        }
        else if (key == "min_rto_s")
        {
            s.rto.minRtoS = ToDouble(v, f);
        }
        else if (key == "idle_timeout_s")
        {
            s.idleTimeoutS = ToDouble(v, f);
        }
        else if (key == "k")
        {
            s.hop.k = ToDouble(v, f);
        }
        else if (key == "queue_threshold_bytes")
        {
            s.hop.queueThresholdBytes = ToDouble(v, f);
        }
        else if (key == "min_rtt_window_s")
        {
            s.hop.minRttWindowS = ToDouble(v, f);
        }
        else if (key == "additive_increase")
        {
            s.hop.additiveIncrease = ToDouble(v, f);
        }
        else if (key == "min_rate_bps")
        {
            s.hop.minRateBps = ToDouble(v, f);
        }
        else if (key == "max_rate_bps")
        {
            s.hop.maxRateBps = ToDouble(v, f);
        }
        else if (key == "initial_rate_bps")
        {
            s.hop.initialRateBps = ToDouble(v, f);
        }
        else
        {
            throw std::invalid_argument(f + ": unknown key");
        }
    }
    return s;
}

/// One flow dict of config["flows"]: transport ("mpquic" | "tcp" | "udp_onoff" | "leotp"),
/// routes, and optionally cc, cc_params, scheduler, scheduler_params, start_s, stop_s,
/// file_bytes, rate_bps, on_s, off_s, leotp. Unknown keys are errors.
ns3::LeoFlowSpec
FlowFromDict(py::handle o, const std::string& label)
{
    if (!py::isinstance<py::dict>(o))
    {
        throw std::invalid_argument(label + ": must be a dict");
    }
    static const std::set<std::string> known = {"transport",
                                                "routes",
                                                "cc",
                                                "cc_params",
                                                "scheduler",
                                                "scheduler_params",
                                                "start_s",
                                                "stop_s",
                                                "file_bytes",
                                                "rate_bps",
                                                "on_s",
                                                "off_s",
                                                "leotp",
                                                "min_rto_s",
                                                "delayed_ack_s",
                                                "rto_granularity_s",
                                                "ecn",
                                                "name"};
    ns3::LeoFlowSpec fl;
    bool haveRoutes = false;
    bool haveCc = false;
    for (auto item : py::reinterpret_borrow<py::dict>(o))
    {
        const std::string key = py::str(item.first);
        const std::string f = label + "." + key;
        py::handle v = item.second;
        if (!known.count(key))
        {
            throw std::invalid_argument(f + ": unknown key");
        }
        if (key == "transport")
        {
            const std::string t = ToString(v, f);
            if (t == "mpquic")
            {
                fl.transport = ns3::LeoFlowSpec::MPQUIC;
            }
            else if (t == "tcp")
            {
                fl.transport = ns3::LeoFlowSpec::TCP;
            }
            else if (t == "udp_onoff")
            {
                fl.transport = ns3::LeoFlowSpec::UDP_ONOFF;
            }
            else if (t == "leotp")
            {
                fl.transport = ns3::LeoFlowSpec::LEOTP;
            }
            else
            {
                throw std::invalid_argument(f +
                                            ": must be 'mpquic', 'tcp', 'udp_onoff' or "
                                            "'leotp', got '" +
                                            t + "'");
            }
        }
        else if (key == "routes")
        {
            fl.routes = IntList(v, f, 0, (1LL << 21) - 1);
            haveRoutes = true;
        }
        else if (key == "cc")
        {
            fl.cc = ToString(v, f);
            haveCc = true;
        }
        else if (key == "cc_params")
        {
            fl.ccParams = ParamsFromDict(v, f);
        }
        else if (key == "scheduler")
        {
            fl.scheduler = ToString(v, f);
        }
        else if (key == "scheduler_params")
        {
            fl.schedulerParams = ParamsFromDict(v, f);
        }
        else if (key == "start_s")
        {
            fl.startS = ToDouble(v, f);
        }
        else if (key == "stop_s")
        {
            fl.stopS = ToDouble(v, f);
        }
        else if (key == "file_bytes")
        {
            fl.fileBytes = static_cast<uint64_t>(ToInt(v, f, 0, 1LL << 50));
        }
        else if (key == "rate_bps")
        {
            fl.rateBps = ToDouble(v, f);
            if (!std::isfinite(fl.rateBps) || fl.rateBps < 1.0 || fl.rateBps > 1e12)
            {
                throw std::invalid_argument(f + ": must be in [1, 1e12] bit/s");
            }
        }
        else if (key == "on_s")
        {
            fl.onS = ToDouble(v, f);
        }
        else if (key == "off_s")
        {
            fl.offS = ToDouble(v, f);
        }
        else if (key == "name")
        {
            ToString(v, f); // carried for the caller's records only
        }
        else if (key == "leotp")
        {
            fl.leotp = LeotpFromDict(v, f);
        }
        else if (key == "min_rto_s")
        {
            fl.minRtoS = ToDouble(v, f); // range and transport: checked with the flow
        }
        else if (key == "delayed_ack_s")
        {
            fl.delAckS = ToDouble(v, f); // range and transport: checked with the flow
        }
        else if (key == "rto_granularity_s")
        {
            fl.rtoGranularityS = ToDouble(v, f); // range and transport: checked with the flow
        }
        else if (key == "ecn")
        {
            fl.ecn = ToBool(v, f); // transport: checked with the flow
        }
    }
    if (!haveRoutes)
    {
        throw std::invalid_argument(label + ".routes: every flow needs a route");
    }
    if (!haveCc && fl.transport == ns3::LeoFlowSpec::MPQUIC)
    {
        fl.cc = "cubic";
    }
    return fl;
}

/// Parse and check the config dict (every key optional; unknown keys are errors).
ns3::LeoSimulationConfig
ConfigFromDict(py::handle config)
{
    if (!py::isinstance<py::dict>(config))
    {
        throw std::invalid_argument("config: must be a dict");
    }
    // Algorithm names pass through as given: the registry parses wrappers ("freeze+cubic").
    static const std::set<std::string> known = {"seed",
                                                "run",
                                                "packet_bytes",
                                                "cc",
                                                "cc_params",
                                                "scheduler",
                                                "scheduler_params",
                                                "workload",
                                                "file_bytes",
                                                "ack_every",
                                                "max_ack_delay_s",
                                                "pacing",
                                                "initial_path_states",
                                                "cross_traffic",
                                                "start_s",
                                                "subflow_paths",
                                                "receive_window_bytes",
                                                "send_buffer_bytes",
                                                "reinject_on_pto",
                                                "initial_rtt_s",
                                                "mtu",
                                                "carrier",
                                                "tcp_buffer_bytes",
                                                "cwnd_validation",
                                                "recovery",
                                                "recovery_params",
                                                "hystart",
                                                "ecn",
                                                "flows",
                                                "connection",
                                                "leotp",
                                                "queues"};
    ns3::LeoSimulationConfig c;
    std::string workload = "bulk";
    bool haveFileBytes = false;
    std::string recovery = "rfc9002";
    py::object recoveryParams = py::none();
    int hystart = -1; // -1: the controller's default
    for (auto item : py::reinterpret_borrow<py::dict>(config))
    {
        if (!py::isinstance<py::str>(item.first))
        {
            throw std::invalid_argument("config: keys must be strings");
        }
        const std::string key = py::str(item.first);
        py::handle v = item.second;
        const std::string f = "config." + key;
        if (!known.count(key))
        {
            std::string list;
            for (const auto& k : known)
            {
                list += (list.empty() ? "" : ", ") + k;
            }
            throw std::invalid_argument(f + ": unknown key (known: " + list + ")");
        }
        if (key == "seed")
        {
            c.seed = static_cast<uint32_t>(ToInt(v, f, 1, std::numeric_limits<uint32_t>::max()));
        }
        else if (key == "run")
        {
            c.run = static_cast<uint64_t>(ToInt(v, f, 0, std::numeric_limits<long long>::max()));
        }
        else if (key == "packet_bytes")
        {
            c.packetBytes = static_cast<uint32_t>(ToInt(v, f, 64, kMaxPacketBytes));
        }
        else if (key == "cc")
        {
            c.cc = ToString(v, f);
        }
        else if (key == "cc_params")
        {
            c.ccParams = ParamsFromDict(v, "config.cc_params");
        }
        else if (key == "scheduler")
        {
            c.scheduler = ToString(v, f);
        }
        else if (key == "scheduler_params")
        {
            c.schedulerParams = ParamsFromDict(v, "config.scheduler_params");
        }
        else if (key == "workload")
        {
            workload = ToString(v, f);
            if (workload != "bulk" && workload != "file")
            {
                throw std::invalid_argument(f + ": must be 'bulk' or 'file', got '" + workload +
                                            "'");
            }
        }
        else if (key == "file_bytes")
        {
            c.fileBytes = static_cast<uint64_t>(ToInt(v, f, 0, 1LL << 50));
            haveFileBytes = true;
        }
        else if (key == "ack_every")
        {
            c.ackEvery = static_cast<uint32_t>(ToInt(v, f, 1, 1000));
        }
        else if (key == "max_ack_delay_s")
        {
            c.maxAckDelayS = ToDouble(v, f);
            if (!std::isfinite(c.maxAckDelayS) || c.maxAckDelayS < 0 || c.maxAckDelayS > 10)
            {
                throw std::invalid_argument(f + ": must be in [0, 10] seconds");
            }
        }
        else if (key == "pacing")
        {
            c.pacing = ToBool(v, f);
        }
        else if (key == "initial_path_states")
        {
            if (py::isinstance<py::str>(v) || !py::isinstance<py::sequence>(v))
            {
                throw std::invalid_argument(f + ": must be a list of 'active' | 'standby' | "
                                                "'deactivated'");
            }
            auto seq = py::reinterpret_borrow<py::sequence>(v);
            for (std::size_t i = 0; i < seq.size(); ++i)
            {
                std::string fi = f + "[" + std::to_string(i) + "]";
                c.initialPathStates.push_back(StateFromString(ToString(seq[i], fi), fi));
            }
        }
        else if (key == "cross_traffic")
        {
            c.crossTraffic = leogym::CrossTrafficFromList(v, "config.cross_traffic");
        }
        else if (key == "start_s")
        {
            c.startS = ToDouble(v, f);
            if (!std::isfinite(c.startS) || c.startS < 0 || c.startS > 1e6)
            {
                throw std::invalid_argument(f + ": must be in [0, 1e6] seconds");
            }
        }
        else if (key == "subflow_paths")
        {
            c.subflowPaths = IntList(v, f, 0, 253);
        }
        else if (key == "receive_window_bytes")
        {
            c.receiveWindowBytes = static_cast<uint64_t>(ToInt(v, f, 1024, 1LL << 40));
        }
        else if (key == "send_buffer_bytes")
        {
            c.sendBufferBytes = static_cast<uint64_t>(ToInt(v, f, 1024, 1LL << 40));
        }
        else if (key == "reinject_on_pto")
        {
            c.reinjectOnPto = ToBool(v, f);
        }
        else if (key == "cwnd_validation")
        {
            std::string mode = ToString(v, f);
            if (mode != "rfc9002" && mode != "linux")
            {
                throw std::invalid_argument(f + ": must be 'rfc9002' or 'linux', got '" + mode +
                                            "'");
            }
            c.cwndValidation = mode == "linux" ? 1 : 0;
        }
        else if (key == "initial_rtt_s")
        {
            c.initialRttS = ToDouble(v, f);
            if (!std::isfinite(c.initialRttS) || c.initialRttS < 1e-6 || c.initialRttS > 60)
            {
                throw std::invalid_argument(f + ": must be in [1e-6, 60] seconds");
            }
        }
        else if (key == "mtu")
        {
            c.mtu = static_cast<uint16_t>(ToInt(v, f, 68, 65535));
        }
        else if (key == "carrier")
        {
            const std::string carrier = ToString(v, f);
            if (carrier != "leo" && carrier != "udp")
            {
                throw std::invalid_argument(f + ": must be 'leo' or 'udp', got '" + carrier + "'");
            }
            c.carrier = carrier == "udp" ? ns3::MpCarrierKind::UDP : ns3::MpCarrierKind::LEO;
        }
        else if (key == "tcp_buffer_bytes")
        {
            c.tcpBufferBytes = static_cast<uint32_t>(ToInt(v, f, 0, 1LL << 30));
        }
        else if (key == "recovery")
        {
            recovery = ToString(v, f);
        }
        else if (key == "recovery_params")
        {
            recoveryParams = py::reinterpret_borrow<py::object>(v);
        }
        else if (key == "hystart")
        {
            hystart = ToBool(v, f) ? 1 : 0;
        }
        else if (key == "ecn")
        {
            c.ecn = ToBool(v, f);
        }
        else if (key == "connection")
        {
            const std::string t = ToString(v, f);
            if (t != "mpquic" && t != "leotp")
            {
                throw std::invalid_argument(f + ": must be 'mpquic' or 'leotp', got '" + t + "'");
            }
            c.leotpConnection = t == "leotp";
        }
        else if (key == "leotp")
        {
            c.leotp = LeotpFromDict(v, f);
        }
        else if (key == "flows")
        {
            if (py::isinstance<py::str>(v) || !py::isinstance<py::sequence>(v))
            {
                throw std::invalid_argument(f + ": must be a list of dicts");
            }
            auto seq = py::reinterpret_borrow<py::sequence>(v);
            for (std::size_t i = 0; i < seq.size(); ++i)
            {
                c.flows.push_back(FlowFromDict(seq[i], f + "[" + std::to_string(i) + "]"));
            }
        }
    }
    c.fileWorkload = workload == "file";
    if (c.fileWorkload && (!haveFileBytes || c.fileBytes == 0))
    {
        throw std::invalid_argument("config.file_bytes: must be > 0 for workload 'file'");
    }
    if (c.packetBytes + 28 > c.mtu)
    {
        throw std::invalid_argument("config.packet_bytes: " + std::to_string(c.packetBytes) +
                                    " + 28 bytes of IPv4/UDP headers exceeds mtu " +
                                    std::to_string(c.mtu));
    }
    if (c.ecn && c.leotpConnection)
    {
        throw std::invalid_argument("config.ecn: applies to the mpquic connection, not to "
                                    "connection 'leotp'");
    }
    c.recovery = leogym::RecoveryFromPython(recovery, recoveryParams, "config.recovery");
    if (hystart >= 0)
    {
        // HyStart++ is an attribute of the controllers that have it (cubic, newreno).
        try
        {
            ns3::MpAlgorithmRegistry::Cc().Validate(c.cc,
                                                    {{"HyStart", double(hystart)}},
                                                    "config.cc",
                                                    "config.cc_params");
        }
        catch (const std::invalid_argument&)
        {
            throw std::invalid_argument("config.hystart: cc '" + c.cc +
                                        "' has no HyStart option (cubic and newreno have it)");
        }
        auto it = c.ccParams.find("HyStart");
        if (it != c.ccParams.end() && (it->second != 0) != (hystart == 1))
        {
            throw std::invalid_argument(
                "config.hystart: contradicts config.cc_params.HyStart; set one of them");
        }
        c.ccParams["HyStart"] = double(hystart);
    }
    ns3::MpAlgorithmRegistry::Cc().Validate(c.cc, c.ccParams, "config.cc", "config.cc_params");
    ns3::MpAlgorithmRegistry::Scheduler().Validate(c.scheduler,
                                                   c.schedulerParams,
                                                   "config.scheduler",
                                                   "config.scheduler_params");
    return c;
}

std::vector<double>
DoubleVector(py::handle o, const std::string& field)
{
    using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
    if (py::isinstance<py::str>(o))
    {
        throw std::invalid_argument(field + ": must be a 1-D numeric array");
    }
    if (leogym::IsComplex(o))
    {
        throw std::invalid_argument(field + ": must be real, got complex values");
    }
    DoubleArray a = DoubleArray::ensure(o);
    if (!a || a.ndim() != 1)
    {
        PyErr_Clear();
        throw std::invalid_argument(field + ": must be a 1-D numeric array");
    }
    return std::vector<double>(a.data(), a.data() + a.shape(0));
}

/// A new, uninitialised NumPy array of T with ``nd`` (0 or 1) dimensions of ``n`` elements, made
/// with a single NumPy call: py::array_t's general constructor costs several times more, and a
/// step returns 37 arrays.
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
/// the process, so the measurement dict of a step does not build its 37 key strings again.
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

/**
 * The network dict of a hop topology: nodes (list of names), kinds (optional: list of node
 * kinds, one per node), links (list of dicts: a, b and
 * the PathTimeline arrays of the link, down = a -> b), routes (list of dicts: times_s
 * float64[k], nodes int[m], offsets int[k + 1], step k's nodes being nodes[offsets[k]:
 * offsets[k + 1]]) and path_routes (route of each path). Errors name "network.<field>".
 */
/// The queue disciplines of config["queues"] ({"paths": [...], "links": [...]} or
/// {"paths": [...], "every_link": {...}}, each optional; empty when absent; @p everyLink: the
/// one entry of @p links applies to every link). @throws std::invalid_argument naming the field
void
QueuesFromConfig(py::handle config,
                 std::vector<ns3::LeoQueueConfig>& paths,
                 std::vector<ns3::LeoQueueConfig>& links,
                 bool& everyLink)
{
    everyLink = false;
    auto cfg = py::reinterpret_borrow<py::dict>(config);
    if (!cfg.contains("queues") || cfg["queues"].is_none())
    {
        return;
    }
    if (!py::isinstance<py::dict>(cfg["queues"]))
    {
        throw std::invalid_argument("config.queues: must be a dict");
    }
    auto q = py::reinterpret_borrow<py::dict>(cfg["queues"]);
    for (auto item : q)
    {
        const std::string key = py::str(item.first);
        if (key == "every_link")
        {
            // One discipline for every link of the hop network (links shared between paths).
            links.assign(1, leogym::QueueConfigFromDict(item.second, "config.queues.every_link"));
            everyLink = true;
            continue;
        }
        if (key != "paths" && key != "links")
        {
            throw std::invalid_argument("config.queues." + key + ": unknown key");
        }
        if (key == "links" && everyLink)
        {
            throw std::invalid_argument("config.queues.links: give links or every_link");
        }
        if (py::isinstance<py::str>(item.second) || !py::isinstance<py::sequence>(item.second))
        {
            throw std::invalid_argument("config.queues." + key + ": must be a list");
        }
        auto seq = py::reinterpret_borrow<py::sequence>(item.second);
        auto& out = key == "paths" ? paths : links;
        for (std::size_t i = 0; i < seq.size(); ++i)
        {
            out.push_back(leogym::QueueConfigFromDict(seq[i],
                                                      "config.queues." + key + "[" +
                                                          std::to_string(i) + "]"));
        }
    }
}

ns3::LeoHopNetworkSpec
NetworkFromDict(py::handle o,
                std::vector<uint32_t>& pathRoutes,
                const std::vector<ns3::LeoQueueConfig>& linkQueues,
                bool everyLink)
{
    if (!py::isinstance<py::dict>(o))
    {
        throw std::invalid_argument("network: must be a dict or None");
    }
    auto d = py::reinterpret_borrow<py::dict>(o);
    static const std::set<std::string> known = {"nodes", "kinds", "links", "routes", "path_routes"};
    for (auto item : d)
    {
        const std::string key = py::str(item.first);
        if (!known.count(key))
        {
            throw std::invalid_argument("network." + key + ": unknown key");
        }
    }
    for (const char* key : {"nodes", "links", "routes", "path_routes"})
    {
        if (!d.contains(key))
        {
            throw std::invalid_argument(std::string("network.") + key + ": missing");
        }
    }
    auto list = [](py::handle v, const std::string& f) {
        if (py::isinstance<py::str>(v) || !py::isinstance<py::sequence>(v))
        {
            throw std::invalid_argument(f + ": must be a list");
        }
        return py::reinterpret_borrow<py::sequence>(v);
    };
    ns3::LeoHopNetworkSpec spec;
    auto nodes = list(d["nodes"], "network.nodes");
    if (nodes.size() > ns3::LeoHopTopology::kMaxNodes)
    {
        throw std::invalid_argument("network.nodes: at most " +
                                    std::to_string(ns3::LeoHopTopology::kMaxNodes) + " nodes");
    }
    for (std::size_t i = 0; i < nodes.size(); ++i)
    {
        spec.nodeNames.push_back(ToString(nodes[i], "network.nodes[" + std::to_string(i) + "]"));
    }
    if (d.contains("kinds"))
    {
        // Optional node kinds (LEOTP places its Midnodes by kind).
        auto kinds = list(d["kinds"], "network.kinds");
        if (kinds.size() != nodes.size())
        {
            throw std::invalid_argument("network.kinds: one kind per node expected");
        }
        for (std::size_t i = 0; i < kinds.size(); ++i)
        {
            spec.nodeKinds.push_back(
                ToString(kinds[i], "network.kinds[" + std::to_string(i) + "]"));
        }
    }
    const auto nNodes = static_cast<long long>(spec.nodeNames.size());
    auto links = list(d["links"], "network.links");
    if (links.size() > ns3::LeoHopTopology::kMaxLinks)
    {
        throw std::invalid_argument("network.links: at most " +
                                    std::to_string(ns3::LeoHopTopology::kMaxLinks) + " links");
    }
    for (std::size_t l = 0; l < links.size(); ++l)
    {
        const std::string f = "network.links[" + std::to_string(l) + "]";
        if (!py::isinstance<py::dict>(links[l]))
        {
            throw std::invalid_argument(f + ": must be a dict");
        }
        auto ld = py::reinterpret_borrow<py::dict>(links[l]);
        if (!ld.contains("a") || !ld.contains("b"))
        {
            throw std::invalid_argument(f + ": needs 'a' and 'b' (node indices)");
        }
        ns3::LeoHopLinkSpec ln;
        ln.a = static_cast<uint32_t>(ToInt(ld["a"], f + ".a", 0, nNodes - 1));
        ln.b = static_cast<uint32_t>(ToInt(ld["b"], f + ".b", 0, nNodes - 1));
        ns3::LeoPathArrays arrays = leogym::PathArraysFromDict(ld, f);
        if (everyLink)
        {
            arrays.queue = linkQueues.front();
        }
        else if (!linkQueues.empty())
        {
            if (linkQueues.size() != links.size())
            {
                throw std::invalid_argument("config.queues.links: one queue per network link "
                                            "expected");
            }
            arrays.queue = linkQueues[l];
        }
        ln.schedule = ns3::Create<ns3::LeoPathSchedule>(std::move(arrays), f);
        spec.links.push_back(ln);
    }
    auto routes = list(d["routes"], "network.routes");
    for (std::size_t r = 0; r < routes.size(); ++r)
    {
        const std::string f = "network.routes[" + std::to_string(r) + "]";
        if (!py::isinstance<py::dict>(routes[r]))
        {
            throw std::invalid_argument(f + ": must be a dict");
        }
        auto rd = py::reinterpret_borrow<py::dict>(routes[r]);
        for (const char* key : {"times_s", "nodes", "offsets"})
        {
            if (!rd.contains(key))
            {
                throw std::invalid_argument(f + "." + key + ": missing");
            }
        }
        ns3::LeoRouteSteps steps;
        steps.startS = DoubleVector(rd["times_s"], f + ".times_s");
        std::vector<uint32_t> flat = IntList(rd["nodes"], f + ".nodes", 0, nNodes - 1);
        std::vector<uint32_t> off =
            IntList(rd["offsets"], f + ".offsets", 0, static_cast<long long>(flat.size()));
        if (off.size() != steps.startS.size() + 1 || off.front() != 0 || off.back() != flat.size())
        {
            throw std::invalid_argument(f + ".offsets: needs one entry per step plus one, from 0 "
                                            "to len(nodes)");
        }
        for (std::size_t k = 0; k + 1 < off.size(); ++k)
        {
            if (off[k + 1] < off[k])
            {
                throw std::invalid_argument(f + ".offsets: must not decrease");
            }
            steps.nodes.emplace_back(flat.begin() + off[k], flat.begin() + off[k + 1]);
        }
        spec.routes.push_back(std::move(steps));
    }
    pathRoutes = IntList(d["path_routes"],
                         "network.path_routes",
                         0,
                         static_cast<long long>(spec.routes.size()) - 1);
    return spec;
}

/// The Python-facing object: owns a LeoSimulation and converts its measurements.
class PySimulation
{
  public:
    PySimulation(py::handle config, py::handle paths, py::handle network)
    {
        ns3::LeoSimulationConfig cfg = ConfigFromDict(config);
        std::vector<ns3::LeoPathArrays> arrays = leogym::PathArraysFromList(paths, "paths");
        std::vector<ns3::LeoQueueConfig> pathQueues;
        std::vector<ns3::LeoQueueConfig> linkQueues;
        bool everyLink = false;
        QueuesFromConfig(config, pathQueues, linkQueues, everyLink);
        if (!pathQueues.empty())
        {
            if (pathQueues.size() != arrays.size())
            {
                throw std::invalid_argument("config.queues.paths: one queue per path expected");
            }
            for (std::size_t i = 0; i < arrays.size(); ++i)
            {
                arrays[i].queue = pathQueues[i];
            }
        }
        // Optional per-path extras the link does not read: kind, slant_range_m.
        std::vector<std::vector<double>> slant;
        std::vector<bool> sat;
        auto seq = py::reinterpret_borrow<py::sequence>(paths);
        for (std::size_t i = 0; i < seq.size(); ++i)
        {
            py::handle p = seq[i];
            std::string label = "paths[" + std::to_string(i) + "]";
            auto d = py::reinterpret_borrow<py::dict>(p);
            if (d.contains("slant_range_m"))
            {
                slant.push_back(DoubleVector(d["slant_range_m"], label + ".slant_range_m"));
            }
            else
            {
                slant.emplace_back();
            }
            bool isSat = std::isfinite(arrays[i].snrDb.empty() ? NAN : arrays[i].snrDb[0]);
            if (d.contains("kind"))
            {
                std::string k = ToString(d["kind"], label + ".kind");
                if (k != "satellite" && k != "terrestrial")
                {
                    throw std::invalid_argument(label +
                                                ".kind: must be 'satellite' or "
                                                "'terrestrial', got '" +
                                                k + "'");
                }
                isSat = k == "satellite";
            }
            sat.push_back(isSat);
        }
        std::optional<ns3::LeoHopNetworkSpec> hop;
        std::vector<uint32_t> pathRoutes;
        if (!network.is_none())
        {
            hop = NetworkFromDict(network, pathRoutes, linkQueues, everyLink);
        }
        m_sim = std::make_unique<ns3::LeoSimulation>(cfg,
                                                     std::move(arrays),
                                                     slant,
                                                     sat,
                                                     std::move(hop),
                                                     std::move(pathRoutes));
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
        d[Key("time_to_next_handover_s")] = F64(m.timeToNextHandoverS);
        d[Key("snr_db")] = F64(m.snrDb);
        d[Key("elevation_deg")] = F64(m.elevationDeg);
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
        m_sim->SetPathState(idx, StateFromString(state, "state"));
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
    ``midnode_fraction``, cpp/doc/leotp.md)
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
    ``reinjected_packets``, ``time_to_next_handover_s``, ``snr_db``, ``elevation_deg``,
    ``rto_count``, ``in_loss_state``, ``time_to_rto_s``, ``ecn_state`` (0 off, 1 testing,
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
        [](py::handle config) { ConfigFromDict(config); },
        py::arg("config"),
        "Check a Simulation config dict without building anything; raises ValueError naming "
        "the key.");
}
