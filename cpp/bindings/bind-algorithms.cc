// SPDX-License-Identifier: GPL-2.0-only
//
// The algorithm registries in Python: _core.cc_algorithms, _core.schedulers and
// _core.algorithm_parameters (each algorithm's ns-3 attributes, with their defaults and the
// ranges their checkers accept).

#include "bindings/registry.h"
#include "model/registry/mp-algorithm-registry.h"

#include <pybind11/stl.h>

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/integer.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace
{

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
    // the registry's Validate ("freeze+cubic": MpFreeze, then MpCubic; "residual+bbr3+maco":
    // MpResidual, MpBbr3, MpMaco).
    auto description = reg.Describe(name); // checks the name
    std::vector<ns3::TypeId> tids;
    std::vector<std::string> parts;
    std::stringstream names(name);
    for (std::string part; std::getline(names, part, '+');)
    {
        parts.push_back(part);
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

LEOGYM_REGISTER_BINDINGS(algorithms)
{
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
            const auto& registry = ns3::MpAlgorithmRegistry::Cc();
            for (const auto& w : wrappers)
            {
                for (const auto& p : plain)
                {
                    if (registry.Has(w + "+" + p)) // Resolve decides, as for config['cc']
                    {
                        out.push_back(w + "+" + p);
                    }
                }
            }
            return out;
        },
        "Every name config['cc'] accepts: the controllers, then each wrapper around each "
        "controller ('freeze+cubic'). Not listed: a wrapper with an alternate "
        "('residual+bbr3+maco'), one per pair of controllers.");
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
}
