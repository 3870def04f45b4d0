"""The agents of a PettingZoo ``ParallelEnv`` as one env of the worker runtime.

:class:`~leogym.agents.runtime.subproc_worker.EnvHost` serves Gymnasium envs; a PettingZoo
``ParallelEnv`` (every flow of :class:`~leogym.envs.multi_agent.LeoMultiAgentCCEnv` an agent)
is served through :class:`AgentsAsOneEnv`, which steps all of its agents at once with their
values stacked in ``possible_agents`` order: one observation row, reward and action per agent.
So the same workers, pools and Ray actors (and the same auto-reset, ``terminal_observation``
and worker-death handling) run single-agent, multi-flow and multi-agent envs alike;
:class:`~leogym.agents.sb3.multi_agent_vec.MultiAgentVecEnv` unstacks the agents into VecEnv
slots on the trainer's side.

Like the rest of the worker side, this module imports neither SB3 nor torch, nor PettingZoo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["AgentsAsOneEnv", "MissingAttribute", "is_parallel_env"]


def is_parallel_env(env: Any) -> bool:
    """Whether ``env`` is a PettingZoo ``ParallelEnv`` (by its API: ``possible_agents`` and
    per-agent space methods, not a Gymnasium ``observation_space`` attribute)."""
    return hasattr(env, "possible_agents") and callable(getattr(env, "observation_space", None))


@dataclass(frozen=True)
class MissingAttribute:
    """The reply to ``get_attr`` of an attribute the env lacks (a worker that raised would end;
    the trainer's side raises :class:`AttributeError` instead).

    :param name: the attribute asked for.
    """

    name: str


class AgentsAsOneEnv:
    """A ``ParallelEnv`` stepped as one env: stacked actions in, stacked values out.

    * ``reset`` -> ``(obs, {"agents": [info, ...]})``, ``obs`` one row per agent;
    * ``step`` actions (one row per agent) -> ``(obs, rewards, done, False, info)`` with
      ``info = {"agents": [info, ...], "truncated": [bool, ...]}``, ``truncated[i]`` saying
      whether agent ``i``'s episode ended by truncation alone. An episode must end for all the
      agents at once (else :class:`RuntimeError`).
    * ``observation_space`` / ``action_space``: those of the first agent;
      ``agent_spaces``: every agent's pair, for the trainer's check that they are shared.

    :param env: the ``ParallelEnv``.
    """

    def __init__(self, env: Any) -> None:
        self.par = env
        self.possible_agents: list[str] = list(env.possible_agents)
        self.agent_spaces = {
            a: (env.observation_space(a), env.action_space(a)) for a in self.possible_agents
        }
        first = self.possible_agents[0]
        self.observation_space, self.action_space = self.agent_spaces[first]

    @property
    def unwrapped(self) -> Any:
        """The ``ParallelEnv`` (``set_attr`` sets its attributes)."""
        return self.par

    def _stack(self, values: dict[str, Any]) -> np.ndarray:
        return np.stack([np.asarray(values[a]) for a in self.possible_agents])

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset the env: the agents' stacked observations and their infos."""
        obs, infos = self.par.reset(seed=seed, options=options or None)
        return self._stack(obs), {"agents": [dict(infos.get(a, {})) for a in self.possible_agents]}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, bool, bool, dict[str, Any]]:
        """Step every agent with its row of ``actions``."""
        agents = self.possible_agents
        obs, rewards, term, trunc, infos = self.par.step(
            {a: actions[i] for i, a in enumerate(agents)}
        )
        ended = [bool(term[a] or trunc[a]) for a in agents]
        if any(ended) and not all(ended):
            raise RuntimeError(
                f"some agents finished before others ({ended}); a multi-agent VecEnv needs an "
                "episode to end for all agents at once"
            )
        info = {
            "agents": [dict(infos[a]) for a in agents],
            "truncated": [bool(trunc[a] and not term[a]) for a in agents],
        }
        reward = np.asarray([rewards[a] for a in agents], dtype=np.float64)
        return self._stack(obs), reward, all(ended), False, info

    def get_wrapper_attr(self, name: str) -> Any:
        """An attribute of this adapter or, failing that, of the ``ParallelEnv``; a
        :class:`MissingAttribute` if neither has it."""
        if name in ("possible_agents", "agent_spaces"):
            return getattr(self, name)
        return getattr(self.par, name, MissingAttribute(name))

    def render(self) -> Any:
        """The env's rendering."""
        return self.par.render()

    def close(self) -> None:
        """Close the env."""
        self.par.close()
