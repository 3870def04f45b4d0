r"""MACO: mobility-aware multipath congestion control for LEO satellite paths.

W. Yang, L. Cai, S. Shu, J. Pan, "Mobility-Aware Congestion Control for Multipath QUIC in
Integrated Terrestrial Satellite Networks", *IEEE Transactions on Mobile Computing*, 2024,
doi:10.1109/TMC.2024.3397164. Implementable form: ``docs/specs/maco.md``; the [REC] choices there
are the defaults of :class:`MacoParams`. The algorithm runs natively (``cpp/model/cc/mp-maco*``:
the controller, its link budget, filter and equations; selected with ``cc="maco"``); this
module names it, documents it and exposes its parameters.

Windows :math:`w` are in packets of the maximum datagram size (MSS), rates in bit/s, times in
seconds. It reads the serving satellite's slant range (or SNR) from the scenario's path oracle.

**BDP estimation (Algorithm 1).** Access-link rate from the predicted slant range :math:`d_r`:

.. math::

    \mathrm{SNR}_r = \frac{P_t g_1 g_2}{(4\pi d_r/\lambda)^2 N_0 W} \quad (2) \qquad
    C^A_r = \eta W \log_2(1 + \mathrm{SNR}_r) \quad (3)

(Table 3: :math:`P_t` = 35.12 dBm, :math:`g_1` = 37.7 dBi, :math:`g_2` = 37.1 dBi,
:math:`\lambda` = 0.086 m, :math:`N_0` = 1.6e-20 W/Hz, :math:`W` = 12.5 MHz, :math:`\eta` = 0.98:
198.6 Mbit/s at 550 km.) Network-side rate from ACKs, :math:`C^N = (S_t - S_{t-1})/\Delta t`
(4), smoothed by an adaptive Kalman filter (random walk, eqs. 5-10):
:math:`Z^- = Z^+ + Q`, :math:`K = Z^-/(Z^- + R)`, :math:`\hat C = C^- + K(y - C^-)`,
:math:`Z^+ = (1-K)Z^-`, with :math:`Q, R` from innovation covariance matching over 20 samples.
Round-trip propagation delay and BDP:

.. math::

    D_r = 2(D_{ul} + D_{dl} + D_{terr}) \quad (11) \qquad C_r = \min(C^A_r, C^N_r) \quad (12)
    \qquad \bar B_r(t) = \frac{1}{\tau_r}\int_{t-\tau_r}^{t} C_{r,z} D_{r,z}\,dz \quad (14)

**Quick start (Algorithm 2).** On subflow creation, reconnection and timeout:
:math:`\mathrm{ssthresh} = \bar B_r` and
:math:`\Omega_r = \gamma \min(\bar B_r, \max W_r)` (16), or with another subflow's history
:math:`\gamma \min(\bar B_r, \max_{q \ne r} \max W_q)` (15), else 4 MSS; :math:`\gamma = 1/2`.

**Mobility-aware congestion detection (eq. 17).** A loss halves the window only if
:math:`TP_r(t) < C^A_r(t-1)` (17a) and :math:`\tau_r(t) > D_r(t-1) + \Delta_R` (17b), with
:math:`\Delta_R` the standard deviation of :math:`\tau - D` over the last 20 RTT samples.
Then :math:`W_r \leftarrow W_r \cup \{w_r\}` and :math:`w_r \leftarrow w_r/2`.

**Congestion avoidance (eqs. 18-26).** Per acknowledged packet on subflow :math:`r`:

.. math::

    w_r \leftarrow w_r + \frac{3 \max_{p}\left(x_p^2 \sqrt{T_p}\right)}
    {2 \tau_r \left(\sum_k x_k\right)^{5/2}}, \qquad x_k = w_k/\tau_k \quad (26)

with :math:`T_p` the largest RTT path :math:`p` has seen; one path gives
:math:`1.5\sqrt{T/(\tau w)}` per ACK (1.5 x Elastic-TCP).

Usage::

    policy = make_baseline("maco")                 # env_overrides == {"cc": "maco"}
    policy = make_baseline("maco", delay_mode=1)   # oracle delays for D
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leogym.baselines.base import NativePolicy
from leogym.baselines.params import make_params, native_policy, param

__all__ = ["CITATION", "MacoParams", "make_maco", "BASELINES"]

CITATION = (
    "W. Yang, L. Cai, S. Shu, J. Pan, Mobility-Aware Congestion Control for Multipath QUIC in "
    "Integrated Terrestrial Satellite Networks, IEEE Transactions on Mobile Computing, 2024, "
    "doi:10.1109/TMC.2024.3397164"
)


@dataclass
class MacoParams:
    """MACO's parameters with the paper's values and our [REC] defaults.

    Each choice and its reason: docs/specs/maco.md#choices-where-the-paper-is-silent.

    :param gamma: quick-start safety factor :math:`\\gamma` [PAPER 1/2].
    :param init_cwnd_pkts: fallback initial window and floor of :math:`\\Omega` [PAPER 4].
    :param decrease_factor: window factor on a congestion loss [PAPER 1/2].
    :param min_cwnd_pkts: minimum window [REC 2, RFC 9002 kMinimumWindow].
    :param tx_power_dbm: :math:`P_t` [PAPER 35.12 dBm].
    :param tx_gain_dbi: :math:`g_1` [PAPER 37.7 dBi].
    :param rx_gain_dbi: :math:`g_2` [PAPER 37.1 dBi].
    :param wavelength_m: :math:`\\lambda` [PAPER 0.086 m].
    :param noise_psd_w_hz: :math:`N_0` [PAPER 1.6e-20 W/Hz].
    :param bandwidth_hz: :math:`W` [PAPER 12.5 MHz].
    :param efficiency: :math:`\\eta` [PAPER 0.98].
    :param speed_of_light_mps: propagation speed in eq. (11) [PAPER 3e8 m/s].
    :param delay_mode: 0 = legs from the slant range plus an EWMA of :math:`D_{terr}`
        [REC, docs/specs/maco.md#terrestrial-delay]; 1 = the path oracle's propagation delays
        (the configured terrestrial delay).
    :param target_initial_rtt_s: :math:`D(t_0)` that sets the initial :math:`D_{terr}`
        [REC 0.1 s, the paper's 99th-percentile RTT].
    :param d_terr_alpha: EWMA weight of :math:`D_{terr}` [REC 1/8].
    :param rtt_min_window_s: window of the minimum RTT feeding :math:`D_{terr}` [REC 10 s].
    :param delta_window: RTT samples in :math:`\\Delta_R` [REC 20].
    :param delta_floor_s: floor of :math:`\\Delta_R` [REC 1 ms].
    :param tp_min_interval_s: minimum spacing of throughput samples, eq. (4) [REC 10 ms].
    :param akf_window: innovations in the AKF covariance matching [REC 20].
    :param akf_adaptive: adapt the AKF's Q and R (False: keep their initial values).
    :param con1_bottleneck: compare TP with :math:`\\min(C^A, C^N)` in (17a)
        (docs/specs/maco.md#capacity-in-the-congestion-test; default the access capacity, as
        the paper's text says).
    :param bdp_future: average :math:`C D` over the next RTT (predicted) instead of the past
        one (docs/specs/maco.md#averaging-window-of-the-bdp).
    :param history_last_k: keep the last K congestion windows in :math:`W_r` (0: running max).
    :param increment_uses_srtt: smoothed instead of latest RTTs in eq. (26)
        (docs/specs/maco.md#units-and-indices-of-the-increase).
    :param qs_on_pto: re-enter quick start on a probe timeout (the paper's "timeout").
    :param reset_max_rtt_on_reconnect: reset :math:`T_r` at a reconnection
        (docs/specs/maco.md#largest-rtt).
    :param proactive_clamp: clamp the window to the post-handover BDP share one RTT ahead
        (the paper's unspecified "proactive reduction", docs/specs/maco.md#proactive-reduction;
        off).
    :param freeze_on_handover: MACO + freeze: losses near a handover are not congestion.
    """

    gamma: float = param(0.5, "Gamma", 0.01, 1.0)
    init_cwnd_pkts: float = param(4.0, "InitCwndPackets", 1.0, 100000.0)
    decrease_factor: float = param(0.5, "DecreaseFactor", 0.05, 0.95)
    min_cwnd_pkts: float = param(2.0, "MinCwndPackets", 1.0, 1e4)
    tx_power_dbm: float = param(35.12, "TxPowerDbm", -100.0, 100.0)
    tx_gain_dbi: float = param(37.7, "TxGainDbi", -50.0, 100.0)
    rx_gain_dbi: float = param(37.1, "RxGainDbi", -50.0, 100.0)
    wavelength_m: float = param(0.086, "WavelengthM", 1e-4, 10.0)
    noise_psd_w_hz: float = param(1.6e-20, "NoisePsd", 1e-30, 1e-10)
    bandwidth_hz: float = param(12.5e6, "BandwidthHz", 1e3, 1e11)
    efficiency: float = param(0.98, "Efficiency", 1e-3, 1.0)
    speed_of_light_mps: float = param(3e8, "SpeedOfLight", 1e7, 1e9)
    delay_mode: int = param(0, "DelayMode", 0, 1)
    target_initial_rtt_s: float = param(0.1, "TargetInitialRtt", 1e-4, 10.0)
    d_terr_alpha: float = param(0.125, "DTerrAlpha", 0.0, 1.0)
    rtt_min_window_s: float = param(10.0, "RttMinWindow", 1e-3, 3600.0)
    delta_window: int = param(20, "DeltaWindow", 2, 100000)
    delta_floor_s: float = param(0.001, "DeltaFloor", 0.0, 10.0)
    tp_min_interval_s: float = param(0.010, "TpMinInterval", 1e-6, 100.0)
    akf_window: int = param(20, "AkfWindow", 1, 100000)
    akf_adaptive: bool = param(True, "AkfAdaptive")
    con1_bottleneck: bool = param(False, "Con1Bottleneck")
    bdp_future: bool = param(False, "BdpFuture")
    history_last_k: int = param(0, "HistoryLastK", 0, 100000)
    increment_uses_srtt: bool = param(False, "IncrementUsesSrtt")
    qs_on_pto: bool = param(True, "QsOnPto")
    reset_max_rtt_on_reconnect: bool = param(False, "ResetMaxRttOnReconnect")
    proactive_clamp: bool = param(False, "ProactiveClamp")
    freeze_on_handover: bool = param(False, "FreezeOnHandover")


def make_maco(**params: Any) -> NativePolicy:
    """MACO as a native policy (``cc="maco"``); keyword arguments are :class:`MacoParams`."""
    p = make_params(MacoParams, "baseline.maco", **params)
    return native_policy("maco", {"cc": "maco"}, CITATION, p, "cc_params")


#: Factories the registry loads.
BASELINES = {"maco": make_maco}
