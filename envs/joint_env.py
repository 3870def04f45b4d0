"""``leogym/LeoJoint-v0``: the agent controls congestion windows and scheduling at once."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from leogym.envs.actions import DISCRETE_FACTORS
from leogym.envs.cc_env import LeoCCEnv
from leogym.envs.config import EnvOptions
from leogym.envs.scheduler_env import LeoSchedulerEnv

__all__ = ["LeoJointEnv"]


class LeoJointEnv(LeoCCEnv, LeoSchedulerEnv):
    """Joint multipath congestion control and scheduling over an ns-3 LEO scenario.

    ## Description
    ``leogym/LeoCC-v0`` and ``leogym/LeoScheduler-v0`` at once: every ``step_ms`` the agent
    rescales each path's congestion window (or pacing rate) and reweights the scheduler.

    ## Action Space
    ``continuous`` and ``residual``: ``Box(-1, 1, (k + max_paths,), float32)``: the first ``k``
    entries are the CC action of ``LeoCC-v0`` in that mode (``k = max_paths``, or ``2·max_paths``
    for ``residual`` with ``residual_alternate``), the last ``max_paths`` the weight actions of
    ``LeoScheduler-v0``. ``discrete``: ``MultiDiscrete([5]*max_paths + [max_paths])``: per-path
    cwnd factors, then the path for new data.

    ## Observation Space, Rewards, Starting State, Episode End
    As ``leogym/LeoCC-v0``.

    ## Arguments
    As ``leogym/LeoCC-v0``, with defaults ``cc="external"`` and ``scheduler="external"``.

    ## Version History
    * v0: initial release.
    """

    default_cc = "external"
    default_scheduler = "external"

    @classmethod
    def action_space_for(cls, options: EnvOptions) -> spaces.Space:
        n = options.observation.max_paths
        if options.action_mode == "discrete":
            return spaces.MultiDiscrete([len(DISCRETE_FACTORS)] * n + [n])
        return spaces.Box(-1.0, 1.0, shape=(cls._cc_width(options) + n,), dtype=np.float32)

    @staticmethod
    def _cc_width(options: EnvOptions) -> int:
        """How many leading entries of the action are LeoCC-v0's action
        (:meth:`LeoCCEnv.action_space_for`)."""
        cc = LeoCCEnv.action_space_for(options)
        assert cc.shape is not None
        return int(cc.shape[0])

    def _reset_controls(self) -> None:
        LeoCCEnv._reset_controls(self)
        LeoSchedulerEnv._reset_controls(self)

    def _apply_action(self, action: np.ndarray) -> None:
        if self.config.action_mode == "discrete":
            n = self.config.observation.max_paths
            cc, sched = action[:n], action[n]
        else:
            k = self._cc_width(self.config)
            cc, sched = action[:k], action[k:]
        LeoCCEnv._apply_action(self, cc)
        if self.agent_controls_scheduler:
            self._apply_scheduler_action(np.asarray(sched))
