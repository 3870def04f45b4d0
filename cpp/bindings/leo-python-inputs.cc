// SPDX-License-Identifier: GPL-2.0-only

#include "bindings/leo-python-inputs.h"

#include <pybind11/numpy.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>
#include <stdexcept>

namespace py = pybind11;

namespace leogym
{

namespace
{

using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

[[noreturn]] void
Fail(const std::string& field, const std::string& message)
{
    throw std::invalid_argument(field + ": " + message);
}

bool
IsMissing(const py::dict& d, const char* key)
{
    return !d.contains(key) || d[key].is_none();
}

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

py::dict
AsDict(py::handle o, const std::string& field)
{
    if (!py::isinstance<py::dict>(o))
    {
        Fail(field, "must be a dict");
    }
    return py::reinterpret_borrow<py::dict>(o);
}

std::vector<py::handle>
AsSequence(py::handle o, const std::string& field)
{
    if (py::isinstance<py::str>(o) || py::isinstance<py::dict>(o) ||
        !py::isinstance<py::sequence>(o))
    {
        Fail(field, "must be a list");
    }
    py::sequence seq = py::reinterpret_borrow<py::sequence>(o);
    std::vector<py::handle> out;
    for (std::size_t i = 0; i < seq.size(); ++i)
    {
        out.push_back(seq[i]);
    }
    return out;
}

} // namespace

bool
IsComplex(py::handle o)
{
    // Casting complex to float64 would silently drop the imaginary part (NumPy only warns).
    py::array raw = py::array::ensure(o);
    if (!raw)
    {
        PyErr_Clear();
        return false;
    }
    return raw.dtype().kind() == 'c';
}

bool
ToBool(py::handle o, const std::string& field)
{
    if (py::isinstance<py::bool_>(o))
    {
        return o.cast<bool>();
    }
    std::string tn = py::str(py::type::of(o).attr("__name__"));
    if (tn == "bool_" || tn == "bool")
    {
        return py::bool_(py::reinterpret_borrow<py::object>(o)).cast<bool>();
    }
    throw std::invalid_argument(field + ": must be a bool, got " + tn);
}

double
ToDouble(py::handle o, const std::string& field)
{
    if (py::isinstance<py::str>(o) || py::isinstance<py::bytes>(o) ||
        py::isinstance<py::bool_>(o) || o.is_none() || IsComplex(o))
    {
        Fail(field, "must be a number");
    }
    PyObject* f = PyNumber_Float(o.ptr());
    if (!f)
    {
        PyErr_Clear();
        Fail(field, "must be a number");
    }
    const double v = PyFloat_AsDouble(f);
    Py_DECREF(f);
    return v;
}

long long
ToInt(py::handle o, const std::string& field, long long lo, long long hi)
{
    if (py::isinstance<py::bool_>(o) || o.is_none())
    {
        Fail(field, "must be an integer");
    }
    PyObject* i = PyNumber_Index(o.ptr());
    if (!i)
    {
        PyErr_Clear();
        Fail(field, "must be an integer");
    }
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (overflow != 0 || v < lo || v > hi)
    {
        Fail(field, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return v;
}

std::string
ToString(py::handle o, const std::string& field)
{
    if (!py::isinstance<py::str>(o))
    {
        Fail(field, "must be a string");
    }
    return o.cast<std::string>();
}

ns3::LeoDirection
DirectionFromString(const std::string& s, const std::string& field)
{
    if (s == "down")
    {
        return ns3::LeoDirection::DOWN;
    }
    if (s == "up")
    {
        return ns3::LeoDirection::UP;
    }
    Fail(field, "must be 'down' or 'up', got '" + s + "'");
}

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

long long
ToIntIn(py::handle o, const std::string& field, IntRange range)
{
    return ToInt(o, field, range.lo, range.hi);
}

namespace
{
/// A finite number in @p range; the message gives @p unit after the range.
double
RealIn(py::handle o, const std::string& field, RealRange range, const std::string& unit)
{
    const double x = ToDouble(o, field);
    const bool low = range.loOpen ? !(x > range.lo) : !(x >= range.lo);
    const bool high = range.hiOpen ? !(x < range.hi) : !(x <= range.hi);
    if (!std::isfinite(x) || low || high)
    {
        throw std::invalid_argument(field + ": must be in " + (range.loOpen ? "(" : "[") +
                                    py::str(py::float_(range.lo)).cast<std::string>() + ", " +
                                    py::str(py::float_(range.hi)).cast<std::string>() +
                                    (range.hiOpen ? ")" : "]") + unit + ", got " +
                                    py::str(o).cast<std::string>());
    }
    return x;
}
} // namespace

double
ToRealIn(py::handle o, const std::string& field, RealRange range)
{
    return RealIn(o, field, range, "");
}

double
ToSecondsIn(py::handle o, const std::string& field, RealRange range)
{
    return RealIn(o, field, range, " seconds");
}

ns3::LeoCrossTrafficSpec
CrossTrafficFromDict(py::handle spec, const std::string& label)
{
    const py::dict d = AsDict(spec, label);
    static const std::set<std::string> known = {"kind",
                                                "path",
                                                "direction",
                                                "start_s",
                                                "stop_s",
                                                "tcp_variant",
                                                "max_bytes",
                                                "segment_bytes",
                                                "snd_buf_bytes",
                                                "rate_bps",
                                                "packet_bytes",
                                                "on_s",
                                                "off_s",
                                                "ecn"};
    for (auto item : d)
    {
        const std::string key = py::str(item.first);
        if (!known.count(key))
        {
            Fail(label + "." + key, "unknown cross-traffic option");
        }
    }
    auto field = [&](const char* key) { return label + "." + key; };
    ns3::LeoCrossTrafficSpec s;
    if (IsMissing(d, "kind"))
    {
        Fail(field("kind"), "missing ('tcp_bulk' or 'udp_onoff')");
    }
    const std::string kind = ToString(d["kind"], field("kind"));
    if (kind == "tcp_bulk")
    {
        s.kind = ns3::LeoCrossTrafficSpec::TCP_BULK;
    }
    else if (kind == "udp_onoff")
    {
        s.kind = ns3::LeoCrossTrafficSpec::UDP_ONOFF;
    }
    else
    {
        Fail(field("kind"), "must be 'tcp_bulk' or 'udp_onoff', got '" + kind + "'");
    }
    if (IsMissing(d, "path"))
    {
        Fail(field("path"), "missing");
    }
    s.path = static_cast<uint32_t>(ToInt(d["path"], field("path"), 0, 253));
    if (!IsMissing(d, "direction"))
    {
        s.direction =
            DirectionFromString(ToString(d["direction"], field("direction")), field("direction"));
    }
    if (!IsMissing(d, "start_s"))
    {
        s.startS = ToSecondsIn(d["start_s"], field("start_s"), ranges::kCrossStartS);
    }
    if (!IsMissing(d, "stop_s"))
    {
        // absent: until the end
        s.stopS = ToSecondsIn(d["stop_s"], field("stop_s"), ranges::kCrossStopS);
    }
    if (!IsMissing(d, "tcp_variant"))
    {
        s.tcpVariant = ToString(d["tcp_variant"], field("tcp_variant"));
        ns3::LeoTopology::ResolveTcpVariant(s.tcpVariant, field("tcp_variant"));
    }
    if (!IsMissing(d, "max_bytes"))
    {
        s.maxBytes = static_cast<uint64_t>(
            ToInt(d["max_bytes"], field("max_bytes"), 0, std::numeric_limits<long long>::max()));
    }
    if (!IsMissing(d, "segment_bytes"))
    {
        s.segmentBytes =
            static_cast<uint32_t>(ToInt(d["segment_bytes"], field("segment_bytes"), 0, 65495));
    }
    if (!IsMissing(d, "snd_buf_bytes"))
    {
        s.sndBufBytes =
            static_cast<uint32_t>(ToInt(d["snd_buf_bytes"], field("snd_buf_bytes"), 0, 1 << 30));
    }
    if (!IsMissing(d, "rate_bps"))
    {
        s.rateBps = ToDouble(d["rate_bps"], field("rate_bps"));
    }
    if (!IsMissing(d, "packet_bytes"))
    {
        s.packetBytes =
            static_cast<uint32_t>(ToInt(d["packet_bytes"], field("packet_bytes"), 1, 65507));
    }
    if (!IsMissing(d, "on_s"))
    {
        s.onS = ToSecondsIn(d["on_s"], field("on_s"), ranges::kCrossOnS);
    }
    if (!IsMissing(d, "off_s"))
    {
        s.offS = ToSecondsIn(d["off_s"], field("off_s"), ranges::kCrossOffS);
    }
    if (!IsMissing(d, "ecn"))
    {
        s.ecn = ToBool(d["ecn"], field("ecn"));
        if (s.ecn && s.kind != ns3::LeoCrossTrafficSpec::TCP_BULK)
        {
            Fail(field("ecn"), "only a 'tcp_bulk' flow negotiates ECN");
        }
    }
    return s;
}

std::vector<ns3::LeoCrossTrafficSpec>
CrossTrafficFromList(py::handle specs, const std::string& label)
{
    std::vector<ns3::LeoCrossTrafficSpec> out;
    const auto items = AsSequence(specs, label);
    for (std::size_t i = 0; i < items.size(); ++i)
    {
        out.push_back(CrossTrafficFromDict(items[i], label + "[" + std::to_string(i) + "]"));
    }
    return out;
}

py::dict
CountersToDict(const ns3::LeoDirectionCounters& c)
{
    py::dict d;
    d["enqueued_packets"] = c.enqueuedPackets;
    d["tx_packets"] = c.txPackets;
    d["tx_bytes"] = c.txBytes;
    d["rx_packets"] = c.rxPackets;
    d["rx_bytes"] = c.rxBytes;
    d["drops_outage"] = c.dropPackets[ns3::LEO_DROP_OUTAGE];
    d["drops_random"] = c.dropPackets[ns3::LEO_DROP_RANDOM];
    d["drops_overflow"] = c.dropPackets[ns3::LEO_DROP_OVERFLOW];
    d["drop_bytes_outage"] = c.dropBytes[ns3::LEO_DROP_OUTAGE];
    d["drop_bytes_random"] = c.dropBytes[ns3::LEO_DROP_RANDOM];
    d["drop_bytes_overflow"] = c.dropBytes[ns3::LEO_DROP_OVERFLOW];
    d["drops_aqm"] = c.dropPackets[ns3::LEO_DROP_AQM];
    d["drop_bytes_aqm"] = c.dropBytes[ns3::LEO_DROP_AQM];
    d["drops_ecn"] = c.dropPackets[ns3::LEO_DROP_ECN];
    d["drop_bytes_ecn"] = c.dropBytes[ns3::LEO_DROP_ECN];
    d["mark_packets"] = c.markPackets;
    d["mark_bytes"] = c.markBytes;
    return d;
}

} // namespace leogym
