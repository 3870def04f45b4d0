// SPDX-License-Identifier: GPL-2.0-only
//
// The flow dicts of a Simulation config (flow-config.h).

#include "bindings/flow-config.h"

#include "bindings/config-ranges.h"
#include "bindings/leo-python-inputs.h"

#include <cmath>
#include <set>
#include <stdexcept>

namespace py = pybind11;

namespace leogym
{

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
            s.targetBufferPackets = ToRealIn(v, f, ranges::kLeotpTargetBufferPackets);
        }
        else if (key == "cache_blocks")
        {
            s.cacheBlocks = static_cast<uint64_t>(ToIntIn(v, f, ranges::kLeotpCacheBlocks));
        }
        else if (key == "midnode_fraction")
        {
            s.midnodeFraction = ToRealIn(v, f, ranges::kLeotpMidnodeFraction);
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
            fl.startS = ToSecondsIn(v, f, ranges::kFlowStartS);
        }
        else if (key == "stop_s")
        {
            fl.stopS = ToSecondsIn(v, f, ranges::kFlowStopS); // absent: until the end
        }
        else if (key == "file_bytes")
        {
            // 0: bulk (the core's convention; a scenario's file flow has at least 1 byte).
            fl.fileBytes = static_cast<uint64_t>(ToInt(v, f, 0, ranges::kFlowFileBytes.hi));
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
            fl.onS = ToSecondsIn(v, f, ranges::kFlowOnS);
        }
        else if (key == "off_s")
        {
            fl.offS = ToSecondsIn(v, f, ranges::kFlowOffS);
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
            fl.minRtoS = ToSecondsIn(v, f, ranges::kFlowMinRtoS); // transport: with the flow
        }
        else if (key == "delayed_ack_s")
        {
            // RFC 1122, section 4.2.3.2: an ACK's delay MUST be less than 0.5 s.
            fl.delAckS = ToSecondsIn(v, f, ranges::kFlowDelayedAckS); // transport: with the flow
        }
        else if (key == "rto_granularity_s")
        {
            // transport: checked with the flow
            fl.rtoGranularityS = ToSecondsIn(v, f, ranges::kFlowRtoGranularityS);
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

} // namespace leogym
