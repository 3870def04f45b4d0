r"""StarQUIC's handover-aware congestion-window freeze, around NewReno, CUBIC or BBR.

V. Kamel, J. Zhao, D. Li, J. Pan, "StarQUIC: Tuning Congestion Control Algorithms for QUIC over
LEO Satellite Networks", 2nd ACM Workshop on LEO Networking and Communication (LEO-NET '24, at
MobiCom '24), doi:10.1145/3636534.3696227. Implementable form:
``docs/specs/freeze.md#the-freeze-rule``.
The rule runs natively as a wrapper around any congestion controller
(``cpp/model/cc/mp-freeze.cc``, registry name ``freeze``, combined as ``freeze+<cc>``).

Starlink hands every terminal over at seconds 12, 27, 42 and 57 of every minute (period 15 s),
each handover lasting about 100 ms. With the handover instants :math:`H` and a lost packet's
send time :math:`t_s`:

.. math::

    F(h) = [\,h - \delta_b,\; h + \delta_a\,], \qquad
    \mathrm{frozen}(t_s) \iff \exists h \in H:\; h - \delta_b \le t_s + \Delta_{off}
    \le h + \delta_a

with :math:`\delta_b = \delta_a = 100` ms [PAPER] and :math:`\Delta_{off} = 0` (sender near the
PoP) [PAPER setup]. Frozen losses are retransmitted but do not reduce the window: the inner
controller sees each loss detection without them (the most recently sent remaining packet sets
the recovery period) and none at all if none remain; they are also left out of RFC 9002's
persistent-congestion test (the QUIC analogue of the RTO collapse). ACKs still grow the window.
By default :math:`H` is the path oracle's handover timetable (the scenario's Starlink grid at
its UTC phase); ``fixed_schedule=True`` uses the grid :math:`12 + 15k` s in the UTC clock
:math:`t + \mathrm{epoch\_phase}` instead, evaluated in integer microseconds.

The env selects it with ``cc="freeze+cubic"`` (or ``freeze+newreno``, ``freeze+bbr``,
``freeze+bbr3``); the native registry resolves ``freeze+<cc>`` to this wrapper around
``<cc>``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from leogym.baselines.base import NativePolicy
from leogym.baselines.params import make_params, native_policy, param

__all__ = ["CITATION", "FreezeParams", "make_freeze", "BASELINES", "INNER_CCS"]

CITATION = (
    "V. Kamel, J. Zhao, D. Li, J. Pan, StarQUIC: Tuning Congestion Control Algorithms for QUIC "
    "over LEO Satellite Networks, ACM LEO-NET '24 (MobiCom '24), doi:10.1145/3636534.3696227"
)

#: Controllers the freeze is offered around (the paper evaluated CUBIC and BBRv3; NewReno is
#: our main loss-based baseline, docs/specs/freeze.md#per-controller; "bbr" is BBRv1, which
#: the paper used as its reference, "bbr3" the draft's BBRv3, cpp/doc/bbr3.md).
INNER_CCS = ("newreno", "cubic", "bbr", "bbr3")


@dataclass
class FreezeParams:
    """The freeze's parameters (paper values and our defaults, docs/specs/freeze.md#parameters).

    :param before_s: window start before a handover [PAPER 0.1 s].
    :param after_s: window end after a handover [PAPER 0.1 s].
    :param delta_off_s: sender-to-satellite one-way delay added to send times [PAPER setup 0].
    :param fixed_schedule: use the global grid instead of the path oracle's handover instants.
    :param epoch_phase_s: UTC second at simulation time 0 (``fixed_schedule`` only) [REC 0].
    :param schedule_offset_s: first handover second of the grid [PAPER 12 s].
    :param schedule_period_s: period of the grid [PAPER 15 s].
    :param freeze_timeouts: keep frozen packets out of the persistent-congestion test
        [PAPER + CODE: timeouts are frozen].
    :param enabled: apply the freeze (False: the inner controller unchanged).
    """

    before_s: float = param(0.1, "Before", 0.0, 60.0)
    after_s: float = param(0.1, "After", 0.0, 60.0)
    delta_off_s: float = param(0.0, "DeltaOff", 0.0, 10.0)
    fixed_schedule: bool = param(False, "FixedSchedule")
    epoch_phase_s: float = param(0.0, "EpochPhase", 0.0, 86400.0)
    schedule_offset_s: float = param(12.0, "ScheduleOffset", 0.0, 3600.0)
    schedule_period_s: float = param(15.0, "SchedulePeriod", 1e-3, 3600.0)
    freeze_timeouts: bool = param(True, "FreezeTimeouts")
    enabled: bool = param(True, "Enabled")


def make_freeze(inner: str = "cubic", **params: Any) -> NativePolicy:
    """The freeze around ``inner`` as a native policy (``cc="freeze+<inner>"``).

    :param inner: the wrapped controller, one of :data:`INNER_CCS`.
    :param params: :class:`FreezeParams` fields.
    """
    if inner not in INNER_CCS:
        raise ValueError(f"baseline.freeze.inner: must be one of {INNER_CCS}, got {inner!r}")
    p = make_params(FreezeParams, "baseline.freeze", **params)
    name = f"freeze+{inner}"
    return native_policy(name, {"cc": name}, CITATION, p, "cc_params")


def _factory(inner: str) -> Callable[..., NativePolicy]:
    def factory(**params: Any) -> NativePolicy:
        return make_freeze(inner, **params)

    factory.__doc__ = f"StarQUIC's handover freeze around {inner} (cc='freeze+{inner}')."
    return factory


#: Factories the registry loads.
BASELINES = {f"freeze+{cc}": _factory(cc) for cc in INNER_CCS}
