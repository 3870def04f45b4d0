// SPDX-License-Identifier: GPL-2.0-only
//
// LeoSimulationMeasurements to the dict of Simulation.step (simulation-measurements.h).

#include "bindings/simulation-measurements.h"

#include <pybind11/numpy.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace leogym
{

namespace
{

/// A new, uninitialised NumPy array of T with ``nd`` (0 or 1) dimensions of ``n`` elements, made
/// with a single NumPy call: py::array_t's general constructor costs several times more, and a
/// step returns about 80 arrays.
template <typename T>
py::array_t<T>
NewArray(int nd, py::ssize_t n)
{
    auto& api = py::detail::npy_api::get();
    Py_intptr_t dims[1] = {static_cast<Py_intptr_t>(n)};
    PyObject* descr = py::dtype::of<T>().release().ptr(); // reference stolen below
    PyObject* a =
        api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, nd, dims, nullptr, nullptr, 0, nullptr);
    if (a == nullptr)
    {
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::array_t<T>>(a);
}

py::array_t<double>
F64(const std::vector<double>& v)
{
    auto a = NewArray<double>(1, static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

py::array_t<int64_t>
I64(const std::vector<double>& v)
{
    auto a = NewArray<int64_t>(1, static_cast<py::ssize_t>(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        a.mutable_data()[i] = static_cast<int64_t>(v[i]);
    }
    return a;
}

/// A per-path state code (path_state, ecn_state) as int8.
py::array_t<int8_t>
I8(const std::vector<double>& v)
{
    auto a = NewArray<int8_t>(1, static_cast<py::ssize_t>(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        a.mutable_data()[i] = static_cast<int8_t>(v[i]);
    }
    return a;
}

py::array_t<bool>
Bool(const std::vector<double>& v)
{
    auto a = NewArray<bool>(1, static_cast<py::ssize_t>(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        a.mutable_data()[i] = v[i] != 0.0;
    }
    return a;
}

/// The Python str for a key literal, created (interned) on first use and kept for the life of
/// the process, so the measurement dict of a step does not build its key strings again.
/// Called with the GIL held.
py::handle
Key(const char* literal)
{
    static std::unordered_map<const char*, PyObject*> cache;
    auto it = cache.find(literal);
    if (it != cache.end())
    {
        return it->second;
    }
    PyObject* s = PyUnicode_InternFromString(literal);
    if (s == nullptr)
    {
        throw py::error_already_set();
    }
    cache.emplace(literal, s);
    return s;
}

/// A per-link-and-direction vector (2 * link + dir) as an (n_links, 2) array.
template <typename T>
py::array
Links(py::array_t<T> flat)
{
    const py::ssize_t n = flat.size() / 2;
    return flat.reshape({n, py::ssize_t{2}});
}

template <typename T>
py::array
Scalar(T x)
{
    auto a = NewArray<T>(0, 1);
    *a.mutable_data() = x;
    return a;
}

} // namespace

py::dict
MeasurementsDict(const ns3::LeoSimulationMeasurements& m)
{
    py::dict d;
    d[Key("cwnd_bytes")] = F64(m.cwndBytes);
    d[Key("bytes_in_flight")] = F64(m.bytesInFlight);
    d[Key("srtt_s")] = F64(m.srttS);
    d[Key("min_rtt_s")] = F64(m.minRttS);
    d[Key("rttvar_s")] = F64(m.rttvarS);
    d[Key("latest_rtt_s")] = F64(m.latestRttS);
    d[Key("delivered_bytes")] = I64(m.deliveredBytes);
    d[Key("sent_bytes")] = I64(m.sentBytes);
    d[Key("sent_packets")] = I64(m.sentPackets);
    d[Key("delivery_rate_bps")] = F64(m.deliveryRateBps);
    d[Key("send_rate_bps")] = F64(m.sendRateBps);
    d[Key("lost_packets")] = I64(m.lostPackets);
    d[Key("retransmitted_packets")] = I64(m.retransmittedPackets);
    d[Key("drops_outage")] = I64(m.dropsOutage);
    d[Key("drops_random")] = I64(m.dropsRandom);
    d[Key("drops_overflow")] = I64(m.dropsOverflow);
    d[Key("drops_aqm")] = I64(m.dropsAqm);
    d[Key("queue_delay_s")] = F64(m.queueDelayS);
    d[Key("in_outage")] = Bool(m.inOutage);
    {
        auto a = NewArray<int8_t>(1, static_cast<py::ssize_t>(m.pathState.size()));
        for (std::size_t i = 0; i < m.pathState.size(); ++i)
        {
            a.mutable_data()[i] = static_cast<int8_t>(m.pathState[i]);
        }
        d[Key("path_state")] = a;
    }
    d[Key("handovers")] = I64(m.handovers);
    d[Key("ssthresh_bytes")] = F64(m.ssthreshBytes);
    d[Key("pacing_rate_bps")] = F64(m.pacingRateBps);
    d[Key("pto_count")] = I64(m.ptoCount);
    d[Key("rate_sample_bps")] = F64(m.rateSampleBps);
    d[Key("spurious_losses")] = I64(m.spuriousLosses);
    d[Key("suppressed_losses")] = I64(m.suppressedLosses);
    d[Key("persistent_congestion")] = I64(m.persistentCongestion);
    d[Key("reinjected_packets")] = I64(m.reinjected);
    d[Key("rto_count")] = I64(m.rtoCount);
    d[Key("in_loss_state")] = Bool(m.inLossState);
    d[Key("time_to_rto_s")] = F64(m.timeToRtoS);
    d[Key("ecn_state")] = I8(m.ecnState);
    d[Key("ect_sent_packets")] = I64(m.ectSentPackets);
    d[Key("ce_packets")] = I64(m.cePackets);
    d[Key("goodput_bytes")] = Scalar<int64_t>(static_cast<int64_t>(m.goodputBytes));
    d[Key("reorder_buffer_bytes")] = Scalar<int64_t>(static_cast<int64_t>(m.reorderBufferBytes));
    d[Key("hol_delay_s")] = Scalar<double>(m.holDelayS);
    d[Key("completed")] = Scalar<bool>(m.completed);
    d[Key("completion_time_s")] = Scalar<double>(m.completionTimeS);
    d[Key("time_s")] = Scalar<double>(m.timeS);
    d[Key("interval_s")] = Scalar<double>(m.intervalS);
    d[Key("cross_traffic_rx_bytes")] = I64(m.crossTrafficRxBytes);
    d[Key("flow_goodput_bytes")] = I64(m.flowGoodputBytes);
    d[Key("flow_packets")] = I64(m.flowPackets);
    d[Key("flow_owd_mean_s")] = F64(m.flowOwdMeanS);
    d[Key("flow_owd_p50_s")] = F64(m.flowOwdP50S);
    d[Key("flow_owd_p99_s")] = F64(m.flowOwdP99S);
    d[Key("flow_owd_max_s")] = F64(m.flowOwdMaxS);
    d[Key("flow_queue_delay_s")] = F64(m.flowQueueDelayS);
    d[Key("flow_cwnd_bytes")] = F64(m.flowCwndBytes);
    d[Key("flow_rtt_s")] = F64(m.flowRttS);
    d[Key("flow_sent_packets")] = I64(m.flowSentPackets);
    d[Key("flow_lost_packets")] = F64(m.flowLostPackets);
    d[Key("subflow_flow")] = I64(m.subflowFlow);
    d[Key("subflow_cwnd_bytes")] = F64(m.subflowCwndBytes);
    d[Key("subflow_bytes_in_flight")] = F64(m.subflowBytesInFlight);
    d[Key("subflow_srtt_s")] = F64(m.subflowSrttS);
    d[Key("subflow_min_rtt_s")] = F64(m.subflowMinRttS);
    d[Key("subflow_rttvar_s")] = F64(m.subflowRttvarS);
    d[Key("subflow_delivered_bytes")] = I64(m.subflowDeliveredBytes);
    d[Key("subflow_sent_packets")] = I64(m.subflowSentPackets);
    d[Key("subflow_lost_packets")] = I64(m.subflowLostPackets);
    d[Key("subflow_pacing_rate_bps")] = F64(m.subflowPacingRateBps);
    {
        auto a = NewArray<int8_t>(1, static_cast<py::ssize_t>(m.subflowPathState.size()));
        for (std::size_t i = 0; i < m.subflowPathState.size(); ++i)
        {
            a.mutable_data()[i] = static_cast<int8_t>(m.subflowPathState[i]);
        }
        d[Key("subflow_path_state")] = a;
    }
    d[Key("subflow_rto_count")] = I64(m.subflowRtoCount);
    d[Key("subflow_in_loss_state")] = Bool(m.subflowInLossState);
    d[Key("subflow_time_to_rto_s")] = F64(m.subflowTimeToRtoS);
    d[Key("subflow_ecn_state")] = I8(m.subflowEcnState);
    d[Key("subflow_ect_sent_packets")] = I64(m.subflowEctSentPackets);
    d[Key("subflow_ce_packets")] = I64(m.subflowCePackets);
    d[Key("subflow_queue_delay_s")] = F64(m.subflowQueueDelayS);
    d[Key("link_queue_packets")] = Links(I64(m.linkQueuePackets));
    d[Key("link_tx_bytes")] = Links(I64(m.linkTxBytes));
    d[Key("link_utilization")] = Links(F64(m.linkUtilization));
    d[Key("link_drops_outage")] = Links(I64(m.linkDropsOutage));
    d[Key("link_drops_random")] = Links(I64(m.linkDropsRandom));
    d[Key("link_drops_overflow")] = Links(I64(m.linkDropsOverflow));
    d[Key("link_drops_aqm")] = Links(I64(m.linkDropsAqm));
    d[Key("link_drops_ecn")] = Links(I64(m.linkDropsEcn));
    d[Key("link_mark_packets")] = Links(I64(m.linkMarkPackets));
    d[Key("link_sojourn_s")] = Links(F64(m.linkSojournS));
    d[Key("route_drops_no_route")] = I64(m.routeNoRouteDrops);
    return d;
}

} // namespace leogym
