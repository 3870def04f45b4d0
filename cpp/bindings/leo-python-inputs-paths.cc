// SPDX-License-Identifier: GPL-2.0-only
//
// The conversions of leo-python-inputs.h, path part: the path dicts (PathArraysFromDict,
// PathArraysFromList) with their arrays, and their queue dicts (QueueConfigFromDict);
// leo-python-inputs.cc has the rest.

#include "bindings/leo-python-inputs.h"

#include <pybind11/numpy.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace py = pybind11;

namespace leogym
{

namespace
{

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

DoubleArray
ToArray(py::handle o, const std::string& field)
{
    if (py::isinstance<py::str>(o) || py::isinstance<py::bytes>(o))
    {
        Fail(field, "must be a numeric array, got a string");
    }
    if (IsComplex(o))
    {
        Fail(field, "must be real, got complex values");
    }
    DoubleArray a = DoubleArray::ensure(o);
    if (!a)
    {
        PyErr_Clear();
        Fail(field, "must be a numeric array convertible to float64");
    }
    return a;
}

std::vector<double>
ToVector(py::handle o, const std::string& field)
{
    DoubleArray a = ToArray(o, field);
    if (a.ndim() != 1)
    {
        Fail(field, "must be 1-D, got " + std::to_string(a.ndim()) + " dimensions");
    }
    const double* p = a.data();
    return std::vector<double>(p, p + a.shape(0));
}

} // namespace

ns3::LeoPathArrays
PathArraysFromDict(py::handle path, const std::string& label)
{
    const py::dict d = AsDict(path, label);
    ns3::LeoPathArrays a;
    auto field = [&](const char* key) { return label + "." + key; };
    auto required = [&](const char* key) -> py::handle {
        if (IsMissing(d, key))
        {
            Fail(field(key), "missing");
        }
        return d[key];
    };
    if (!IsMissing(d, "name"))
    {
        a.name = ToString(d["name"], field("name"));
    }
    else
    {
        a.name = label;
    }
    a.t0S = IsMissing(d, "t0_s") ? 0.0 : ToDouble(d["t0_s"], field("t0_s"));
    a.dtS = ToDouble(required("dt_s"), field("dt_s"));
    a.queuePackets = static_cast<uint32_t>(
        ToInt(required("queue_packets"), field("queue_packets"), 1, 100000000));
    a.delayDownS = ToVector(required("delay_down_s"), field("delay_down_s"));
    a.delayUpS = ToVector(required("delay_up_s"), field("delay_up_s"));
    a.rateDownBps = ToVector(required("rate_down_bps"), field("rate_down_bps"));
    a.rateUpBps = ToVector(required("rate_up_bps"), field("rate_up_bps"));
    a.lossDown = ToVector(required("loss_down"), field("loss_down"));
    a.lossUp = ToVector(required("loss_up"), field("loss_up"));
    if (!IsMissing(d, "snr_db"))
    {
        a.snrDb = ToVector(d["snr_db"], field("snr_db"));
    }
    if (!IsMissing(d, "elevation_deg"))
    {
        a.elevationDeg = ToVector(d["elevation_deg"], field("elevation_deg"));
    }
    if (!IsMissing(d, "serving_sat"))
    {
        const std::vector<double> s = ToVector(d["serving_sat"], field("serving_sat"));
        a.servingSat.reserve(s.size());
        for (std::size_t j = 0; j < s.size(); ++j)
        {
            if (!std::isfinite(s[j]) || s[j] != std::floor(s[j]) || s[j] < -1.0 ||
                s[j] > std::numeric_limits<int32_t>::max())
            {
                Fail(field("serving_sat") + "[" + std::to_string(j) + "]",
                     "must be an integer >= -1");
            }
            a.servingSat.push_back(static_cast<int32_t>(s[j]));
        }
    }
    if (!IsMissing(d, "outages"))
    {
        DoubleArray o = ToArray(d["outages"], field("outages"));
        const bool empty1d = o.ndim() == 1 && o.shape(0) == 0;
        if (!empty1d && (o.ndim() != 2 || o.shape(1) != 2))
        {
            Fail(field("outages"), "must have shape (k, 2) ([start, end) rows)");
        }
        if (!empty1d)
        {
            const double* p = o.data();
            for (py::ssize_t k = 0; k < o.shape(0); ++k)
            {
                a.outages.emplace_back(p[2 * k], p[2 * k + 1]);
            }
        }
    }
    if (!IsMissing(d, "handovers"))
    {
        a.handovers = ToVector(d["handovers"], field("handovers"));
    }
    if (!IsMissing(d, "queue"))
    {
        a.queue = QueueConfigFromDict(d["queue"], field("queue"));
    }
    return a;
}

ns3::LeoQueueConfig
QueueConfigFromDict(py::handle queue, const std::string& label)
{
    const py::dict d = AsDict(queue, label);
    auto field = [&](const std::string& key) { return label + "." + key; };
    ns3::LeoQueueConfig c;
    static const char* const kKeys[] = {
        "discipline",  "ecn",           "ecn_handling",  "target_ms",
        "interval_ms", "flows",         "quantum_bytes", "t_update_ms",
        "alpha",       "beta",          "max_burst_ms",  "min_th",
        "max_th",      "max_p",         "weight",        "gentle",
        "k",           "l4s_min_th_ms", "l4s_range_ms",  "time_shift_ms"};
    for (auto item : d)
    {
        const std::string key = py::str(item.first);
        if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) {
                return key == k;
            }) == std::end(kKeys))
        {
            Fail(field(key), "unknown queue setting");
        }
    }
    const std::string disc =
        IsMissing(d, "discipline") ? "droptail" : ToString(d["discipline"], field("discipline"));
    using D = ns3::LeoQueueDiscipline;
    if (disc == "droptail")
    {
        c.discipline = D::DROPTAIL;
    }
    else if (disc == "red")
    {
        c.discipline = D::RED;
    }
    else if (disc == "codel")
    {
        c.discipline = D::CODEL;
    }
    else if (disc == "fq_codel")
    {
        c.discipline = D::FQ_CODEL;
    }
    else if (disc == "pie")
    {
        c.discipline = D::PIE;
    }
    else if (disc == "dualpi2")
    {
        c.discipline = D::DUALPI2;
    }
    else
    {
        Fail(field("discipline"),
             "must be 'droptail', 'red', 'codel', 'fq_codel', 'pie' or 'dualpi2', got '" + disc +
                 "'");
    }
    auto num = [&](const char* key, double& out, double scale) {
        if (!IsMissing(d, key))
        {
            out = ToDouble(d[key], field(key)) * scale;
        }
    };
    if (!IsMissing(d, "ecn"))
    {
        c.ecn = ToBool(d["ecn"], field("ecn"));
    }
    if (!IsMissing(d, "ecn_handling"))
    {
        const std::string h = ToString(d["ecn_handling"], field("ecn_handling"));
        using H = ns3::LeoEcnHandling;
        if (h == "pass" || h == "bleach" || h == "drop")
        {
            c.ecnHandling = h == "pass" ? H::PASS : h == "bleach" ? H::BLEACH : H::DROP;
        }
        else
        {
            Fail(field("ecn_handling"), "must be 'pass', 'bleach' or 'drop', got '" + h + "'");
        }
    }
    const bool dp = c.discipline == D::DUALPI2;
    num("target_ms",
        dp ? c.dpTargetS : (c.discipline == D::PIE ? c.pieTargetS : c.codelTargetS),
        1e-3);
    num("interval_ms", c.codelIntervalS, 1e-3);
    if (!IsMissing(d, "flows"))
    {
        c.fqFlows = static_cast<uint32_t>(ToInt(d["flows"], field("flows"), 1, 65536));
    }
    if (!IsMissing(d, "quantum_bytes"))
    {
        c.fqQuantumBytes =
            static_cast<uint32_t>(ToInt(d["quantum_bytes"], field("quantum_bytes"), 64, 1 << 20));
    }
    num("t_update_ms", dp ? c.dpTUpdateS : c.pieTUpdateS, 1e-3);
    num("alpha", dp ? c.dpAlpha : c.pieAlpha, 1.0);
    num("beta", dp ? c.dpBeta : c.pieBeta, 1.0);
    num("k", c.dpK, 1.0);
    num("l4s_min_th_ms", c.dpL4sMinThS, 1e-3);
    num("l4s_range_ms", c.dpL4sRangeS, 1e-3);
    num("time_shift_ms", c.dpTimeShiftS, 1e-3);
    num("max_burst_ms", c.pieMaxBurstS, 1e-3);
    num("min_th", c.redMinTh, 1.0);
    num("max_th", c.redMaxTh, 1.0);
    num("max_p", c.redMaxP, 1.0);
    num("weight", c.redWeight, 1.0);
    if (!IsMissing(d, "gentle"))
    {
        c.redGentle = ToBool(d["gentle"], field("gentle"));
    }
    c.Validate(label);
    return c;
}

std::vector<ns3::LeoPathArrays>
PathArraysFromList(py::handle paths, const std::string& label)
{
    std::vector<ns3::LeoPathArrays> out;
    const auto items = AsSequence(paths, label);
    if (items.empty())
    {
        Fail(label, "need at least one path");
    }
    for (std::size_t i = 0; i < items.size(); ++i)
    {
        out.push_back(PathArraysFromDict(items[i], label + "[" + std::to_string(i) + "]"));
    }
    return out;
}

} // namespace leogym
