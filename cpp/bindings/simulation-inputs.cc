// SPDX-License-Identifier: GPL-2.0-only
//
// The inputs of _core.Simulation (simulation-inputs.h).

#include "bindings/simulation-inputs.h"

#include "bindings/flow-config.h"
#include "bindings/leo-python-inputs.h"
#include "bindings/simulation-config.h"

#include <pybind11/numpy.h>

#include <cmath>
#include <set>
#include <stdexcept>

namespace py = pybind11;

namespace leogym
{

namespace
{

/// The queue disciplines of config["queues"] ({"paths": [...], "links": [...]} or
/// {"paths": [...], "every_link": {...}}, each optional; empty when absent; @p everyLink: the
/// one entry of @p links applies to every link; @p field: how "queues" is named in errors).
/// @throws std::invalid_argument naming the field
void
QueuesFromConfig(py::handle config,
                 const std::string& field,
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
        throw std::invalid_argument(field + ": must be a dict");
    }
    auto q = py::reinterpret_borrow<py::dict>(cfg["queues"]);
    for (auto item : q)
    {
        const std::string key = py::str(item.first);
        if (key == "every_link")
        {
            // One discipline for every link of the hop network (links shared between paths).
            links.assign(1, QueueConfigFromDict(item.second, field + ".every_link"));
            everyLink = true;
            continue;
        }
        if (key != "paths" && key != "links")
        {
            throw std::invalid_argument(field + "." + key + ": unknown key");
        }
        if (key == "links" && everyLink)
        {
            throw std::invalid_argument(field + ".links: give links or every_link");
        }
        if (py::isinstance<py::str>(item.second) || !py::isinstance<py::sequence>(item.second))
        {
            throw std::invalid_argument(field + "." + key + ": must be a list");
        }
        auto seq = py::reinterpret_borrow<py::sequence>(item.second);
        auto& out = key == "paths" ? paths : links;
        for (std::size_t i = 0; i < seq.size(); ++i)
        {
            out.push_back(
                QueueConfigFromDict(seq[i], field + "." + key + "[" + std::to_string(i) + "]"));
        }
    }
}

/**
 * The network dict of a hop topology: nodes (list of names), kinds (optional: list of node
 * kinds, one per node), links (list of dicts: a, b and
 * the PathTimeline arrays of the link, down = a -> b), routes (list of dicts: times_s
 * float64[k], nodes int[m], offsets int[k + 1], step k's nodes being nodes[offsets[k]:
 * offsets[k + 1]]) and path_routes (route of each path). Errors name "network.<field>".
 * @p linkQueues: the queue of each link (or, with @p everyLink, of all), named @p queuesField.
 */
ns3::LeoHopNetworkSpec
NetworkFromDict(py::handle o,
                std::vector<uint32_t>& pathRoutes,
                const std::vector<ns3::LeoQueueConfig>& linkQueues,
                bool everyLink,
                const std::string& queuesField)
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
        ns3::LeoPathArrays arrays = PathArraysFromDict(ld, f);
        if (everyLink)
        {
            arrays.queue = linkQueues.front();
        }
        else if (!linkQueues.empty())
        {
            if (linkQueues.size() != links.size())
            {
                throw std::invalid_argument(queuesField +
                                            ".links: one queue per network link expected");
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

/// The per-path extras of the path dicts that the link does not read: slant_range_m (empty
/// without it) and whether the path is a satellite one (kind; without it: a finite SNR).
void
PathExtrasFromList(py::handle paths,
                   const std::vector<ns3::LeoPathArrays>& arrays,
                   std::vector<std::vector<double>>& slant,
                   std::vector<bool>& sat)
{
    auto seq = py::reinterpret_borrow<py::sequence>(paths);
    for (std::size_t i = 0; i < seq.size(); ++i)
    {
        const std::string label = "paths[" + std::to_string(i) + "]";
        auto d = py::reinterpret_borrow<py::dict>(seq[i]);
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
            const std::string k = ToString(d["kind"], label + ".kind");
            if (k != "satellite" && k != "terrestrial")
            {
                throw std::invalid_argument(label +
                                            ".kind: must be 'satellite' or 'terrestrial', "
                                            "got '" +
                                            k + "'");
            }
            isSat = k == "satellite";
        }
        sat.push_back(isSat);
    }
}

} // namespace

SimulationInputs
SimulationInputsFromPython(py::handle config, py::handle paths, py::handle network)
{
    SimulationInputs in;
    in.config = SimulationConfigFromDict(config);
    const ConfigFieldNames names(config);
    in.paths = PathArraysFromList(paths, "paths");
    std::vector<ns3::LeoQueueConfig> pathQueues;
    std::vector<ns3::LeoQueueConfig> linkQueues;
    bool everyLink = false;
    const std::string queues = names("queues");
    QueuesFromConfig(config, queues, pathQueues, linkQueues, everyLink);
    if (!pathQueues.empty())
    {
        if (pathQueues.size() != in.paths.size())
        {
            throw std::invalid_argument(queues + ".paths: one queue per path expected");
        }
        for (std::size_t i = 0; i < in.paths.size(); ++i)
        {
            in.paths[i].queue = pathQueues[i];
        }
    }
    PathExtrasFromList(paths, in.paths, in.slantRange, in.satellite);
    if (!network.is_none())
    {
        in.network = NetworkFromDict(network, in.pathRoutes, linkQueues, everyLink, queues);
    }
    return in;
}

std::vector<double>
DoubleVector(py::handle o, const std::string& field)
{
    using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
    if (py::isinstance<py::str>(o))
    {
        throw std::invalid_argument(field + ": must be a 1-D numeric array");
    }
    if (IsComplex(o))
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

} // namespace leogym
