// SPDX-License-Identifier: GPL-2.0-only
//
// Recovery presets and their overrides from Python.

#include "recovery-config.h"

#include "leo-python-inputs.h"
#include "simulation-config.h"

#include <cmath>
#include <stdexcept>

namespace py = pybind11;

namespace leogym
{

namespace
{

using R = ns3::MpLossRecovery;

const char* const kFormulas[] = {"rfc6298", "linux", "quic"};
const char* const kBackoffs[] = {"double", "xor", "picoquic"};

template <std::size_t N>
uint8_t
Choice(py::handle v, const std::string& f, const char* const (&names)[N])
{
    std::string s = ToString(v, f);
    std::string list;
    for (std::size_t i = 0; i < N; ++i)
    {
        if (s == names[i])
        {
            return static_cast<uint8_t>(i);
        }
        list += std::string(i ? ", " : "") + "'" + names[i] + "'";
    }
    throw std::invalid_argument(f + ": must be one of " + list + ", got '" + s + "'");
}

ns3::Time
SecondsIn(py::handle v, const std::string& f, RealRange range)
{
    return ns3::Seconds(ToSecondsIn(v, f, range));
}

} // namespace

ns3::MpRecoveryConfig
RecoveryFromPython(const std::string& preset, py::handle params, const std::string& field)
{
    R::Recovery r;
    if (!ns3::MpRecoveryConfig::Parse(preset, r))
    {
        std::string list;
        for (const auto& n : ns3::MpRecoveryConfig::Names())
        {
            list += (list.empty() ? "'" : ", '") + n + "'";
        }
        throw std::invalid_argument(field + ": unknown recovery '" + preset + "' (known: " + list +
                                    ")");
    }
    ns3::MpRecoveryConfig c = ns3::MpRecoveryConfig::Preset(r);
    if (params.is_none())
    {
        return c;
    }
    const std::string pf = field + "_params";
    if (!py::isinstance<py::dict>(params))
    {
        throw std::invalid_argument(pf + ": must be a dict");
    }
    auto d = py::reinterpret_borrow<py::dict>(params);
    if (r == R::Recovery::RFC9002 && !d.empty())
    {
        throw std::invalid_argument(pf + ": the timer settings apply to the timer-based "
                                         "recoveries ('tcp', 'quic-draft', 'picoquic'), not to "
                                         "'rfc9002'");
    }
    for (auto item : d)
    {
        if (!py::isinstance<py::str>(item.first))
        {
            throw std::invalid_argument(pf + ": keys must be strings");
        }
        const std::string key = py::str(item.first);
        const std::string f = pf + "." + key;
        py::handle v = item.second;
        if (key == "min_rto_s")
        {
            c.lr.minRto = SecondsIn(v, f, ranges::kRecoveryMinRtoS);
        }
        else if (key == "max_rto_s")
        {
            c.lr.maxRto = SecondsIn(v, f, ranges::kRecoveryMaxRtoS);
        }
        else if (key == "initial_rto_s")
        {
            c.lr.initialRto = SecondsIn(v, f, ranges::kRecoveryInitialRtoS);
        }
        else if (key == "rto_formula")
        {
            c.lr.rtoFormula = static_cast<R::RtoFormula>(Choice(v, f, kFormulas));
        }
        else if (key == "rto_backoff")
        {
            c.lr.rtoBackoff = static_cast<R::RtoBackoff>(Choice(v, f, kBackoffs));
        }
        else if (key == "tail_loss_probes")
        {
            c.lr.maxTlps = static_cast<uint32_t>(ToIntIn(v, f, ranges::kRecoveryTailLossProbes));
        }
        else if (key == "tlp_timing")
        {
            static const char* const timings[] = {"draft", "module"};
            c.lr.tlpModuleTiming = Choice(v, f, timings) == 1;
        }
        else if (key == "time_threshold_loss")
        {
            c.lr.timeThresholdLoss = ToBool(v, f);
        }
        else if (key == "detect_lost_retransmissions")
        {
            c.lr.detectLostRetransmissions = ToBool(v, f);
        }
        else if (key == "rto_undo")
        {
            c.rtoUndo = ToBool(v, f);
        }
        else if (key == "slow_start_after_idle")
        {
            c.slowStartAfterIdle = ToBool(v, f);
        }
        else if (key == "loss_state")
        {
            c.lossState = ToBool(v, f);
        }
        else if (key == "loss_window_packets")
        {
            c.lossWindowPackets =
                static_cast<uint32_t>(ToIntIn(v, f, ranges::kRecoveryLossWindowPackets));
        }
        else if (key == "rto_probes")
        {
            c.rtoProbes = static_cast<uint32_t>(ToIntIn(v, f, ranges::kRecoveryRtoProbes));
        }
        else if (key == "prr")
        {
            c.prr = ToBool(v, f);
        }
        else if (key == "fast_retransmit")
        {
            c.fastRetransmit = ToBool(v, f);
        }
        else if (key == "verified_window_packets")
        {
            c.verifiedWindowPackets =
                static_cast<uint32_t>(ToIntIn(v, f, ranges::kRecoveryVerifiedWindowPackets));
        }
        else
        {
            throw std::invalid_argument(
                f + ": unknown key (known: detect_lost_retransmissions, fast_retransmit, "
                    "initial_rto_s, loss_state, prr, loss_window_packets, max_rto_s, min_rto_s, "
                    "rto_backoff, "
                    "rto_formula, rto_probes, rto_undo, slow_start_after_idle, "
                    "tail_loss_probes, time_threshold_loss, tlp_timing, verified_window_packets)");
        }
    }
    if (c.lr.maxRto.IsStrictlyPositive() && c.lr.maxRto < c.lr.minRto)
    {
        throw std::invalid_argument(pf + ".max_rto_s: must be >= min_rto_s (or 0 for no cap)");
    }
    return c;
}

py::dict
RecoveryToDict(const ns3::MpRecoveryConfig& c)
{
    py::dict d;
    d["min_rto_s"] = c.lr.minRto.GetSeconds();
    d["max_rto_s"] = c.lr.maxRto.GetSeconds();
    d["initial_rto_s"] = c.lr.initialRto.GetSeconds();
    d["rto_formula"] = kFormulas[static_cast<int>(c.lr.rtoFormula)];
    d["rto_backoff"] = kBackoffs[static_cast<int>(c.lr.rtoBackoff)];
    d["tail_loss_probes"] = c.lr.maxTlps;
    d["tlp_timing"] = c.lr.tlpModuleTiming ? "module" : "draft";
    d["time_threshold_loss"] = c.lr.timeThresholdLoss;
    d["detect_lost_retransmissions"] = c.lr.detectLostRetransmissions;
    d["rto_undo"] = c.rtoUndo;
    d["slow_start_after_idle"] = c.slowStartAfterIdle;
    d["loss_state"] = c.lossState;
    d["loss_window_packets"] = c.lossWindowPackets;
    d["rto_probes"] = c.rtoProbes;
    d["verified_window_packets"] = c.verifiedWindowPackets;
    d["fast_retransmit"] = c.fastRetransmit;
    d["prr"] = c.prr;
    return d;
}

} // namespace leogym
