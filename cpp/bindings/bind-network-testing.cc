// SPDX-License-Identifier: GPL-2.0-only
//
// _core.testing (network part, LEOGYM_TESTING builds only): the reference flows (ns-3 TCP bulk
// transfer and raw UDP over a LeoTopology, or over ns-3's PointToPointNetDevice), the raw link
// probe and schedule sampling, for the link tests and the transport benchmarks.

#include "bindings/leo-python-inputs.h"
#include "bindings/registry.h"
#include "helper/chain-flow.h"
#include "helper/link-probe.h"
#include "helper/reference-flows.h"
#include "model/link/leo-path-schedule.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace
{

using leogym::IsComplex;
using leogym::ToDouble;
using leogym::ToInt;
using leogym::ToString;

template <typename T>
py::array_t<T>
ToNumpy(const std::vector<T>& v)
{
    py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

/// tcp_attributes: {"ns3::TcpSocketBase::MinRto": 1.0, ...} -> settings, checked by the helper.
std::vector<ns3::TcpAttributeSetting>
TcpAttributesFromDict(py::handle v)
{
    if (!py::isinstance<py::dict>(v))
    {
        throw std::invalid_argument(
            "tcp_attributes: must be a dict of attribute path -> value, e.g. "
            "{'ns3::TcpSocketBase::MinRto': 1.0}");
    }
    std::vector<ns3::TcpAttributeSetting> out;
    for (auto item : py::reinterpret_borrow<py::dict>(v))
    {
        if (!py::isinstance<py::str>(item.first))
        {
            throw std::invalid_argument("tcp_attributes: keys must be strings");
        }
        ns3::TcpAttributeSetting s;
        s.path = py::str(item.first);
        const std::string field = "tcp_attributes['" + s.path + "']";
        py::handle x = item.second;
        if (py::isinstance<py::bool_>(x))
        {
            s.value = x.cast<bool>();
        }
        else if (py::isinstance<py::int_>(x) || PyIndex_Check(x.ptr()))
        {
            s.value = static_cast<int64_t>(ToInt(x, field, -(1LL << 62), 1LL << 62));
        }
        else if (py::isinstance<py::float_>(x))
        {
            s.value = x.cast<double>();
        }
        else if (py::isinstance<py::str>(x))
        {
            s.value = x.cast<std::string>();
        }
        else if (PyNumber_Check(x.ptr()) && !IsComplex(x))
        {
            s.value = ToDouble(x, field); // NumPy scalars and the like
        }
        else
        {
            throw std::invalid_argument(field + ": must be a bool, int, float or str");
        }
        out.push_back(std::move(s));
    }
    ns3::ValidateTcpAttributes(out);
    return out;
}

py::dict
RunReferenceFlowPy(const std::string& kind,
                   py::handle paths,
                   double durationS,
                   long long seed,
                   long long run,
                   const py::kwargs& opts)
{
    static const std::set<std::string> known = {"path",
                                                "start_s",
                                                "tcp_variant",
                                                "segment_bytes",
                                                "snd_buf_bytes",
                                                "rcv_buf_bytes",
                                                "udp_rate_bps",
                                                "udp_payload_bytes",
                                                "mtu",
                                                "stream_base",
                                                "cross_traffic",
                                                "link",
                                                "tcp_attributes"};
    ns3::ReferenceFlowOptions o;
    o.kind = kind;
    for (auto item : opts)
    {
        const std::string key = py::str(item.first);
        if (!known.count(key))
        {
            std::string list;
            for (const auto& k : known)
            {
                list += " " + k;
            }
            throw std::invalid_argument(key + ": unknown option; known:" + list);
        }
        py::handle v = item.second;
        if (key == "path")
        {
            o.path = static_cast<uint32_t>(ToInt(v, key, 0, 253));
        }
        else if (key == "start_s")
        {
            o.startS = ToDouble(v, key);
        }
        else if (key == "tcp_variant")
        {
            o.tcpVariant = ToString(v, key);
        }
        else if (key == "segment_bytes")
        {
            o.segmentBytes = static_cast<uint32_t>(ToInt(v, key, 1, 65495));
        }
        else if (key == "snd_buf_bytes")
        {
            o.sndBufBytes = static_cast<uint32_t>(ToInt(v, key, 0, 1 << 30));
        }
        else if (key == "rcv_buf_bytes")
        {
            o.rcvBufBytes = static_cast<uint32_t>(ToInt(v, key, 0, 1 << 30));
        }
        else if (key == "udp_rate_bps")
        {
            o.udpRateBps = ToDouble(v, key);
        }
        else if (key == "udp_payload_bytes")
        {
            o.udpPayloadBytes = static_cast<uint32_t>(ToInt(v, key, 1, 65507));
        }
        else if (key == "mtu")
        {
            o.mtu = static_cast<uint16_t>(ToInt(v, key, 68, 65535));
        }
        else if (key == "stream_base")
        {
            o.streamBase = ToInt(v, key, 0, 1LL << 40);
        }
        else if (key == "link")
        {
            o.link = ToString(v, key);
        }
        else if (key == "cross_traffic")
        {
            o.crossTraffic = leogym::CrossTrafficFromList(v, "cross_traffic");
        }
        else if (key == "tcp_attributes")
        {
            o.tcpAttributes = TcpAttributesFromDict(v);
        }
    }
    if (seed < 1 || seed > std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("seed: must be in [1, 2**32 - 1]");
    }
    if (run < 0)
    {
        throw std::invalid_argument("run: must be >= 0");
    }
    const std::vector<ns3::LeoPathArrays> arrays = leogym::PathArraysFromList(paths, "paths");
    ns3::ReferenceFlowResult r;
    {
        py::gil_scoped_release release;
        r = ns3::RunReferenceFlow(arrays,
                                  durationS,
                                  static_cast<uint32_t>(seed),
                                  static_cast<uint64_t>(run),
                                  o);
    }
    py::dict d;
    d["kind"] = kind;
    d["goodput_bps"] = r.goodputBps;
    d["rx_bytes"] = r.rxBytes;
    d["tx_bytes"] = r.txBytes;
    d["max_buffered_bytes"] = r.maxBufferedBytes;
    d["rx_packets"] = r.rxPackets;
    d["sim_seconds"] = r.simSeconds;
    d["wall_seconds"] = r.wallSeconds;
    d["events"] = r.events;
    const ns3::LeoDirectionCounters& fc = r.down.at(o.path);
    d["drops_outage"] = fc.dropPackets[ns3::LEO_DROP_OUTAGE];
    d["drops_random"] = fc.dropPackets[ns3::LEO_DROP_RANDOM];
    d["drops_overflow"] = fc.dropPackets[ns3::LEO_DROP_OVERFLOW];
    py::list per;
    for (std::size_t i = 0; i < r.down.size(); ++i)
    {
        py::dict p;
        p["down"] = leogym::CountersToDict(r.down[i]);
        p["up"] = leogym::CountersToDict(r.up[i]);
        per.append(p);
    }
    d["paths"] = per;
    d["cross_rx_bytes"] = r.crossRxBytes;
    d["rto_expiries"] = r.rtoExpiries;
    d["loss_episodes"] = r.lossEpisodes;
    d["recovery_episodes"] = r.recoveryEpisodes;
    d["retransmissions"] = r.retransmissions;
    return d;
}

py::dict
ProbeLinkPy(py::handle path,
            py::handle sendTimes,
            py::handle sizes,
            const std::string& direction,
            long long seed,
            long long run,
            long long mtu)
{
    const ns3::LeoPathArrays arrays = leogym::PathArraysFromDict(path, "path");
    const ns3::LeoDirection dir = leogym::DirectionFromString(direction, "direction");
    using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
    if (py::isinstance<py::str>(sendTimes))
    {
        throw std::invalid_argument("send_times_s: must be a numeric array");
    }
    DoubleArray t = DoubleArray::ensure(sendTimes);
    if (!t || t.ndim() != 1)
    {
        PyErr_Clear();
        throw std::invalid_argument("send_times_s: must be a 1-D numeric array");
    }
    std::vector<double> times(t.data(), t.data() + t.shape(0));
    if (mtu < 68 || mtu > 65535)
    {
        throw std::invalid_argument("mtu: must be in [68, 65535]");
    }
    std::vector<uint32_t> sz;
    if (PyNumber_Check(sizes.ptr()) && !PyObject_HasAttrString(sizes.ptr(), "__len__"))
    {
        sz.assign(times.size(), static_cast<uint32_t>(ToInt(sizes, "sizes_bytes", 1, mtu)));
    }
    else
    {
        DoubleArray s = DoubleArray::ensure(sizes);
        if (!s || s.ndim() != 1)
        {
            PyErr_Clear();
            throw std::invalid_argument("sizes_bytes: must be an int or a 1-D array");
        }
        for (py::ssize_t i = 0; i < s.shape(0); ++i)
        {
            const double v = s.data()[i];
            if (!(v >= 1.0 && v <= static_cast<double>(mtu)) || v != static_cast<uint32_t>(v))
            {
                throw std::invalid_argument("sizes_bytes[" + std::to_string(i) +
                                            "]: must be an integer in [1, mtu]");
            }
            sz.push_back(static_cast<uint32_t>(v));
        }
    }
    if (seed < 1 || seed > std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("seed: must be in [1, 2**32 - 1]");
    }
    if (run < 0)
    {
        throw std::invalid_argument("run: must be >= 0");
    }
    ns3::LinkProbeResult r;
    {
        py::gil_scoped_release release;
        r = ns3::RunLinkProbe(arrays,
                              dir,
                              times,
                              sz,
                              static_cast<uint32_t>(seed),
                              static_cast<uint64_t>(run),
                              static_cast<uint16_t>(mtu));
    }
    py::dict d;
    d["send_time_s"] = ToNumpy(r.sendTimeS);
    d["recv_time_s"] = ToNumpy(r.recvTimeS);
    d["drop_time_s"] = ToNumpy(r.dropTimeS);
    d["drop_cause"] = ToNumpy(r.dropCause);
    d["size_bytes"] = ToNumpy(sz);
    d["counters"] = leogym::CountersToDict(r.counters);
    return d;
}

py::dict
SamplePathPy(py::handle path, py::handle times)
{
    const ns3::LeoPathSchedule s(leogym::PathArraysFromDict(path, "path"), "path");
    using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
    DoubleArray t = DoubleArray::ensure(times);
    if (!t || t.ndim() != 1)
    {
        PyErr_Clear();
        throw std::invalid_argument("times_s: must be a 1-D numeric array");
    }
    const std::size_t n = t.shape(0);
    std::vector<double> dd(n), du(n), rd(n), ru(n), ld(n), lu(n), snr(n), el(n), nh(n);
    std::vector<int32_t> sat(n);
    std::vector<bool> out(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        const double x = t.data()[i];
        dd[i] = s.DelayAt(ns3::LeoDirection::DOWN, x);
        du[i] = s.DelayAt(ns3::LeoDirection::UP, x);
        rd[i] = s.RateAt(ns3::LeoDirection::DOWN, x);
        ru[i] = s.RateAt(ns3::LeoDirection::UP, x);
        ld[i] = s.LossAt(ns3::LeoDirection::DOWN, x);
        lu[i] = s.LossAt(ns3::LeoDirection::UP, x);
        snr[i] = s.SnrAt(x);
        el[i] = s.ElevationAt(x);
        sat[i] = s.ServingSatAt(x);
        out[i] = s.InOutage(x);
        nh[i] = s.NextHandoverAfter(x);
    }
    py::dict d;
    d["delay_down_s"] = ToNumpy(dd);
    d["delay_up_s"] = ToNumpy(du);
    d["rate_down_bps"] = ToNumpy(rd);
    d["rate_up_bps"] = ToNumpy(ru);
    d["loss_down"] = ToNumpy(ld);
    d["loss_up"] = ToNumpy(lu);
    d["snr_db"] = ToNumpy(snr);
    d["elevation_deg"] = ToNumpy(el);
    d["serving_sat"] = ToNumpy(sat);
    py::array_t<bool> o(static_cast<py::ssize_t>(n));
    for (std::size_t i = 0; i < n; ++i)
    {
        o.mutable_data()[i] = out[i];
    }
    d["in_outage"] = o;
    d["next_handover_s"] = ToNumpy(nh);
    return d;
}

} // namespace

LEOGYM_REGISTER_BINDINGS(network_testing)
{
    py::module_ t = m.def_submodule("testing", "Probes for unit tests of native components.");

    t.def(
        "run_chain_flow",
        [](const std::string& link,
           uint32_t hops,
           double rateBps,
           double delayS,
           double durationS,
           uint32_t queuePackets,
           uint32_t payloadBytes,
           double offeredBps) {
            ns3::ChainFlowOptions o;
            o.link = link;
            o.hops = hops;
            o.rateBps = rateBps;
            o.delayS = delayS;
            o.durationS = durationS;
            o.queuePackets = queuePackets;
            o.payloadBytes = payloadBytes;
            o.offeredBps = offeredBps;
            ns3::ChainFlowResult r;
            {
                py::gil_scoped_release release;
                r = ns3::RunChainFlow(o);
            }
            py::dict d;
            d["rx_packets"] = r.rxPackets;
            d["wall_seconds"] = r.wallSeconds;
            d["cpu_seconds"] = r.cpuSeconds;
            d["events"] = r.events;
            return d;
        },
        py::arg("link"),
        py::arg("hops"),
        py::arg("rate_bps") = 10e6,
        py::arg("delay_s") = 0.001,
        py::arg("duration_s") = 10.0,
        py::arg("queue_packets") = 100,
        py::arg("payload_bytes") = 1372,
        py::arg("offered_bps") = 0.0,
        R"doc(A UDP flow over a chain of ``hops`` identical links, for `make bench`.

:param link: ``"leo"`` (leogym's hop topology: LeoChannel links, timetable routing) or
    ``"p2p"`` (ns-3's PointToPointNetDevice chain with IPv4 static host routes)
:param offered_bps: UDP source rate (0 = 0.95 x ``rate_bps``)
:return: dict with ``rx_packets``, ``wall_seconds``, ``cpu_seconds`` (of Simulator::Run) and
    ``events``
:raises ValueError: on invalid input)doc");

    t.def("run_reference_flow",
          &RunReferenceFlowPy,
          py::arg("kind"),
          py::arg("paths"),
          py::arg("duration_s"),
          py::arg("seed") = 1,
          py::arg("run") = 1,
          R"doc(Run an ns-3 reference flow server -> client over a LeoTopology built from ``paths``.

:param kind: ``"tcp_bulk"`` (ns-3 TCP bulk transfer) or ``"udp"`` (saturating UDP on/off source)
:param paths: list of PathTimeline dicts (NumPy arrays plus ``dt_s``, ``queue_packets``, ``t0_s``)
:param duration_s: simulated seconds
:param seed: ns-3 RngSeedManager seed (>= 1)
:param run: ns-3 RngSeedManager run
:param opts: ``path``, ``start_s``, ``tcp_variant`` (e.g. ``"ns3::TcpCubic"``), ``segment_bytes``,
    ``snd_buf_bytes``/``rcv_buf_bytes`` (0 = 2 x (BDP + queue)), ``udp_rate_bps`` (0 = 1.05 x max
    rate), ``udp_payload_bytes``, ``mtu``, ``stream_base``, ``cross_traffic`` (list of dicts),
    ``link`` (``"leo"``, or ``"p2p"`` for ns-3's PointToPointNetDevice on one constant path, as
    an independent reference), ``tcp_attributes`` (dict of ns-3 TCP attribute defaults for
    this run, path -> value, e.g. ``{"ns3::TcpSocketBase::MinRto": 1.0, "ns3::TcpCubic::HyStart":
    False, "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery"}``; times in seconds,
    enums and TypeIds by name; checked before ns-3 sees them and restored after the run)
:return: dict with ``goodput_bps``, ``rx_bytes``, ``tx_bytes``, ``rx_packets``, ``drops_*`` (flow
    path, down), ``paths`` (per path ``down``/``up`` counters), ``cross_rx_bytes``,
    ``sim_seconds``, ``wall_seconds`` (benchmarks only), ``events``, and for ``tcp_bulk`` the
    flow socket's ``rto_expiries`` (retransmission timeouts), ``loss_episodes`` (entries into
    CA_LOSS), ``recovery_episodes`` (entries into fast recovery), ``retransmissions``,
    ``max_buffered_bytes`` (the largest unsent + unacknowledged bytes its send buffer held)
:raises ValueError: on invalid input (the message names the field)
:raises RuntimeError: if another simulation is open in this process)doc");

    t.def("probe_link",
          &ProbeLinkPy,
          py::arg("path"),
          py::arg("send_times_s"),
          py::arg("sizes_bytes") = 1000,
          py::arg("direction") = "down",
          py::arg("seed") = 1,
          py::arg("run") = 1,
          py::arg("mtu") = 1500,
          R"doc(Send raw packets (no IP stack) through one path and report each packet's fate.

:param path: a PathTimeline dict
:param send_times_s: 1-D array of send instants (s), non-decreasing, >= 0
:param sizes_bytes: packet size (int) or 1-D array of sizes, each in [1, mtu]
:param direction: ``"down"`` (server -> client) or ``"up"``
:param seed: ns-3 RngSeedManager seed (>= 1)
:param run: ns-3 RngSeedManager run
:param mtu: device MTU (bytes)
:return: dict of arrays ``send_time_s``, ``recv_time_s`` (NaN if dropped), ``drop_time_s``
    (NaN if delivered), ``drop_cause`` (int8: -1 delivered, 0 OUTAGE, 1 RANDOM, 2 OVERFLOW),
    ``size_bytes``, and ``counters`` (dict of ints for the probed direction)
:raises ValueError: on invalid input)doc");

    t.def("sample_path",
          &SamplePathPy,
          py::arg("path"),
          py::arg("times_s"),
          R"doc(Evaluate a path's schedule (as the link sees it) at the given times.

:param path: a PathTimeline dict (validated like the link does)
:param times_s: 1-D array of times (s)
:return: dict of arrays ``delay_down_s``, ``delay_up_s``, ``rate_down_bps``, ``rate_up_bps``,
    ``loss_down``, ``loss_up``, ``snr_db``, ``elevation_deg``, ``serving_sat``, ``in_outage``,
    ``next_handover_s``
:raises ValueError: on invalid input)doc");
}
