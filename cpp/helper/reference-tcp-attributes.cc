// SPDX-License-Identifier: GPL-2.0-only
//
// ns-3 TCP attribute defaults of a reference flow (reference-tcp-attributes.h).

#include "reference-tcp-attributes.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/integer.h"
#include "ns3/nstime.h"
#include "ns3/rtt-estimator.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <variant>

namespace ns3
{

namespace
{

/// The TypeIds whose attributes tcp_attributes may set (the TypeId itself or a subclass).
std::vector<TypeId>
TcpAttributeFamilies()
{
    return {TcpSocket::GetTypeId(),
            TcpL4Protocol::GetTypeId(),
            TcpCongestionOps::GetTypeId(),
            TcpRecoveryOps::GetTypeId(),
            RttEstimator::GetTypeId()};
}

std::vector<std::string>
SplitOn(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    for (char c : s)
    {
        if (c == sep)
        {
            out.push_back(cur);
            cur.clear();
        }
        else
        {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

ResolvedTcpAttribute
ResolveTcpAttribute(const TcpAttributeSetting& s)
{
    const std::string field = "tcp_attributes['" + s.path + "']";
    auto fail = [&field](const std::string& what) {
        throw std::invalid_argument(field + ": " + what);
    };
    // --- where: "ns3::TcpSocketBase::MinRto" -> TypeId ns3::TcpSocketBase, attribute MinRto
    const std::string::size_type pos = s.path.rfind("::");
    if (pos == std::string::npos || pos == 0 || pos + 2 >= s.path.size())
    {
        fail("must be '<TypeId name>::<attribute>', e.g. 'ns3::TcpSocketBase::MinRto'");
    }
    const std::string tidName = s.path.substr(0, pos);
    const std::string attrName = s.path.substr(pos + 2);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(tidName, &tid))
    {
        fail("no TypeId '" + tidName + "'");
    }
    bool tcp = false;
    for (const TypeId& family : TcpAttributeFamilies())
    {
        tcp = tcp || tid == family || tid.IsChildOf(family);
    }
    if (!tcp)
    {
        fail("'" + tidName +
             "' is not a TCP TypeId (TcpSocket, TcpSocketBase, TcpL4Protocol, a "
             "TcpCongestionOps, a TcpRecoveryOps or an RttEstimator)");
    }
    ResolvedTcpAttribute r;
    r.path = s.path;
    r.tid = tid;
    bool found = false;
    for (uint32_t j = 0; j < tid.GetAttributeN(); ++j)
    {
        if (tid.GetAttribute(j).name == attrName)
        {
            r.index = j;
            found = true;
        }
    }
    if (!found)
    {
        // Config::SetDefault only looks at the TypeId's own attributes: name the right one.
        for (TypeId p = tid.GetParent(); p != p.GetParent(); p = p.GetParent())
        {
            for (uint32_t j = 0; j < p.GetAttributeN(); ++j)
            {
                if (p.GetAttribute(j).name == attrName)
                {
                    fail("'" + attrName + "' is defined on " + p.GetName() + "; use '" +
                         p.GetName() + "::" + attrName + "'");
                }
            }
        }
        std::string known;
        for (uint32_t j = 0; j < tid.GetAttributeN(); ++j)
        {
            known += " " + tid.GetAttribute(j).name;
        }
        fail("no attribute '" + attrName + "' on " + tidName + "; known:" + known);
    }
    static const std::map<std::string, std::string> reserved = {
        {"ns3::TcpSocket::SegmentSize", "segment_bytes"},
        {"ns3::TcpSocket::SndBufSize", "snd_buf_bytes"},
        {"ns3::TcpSocket::RcvBufSize", "rcv_buf_bytes"},
        {"ns3::TcpL4Protocol::SocketType", "tcp_variant"}};
    if (auto it = reserved.find(s.path); it != reserved.end())
    {
        fail("set by the option " + it->second + ", not here");
    }
    const TypeId::AttributeInformation info = tid.GetAttribute(r.index);
    if (!(info.flags & TypeId::ATTR_CONSTRUCT))
    {
        fail("not settable at construction, so a default has no effect");
    }

    // --- what: convert by the attribute's value type, then ns-3's own checker ------------
    const std::string vt = info.checker->GetValueTypeName();
    const bool isBool = std::holds_alternative<bool>(s.value);
    const bool isInt = std::holds_alternative<int64_t>(s.value);
    const bool isDouble = std::holds_alternative<double>(s.value);
    const bool isString = std::holds_alternative<std::string>(s.value);
    const double number = isInt ? static_cast<double>(std::get<int64_t>(s.value))
                                : (isDouble ? std::get<double>(s.value) : 0.0);
    if (vt == "ns3::BooleanValue")
    {
        if (!isBool)
        {
            fail("must be a bool");
        }
        r.value = Create<BooleanValue>(std::get<bool>(s.value));
    }
    else if (vt == "ns3::UintegerValue" || vt == "ns3::IntegerValue")
    {
        if (!isInt)
        {
            fail("must be an int");
        }
        const int64_t v = std::get<int64_t>(s.value);
        if (vt == "ns3::UintegerValue")
        {
            if (v < 0)
            {
                fail("must be >= 0");
            }
            r.value = Create<UintegerValue>(static_cast<uint64_t>(v));
        }
        else
        {
            r.value = Create<IntegerValue>(v);
        }
    }
    else if (vt == "ns3::DoubleValue")
    {
        if (!(isInt || isDouble) || !std::isfinite(number))
        {
            fail("must be a finite number");
        }
        r.value = Create<DoubleValue>(number);
    }
    else if (vt == "ns3::TimeValue")
    {
        if (!(isInt || isDouble) || !std::isfinite(number) || number < 0.0 || number > 1e6)
        {
            fail("must be a number of seconds in [0, 1e6]");
        }
        r.value = Create<TimeValue>(Seconds(number));
    }
    else if (vt.rfind("ns3::EnumValue", 0) == 0)
    {
        // EnumChecker::GetValue asserts on an unknown name: check the name first.
        const std::vector<std::string> names =
            SplitOn(info.checker->GetUnderlyingTypeInformation(), '|');
        if (!isString ||
            std::find(names.begin(), names.end(), std::get<std::string>(s.value)) == names.end())
        {
            std::string list;
            for (const auto& n : names)
            {
                list += (list.empty() ? "" : ", ") + n;
            }
            fail("must be one of " + list);
        }
        r.value = info.checker->Create();
        if (!r.value->DeserializeFromString(std::get<std::string>(s.value), info.checker))
        {
            fail("not accepted by ns-3");
        }
    }
    else if (vt == "ns3::TypeIdValue")
    {
        // TypeIdValue::DeserializeFromString aborts on an unknown name: look it up here, and
        // require the base class ns-3 will DynamicCast the created object to.
        static const std::map<std::string, TypeId> bases = {
            {"ns3::TcpL4Protocol::RecoveryType", TcpRecoveryOps::GetTypeId()},
            {"ns3::TcpL4Protocol::RttEstimatorType", RttEstimator::GetTypeId()}};
        const auto base = bases.find(s.path);
        if (base == bases.end())
        {
            fail("TypeId-valued attribute not supported");
        }
        TypeId v;
        if (!isString || !TypeId::LookupByNameFailSafe(std::get<std::string>(s.value), &v) ||
            !v.IsChildOf(base->second) || !v.HasConstructor())
        {
            fail("must name a constructible subclass of " + base->second.GetName() +
                 " (e.g. 'ns3::TcpClassicRecovery', 'ns3::TcpPrrRecovery')");
        }
        r.value = Create<TypeIdValue>(v);
    }
    else
    {
        fail("attributes of type " + vt + " are not supported");
    }
    if (!info.checker->Check(*r.value))
    {
        fail("out of range (" + info.checker->GetUnderlyingTypeInformation() + ")");
    }
    static const std::set<std::string> atLeastOne = {"ns3::TcpSocket::InitialCwnd",
                                                     "ns3::TcpSocket::DelAckCount",
                                                     "ns3::TcpSocketBase::ReTxThreshold"};
    if (atLeastOne.count(s.path) && std::get<int64_t>(s.value) < 1)
    {
        fail("must be >= 1");
    }
    return r;
}

} // namespace

std::vector<ResolvedTcpAttribute>
ResolveTcpAttributes(const std::vector<TcpAttributeSetting>& settings)
{
    std::vector<ResolvedTcpAttribute> out;
    out.reserve(settings.size());
    for (const auto& s : settings)
    {
        out.push_back(ResolveTcpAttribute(s));
    }
    return out;
}

void
ValidateTcpAttributes(const std::vector<TcpAttributeSetting>& settings)
{
    ResolveTcpAttributes(settings);
}

TcpDefaultsScope::~TcpDefaultsScope()
{
    for (auto it = m_saved.rbegin(); it != m_saved.rend(); ++it)
    {
        std::get<0>(*it).SetAttributeInitialValue(std::get<1>(*it), std::get<2>(*it));
    }
}

void
TcpDefaultsScope::Set(const ResolvedTcpAttribute& a)
{
    TypeId tid = a.tid;
    m_saved.emplace_back(tid, a.index, tid.GetAttribute(a.index).initialValue);
    if (!Config::SetDefaultFailSafe(a.path, *a.value))
    {
        throw std::logic_error(a.path + ": Config::SetDefaultFailSafe refused a checked value");
    }
}

} // namespace ns3
