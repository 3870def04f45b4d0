"""Registers leogym's environment ids with Gymnasium (entry points only; nothing is imported)."""

from __future__ import annotations

import gymnasium

__all__ = ["ENV_IDS", "register_all"]

#: id -> entry point
ENV_IDS = {
    "leogym/LeoCC-v0": "leogym.envs.cc_env:LeoCCEnv",
    "leogym/LeoScheduler-v0": "leogym.envs.scheduler_env:LeoSchedulerEnv",
    "leogym/LeoJoint-v0": "leogym.envs.joint_env:LeoJointEnv",
    "leogym/LeoMultiFlowCC-v0": "leogym.envs.multi_flow:LeoMultiFlowCCEnv",
}


def register_all() -> None:
    """Register every leogym env id. Safe to call more than once.

    Episodes end inside the env (``episode_s``), so no ``TimeLimit`` is installed: the time
    limit is reported as ``truncated`` by the env itself, and depends on its kwargs.
    """
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point, disable_env_checker=False)

    # ns3-gym client: any ns3-gym simulation over ZMQ (leogym.envs.ns3gym_env, docs/ns3gym.md).
    if "leogym/Ns3Gym-v0" not in gymnasium.registry:
        gymnasium.register(
            id="leogym/Ns3Gym-v0",
            entry_point="leogym.envs.ns3gym_env:Ns3GymEnv",
            disable_env_checker=False,
        )
