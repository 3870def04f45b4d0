r"""ALCS: the Adaptive Latency Compensation Scheduler for satellite-terrestrial multipath.

L. Wang, Z. Wang, Z. Deng, J. Zhang, Y. Gao, "ALCS: An Adaptive Latency Compensation Scheduler
for Multipath TCP in Satellite-Terrestrial Integrated Networks" (seed 001). Implementable form:
``docs/specs/alcs.md``; its [REC] choices are the defaults of :class:`AlcsParams`. The
scheduler runs natively (``cpp/model/sched/mp-alcs-scheduler.cc``, ``scheduler="alcs"``).

Units: :math:`k, i, q, \mathrm{cwnd}` in segments, :math:`rtt, \Delta, tl` in seconds.

**Proactive handover management.** A satellite path is deactivated (no new data; packets in
flight complete) one RTT before its next outage-causing handover, from the path oracle's
timetable, until the handover is over: :math:`t_{ho} - \kappa\, srtt_i \le t < t_{ho,end}`,
:math:`\kappa = 1`.

**Roles.** :math:`S_f` = the usable path with the smallest smoothed RTT (window room or not);
if it has room, send on it. Otherwise :math:`S_s` = minRTT's choice among paths with room.

**Latency estimates** (:math:`k` = connection-level segments not yet on a path, :math:`i` =
segments in flight, :math:`q_f` = segments bound to :math:`S_f` but unsent, 0 in this
transport):

.. math::

    tl_f = \frac{k + i_f + q_f}{cwnd_f}(rtt_f + \Delta_f) \quad (1) \qquad
    tl_s = \frac{k + i_s}{cwnd_s}(rtt_s + \Delta_s) \quad (2)

    tl_f = \frac{k + i_f + q_f}{cwnd_f}(rtt_f + \Delta_f)\,\sigma_f \quad (3) \qquad
    tl_s = \frac{k + i_s}{cwnd_s}(rtt_s + \Delta_s)\,\sigma_s \quad (4)

Decision: :math:`tl_f < tl_s` → wait for :math:`S_f`; otherwise send on :math:`S_s` now.
:math:`rtt` = smoothed RTT, :math:`\Delta` = rttvar [R].

**Adaptive compensation.** :math:`\sigma = 1` initially; every :math:`T_u`, with :math:`atp`
segments acknowledged and :math:`etp` expected, :math:`\alpha = 0.99`:

.. math::

    \sigma \leftarrow \sigma\alpha \text{ if } atp > etp, \qquad
    \sigma \leftarrow \sigma/\alpha \text{ if } atp < etp \quad (7), (10)

clamped to :math:`[0.5, 2]` [R]; :math:`T_u = \max(100\,ms, \max srtt)` [R];
:math:`etp = \int cwnd / (\sigma(rtt + \Delta))` over the time the path was backlogged [R].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leogym.baselines.base import NativePolicy
from leogym.baselines.params import make_params, native_policy, param
from leogym.schema import FieldError

__all__ = ["CITATION", "AlcsParams", "make_alcs", "BASELINES"]

CITATION = (
    "L. Wang, Z. Wang, Z. Deng, J. Zhang, Y. Gao, ALCS: An Adaptive Latency Compensation "
    "Scheduler for Multipath TCP in Satellite-Terrestrial Integrated Networks"
)


@dataclass
class AlcsParams:
    """ALCS's parameters (paper values and the [REC] defaults of docs/specs/alcs.md#constants).

    :param alpha: attenuation factor of eqs. (7)/(10) [P 0.99].
    :param sigma_init: initial compensation factor [P 1.0].
    :param sigma_min: lower clamp of sigma [R 0.5].
    :param sigma_max: upper clamp of sigma [R 2.0].
    :param update_interval_s: :math:`T_u`; 0 = max(``update_interval_min_s``, largest srtt) [R].
    :param update_interval_min_s: lower bound of the automatic :math:`T_u` [R 0.1 s].
    :param etp_mode: 0 = model rate while backlogged [R]; 1 = segments dispatched.
    :param update_all: update every path's sigma, not only the two roles' [P: roles].
    :param delta_mode: :math:`\\Delta`: 0 = rttvar [R]; 1 = 2 rttvar; 2 = 0.
    :param k_mode: :math:`k`: 0 = connection-level backlog [P wording]; 1 = one segment;
        2 = backlog capped at ``k_cap``.
    :param k_cap: cap of :math:`k` (segments) for ``k_mode=2``.
    :param handover: proactive handover deactivation [P on].
    :param guard_rtts: deactivate this many smoothed RTTs ahead [P one RTT].
    :param only_outage_events: deactivate only before outage-causing handovers [R].
    """

    alpha: float = param(0.99, "Alpha", 0.5, 1.0)
    sigma_init: float = param(1.0, "SigmaInit", 1e-3, 1e3)
    sigma_min: float = param(0.5, "SigmaMin", 1e-3, 1e3)
    sigma_max: float = param(2.0, "SigmaMax", 1e-3, 1e3)
    update_interval_s: float = param(0.0, "UpdateInterval", 0.0, 3600.0)
    update_interval_min_s: float = param(0.1, "UpdateIntervalMin", 1e-6, 3600.0)
    etp_mode: int = param(0, "EtpMode", 0, 1)
    update_all: bool = param(False, "UpdateAll")
    delta_mode: int = param(0, "DeltaMode", 0, 2)
    k_mode: int = param(0, "KMode", 0, 2)
    k_cap: float = param(1000.0, "KCap", 1.0, 1e9)
    handover: bool = param(True, "Handover")
    guard_rtts: float = param(1.0, "GuardRtts", 0.0, 100.0)
    only_outage_events: bool = param(True, "OnlyOutageEvents")

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        if self.sigma_min > self.sigma_max:
            raise error(
                f"{path}.sigma_min",
                f"must be <= sigma_max ({self.sigma_max:g}) (got {self.sigma_min:g})",
            )


def make_alcs(**params: Any) -> NativePolicy:
    """ALCS as a native policy (``scheduler="alcs"``); keyword arguments are
    :class:`AlcsParams`."""
    p = make_params(AlcsParams, "baseline.alcs", **params)
    return native_policy("alcs", {"scheduler": "alcs"}, CITATION, p, "scheduler_params")


#: Factories the registry loads.
BASELINES = {"alcs": make_alcs}
