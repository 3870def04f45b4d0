"""Handover schedule and serving-satellite plans.

Starlink reassigns user-satellite links on a global 15 s schedule, at seconds 12, 27, 42 and 57
of every minute (StarQUIC, Kamel et al., LEO-NET '24, citing Tanveer et al. CoNEXT '23 and Pan
et al. ICC '24; docs/specs/freeze.md#starlinks-handover-schedule). With the UTC second-of-day
``e0`` at simulation time 0, slot ``m`` is at the simulation time ``t`` with
``(e0 + t - offset) mod period = 0``.

A *plan* for one path is the piecewise-constant serving satellite over the episode and the list
of handover events. Events are created by:

* ``schedule``: at every slot the policy re-selects (an event even if the satellite stays, when
  ``count_unchanged``), plus forced re-selection when the serving satellite is lost;
* ``visibility``: only when the serving satellite is lost (checked continuously, or every
  ``check_interval_s`` like NS-2's Iridium ``term_handoff_int_``);
* ``every_step``: at every geometry step, an event only when the satellite changes;
* ``scripted``: at the path's ``scripted_handovers_s``.

``maco_alternate`` implements the MACO shared/disjoint alternation for two paths
(docs/specs/maco.md#topology-states-and-handovers, [REC] items 1-5).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from leogym.scenario.config import HandoverConfig
from leogym.scenario.orbital.visibility import PathSky

__all__ = ["HandoverEvent", "ServingPlan", "slot_instants", "plan_rank", "plan_maco_alternate"]

_MAX_EVENTS = 1_000_000


@dataclass(frozen=True)
class HandoverEvent:
    """One handover of one path.

    :param t_s: simulation time.
    :param sat_from: previous serving satellite (-1 = none).
    :param sat_to: new serving satellite.
    :param effects: whether outage/loss/spike effects apply (False = make-before-break).
    :param cause: ``scheduled``, ``visibility``, ``step``, ``scripted``, ``maco_split`` or
        ``maco_merge``.
    """

    t_s: float
    sat_from: int
    sat_to: int
    effects: bool
    cause: str


@dataclass
class ServingPlan:
    """Serving satellite of one path over the episode.

    ``sats[i]`` serves from ``starts[i]`` until ``starts[i + 1]`` (-1 = none visible).
    """

    starts: list[float] = field(default_factory=list)
    sats: list[int] = field(default_factory=list)
    events: list[HandoverEvent] = field(default_factory=list)

    def switch(self, t: float, sat: int) -> None:
        """Record that ``sat`` serves from ``t`` on (no-op if unchanged)."""
        if self.sats and self.sats[-1] == sat:
            return
        if self.starts and self.starts[-1] == t:
            self.sats[-1] = sat
            return
        self.starts.append(t)
        self.sats.append(sat)

    def serving_at(self, times: np.ndarray) -> np.ndarray:
        """Serving satellite at each of ``times`` (int32)."""
        idx = np.searchsorted(np.asarray(self.starts), times, side="right") - 1
        return np.asarray(self.sats, dtype=np.int32)[np.clip(idx, 0, None)]


def slot_instants(
    duration_s: float, epoch_utc_s: float, period_s: float, offset_s: float
) -> np.ndarray:
    """Scheduled handover times in ``(0, duration_s]``.

    :param duration_s: episode length.
    :param epoch_utc_s: UTC second-of-day at ``t = 0``.
    :param period_s: slot period (15 s).
    :param offset_s: UTC second of a slot within its period (12 s).
    """
    first = float(np.mod(offset_s - epoch_utc_s, period_s))
    if first < 1e-9:
        first += period_s
    count = int(np.floor((duration_s - first) / period_s + 1e-9)) + 1
    if count <= 0:
        return np.zeros(0)
    return first + period_s * np.arange(count)


def _pick(
    sky: PathSky,
    t: float,
    policy: str,
    rank: int,
    rng: np.random.Generator,
    exclude: tuple[int, ...] = (),
) -> int:
    order = sky.ranking(t, policy, rng, exclude)
    if len(order) == 0:
        return -1
    return int(order[min(rank, len(order) - 1)])


def _next_check(t: float, interval: float) -> float:
    """The first multiple of ``interval`` at or after ``t`` (``t`` itself if ``interval`` is 0).

    The 1e-9 tolerance keeps a ``t`` that is a multiple up to rounding on that multiple; the
    guard keeps the result from falling before ``t`` when ``interval`` dwarfs ``t`` (then
    ``t / interval`` is below the tolerance and the plain formula gives 0, a check in the past
    that stalled the planner).
    """
    if interval <= 0 or not np.isfinite(t):
        return t
    k = np.ceil(t / interval - 1e-9)
    if k * interval < t - 1e-6:
        k += 1
    return float(k * interval)


def plan_rank(
    sky: PathSky,
    cfg: HandoverConfig,
    instants: np.ndarray,
    rank: int,
    rng: np.random.Generator,
    duration_s: float,
    cause: str,
    count_unchanged: bool,
) -> ServingPlan:
    """Plan one path that takes the ``rank``-th best satellite at each decision.

    :param sky: the path's sky view.
    :param cfg: handover settings (policy, mask enforcement, check interval).
    :param instants: sorted decision times in ``(0, duration_s]`` (slots, steps, scripted).
    :param rank: 0 = best satellite, 1 = second best, ... (falls back to the worst available).
    :param rng: generator for the ``random`` policy.
    :param duration_s: episode length.
    :param cause: cause recorded for events at ``instants``.
    :param count_unchanged: an instant is a handover even when the satellite stays.
    """
    plan = ServingPlan()
    cur = _pick(sky, 0.0, cfg.policy, rank, rng)
    plan.switch(0.0, cur)
    t = 0.0
    i = 0
    for _ in range(_MAX_EVENTS):
        t_inst = float(instants[i]) if i < len(instants) else np.inf
        t_loss = np.inf
        if cur >= 0 and cfg.enforce_mask:
            t_loss = _next_check(float(sky.set_times(t, np.array([cur]))[0]), cfg.check_interval_s)
        elif cur < 0:
            t_loss = _next_check(sky.first_usable_after(t), cfg.check_interval_s)
        t_ev = min(t_inst, t_loss)
        if t_ev > duration_s:
            break
        if t_inst <= t_loss:
            i += 1
            new = -1
            if cfg.prefer_new_satellite and cur >= 0:
                new = _pick(sky, t_ev, cfg.policy, rank, rng, (cur,))
            if new < 0:
                new = _pick(sky, t_ev, cfg.policy, rank, rng)
            if new >= 0 and (new != cur or count_unchanged):
                plan.events.append(HandoverEvent(t_ev, cur, new, True, cause))
        else:
            excl = (cur,) if cur >= 0 else ()
            new = _pick(sky, t_ev, cfg.policy, rank, rng, excl)
            if new >= 0:
                plan.events.append(HandoverEvent(t_ev, cur, new, True, "visibility"))
            if new < 0 and cur < 0:
                t_ev = max(t_ev, t + sky.dt_s)
        plan.switch(t_ev, new)
        cur = new
        t = max(t_ev, t)
    return plan


def plan_maco_alternate(
    skies: tuple[PathSky, PathSky],
    cfg: HandoverConfig,
    instants: np.ndarray,
    rng: np.random.Generator,
    duration_s: float,
) -> tuple[ServingPlan, ServingPlan]:
    """MACO's alternating shared/disjoint assignment for two paths.

    As docs/specs/maco.md#topology-states-and-handovers describes it, the episode starts
    *shared* (both paths on the best satellite; MACO's ``s1``). At each slot the state toggles:

    * shared -> disjoint: the *mover* attaches to the best satellite other than the stayer's,
      make-before-break (an event without effects);
    * disjoint -> shared: the stayer, on the older satellite, breaks (outage) and migrates to
      the mover's satellite; it becomes the next mover, so outages alternate A, B, A, ...

    A path whose satellite is lost between slots re-selects at once (with effects).
    """
    sky = skies[0]
    plans = (ServingPlan(), ServingPlan())
    best = _pick(sky, 0.0, cfg.policy, 0, rng)
    sats = [best, best]
    for p in plans:
        p.switch(0.0, best)
    shared = True
    mover = 1
    t = 0.0
    i = 0
    for _ in range(_MAX_EVENTS):
        t_inst = float(instants[i]) if i < len(instants) else np.inf
        losses = [np.inf, np.inf]
        for j in (0, 1):
            if sats[j] >= 0 and cfg.enforce_mask:
                losses[j] = float(skies[j].set_times(t, np.array([sats[j]]))[0])
            elif sats[j] < 0:
                losses[j] = skies[j].first_usable_after(t)
        t_ev = min(t_inst, *losses)
        if t_ev > duration_s:
            break
        if t_inst <= min(losses):
            i += 1
            if shared:
                stayer = 1 - mover
                new = _pick(skies[mover], t_ev, cfg.policy, 0, rng, (sats[stayer],))
                if new < 0:
                    new = sats[stayer]
                plans[mover].events.append(
                    HandoverEvent(t_ev, sats[mover], new, False, "maco_split")
                )
                sats[mover] = new
                plans[mover].switch(t_ev, new)
            else:
                stayer = 1 - mover
                new = sats[mover]
                plans[stayer].events.append(
                    HandoverEvent(t_ev, sats[stayer], new, True, "maco_merge")
                )
                sats[stayer] = new
                plans[stayer].switch(t_ev, new)
                mover = stayer
            shared = not shared
        else:
            lost = [j for j in (0, 1) if losses[j] <= t_ev]
            for j in lost:
                other = sats[1 - j] if not shared else -1
                excl = tuple(s for s in (sats[j], other) if s >= 0)
                new = _pick(skies[j], t_ev, cfg.policy, 0, rng, excl)
                if new < 0:
                    new = _pick(
                        skies[j], t_ev, cfg.policy, 0, rng, (sats[j],) if sats[j] >= 0 else ()
                    )
                if new >= 0:
                    plans[j].events.append(HandoverEvent(t_ev, sats[j], new, True, "visibility"))
                elif sats[j] < 0:
                    t_ev = max(t_ev, t + skies[j].dt_s)
                sats[j] = new
                plans[j].switch(t_ev, new)
        t = max(t, t_ev)
    return plans
