// SPDX-License-Identifier: GPL-2.0-only
//
// _core.Simulation: the native simulation contract of docs/architecture.md, over LeoSimulation.

#include "bindings/leo-python-inputs.h"
#include "bindings/leotp-stats.h"
#include "bindings/recovery-config.h"
#include "bindings/registry.h"
#include "bindings/simulation-config.h"
#include "bindings/simulation-inputs.h"
#include "bindings/simulation-measurements.h"
#include "helper/leo-simulation.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "ns3/simulator.h"

#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace
{

using leogym::DoubleVector;
using leogym::ToInt;

/// The Python-facing object: owns a LeoSimulation and converts its measurements.
class PySimulation
{
  public:
    PySimulation(py::handle config, py::handle paths, py::handle network)
    {
        leogym::SimulationInputs in = leogym::SimulationInputsFromPython(config, paths, network);
        m_sim = std::make_unique<ns3::LeoSimulation>(in.config,
                                                     std::move(in.paths),
                                                     in.slantRange,
                                                     in.satellite,
                                                     std::move(in.network),
                                                     std::move(in.pathRoutes));
    }

    py::dict Step(double dtS)
    {
        Check();
        if (!std::isfinite(dtS) || dtS <= 0 || dtS > 1e6)
        {
            throw std::invalid_argument("dt_s: must be in (0, 1e6] seconds");
        }
        {
            py::gil_scoped_release release;
            m_sim->Step(dtS);
        }
        return Measurements();
    }

    py::dict Measurements() const
    {
        Check();
        return leogym::MeasurementsDict(m_sim->GetMeasurements());
    }

    void SetCwnd(py::handle v)
    {
        Check();
        m_sim->SetCwnd(DoubleVector(v, "cwnd"));
    }

    void SetPacingRate(py::handle v)
    {
        Check();
        m_sim->SetPacingRate(DoubleVector(v, "pacing_rate"));
    }

    void SetFlowCwnd(py::handle flow, py::handle v)
    {
        Check();
        auto f =
            static_cast<uint32_t>(ToInt(flow, "set_flow_cwnd: flow", 0, m_sim->GetNFlows() - 1LL));
        m_sim->SetFlowCwnd(f, DoubleVector(v, "set_flow_cwnd: flow " + std::to_string(f)));
    }

    void SetFlowPacingRate(py::handle flow, py::handle v)
    {
        Check();
        auto f = static_cast<uint32_t>(
            ToInt(flow, "set_flow_pacing_rate: flow", 0, m_sim->GetNFlows() - 1LL));
        m_sim->SetFlowPacingRate(
            f,
            DoubleVector(v, "set_flow_pacing_rate: flow " + std::to_string(f)));
    }

    void SetFlowCwndGain(py::handle flow, py::handle v)
    {
        Check();
        auto f = static_cast<uint32_t>(
            ToInt(flow, "set_flow_cwnd_gain: flow", 0, m_sim->GetNFlows() - 1LL));
        m_sim->SetFlowCwndGain(f, DoubleVector(v, "set_flow_cwnd_gain: flow " + std::to_string(f)));
    }

    void SetFlowFollowAlternate(py::handle flow, py::handle v)
    {
        Check();
        auto f = static_cast<uint32_t>(
            ToInt(flow, "set_flow_follow_alternate: flow", 0, m_sim->GetNFlows() - 1LL));
        m_sim->SetFlowFollowAlternate(
            f,
            DoubleVector(v, "set_flow_follow_alternate: flow " + std::to_string(f)));
    }

    uint32_t FlowNPaths(py::handle flow) const
    {
        Check();
        return m_sim->GetFlowNPaths(
            static_cast<uint32_t>(ToInt(flow, "flow", 0, m_sim->GetNFlows() - 1LL)));
    }

    uint32_t NFlows() const
    {
        Check();
        return m_sim->GetNFlows();
    }

    py::dict LeotpStats(py::handle flow, bool samples)
    {
        Check();
        const auto f =
            static_cast<uint32_t>(ToInt(flow, "leotp_stats: flow", 0, m_sim->GetNFlows() - 1LL));
        ns3::LeotpFlow* lf = m_sim->GetLeotpFlow(f);
        if (!lf)
        {
            throw std::invalid_argument("leotp_stats: flow " + std::to_string(f) +
                                        " is not a leotp flow");
        }
        return leogym::LeotpStatsDict(
            *lf,
            [this](uint32_t n) { return m_sim->GetNodeName(n); },
            samples);
    }

    py::dict RecoveryStats(py::handle flow, bool samples)
    {
        Check();
        const auto f =
            static_cast<uint32_t>(ToInt(flow, "recovery_stats: flow", 0, m_sim->GetNFlows() - 1LL));
        if (const ns3::LeotpFlow* lf = m_sim->GetLeotpFlow(f))
        {
            // LEOTP: the Consumer's first copies of every chunk (the LeotpTraceTag)
            const auto& clean = lf->GetConsumer()->GetOwdSamples();
            const auto& retx = lf->GetConsumer()->GetRecoveredOwdSamples();
            return leogym::RecoveryStatsDict(clean, retx, clean.size(), retx.size(), samples);
        }
        const ns3::LeoFlowMonitor::Recovery& r = m_sim->GetFlowRecovery(f);
        return leogym::RecoveryStatsDict(r.cleanOwdS,
                                         r.retxOwdS,
                                         r.clean,
                                         r.retransmitted,
                                         samples);
    }

    void SetWeights(py::handle v)
    {
        Check();
        m_sim->SetWeights(DoubleVector(v, "weights"));
    }

    void SetPathChoice(py::handle v)
    {
        Check();
        m_sim->SetPathChoice(static_cast<int32_t>(
            ToInt(v, "path", 0, static_cast<long long>(m_sim->GetNPaths()) - 1)));
    }

    void SetPathState(py::handle i, const std::string& state)
    {
        Check();
        auto idx = static_cast<uint32_t>(
            ToInt(i, "path", 0, static_cast<long long>(m_sim->GetNPaths()) - 1));
        m_sim->SetPathState(idx, leogym::PathStateFromString(state, "state"));
    }

    double Now() const
    {
        Check();
        return m_sim->Now();
    }

    bool Done() const
    {
        Check();
        return m_sim->Done();
    }

    uint32_t NPaths() const
    {
        Check();
        return m_sim->GetNPaths();
    }

    bool Closed() const
    {
        return !m_sim;
    }

    uint64_t Events() const
    {
        Check();
        return ns3::Simulator::GetEventCount();
    }

    void Close()
    {
        if (m_sim)
        {
            m_sim->Close();
            m_sim.reset();
        }
    }

  private:
    void Check() const
    {
        if (!m_sim)
        {
            throw std::runtime_error("Simulation is closed");
        }
    }

    std::unique_ptr<ns3::LeoSimulation> m_sim;
};

} // namespace

LEOGYM_REGISTER_BINDINGS(simulation)
{
    py::class_<PySimulation>(m,
                             "Simulation",
                             R"doc(One packet-level simulation: LEO paths, a multipath QUIC-like
connection (server -> client bulk or file transfer), cross traffic, per-step measurements.

ns-3 runs one simulation per process: creating a second one while this one is open raises
RuntimeError. ``close()`` (idempotent, also on ``with`` exit) destroys the simulator.

:param config: transport, congestion-control and scheduler settings; every key is optional:
    ``seed`` (1), ``run`` (1), ``packet_bytes`` (1200, UDP payload of a full packet, at most
    8972: a 9000-byte jumbo MTU less the IPv4 and UDP headers), ``cc``
    ("cubic"; "newreno", "cubic", "bbr", "lia", "olia", "balia", "external", ...),
    ``cc_params`` ({attribute: number}), ``scheduler`` ("minrtt"; "roundrobin", "ecf",
    "blest", "external", ...), ``scheduler_params``, ``workload`` ("bulk" | "file"),
    ``file_bytes``, ``ack_every`` (2), ``max_ack_delay_s`` (0.025), ``pacing`` (False),
    ``initial_path_states`` (["active" | "standby" | "deactivated"] per transport path),
    ``cross_traffic`` (list of dicts, docs/architecture.md), ``start_s`` (0),
    ``subflow_paths`` (topology path of each transport path; default one per path),
    ``receive_window_bytes`` (6 MiB), ``send_buffer_bytes`` (4 MiB), ``reinject_on_pto``
    (True), ``cwnd_validation`` ("rfc9002": an under-used window never grows; "linux": slow
    start grows while the window's peak flight is at least half of cwnd), ``initial_rtt_s``
    (0.333), ``mtu`` (1500), ``carrier`` ("leo": the
    transport on the link devices with its own 28-byte header; "udp": over ns-3 UDP sockets
    and IPv4, the same trajectories, slower; cpp/doc/transport.md), ``tcp_buffer_bytes`` (0 = automatic: send buffer BDP + queue
    of the largest path, receive buffer twice that, for TCP cross traffic), ``recovery`` ("rfc9002"; "tcp", "quic-draft",
    "picoquic": the loss-recovery preset, ``recovery_presets()``), ``recovery_params``
    ({setting: value} overriding the timer preset's values), ``hystart`` (HyStart++, RFC 9406,
    for cc "cubic" and "newreno"; default off), ``ecn`` (the transport's ECN, RFC 9000
    section 13.4: ECT data packets, ACK_ECN counts, validation; default off), ``flows`` (flows
    beside the connection:
    ``transport`` "mpquic" | "tcp" | "udp_onoff" | "leotp", docs/architecture.md; a leotp flow
    takes a ``leotp`` dict: ``variant`` "A".."D", ``target_buffer_packets``, ``cache_blocks``,
    ``midnode_fraction``, cpp/doc/leotp.md), ``field_paths`` ({key: field path}: how errors
    name each key; "config.<key>" for a key it lacks)
:param paths: PathTimeline dicts (NumPy arrays plus ``t0_s``, ``dt_s``, ``queue_packets``;
    optional ``kind`` and ``slant_range_m``); in the hop topology, the connection's routes
    collapsed end to end
:param network: ``None`` (the path topology: one link per path) or the hop topology's dict:
    ``nodes`` (names), optional ``kinds`` (one node kind per node: "terminal", "satellite",
    "ground_station", "server", "router"; LEOTP places its Midnodes by kind), ``links`` (dicts
    with ``a``, ``b`` and the PathTimeline arrays, down =
    a -> b), ``routes`` (dicts with ``times_s``, ``nodes``, ``offsets``) and ``path_routes``
    (route of each path); config ``flows`` then name routes (``cross_traffic`` still names
    paths: each runs over its path's route)
:raises ValueError: for any invalid key or value (the message names it)
:raises RuntimeError: if another simulation is open in this process)doc")
        .def(py::init<py::handle, py::handle, py::handle>(),
             py::arg("config"),
             py::arg("paths"),
             py::arg("network") = py::none())
        .def("step",
             &PySimulation::Step,
             py::arg("dt_s"),
             R"doc(Advance the simulation by ``dt_s`` seconds.

:return: measurements of the interval: per transport path arrays of shape ``(n_paths,)``
    (``cwnd_bytes``, ``bytes_in_flight``, ``srtt_s``, ``min_rtt_s``, ``rttvar_s``,
    ``latest_rtt_s``, ``delivered_bytes``, ``sent_bytes``, ``sent_packets``, ``delivery_rate_bps``,
    ``send_rate_bps``, ``lost_packets``, ``retransmitted_packets``, ``drops_outage``,
    ``drops_random``, ``drops_overflow``, ``drops_aqm``, ``queue_delay_s`` (the connection's
    data packets' mean time in link queues, NaN without packets), ``in_outage``,
    ``path_state``, ``handovers``,
    ``ssthresh_bytes``, ``pacing_rate_bps``, ``pto_count``, ``rate_sample_bps``,
    ``spurious_losses``, ``suppressed_losses``, ``persistent_congestion``,
    ``reinjected_packets``, ``rto_count``, ``in_loss_state``, ``time_to_rto_s``, ``ecn_state`` (0 off, 1 testing,
    2 unknown, 3 capable, 4 failed), ``ect_sent_packets``, ``ce_packets``) and
    0-d connection arrays (``goodput_bytes``, ``reorder_buffer_bytes``, ``hol_delay_s``,
    ``completed``, ``completion_time_s``, ``time_s``, ``interval_s``), plus
    ``cross_traffic_rx_bytes`` (one entry per cross-traffic flow); per flow (0: the
    connection, then config ``flows``) ``flow_goodput_bytes``, ``flow_packets``,
    ``flow_owd_mean_s``, ``flow_owd_p50_s``, ``flow_owd_p99_s``, ``flow_owd_max_s``,
    ``flow_queue_delay_s`` (NaN without packets), ``flow_cwnd_bytes``, ``flow_rtt_s``
    (snapshots; NaN for UDP), ``flow_sent_packets`` (data packets the source sent),
    ``flow_lost_packets`` (declared by mpquic senders; NaN for other flows); per subflow
    of every mpquic flow (the connection's paths first, then config ``flows``' in order)
    ``subflow_flow`` (its flow), ``subflow_cwnd_bytes``, ``subflow_bytes_in_flight``,
    ``subflow_srtt_s``, ``subflow_min_rtt_s``, ``subflow_rttvar_s``,
    ``subflow_delivered_bytes``, ``subflow_sent_packets``, ``subflow_lost_packets``,
    ``subflow_pacing_rate_bps``, ``subflow_path_state``, ``subflow_rto_count``,
    ``subflow_in_loss_state``, ``subflow_time_to_rto_s``, ``subflow_ecn_state``,
    ``subflow_ect_sent_packets``, ``subflow_ce_packets``, ``subflow_queue_delay_s``; per link ``(n_links, 2)`` arrays (column 0:
    down = a -> b, 1: up) ``link_queue_packets``, ``link_tx_bytes``, ``link_utilization``,
    ``link_drops_outage``, ``link_drops_random``, ``link_drops_overflow``, ``link_drops_aqm``,
    ``link_drops_ecn`` (ECN-capable packets a link drops, ``ecn_handling: drop``),
    ``link_mark_packets`` (ECN CE marks), ``link_sojourn_s`` (mean queue sojourn of the packets
    sent, NaN if none); per route (hop
    topology) ``route_drops_no_route``)doc")
        .def("measurements",
             &PySimulation::Measurements,
             "The measurements of the last step (or of time 0 before the first step).")
        .def("set_cwnd",
             &PySimulation::SetCwnd,
             py::arg("cwnd_bytes"),
             "Per-path congestion windows in bytes (cc='external'; at least 2 packets).")
        .def("set_pacing_rate",
             &PySimulation::SetPacingRate,
             py::arg("rate_bps"),
             "Per-path pacing rates in bit/s, 0 = unpaced (cc='external').")
        .def("set_flow_cwnd",
             &PySimulation::SetFlowCwnd,
             py::arg("flow"),
             py::arg("cwnd_bytes"),
             R"doc(Congestion windows in bytes of flow ``flow``'s subflows, one per subflow.

Flow 0 is the connection, then config ``flows``; the flow must be an ``mpquic`` flow with cc
'external' (its controller keeps at least 2 packets).

:raises ValueError: naming the flow: no such flow, not mpquic, not external, wrong count, or
    a value that is not finite or outside [0, 1e15])doc")
        .def("set_flow_pacing_rate",
             &PySimulation::SetFlowPacingRate,
             py::arg("flow"),
             py::arg("rate_bps"),
             R"doc(Pacing rates in bit/s of flow ``flow``'s subflows, 0 = unpaced (cc 'external').

:raises ValueError: naming the flow, as ``set_flow_cwnd``; rates must be 0 or in [1e3, 1e13])doc")
        .def("set_flow_cwnd_gain",
             &PySimulation::SetFlowCwndGain,
             py::arg("flow"),
             py::arg("gains"),
             R"doc(Window gains of flow ``flow``'s subflows, one per subflow (cc 'residual+<base>').

Each subflow's window and pacing rate become its base controller's times the gain, held until
the next call (cpp/model/cc/mp-residual.h); a gain equal to the one in force changes nothing.

:raises ValueError: naming the flow: no such flow, not mpquic, not residual, wrong count, or a
    gain that is not finite or outside [1/16, 16])doc")
        .def("set_flow_follow_alternate",
             &PySimulation::SetFlowFollowAlternate,
             py::arg("flow"),
             py::arg("follow"),
             R"doc(Which controller each of flow ``flow``'s subflows follows, one value per subflow:
0 the base, 1 the alternate (cc 'residual+<base>+<alternate>'), held until the next call.

Both controllers see every event of the path; the sender uses the followed one's window and
pacing rate, times the gain (cpp/model/cc/mp-residual.h). The same choice as the one in force
changes nothing.

:raises ValueError: naming the flow: no such flow, not mpquic, not residual, no alternate,
    wrong count, or a value other than 0 and 1)doc")
        .def("leotp_stats",
             &PySimulation::LeotpStats,
             py::arg("flow"),
             py::arg("samples") = false,
             R"doc(The state and counters of LEOTP flow ``flow`` (cpp/doc/leotp.md, "Measurements").

``consumer``: bytes delivered, Interests by kind, TR timeouts, void headers received, RTT and
RTO, its last-hop controller, and the one-way delays of chunks' first copies (never
retransmitted / retransmitted: ``recovery_time_median_s``); ``producer``: payload bytes sent
(retransmissions included), its buffer and rate; ``midnodes``: per Midnode (node order) its
counters and state (``rate_bps`` the rate it sends downstream at, ``send_rate_bps`` the rate
it asks upstream, buffer, ``mean_buffer_bytes`` since the previous call, window, hop RTT).
``samples=True`` adds the delays as arrays.)doc")
        .def(
            "recovery_stats",
            &PySimulation::RecoveryStats,
            py::arg("flow"),
            py::arg("samples") = false,
            R"doc(The first-copy one-way delays of flow ``flow``'s data, cumulative since the start.

For an ns-3 TCP flow, each data segment from its first transmission at the source's IP layer to
its first arrival at the sink's (a segment sent again before it arrived is retransmitted); for
a LEOTP flow, each chunk's first copy at the Consumer from the Producer's first transmission.
``clean`` / ``retransmitted``: how many; ``owd_mean_s``, ``owd_median_s`` and the
``retransmitted_owd_*`` of each; ``recovery_time_median_s`` (``_mean_s``): the retransmitted
copies' median (mean) delay less the others' median (cpp/doc/leotp.md, "Measurements"). Zero
counts and NaN for mpquic and UDP flows (their retransmissions are new packets).
``samples=True`` adds the delays as arrays (``owd_s``, ``retransmitted_owd_s``).)doc")
        .def("flow_n_paths",
             &PySimulation::FlowNPaths,
             py::arg("flow"),
             "Subflows of flow ``flow`` (the connection: its transport paths; 0 for a flow that "
             "is not mpquic).")
        .def_property_readonly("n_flows",
                               &PySimulation::NFlows,
                               "Flows: the connection and config ``flows``.")
        .def("set_weights",
             &PySimulation::SetWeights,
             py::arg("weights"),
             "Per-path scheduler weights, >= 0, one > 0 (scheduler='external').")
        .def("set_path_choice",
             &PySimulation::SetPathChoice,
             py::arg("path"),
             "Send everything on one path (scheduler='external').")
        .def("set_path_state",
             &PySimulation::SetPathState,
             py::arg("path"),
             py::arg("state"),
             "Set a path 'active', 'standby' or 'deactivated'.")
        .def_property_readonly("now", &PySimulation::Now, "Simulation time (s).")
        .def_property_readonly("done",
                               &PySimulation::Done,
                               "True once the file (workload 'file') was delivered.")
        .def_property_readonly("n_paths", &PySimulation::NPaths, "Number of transport paths.")
        .def_property_readonly("closed", &PySimulation::Closed)
        .def_property_readonly("events",
                               &PySimulation::Events,
                               "ns-3 events executed so far (for benchmarks).")
        .def("close", &PySimulation::Close, "Destroy the simulator (idempotent).")
        .def(
            "__enter__",
            [](PySimulation& s) -> PySimulation& { return s; },
            py::return_value_policy::reference_internal)
        .def("__exit__", [](PySimulation& s, py::args) { s.Close(); });

    m.def(
        "recovery_presets",
        []() {
            py::dict out;
            for (const auto& name : ns3::MpRecoveryConfig::Names())
            {
                ns3::MpLossRecovery::Recovery r;
                ns3::MpRecoveryConfig::Parse(name, r);
                out[py::str(name)] = leogym::RecoveryToDict(ns3::MpRecoveryConfig::Preset(r));
            }
            return out;
        },
        "The loss-recovery presets config['recovery'] accepts, each with the values that "
        "config['recovery_params'] may override (cpp/doc/transport.md, 'Recovery presets').");
    m.def(
        "validate_simulation_config",
        [](py::handle config) { leogym::SimulationConfigFromDict(config); },
        py::arg("config"),
        "Check a Simulation config dict without building anything; raises ValueError naming "
        "the key.");
}
