// SPDX-License-Identifier: GPL-2.0-only
//
// The config dict of _core.Simulation (simulation-config.h).

#include "bindings/simulation-config.h"

#include "bindings/flow-config.h"
#include "bindings/leo-python-inputs.h"
#include "bindings/recovery-config.h"
#include "model/registry/mp-algorithm-registry.h"

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace py = pybind11;

namespace leogym
{

ConfigFieldNames::ConfigFieldNames(py::handle config)
{
    auto cfg = py::reinterpret_borrow<py::dict>(config);
    if (!cfg.contains("field_paths") || cfg["field_paths"].is_none())
    {
        return;
    }
    py::handle paths = cfg["field_paths"];
    if (!py::isinstance<py::dict>(paths))
    {
        throw std::invalid_argument("config.field_paths: must be a dict of {key: field path}");
    }
    for (auto item : py::reinterpret_borrow<py::dict>(paths))
    {
        const std::string key = ToString(item.first, "config.field_paths: a key");
        m_paths[key] = ToString(item.second, "config.field_paths." + key);
    }
}

std::string
ConfigFieldNames::operator()(const std::string& key) const
{
    auto it = m_paths.find(key);
    return it != m_paths.end() ? it->second : "config." + key;
}

ns3::MpPathState
PathStateFromString(const std::string& s, const std::string& field)
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

namespace
{

/// The config dict (SimulationConfigFromDict), its keys named in errors by @p names.
ns3::LeoSimulationConfig
ConfigFromDict(py::handle config, const ConfigFieldNames& names)
{
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
                                                "queues",
                                                "field_paths"};
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
        const std::string f = names(key);
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
            c.packetBytes = static_cast<uint32_t>(ToIntIn(v, f, ranges::kTrafficPacketBytes));
        }
        else if (key == "cc")
        {
            c.cc = ToString(v, f);
        }
        else if (key == "cc_params")
        {
            c.ccParams = ParamsFromDict(v, names("cc_params"));
        }
        else if (key == "scheduler")
        {
            c.scheduler = ToString(v, f);
        }
        else if (key == "scheduler_params")
        {
            c.schedulerParams = ParamsFromDict(v, names("scheduler_params"));
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
            c.fileBytes = static_cast<uint64_t>(ToInt(v, f, 0, ranges::kTrafficFileBytes.hi));
            haveFileBytes = true;
        }
        else if (key == "ack_every")
        {
            c.ackEvery = static_cast<uint32_t>(ToIntIn(v, f, ranges::kTransportAckEvery));
        }
        else if (key == "max_ack_delay_s")
        {
            c.maxAckDelayS = ToSecondsIn(v, f, ranges::kTransportMaxAckDelayS);
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
                c.initialPathStates.push_back(PathStateFromString(ToString(seq[i], fi), fi));
            }
        }
        else if (key == "cross_traffic")
        {
            c.crossTraffic = CrossTrafficFromList(v, names("cross_traffic"));
        }
        else if (key == "start_s")
        {
            c.startS = ToSecondsIn(v, f, ranges::kTrafficStartS);
        }
        else if (key == "subflow_paths")
        {
            c.subflowPaths =
                IntList(v, f, ranges::kTransportSubflowPaths.lo, ranges::kTransportSubflowPaths.hi);
        }
        else if (key == "receive_window_bytes")
        {
            c.receiveWindowBytes =
                static_cast<uint64_t>(ToIntIn(v, f, ranges::kTransportReceiveWindowBytes));
        }
        else if (key == "send_buffer_bytes")
        {
            c.sendBufferBytes =
                static_cast<uint64_t>(ToIntIn(v, f, ranges::kTransportSendBufferBytes));
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
            c.initialRttS = ToSecondsIn(v, f, ranges::kTransportInitialRttS);
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
            c.tcpBufferBytes =
                static_cast<uint32_t>(ToIntIn(v, f, ranges::kTransportTcpBufferBytes));
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
        throw std::invalid_argument(names("file_bytes") + ": must be > 0 for workload 'file'");
    }
    if (c.packetBytes + 28 > c.mtu)
    {
        throw std::invalid_argument(names("packet_bytes") + ": " + std::to_string(c.packetBytes) +
                                    " + 28 bytes of IPv4/UDP headers exceeds mtu " +
                                    std::to_string(c.mtu));
    }
    if (c.ecn && c.leotpConnection)
    {
        throw std::invalid_argument(names("ecn") +
                                    ": applies to the mpquic connection, not to connection "
                                    "'leotp'");
    }
    c.recovery = RecoveryFromPython(recovery, recoveryParams, names("recovery"));
    if (hystart >= 0)
    {
        // HyStart++ is an attribute of the controllers that have it (cubic, newreno).
        try
        {
            ns3::MpAlgorithmRegistry::Cc().Validate(c.cc,
                                                    {{"HyStart", double(hystart)}},
                                                    names("cc"),
                                                    names("cc_params"));
        }
        catch (const std::invalid_argument&)
        {
            throw std::invalid_argument(names("hystart") + ": cc '" + c.cc +
                                        "' has no HyStart option (cubic and newreno have it)");
        }
        auto it = c.ccParams.find("HyStart");
        if (it != c.ccParams.end() && (it->second != 0) != (hystart == 1))
        {
            throw std::invalid_argument(names("hystart") + ": contradicts " + names("cc_params") +
                                        ".HyStart; set one of them");
        }
        c.ccParams["HyStart"] = double(hystart);
    }
    ns3::MpAlgorithmRegistry::Cc().Validate(c.cc, c.ccParams, names("cc"), names("cc_params"));
    ns3::MpAlgorithmRegistry::Scheduler().Validate(c.scheduler,
                                                   c.schedulerParams,
                                                   names("scheduler"),
                                                   names("scheduler_params"));
    return c;
}

} // namespace

ns3::LeoSimulationConfig
SimulationConfigFromDict(py::handle config)
{
    if (!py::isinstance<py::dict>(config))
    {
        throw std::invalid_argument("config: must be a dict");
    }
    return ConfigFromDict(config, ConfigFieldNames(config));
}

} // namespace leogym
