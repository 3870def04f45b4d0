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
MpAlgorithmRegistry::Register(const std::string& name, const std::string& typeId, bool wrapper)
{
    m_entries[name] = Entry{name, typeId, wrapper};
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

void
MpAlgorithmRegistry::Resolve(const std::string& name,
                             const std::string& field,
                             const Entry*& outer,
                             const Entry*& inner) const
{
    outer = nullptr;
    inner = nullptr;
    auto plus = name.find('+');
    std::string base = plus == std::string::npos ? name : name.substr(plus + 1);
    std::string wrap = plus == std::string::npos ? "" : name.substr(0, plus);
    auto it = m_entries.find(base);
    if (it == m_entries.end() || it->second.wrapper)
    {
        throw std::invalid_argument(field + ": unknown " + m_kind + " '" + base +
                                    "' (known: " + Names(m_entries, false) + ")");
    }
    inner = &it->second;
    if (!wrap.empty())
    {
        auto w = m_entries.find(wrap);
        if (w == m_entries.end() || !w->second.wrapper)
        {
            std::string known = Names(m_entries, true);
            throw std::invalid_argument(
                field + ": unknown wrapper '" + wrap + "' in '" + name +
                "' (known wrappers: " + (known.empty() ? std::string("none") : known) + ")");
        }
        outer = &w->second;
    }
}

bool
MpAlgorithmRegistry::Has(const std::string& name) const
{
    try
    {
        const Entry* o;
        const Entry* i;
        Resolve(name, "name", o, i);
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
MpAlgorithmRegistry::Validate(const std::string& name,
                              const Params& params,
                              const std::string& field,
                              const std::string& paramsField) const
{
    const Entry* outer;
    const Entry* inner;
    Resolve(name, field, outer, inner);
    TypeId innerTid;
    if (!TypeId::LookupByNameFailSafe(inner->typeId, &innerTid))
    {
        throw std::invalid_argument(field + ": '" + inner->name + "' is not built in");
    }
    TypeId outerTid;
    if (outer && !TypeId::LookupByNameFailSafe(outer->typeId, &outerTid))
    {
        throw std::invalid_argument(field + ": '" + outer->name + "' is not built in");
    }
    for (const auto& [key, value] : params)
    {
        std::string f = paramsField + "." + key;
        bool found = false;
        if (outer)
        {
            MakeValue(outerTid, key, value, f, found);
        }
        if (!found)
        {
            MakeValue(innerTid, key, value, f, found);
        }
        if (!found)
        {
            auto desc = Describe(name);
            std::string known;
            for (const auto& [k, v] : desc)
            {
                known += (known.empty() ? "" : ", ") + k;
            }
            throw std::invalid_argument(f + ": unknown parameter of '" + name + "' (known: " +
                                        (known.empty() ? std::string("none") : known) + ")");
        }
    }
}

Ptr<Object>
MpAlgorithmRegistry::Create(const std::string& name,
                            const Params& params,
                            const std::string& field,
                            const std::string& paramsField) const
{
    Validate(name, params, field, paramsField);
    const Entry* outer;
    const Entry* inner;
    Resolve(name, field, outer, inner);
    ObjectFactory innerF(inner->typeId);
    ObjectFactory outerF;
    TypeId innerTid = TypeId::LookupByName(inner->typeId);
    TypeId outerTid;
    if (outer)
    {
        outerF.SetTypeId(outer->typeId);
        outerTid = TypeId::LookupByName(outer->typeId);
    }
    for (const auto& [key, value] : params)
    {
        std::string f = paramsField + "." + key;
        bool found = false;
        if (outer)
        {
            Ptr<AttributeValue> v = MakeValue(outerTid, key, value, f, found);
            if (found)
            {
                outerF.Set(key, *v);
                continue;
            }
        }
        Ptr<AttributeValue> v = MakeValue(innerTid, key, value, f, found);
        innerF.Set(key, *v);
    }
    Ptr<Object> in = innerF.Create();
    if (!outer)
    {
        return in;
    }
    Ptr<Object> out = outerF.Create();
    Ptr<MpCongestionOpsWrapper> w = DynamicCast<MpCongestionOpsWrapper>(out);
    Ptr<MpCongestionOps> cc = DynamicCast<MpCongestionOps>(in);
    if (!w || !cc)
    {
        throw std::invalid_argument(field + ": '" + outer->name +
                                    "' is not a congestion-control wrapper");
    }
    w->SetInner(cc);
    return out;
}

std::map<std::string, std::vector<std::string>>
MpAlgorithmRegistry::Describe(const std::string& name) const
{
    const Entry* outer;
    const Entry* inner;
    Resolve(name, "name", outer, inner);
    std::map<std::string, std::vector<std::string>> out;
    for (const Entry* e : {inner, outer})
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
