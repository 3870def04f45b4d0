"""Any ns3-gym simulation as a Gymnasium 1.x env (id ``leogym/Ns3Gym-v0``).

The env plays the agent role of the ns3-gym protocol (:mod:`leogym.ns3gym`): it binds a REP
socket (``127.0.0.1`` by default), optionally starts the simulation itself, and maps the
exchange onto the Gymnasium API::

    env = gymnasium.make("leogym/Ns3Gym-v0", port=5555,
                         sim_cmd=["./ns3", "run", "opengym {args}"], sim_args={"--simTime": 10})
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

Mapping (a design choice; upstream had only ``done``):

* ``terminated`` = ``isGameOver`` with ``reason == GameOver`` (the scenario's game-over callback);
* ``truncated`` = ``isGameOver`` with ``reason == SimulationEnd`` (the simulation ran out of time,
  ``NotifySimulationEnd``), which proto3 sends as an ``isGameOver`` with no reason at all;
* on either, the env answers ``stopSimReq`` at once, as upstream does, and the episode is over;
* ``info`` is the state's info string decoded by :func:`leogym.ns3gym.info.decode_info`, plus
  ``"ns3gym_reason"`` on the final step;
* the reward is the state's 32-bit float as a Python float; observations are reshaped and cast to
  the observation space (see :mod:`leogym.ns3gym.values`).

Episodes: the constructor performs the first handshake (the spaces are only known from
``SimInitMsg``) and keeps state #0 pending; the first ``reset()`` returns it without traffic
unless it asks for a different seed. Every later ``reset()`` ends the episode, re-binds the same
port, starts a new simulation process if ``sim_cmd`` is given (``relaunch=True``, upstream
behaviour), and waits for a new handshake. The seed reaches the simulation as ``--simSeed=<seed>``
(``reset(seed=s)`` passes ``s``; a reset without a seed draws one from ``self.np_random``).
"""

from __future__ import annotations

import os
import shlex
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np

from leogym.ns3gym import messages as pb
from leogym.ns3gym.agent import AgentPeer
from leogym.ns3gym.errors import (
    Ns3GymError,
    Ns3GymProtocolError,
    Ns3GymSimulationExitedError,
)
from leogym.ns3gym.info import decode_info
from leogym.ns3gym.process import SimProcess
from leogym.ns3gym.server import ERROR_INFO_KEY
from leogym.ns3gym.spaces import description_to_space
from leogym.ns3gym.transcript import Transcript
from leogym.ns3gym.values import container_to_value, value_to_container
from leogym.ns3gym.wire import DEFAULT_MAX_MESSAGE_BYTES

__all__ = ["Ns3GymEnv", "REASON_INFO_KEY"]

#: Info key of the final step: ``"GameOver"`` or ``"SimulationEnd"``.
REASON_INFO_KEY = "ns3gym_reason"
_REASONS = {pb.Reason.SimulationEnd: "SimulationEnd", pb.Reason.GameOver: "GameOver"}
#: How long a closed socket may keep delivering a final stop request.
_LINGER_S = 1.0


class Ns3GymEnv(gymnasium.Env):
    """Gymnasium env driving an ns3-gym simulation over ZMQ.

    :param port: TCP port to bind (0: a free ephemeral port, kept for later episodes; read it from
        :attr:`port`).
    :param sim_cmd: command that starts the simulation, as an argv list (or a string split with
        :func:`shlex.split`); it is run without a shell, in its own process group, which is killed
        on :meth:`close`. Elements may contain ``{port}``, ``{seed}`` and ``{args}``; whatever is
        not placed that way is appended as separate arguments: ``<port_arg>=<port>``,
        ``<seed_arg>=<seed>`` and ``sim_args``. ``None``: the simulation is started by someone
        else and connects to ``port``.
    :param sim_args: extra simulation arguments, a mapping rendered ``key=value`` verbatim (keys
        carry their dashes, as in upstream ``simArgs``) or a list of strings.
    :param host: interface to bind; keep ``127.0.0.1`` unless the simulation runs elsewhere.
    :param sim_seed: seed of the first episode's simulation (default: drawn at random).
    :param relaunch: start a new simulation process for every episode (upstream behaviour). Set
        ``False`` for a simulation that reconnects for the next episode by itself, such as
        ``leogym-ns3gym-serve``; it is started again only if it has exited.
    :param sim_cwd: working directory of the simulation process.
    :param sim_env: extra environment variables for the simulation process.
    :param sim_log: file receiving the simulation's stdout/stderr (default: inherited).
    :param port_arg: flag carrying the port (``--openGymPort`` as in upstream scenarios).
    :param seed_arg: flag carrying the seed (``--simSeed``); ``None`` to send no seed.
    :param handshake_timeout_s: limit for ``SimInitMsg`` after binding (includes the simulation's
        start-up; ``./ns3 run`` may build first).
    :param step_timeout_s: limit for each ``EnvStateMsg``.
    :param sim_exit_grace_s: time a stopped simulation gets to exit before SIGTERM.
    :param fix_zero_bounds: read ``Box(0, 0)`` as unbounded (upstream C++ sends 0/0 for boxes
        built with per-element bound vectors).
    :param max_message_bytes: longest message accepted from the simulation (default
        :data:`~leogym.ns3gym.wire.DEFAULT_MAX_MESSAGE_BYTES`, 64 MiB); a longer one is an
        ``Ns3GymProtocolError``. Space descriptions are also bounded in nesting depth and size
        (:data:`~leogym.ns3gym.spaces.MAX_SPACE_DEPTH`,
        :data:`~leogym.ns3gym.spaces.MAX_SPACE_ELEMENTS`).
    :param transcript: record decoded traffic here (debugging, golden tests).
    :param render_mode: unused; ns3-gym simulations do not render.
    :raises Ns3GymTimeoutError: no simulation connected within ``handshake_timeout_s``.
    :raises Ns3GymProtocolError: the simulation's first messages are malformed.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        port: int = 0,
        sim_cmd: Sequence[str] | str | None = None,
        sim_args: Mapping[str, Any] | Sequence[str] | None = None,
        *,
        host: str = "127.0.0.1",
        sim_seed: int | None = None,
        relaunch: bool = True,
        sim_cwd: str | os.PathLike[str] | None = None,
        sim_env: Mapping[str, str] | None = None,
        sim_log: str | os.PathLike[str] | None = None,
        port_arg: str | None = "--openGymPort",
        seed_arg: str | None = "--simSeed",
        handshake_timeout_s: float = 60.0,
        step_timeout_s: float = 30.0,
        sim_exit_grace_s: float = 1.0,
        fix_zero_bounds: bool = True,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        transcript: Transcript | None = None,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r} is not supported (ns3-gym has none)")
        if handshake_timeout_s <= 0 or step_timeout_s <= 0:
            raise ValueError("handshake_timeout_s and step_timeout_s must be > 0")
        self.render_mode = None
        self._sim_cmd = (
            shlex.split(sim_cmd)
            if isinstance(sim_cmd, str)
            else (None if sim_cmd is None else [str(a) for a in sim_cmd])
        )
        if self._sim_cmd is not None and not self._sim_cmd:
            raise ValueError("sim_cmd is empty")
        if sim_args is None:
            self._sim_args: list[str] = []
        elif isinstance(sim_args, Mapping):
            self._sim_args = [f"{k}={v}" for k, v in sim_args.items()]
        else:
            self._sim_args = [str(a) for a in sim_args]
        self._relaunch = relaunch
        self._sim_cwd = sim_cwd
        self._sim_env = sim_env
        self._sim_log = sim_log
        self._port_arg = port_arg
        self._seed_arg = seed_arg
        self._handshake_timeout_s = float(handshake_timeout_s)
        self._step_timeout_s = float(step_timeout_s)
        self._sim_exit_grace_s = float(sim_exit_grace_s)
        self._fix_zero_bounds = fix_zero_bounds

        self._peer = AgentPeer(port, host, transcript, max_message_bytes)
        # Closes the socket and context if the env is dropped unclosed (the simulation process
        # has its own finalizer in SimProcess).
        self._finalizer = weakref.finalize(self, AgentPeer.close, self._peer)
        self._proc: SimProcess | None = None
        self._pending: pb.EnvStateMsg | None = None  # received, not yet answered
        self._fresh = False  # handshake done, no step taken yet
        self._launch_seed: int | None = None
        self._obs: Any = None
        self._info0: dict[str, Any] = {}
        self._steps = 0
        self._closed = False
        self._spaces_known = False
        #: ``(simProcessId, wafShellProcessId)`` of the current simulation (never signalled).
        self.sim_pids: tuple[int, int] = (0, 0)

        first_seed = sim_seed
        if first_seed is None and self._sim_cmd is not None:
            first_seed = int(np.random.SeedSequence().generate_state(1)[0] >> 1)
        try:
            self._start_episode(first_seed)
        except BaseException:
            self._abort()
            self._teardown()
            raise

    # -- public -------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound TCP port."""
        return self._peer.port

    @property
    def endpoint(self) -> str:
        """The bound endpoint, e.g. ``tcp://127.0.0.1:5555``."""
        return self._peer.endpoint

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode and return its first observation.

        :param seed: seeds ``np_random`` and is passed to the simulation as ``seed_arg``.
        :param options: unused.
        :return: ``(observation, info)``.
        """
        super().reset(seed=seed)
        if self._closed:
            raise Ns3GymError("the env is closed")
        same_seed = seed is None or self._sim_cmd is None or seed == self._launch_seed
        if self._fresh and self._pending is not None and same_seed:
            return self._obs, dict(self._info0)
        self._end_episode()
        sim_seed = seed if seed is not None else int(self.np_random.integers(1, 2**31 - 1))
        try:
            self._start_episode(sim_seed)
        except BaseException:
            self._abort()
            raise
        return self._obs, dict(self._info0)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Send ``action`` and return the simulation's next state.

        :param action: an element of :attr:`action_space` (checked before anything is sent).
        :return: ``(observation, reward, terminated, truncated, info)``.
        :raises Ns3GymError: no episode in progress (it ended or failed; call :meth:`reset`).
        :raises Ns3GymSpaceError: ``action`` does not fit the action space (nothing is sent).
        :raises Ns3GymProtocolError: the simulation answered with something malformed.
        :raises Ns3GymTimeoutError: the simulation did not answer within ``step_timeout_s``.
        """
        if self._closed:
            raise Ns3GymError("the env is closed")
        if self._pending is None:
            raise Ns3GymError("no episode in progress (it ended or failed): call reset()")
        act = value_to_container(self.action_space, action, "action", upstream_actions=True)
        where = f"EnvStateMsg after step {self._steps + 1}"
        try:
            self._peer.send_action(act)
            self._pending = None
            self._fresh = False
            self._steps += 1
            state = self._peer.recv_state(where, self._step_timeout_s, self._liveness(where))
            self._pending = state
            obs, reward, terminated, truncated, info = self._decode_state(state, where)
        except BaseException:
            self._abort()
            raise
        if terminated or truncated:
            self._stop_pending()
        self._obs = obs
        return obs, reward, terminated, truncated, info

    def render(self) -> None:
        """ns3-gym simulations do not render."""
        return None

    def close(self) -> None:
        """Stop the episode, the simulation process group and the socket (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._teardown()
        super().close()

    # -- episodes -----------------------------------------------------------------------------

    def _argv(self, port: int, seed: int | None) -> list[str]:
        if self._sim_cmd is None:
            raise Ns3GymError("no sim_cmd to start")
        joined = " ".join(self._sim_cmd)
        extra: list[str] = []
        if "{port}" not in joined and self._port_arg:
            extra.append(f"{self._port_arg}={port}")
        if "{seed}" not in joined and self._seed_arg and seed is not None:
            extra.append(f"{self._seed_arg}={seed}")
        extra += self._sim_args
        argv = [
            a.replace("{port}", str(port)).replace("{seed}", "" if seed is None else str(seed))
            for a in self._sim_cmd
        ]
        if "{args}" in joined:
            return [a.replace("{args}", " ".join(shlex.quote(x) for x in extra)) for a in argv]
        return argv + extra

    def _liveness(self, waiting_for: str) -> Callable[[], None] | None:
        proc = self._proc
        if proc is None:
            return None
        return lambda: proc.check_alive(waiting_for)

    def _launch(self, seed: int | None) -> None:
        self._proc = SimProcess(
            self._argv(self.port, seed),
            cwd=self._sim_cwd,
            env=self._sim_env,
            log_path=self._sim_log,
        )

    def _start_episode(self, seed: int | None) -> None:
        first = not self._spaces_known
        if not self._peer.bound:
            self._peer.bind()
        launched = False
        gone = self._proc is None or self._proc.exit_status() is not None
        if self._sim_cmd is not None and gone:
            if self._proc is not None:
                self._proc.stop(grace_s=0.0)
            self._launch(seed)
            launched = True
        try:
            init = self._peer.handshake(self._handshake_timeout_s, self._liveness("SimInitMsg"))
        except Ns3GymSimulationExitedError:
            if launched or self._sim_cmd is None:
                raise
            # relaunch=False and the simulation ended after the last episode: start it again.
            self._proc.stop(grace_s=0.0)  # type: ignore[union-attr]
            self._launch(seed)
            init = self._peer.handshake(self._handshake_timeout_s, self._liveness("SimInitMsg"))
        self._launch_seed = seed
        self.sim_pids = (int(init.simProcessId), int(init.wafShellProcessId))
        if not init.HasField("obsSpace") or not init.HasField("actSpace"):
            missing = "obsSpace" if not init.HasField("obsSpace") else "actSpace"
            raise Ns3GymProtocolError(
                f"SimInitMsg has no {missing}: the scenario did not set its space callback"
            )
        fix = self._fix_zero_bounds
        obs_space = description_to_space(init.obsSpace, "SimInitMsg.obsSpace", fix)
        act_space = description_to_space(init.actSpace, "SimInitMsg.actSpace", fix)
        if first:
            self.observation_space = obs_space
            self.action_space = act_space
            self._spaces_known = True
        elif obs_space != self.observation_space or act_space != self.action_space:
            raise Ns3GymProtocolError(
                "SimInitMsg: the simulation changed its spaces between episodes "
                f"(observation {self.observation_space} -> {obs_space}, "
                f"action {self.action_space} -> {act_space})"
            )
        where = "EnvStateMsg #0 (initial state)"
        state = self._peer.recv_state(where, self._step_timeout_s, self._liveness(where))
        self._pending = state
        self._obs = None
        self._steps = 0
        obs, _, terminated, truncated, info = self._decode_state(state, where)
        if terminated or truncated:
            self._stop_pending()
            raise Ns3GymProtocolError(
                f"{where}: the simulation ended (isGameOver) before the first step"
            )
        self._obs = obs
        self._info0 = info
        self._fresh = True

    def _decode_state(
        self, state: pb.EnvStateMsg, where: str
    ) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        info = decode_info(state.info)
        if ERROR_INFO_KEY in info and state.isGameOver:
            self._stop_pending()
            raise Ns3GymProtocolError(
                f"{where}: the simulation aborted the episode: {info[ERROR_INFO_KEY]}"
            )
        if state.HasField("obsData"):
            obs = container_to_value(self.observation_space, state.obsData, f"{where}.obsData")
        elif state.isGameOver and self._obs is not None:
            obs = self._obs  # the scenario's callback returned nothing on its final state
            info["ns3gym_missing_obs"] = True
        else:
            raise Ns3GymProtocolError(
                f"{where}: no obsData (the scenario's observation callback returned nothing)"
            )
        terminated = truncated = False
        if state.isGameOver:
            if state.reason not in _REASONS:
                raise Ns3GymProtocolError(f"{where}: unknown EnvStateMsg.reason {state.reason}")
            terminated = state.reason == pb.Reason.GameOver
            truncated = not terminated
            info[REASON_INFO_KEY] = _REASONS[state.reason]
        return obs, float(state.reward), terminated, truncated, info

    def _stop_pending(self) -> None:
        """Answer the pending state with a stop request (the simulation then exits)."""
        if self._pending is not None:
            self._pending = None
            self._peer.send_stop()

    def _end_episode(self) -> None:
        """End the episode cleanly. The socket stays bound: the next simulation connects to it
        (a message it sends early waits in the queue instead of dying with a closed socket)."""
        try:
            self._stop_pending()
        except Ns3GymError:
            self._abort()
        self._pending = None
        self._fresh = False
        if self._proc is not None and self._relaunch:
            self._proc.stop(grace_s=self._sim_exit_grace_s)
            self._proc = None

    def _abort(self) -> None:
        """After an error: release the simulation (a stop if a reply is owed), drop the connection
        and the process; a reset() starts afresh."""
        self._pending = None
        self._fresh = False
        self._peer.release()
        self._peer.unbind(linger_s=_LINGER_S)
        if self._proc is not None:
            self._proc.stop(grace_s=0.0)
            self._proc = None

    def _teardown(self) -> None:
        try:
            self._end_episode()
        finally:
            self._peer.unbind(linger_s=_LINGER_S)  # the final stop may still be in flight
            if self._proc is not None:
                self._proc.stop(grace_s=self._sim_exit_grace_s)
                self._proc = None
            self._finalizer()
