// SPDX-License-Identifier: GPL-2.0-only
//
// _core.testing (ns-3 TCP additions, LEOGYM_TESTING builds only): PCC Vivace's pure parts
// (cpp/doc/vivace.md): the utility, the RTT gradient, the gradient-ascent step, and the
// TcpPccVivace attribute defaults.

#include "bindings/registry.h"
#include "model/tcp/pcc-vivace-rate-control.h"
#include "model/tcp/pcc-vivace-utility.h"
#include "model/tcp/tcp-pcc-vivace.h"

#include <pybind11/stl.h>

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <string>
#include <vector>

namespace py = pybind11;

namespace
{

ns3::PccVivaceUtilityParams
UtilityParams(double exponent, double latencyCoef, double lossCoef, double tolerance)
{
    ns3::PccVivaceUtilityParams p;
    p.exponent = exponent;
    p.latencyCoef = latencyCoef;
    p.lossCoef = lossCoef;
    p.rttGradientTolerance = tolerance;
    return p;
}

/// Steps of the rate controller from @p rateBps, one per gradient: the state after each.
py::list
RateSteps(double rateBps,
          const std::vector<double>& gradients,
          double theta0Mbps,
          double omega0,
          double omegaStep,
          double amplifierStep,
          double minRateBps,
          double maxRateBps)
{
    ns3::PccVivaceRateControl::Params p;
    p.theta0Mbps = theta0Mbps;
    p.omega0 = omega0;
    p.omegaStep = omegaStep;
    p.amplifierStep = amplifierStep;
    p.minRateBps = minRateBps;
    p.maxRateBps = maxRateBps;
    ns3::PccVivaceRateControl control(p);
    py::list out;
    double rate = rateBps;
    for (double g : gradients)
    {
        rate = control.Step(rate, g);
        py::dict d;
        d["rate_bps"] = rate;
        d["consecutive"] = control.GetConsecutive();
        d["amplifier"] = control.GetAmplifier();
        d["bounded"] = control.GetLastStepBounded();
        d["boundary_steps"] = control.GetBoundarySteps();
        d["next_change_bound"] = control.GetChangeBound();
        out.append(d);
    }
    return out;
}

/// TcpPccVivace's attribute defaults, read from a fresh object.
py::dict
VivaceDefaults()
{
    ns3::Ptr<ns3::TcpPccVivace> cc = ns3::CreateObject<ns3::TcpPccVivace>();
    py::dict d;
    for (const char* name : {"Exponent",
                             "LatencyCoefficient",
                             "LossCoefficient",
                             "RttGradientTolerance",
                             "ProbeEpsilon",
                             "StepScale",
                             "InitialChangeBound",
                             "ChangeBoundStep",
                             "AmplifierStep",
                             "MonitorIntervalRtts",
                             "MinRate",
                             "CwndGain"})
    {
        ns3::DoubleValue v;
        cc->GetAttribute(name, v);
        d[name] = v.Get();
    }
    for (const char* name : {"MinIntervalPackets", "ProbePairs"})
    {
        ns3::UintegerValue v;
        cc->GetAttribute(name, v);
        d[name] = v.Get();
    }
    d["name"] = cc->GetName();
    d["has_cong_control"] = cc->HasCongControl();
    return d;
}

} // namespace

LEOGYM_REGISTER_BINDINGS(tcp_testing)
{
    py::module_ t = m.def_submodule("testing", "Probes for unit tests of native components.");

    t.def(
        "vivace_utility",
        [](double rateMbps,
           double rttGradient,
           double lossRate,
           double exponent,
           double latencyCoef,
           double lossCoef,
           double tolerance) {
            return ns3::PccVivaceUtility(rateMbps,
                                         rttGradient,
                                         lossRate,
                                         UtilityParams(exponent, latencyCoef, lossCoef, tolerance));
        },
        py::arg("rate_mbps"),
        py::arg("rtt_gradient"),
        py::arg("loss_rate"),
        py::arg("exponent") = 0.9,
        py::arg("latency_coef") = 900.0,
        py::arg("loss_coef") = 11.35,
        py::arg("rtt_gradient_tolerance") = 0.0,
        "PCC Vivace's utility u = x^t - b x dRTT/dT - c x L (x in Mbit/s) of one monitor "
        "interval, as TcpPccVivace computes it.");
    t.def(
        "vivace_loss_tolerance",
        [](double rateMbps, double exponent, double lossCoef) {
            return ns3::PccVivaceLossTolerance(rateMbps, UtilityParams(exponent, 0.0, lossCoef, 0));
        },
        py::arg("rate_mbps"),
        py::arg("exponent") = 0.9,
        py::arg("loss_coef") = 11.35,
        "The random loss rate t x^(t-1) / c below which Vivace's utility still grows with x.");
    t.def("vivace_rtt_gradient",
          &ns3::PccRttGradient,
          py::arg("send_times_s"),
          py::arg("rtts_s"),
          "The RTT gradient of a monitor interval: least-squares slope of RTT over send time.");
    t.def("vivace_rate_steps",
          &RateSteps,
          py::arg("rate_bps"),
          py::arg("gradients"),
          py::arg("theta0_mbps") = 1.0,
          py::arg("omega0") = 0.05,
          py::arg("omega_step") = 0.06,
          py::arg("amplifier_step") = 0.5,
          py::arg("min_rate_bps") = 1e5,
          py::arg("max_rate_bps") = 4e9,
          "Vivace's gradient-ascent steps (confidence amplifier, dynamic change boundary) from "
          "rate_bps, one per utility gradient (utility per Mbit/s): a dict per step.");
    t.def("vivace_defaults",
          &VivaceDefaults,
          "The attribute defaults of ns3::TcpPccVivace (and its name).");
}
