"""``leogym/LeoCC-v0``: the agent sets each path's congestion window (or pacing rate)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from leogym.envs.actions import cc_action_space
from leogym.envs.config import EnvOptions
from leogym.envs.controls import (
    MAX_CWND_PACKETS,
    MIN_CWND_PACKETS,
    apply_controls,
    control_action,
    current_controls,
)
from leogym.envs.leo_env import LeoEnv

__all__ = ["LeoCCEnv", "MIN_CWND_PACKETS", "MAX_CWND_PACKETS"]


class LeoCCEnv(LeoEnv):
    """Multipath congestion control over an ns-3 LEO scenario.

    ## Description
    A multipath QUIC-like connection carries bulk data (or a file) from a server to a user
    terminal over one or more satellite paths (bent pipe or ISL) and optional terrestrial paths,
    through handovers on Starlink's 15 s schedule, outages, latency spikes and an SNR-driven
    capacity. Every ``step_ms`` the agent rescales each path's congestion window (``cc_target=
    "cwnd"``) or pacing rate (``"pacing"``); the packet scheduler comes from the config
    (default minRTT). With one path this is single-path QUIC-like congestion control, as in
    Aurora (Jay et al., ICML 2019) but packet-level and over LEO dynamics.

    ## Action Space
    ``continuous``: ``Box(-1, 1, (max_paths,), float32)``; entry ``i`` multiplies path ``i``'s
    cwnd by ``1 + s·a`` (``a ≥ 0``) or divides it by ``1 − s·a`` (``a < 0``), ``s =
    action_scale`` (default 0.5). ``discrete``: ``MultiDiscrete([5] * max_paths)`` choosing the
    factors ``[0.5, 0.8, 1.0, 1.25, 2.0]``. Entries for padded paths are ignored. The cwnd is
    kept within [2, 100 000] packets. ``residual`` (hybrid control): ``Box(-1, 1, (max_paths,),
    float32)``; the native controller ``residual_base`` (default ``cubic``) runs as usual and
    entry ``i`` sets path ``i``'s window and pacing rate to ``2^a`` times the controller's until
    the next step; an all-zero action is the base controller's run, bit for bit. With
    ``residual_alternate`` a second controller runs beside it, fed the same events, and the
    action is ``Box(-1, 1, (2 * max_paths,))``: the gains, then one entry per path choosing the
    controller it follows (above 0: the alternate).

    ## Observation Space
    ``Box(float32)`` of ``history × max_paths × F`` features, oldest frame first. Per path:
    cwnd and bytes in flight [100 packets], srtt, min RTT, rttvar [100 ms], delivery rate
    [100 Mbit/s], loss rate [fraction]; predicted time to the next handover [10 s], predicted RTT
    [100 ms] and capacity [100 Mbit/s] after it (omitted with ``handover_features=False``); SNR
    [10 dB] and elevation [90°] (omitted with ``snr_features=False``); with
    ``recovery_features=True``, the timer-based recovery's retransmission timeouts in the step,
    in RTO recovery [bool] and time to the retransmission timer [1 s]; with
    ``congestion_features=True``, the fraction of the path's packets reported ECN CE-marked
    [fraction] and the time its packets spent in link queues (the AQM sojourn over the hops)
    [100 ms]; and an ``active`` mask
    (0 for padding or a deactivated path). ``env.unwrapped.feature_names`` lists every entry.

    ## Rewards
    Pure Python over the step's measurements (:mod:`leogym.envs.rewards`); default ``"leo"``:
    ``goodput/capacity − 0.5·queue_sojourn/propagation_RTT − 5·loss_rate − 1.25·ce_fraction``
    (scale-free; a handover's new geometry costs nothing); ``"aurora"``:
    ``0.01·(10·goodput[Mbit/s] − 1000·queueing_delay[s] − 2000·loss_rate)``;
    ``"congestion_signals"`` replaces the RTT-based queueing delay with the measured queue
    sojourn and subtracts ``500·ce_fraction`` (``reward.ce``).

    ## Starting State
    An empty connection at the scenario's start time; the first step opens it (slow start under
    the native CC for non-external ``cc``; the initial window of 10 packets otherwise).

    ## Episode End
    * Termination: a ``file`` workload has been delivered completely.
    * Truncation: ``episode_s`` of simulated time has elapsed.

    ## Arguments
    ``gymnasium.make("leogym/LeoCC-v0", scenario="tiny", cc="external", scheduler="minrtt",
    step_ms=100, episode_s=20, reward="leo", action_mode="continuous", residual_base="cubic",
    cc_target="cwnd",
    observation={"history": 1, "max_paths": 4, "handover_features": True, "snr_features": True,
    "handover_jitter_s": 0.0}, sample_scenarios=False)``. Any native ``cc`` (``"cubic"``,
    ``"maco"``, ``"freeze+cubic"``, …) puts that algorithm in charge: the env then ignores
    actions but reports the same observations, rewards and info, so baselines run through the
    same evaluation loop as agents.

    ## Vectorized environment
    One ns-3 simulator per process: use ``gymnasium.make_vec(..., vectorization_mode="async")``
    or SB3's ``SubprocVecEnv``.

    ## Version History
    * v0: initial release.
    """

    default_cc = "external"
    default_scheduler = "minrtt"

    @classmethod
    def action_space_for(cls, options: EnvOptions) -> spaces.Space:
        return cc_action_space(
            options.action_mode,
            options.observation.max_paths,
            options.residual_alternate is not None,
        )

    def _apply_action(self, action: np.ndarray) -> None:
        if not self.agent_controls_cc:
            return
        assert self._sim is not None and self._episode is not None  # step() has checked it
        following = self._episode.following  # the choices in force (residual_alternate)
        current = current_controls(self.config, self._last, 0, self.n_paths)
        values = control_action(self.config, action, current, self._packet_bytes, following.get(0))
        apply_controls(self._sim, self.config, {0: values}, following)
