// SPDX-License-Identifier: GPL-2.0-only

#include "mp-algorithm-registry.h"

#include "model/cc/mp-congestion-ops.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/integer.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <array>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

MpAlgorithmRegistry::MpAlgorithmRegistry(const char* kind)
    : m_kind(kind)
{
}

MpAlgorithmRegistry&
MpAlgorithmRegistry::Cc()
{
    static MpAlgorithmRegistry reg = [] {
        MpAlgorithmRegistry r("congestion control");
        r.Register("newreno", "ns3::MpNewReno");
        r.Register("cubic", "ns3::MpCubic");
        r.Register("external", "ns3::MpExternalCc");
        r.Register("lia", "ns3::MpLia");
        r.Register("olia", "ns3::MpOlia");
        r.Register("balia", "ns3::MpBalia");
        r.Register("bbr", "ns3::MpBbr");
        return r;
    }();
    return reg;
}

MpAlgorithmRegistry&
MpAlgorithmRegistry::Scheduler()
{
    static MpAlgorithmRegistry reg = [] {
        MpAlgorithmRegistry r("scheduler");
        r.Register("minrtt", "ns3::MpMinRttScheduler");
        r.Register("roundrobin", "ns3::MpRoundRobinScheduler");
        r.Register("ecf", "ns3::MpEcfScheduler");
        r.Register("blest", "ns3::MpBlestScheduler");
        r.Register("external", "ns3::MpExternalScheduler");
        return r;
    }();
    return reg;
}

void
MpAlgorithmRegistry::Register(const std::string& name,
                              const std::string& typeId,
                              bool wrapper,
                              bool alternate)
{
    m_entries[name] = Entry{name, typeId, wrapper, wrapper && alternate};
}

std::vector<MpAlgorithmRegistry::Entry>
MpAlgorithmRegistry::List() const
{
    std::vector<Entry> out;
    for (const auto& [k, e] : m_entries)
    {
        out.push_back(e);
    }
    return out;
}

namespace
{
std::string
Names(const std::map<std::string, MpAlgorithmRegistry::Entry>& entries, bool wrappers)
{
    std::string s;
    for (const auto& [k, e] : entries)
    {
        if (e.wrapper != wrappers)
        {
            continue;
        }
        s += (s.empty() ? "" : ", ") + ("'" + k + "'");
    }
    return s;
}
} // namespace

MpAlgorithmRegistry::Parts
MpAlgorithmRegistry::Resolve(const std::string& name, const std::string& field) const
{
    std::vector<std::string> names;
    for (std::size_t from = 0;;)
    {
        std::size_t plus = name.find('+', from);
        names.push_back(name.substr(from, plus == std::string::npos ? plus : plus - from));
        if (plus == std::string::npos)
        {
            break;
        }
        from = plus + 1;
    }
    auto plain = [&](const std::string& part) {
        auto it = m_entries.find(part);
        if (it == m_entries.end() || it->second.wrapper)
        {
            throw std::invalid_argument(field + ": unknown " + m_kind + " '" + part +
                                        "' (known: " + Names(m_entries, false) + ")");
        }
        return &it->second;
    };
    Parts parts;
    if (names.size() == 1)
    {
        parts.inner = plain(names[0]);
        return parts;
    }
    auto w = m_entries.find(names[0]);
    if (w == m_entries.end() || !w->second.wrapper)
    {
        std::string known = Names(m_entries, true);
        throw std::invalid_argument(
            field + ": unknown wrapper '" + names[0] + "' in '" + name +
            "' (known wrappers: " + (known.empty() ? std::string("none") : known) + ")");
    }
    parts.outer = &w->second;
    parts.inner = plain(names[1]);
    if (parts.outer->alternate && parts.inner->name == "external")
    {
        // The wrapper with alternates (residual) scales its controller's window by the
        // agent's gains; with 'external' there nothing would set that window (set_flow_cwnd
        // does not drive a residual flow).
        throw std::invalid_argument(field + ": '" + name + "': wrapper '" + names[0] +
                                    "' scales a native controller's window; 'external' cannot "
                                    "be its controller");
    }
    if (names.size() == 2)
    {
        return parts;
    }
    if (names.size() > 3 || !parts.outer->alternate)
    {
        throw std::invalid_argument(field + ": '" + name + "': wrapper '" + names[0] +
                                    (parts.outer->alternate
                                         ? "' takes a controller and one alternate"
                                         : "' takes one controller"));
    }
    parts.alternate = plain(names[2]);
    if (parts.alternate->name == "external")
    {
        // Nothing would set its window: set_flow_cwnd drives the base, not the alternate.
        throw std::invalid_argument(field + ": '" + name +
                                    "': an alternate runs on its own; 'external' cannot be one");
    }
    return parts;
}

bool
MpAlgorithmRegistry::Has(const std::string& name) const
{
    try
    {
        Resolve(name, "name");
        return true;
    }
    catch (const std::invalid_argument&)
    {
        return false;
    }
}

Ptr<AttributeValue>
MpAlgorithmRegistry::MakeValue(TypeId tid,
                               const std::string& key,
                               double value,
                               const std::string& fieldName,
                               bool& found)
{
    TypeId::AttributeInformation info;
    found = tid.LookupAttributeByName(key, &info);
    if (!found)
    {
        return nullptr;
    }
    if (!(info.flags & TypeId::ATTR_SET) || !(info.flags & TypeId::ATTR_CONSTRUCT))
    {
        throw std::invalid_argument(fieldName + ": attribute cannot be set");
    }
    if (!std::isfinite(value))
    {
        throw std::invalid_argument(fieldName + ": must be a finite number");
    }
    std::string type = info.checker->GetValueTypeName();
    Ptr<AttributeValue> v;
    if (type == "ns3::DoubleValue")
    {
        v = ns3::Create<DoubleValue>(value);
    }
    else if (type == "ns3::UintegerValue")
    {
        if (value < 0 || std::floor(value) != value || value > 1.8e19)
        {
            throw std::invalid_argument(fieldName + ": must be a non-negative integer, got " +
                                        std::to_string(value));
        }
        v = ns3::Create<UintegerValue>(static_cast<uint64_t>(value));
    }
    else if (type == "ns3::IntegerValue")
    {
        if (std::floor(value) != value || std::fabs(value) > 9.2e18)
        {
            throw std::invalid_argument(fieldName + ": must be an integer, got " +
                                        std::to_string(value));
        }
        v = ns3::Create<IntegerValue>(static_cast<int64_t>(value));
    }
    else if (type == "ns3::BooleanValue")
    {
        if (value != 0.0 && value != 1.0)
        {
            throw std::invalid_argument(fieldName + ": must be 0 or 1 (boolean), got " +
                                        std::to_string(value));
        }
        v = ns3::Create<BooleanValue>(value == 1.0);
    }
    else if (type == "ns3::TimeValue")
    {
        if (std::fabs(value) > 1e9)
        {
            throw std::invalid_argument(fieldName + ": a time in seconds, |value| <= 1e9");
        }
        v = ns3::Create<TimeValue>(Seconds(value));
    }
    else
    {
        throw std::invalid_argument(fieldName + ": attribute of type " + type +
                                    " cannot be set from a number");
    }
    if (!info.checker->Check(*v))
    {
        std::ostringstream os;
        os << fieldName << ": value " << value << " is out of the allowed range (" << info.help
           << ")";
        throw std::invalid_argument(os.str());
    }
    return v;
}

void
MpAlgorithmRegistry::Route(const std::string& name,
                           const Parts& parts,
                           const Params& params,
                           const std::string& field,
                           const std::string& paramsField,
                           ObjectFactory* factories) const
{
    const std::array<const Entry*, 3> entries = {parts.outer, parts.inner, parts.alternate};
    std::array<TypeId, 3> tids;
    for (std::size_t i = 0; i < entries.size(); ++i)
    {
        if (!entries[i])
        {
            continue;
        }
        if (!TypeId::LookupByNameFailSafe(entries[i]->typeId, &tids[i]))
        {
            throw std::invalid_argument(field + ": '" + entries[i]->name + "' is not built in");
        }
        if (factories)
        {
            factories[i].SetTypeId(tids[i]);
        }
    }
    for (const auto& [key, value] : params)
    {
        const std::string f = paramsField + "." + key;
        bool taken = false;
        // The wrapper's own attribute first; otherwise each controller that has it.
        for (std::size_t i = 0; i < entries.size() && !(i == 1 && taken); ++i)
        {
            bool found = false;
            Ptr<AttributeValue> v = entries[i] ? MakeValue(tids[i], key, value, f, found) : nullptr;
            if (found && factories)
            {
                factories[i].Set(key, *v);
            }
            taken = taken || found;
        }
        if (!taken)
        {
            std::string known;
            for (const auto& [k, v] : Describe(name))
            {
                known += (known.empty() ? "" : ", ") + k;
            }
            throw std::invalid_argument(f + ": unknown parameter of '" + name + "' (known: " +
                                        (known.empty() ? std::string("none") : known) + ")");
        }
    }
}

void
MpAlgorithmRegistry::Validate(const std::string& name,
                              const Params& params,
                              const std::string& field,
                              const std::string& paramsField) const
{
    Route(name, Resolve(name, field), params, field, paramsField, nullptr);
}

Ptr<Object>
MpAlgorithmRegistry::Create(const std::string& name,
                            const Params& params,
                            const std::string& field,
                            const std::string& paramsField) const
{
    const Parts parts = Resolve(name, field);
    std::array<ObjectFactory, 3> factories; // the wrapper, the controller, the alternate
    Route(name, parts, params, field, paramsField, factories.data());
    Ptr<Object> in = factories[1].Create();
    if (!parts.outer)
    {
        return in;
    }
    Ptr<MpCongestionOpsWrapper> w = DynamicCast<MpCongestionOpsWrapper>(factories[0].Create());
    Ptr<MpCongestionOps> cc = DynamicCast<MpCongestionOps>(in);
    if (!w || !cc)
    {
        throw std::invalid_argument(field + ": '" + parts.outer->name +
                                    "' is not a congestion-control wrapper");
    }
    w->SetInner(cc);
    if (parts.alternate)
    {
        w->SetAlternate(DynamicCast<MpCongestionOps>(factories[2].Create()));
    }
    return w;
}

std::map<std::string, std::vector<std::string>>
MpAlgorithmRegistry::Describe(const std::string& name) const
{
    const Parts parts = Resolve(name, "name");
    std::map<std::string, std::vector<std::string>> out;
    // The wrapper's attributes last, so that they describe a name both have.
    for (const Entry* e : {parts.alternate, parts.inner, parts.outer})
    {
        if (!e)
        {
            continue;
        }
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(e->typeId, &tid))
        {
            continue;
        }
        for (TypeId t = tid;; t = t.GetParent())
        {
            for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
            {
                TypeId::AttributeInformation info = t.GetAttribute(i);
                if (!(info.flags & TypeId::ATTR_SET))
                {
                    continue;
                }
                out[info.name] = {info.checker->GetValueTypeName(),
                                  info.originalInitialValue->SerializeToString(info.checker),
                                  info.help};
            }
            if (t == t.GetParent() || t.GetName() == "ns3::Object")
            {
                break;
            }
        }
    }
    return out;
}

} // namespace ns3
