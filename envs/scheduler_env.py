"""``leogym/LeoScheduler-v0``: the agent sets per-path traffic weights, or picks the path."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from leogym.envs.actions import multiplicative_factor
from leogym.envs.config import EnvOptions
from leogym.envs.leo_env import LeoEnv

__all__ = ["LeoSchedulerEnv"]

_MIN_WEIGHT = 1e-3


class LeoSchedulerEnv(LeoEnv):
    """Multipath packet scheduling over an ns-3 LEO scenario.

    ## Description
    The same LEO multipath connection as ``leogym/LeoCC-v0`` (satellite paths through handovers
    and outages, optional terrestrial paths), but the agent schedules: every ``step_ms`` it
    reweights how new data is split across paths (``continuous``) or picks the one path that
    carries new data (``discrete``). Each path's congestion control comes from the config
    (default CUBIC); a path with no congestion-window space is skipped, as every scheduler in
    docs/specs/alcs.md#baseline-schedulers does.

    ## Action Space
    ``continuous``: ``Box(-1, 1, (max_paths,), float32)``; entry ``i`` multiplies path ``i``'s
    weight by ``1 + s·a`` (``a ≥ 0``) or divides it by ``1 − s·a`` (``a < 0``); weights are
    renormalised to sum to 1 over the real paths (start: equal). ``discrete``:
    ``Discrete(max_paths)``: the path for new data this step (a padded index falls back to the
    lowest-RTT path).

    ## Observation Space
    As ``leogym/LeoCC-v0``: see its card, or ``env.unwrapped.feature_names``.

    ## Rewards
    As ``leogym/LeoCC-v0`` (default ``"leo"``).

    ## Starting State
    Equal weights over the real paths.

    ## Episode End
    * Termination: a ``file`` workload has been delivered completely.
    * Truncation: ``episode_s`` of simulated time has elapsed.

    ## Arguments
    As ``leogym/LeoCC-v0``, with defaults ``cc="cubic"`` and ``scheduler="external"``. A native
    ``scheduler`` (``"minrtt"``, ``"alcs"``, ``"blest"``, ``"ecf"``, ``"roundrobin"``) puts that
    scheduler in charge and the env ignores actions.

    ## Version History
    * v0: initial release.
    """

    default_cc = "cubic"
    default_scheduler = "external"

    @classmethod
    def action_space_for(cls, options: EnvOptions) -> spaces.Space:
        n = options.observation.max_paths
        if options.action_mode == "discrete":
            return spaces.Discrete(n)
        return spaces.Box(-1.0, 1.0, shape=(n,), dtype=np.float32)

    def _reset_controls(self) -> None:
        self._weights_now = np.full(self.n_paths, 1.0 / self.n_paths)

    def _apply_action(self, action: np.ndarray) -> None:
        if not self.agent_controls_scheduler:
            return
        self._apply_scheduler_action(action)

    def _apply_scheduler_action(self, action: np.ndarray) -> None:
        assert self._sim is not None  # step() has checked it
        if self.config.action_mode == "discrete":
            choice = int(np.asarray(action).reshape(()))
            if choice >= self.n_paths:  # a padded index: the lowest-RTT real path
                srtt = self._last.srtt_s if self._last is not None else np.zeros(self.n_paths)
                srtt = np.where(np.asarray(srtt) > 0, srtt, np.inf)
                choice = int(np.argmin(srtt)) if np.isfinite(srtt).any() else 0
            self._sim.apply(path_choice=choice)
            return
        w = self._weights_now * multiplicative_factor(
            action[: self.n_paths], self.config.action_scale
        )
        w = np.maximum(w / w.sum(), _MIN_WEIGHT)
        self._weights_now = w / w.sum()
        self._sim.apply(weights=self._weights_now)
