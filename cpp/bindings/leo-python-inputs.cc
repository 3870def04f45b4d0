// SPDX-License-Identifier: GPL-2.0-only
//
// The conversions of leo-python-inputs.h: dict and list access, scalars and ranges, cross
// traffic and link counters (the path and queue dicts are in leo-python-inputs-paths.cc).

#include "bindings/leo-python-inputs.h"

#include <pybind11/numpy.h>

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace py = pybind11;

namespace leogym
{

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
