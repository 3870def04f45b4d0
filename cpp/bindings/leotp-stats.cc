// SPDX-License-Identifier: GPL-2.0-only

#include "bindings/leotp-stats.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace py = pybind11;

namespace leogym
{

namespace
{
double
Median(std::vector<double> v)
{
    if (v.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    const std::size_t k = (v.size() - 1) / 2; // the lower median (nearest rank)
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

double
Mean(const std::vector<double>& v)
{
    if (v.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    double s = 0;
    for (double x : v)
    {
        s += x;
    }
    return s / static_cast<double>(v.size());
}

py::array_t<double>
ToArray(const std::vector<double>& v)
{
    py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}
} // namespace

py::dict
LeotpStatsDict(ns3::LeotpFlow& flow,
               const std::function<std::string(uint32_t)>& nodeName,
               bool samples)
{
    py::dict d;
    const ns3::LeotpFlowSpec& spec = flow.GetSpec();
    d["variant"] = ns3::LeotpFlowSettings::VariantName(spec.settings.variant);
    d["port"] = spec.port;
    d["packet_bytes"] = spec.settings.WirePacketBytes();
    d["payload_bytes"] = spec.settings.payloadBytes;
    d["target_buffer_bytes"] = spec.settings.TargetBytes();

    const ns3::LeotpConsumer::Stats c = flow.GetConsumer()->GetStats();
    py::dict cd;
    cd["delivered_bytes"] = c.deliveredBytes;
    cd["received_bytes"] = c.receivedBytes;
    cd["duplicate_bytes"] = c.duplicateBytes;
    cd["interests"] = c.interests;
    cd["new_interests"] = c.newInterests;
    cd["tr_retransmissions"] = c.trRetransmissions;
    cd["shr_interests"] = c.shrInterests;
    cd["empty_interests"] = c.emptyInterests;
    cd["timeouts"] = c.timeouts;
    cd["vphs"] = c.vphs;
    cd["resets"] = c.resets;
    cd["off_route_data_in"] = c.offRouteDataIn;
    cd["backoff_rounds"] = c.backoffRounds;
    cd["pending"] = c.pending;
    cd["completed"] = c.completed;
    cd["completion_time_s"] =
        c.completed ? c.completionTimeS : std::numeric_limits<double>::quiet_NaN();
    cd["srtt_s"] = c.srttS;
    cd["rto_s"] = c.rtoS;
    cd["interest_rate_bps"] = c.interestRateBps;
    cd["cwnd"] = c.cwnd;
    cd["hop_rtt_s"] = c.hopRttS;
    cd["throughput_bps"] = c.throughputBps;
    cd["rate_bps"] = c.rateBps;
    const std::vector<double>& owd = flow.GetConsumer()->GetOwdSamples();
    const std::vector<double>& rec = flow.GetConsumer()->GetRecoveredOwdSamples();
    cd["chunks"] = owd.size();
    cd["owd_mean_s"] = Mean(owd);
    cd["owd_median_s"] = Median(owd);
    cd["recovered_chunks"] = rec.size();
    cd["recovered_owd_mean_s"] = Mean(rec);
    cd["recovered_owd_median_s"] = Median(rec);
    // Recovery time (cpp/doc/leotp.md, "Measurements"; the paper's Fig. 10): OWD of a retransmitted
    // chunk minus the median OWD of chunks never retransmitted.
    cd["recovery_time_median_s"] = Median(rec) - Median(owd);
    cd["recovery_time_mean_s"] = Mean(rec) - Median(owd);
    if (samples)
    {
        cd["owd_s"] = ToArray(owd);
        cd["recovered_owd_s"] = ToArray(rec);
    }
    d["consumer"] = cd;

    const ns3::LeotpProducer::Stats p = flow.GetProducer()->GetStats();
    py::dict pd;
    pd["interests"] = p.interests;
    pd["packets_sent"] = p.packetsSent;
    pd["payload_bytes_sent"] = p.payloadBytesSent;
    pd["retransmitted_packets"] = p.retransmittedPackets;
    pd["retransmitted_bytes"] = p.retransmittedBytes;
    pd["duplicate_requests"] = p.duplicateRequests;
    pd["buffer_bytes"] = p.bufferBytes;
    pd["buffer_drops"] = p.bufferDrops;
    pd["rate_bps"] = p.rateBps;
    d["producer"] = pd;

    py::list mids;
    for (const ns3::LeotpFlow::MidnodeView& v : flow.TakeMidnodeViews())
    {
        const ns3::LeotpMidnode::FlowStats& s = v.stats;
        py::dict m;
        m["node"] = v.node;
        m["name"] = nodeName(v.node);
        m["active"] = s.active;
        m["data_in"] = s.dataIn;
        m["interests_in"] = s.interestsIn;
        m["data_out"] = s.dataOut;
        m["interests_out"] = s.interestsOut;
        m["vphs_sent"] = s.vphsSent;
        m["shr_interests"] = s.shrInterests;
        m["empty_interests"] = s.emptyInterests;
        m["cache_hit_bytes"] = s.cacheHitBytes;
        m["no_route"] = s.noRoute;
        m["buffer_drops"] = s.bufferDrops;
        m["ttl_drops"] = s.ttlDrops;
        m["states"] = s.states;
        m["expiries"] = s.expiries;
        m["resets"] = s.resets;
        m["off_route_data_in"] = s.offRouteDataIn;
        m["rate_bps"] = s.rateBps;
        m["send_rate_bps"] = s.sendRateBps;
        m["buffer_bytes"] = s.bufferBytes;
        m["buffer_packets"] = s.bufferPackets;
        m["mean_buffer_bytes"] = v.meanBufferBytes;
        m["cwnd"] = s.cwnd;
        m["hop_rtt_s"] = s.hopRttS;
        m["throughput_bps"] = s.throughputBps;
        mids.append(m);
    }
    d["midnodes"] = mids;
    return d;
}

py::dict
RecoveryStatsDict(const std::vector<double>& clean,
                  const std::vector<double>& retx,
                  uint64_t nClean,
                  uint64_t nRetx,
                  bool samples)
{
    py::dict d;
    d["clean"] = nClean;
    d["retransmitted"] = nRetx;
    d["owd_mean_s"] = Mean(clean);
    d["owd_median_s"] = Median(clean);
    d["retransmitted_owd_mean_s"] = Mean(retx);
    d["retransmitted_owd_median_s"] = Median(retx);
    d["recovery_time_median_s"] = Median(retx) - Median(clean);
    d["recovery_time_mean_s"] = Mean(retx) - Median(clean);
    if (samples)
    {
        d["owd_s"] = ToArray(clean);
        d["retransmitted_owd_s"] = ToArray(retx);
    }
    return d;
}

} // namespace leogym
