"""Conformance of the ns3-gym bridge against reference peers and golden transcripts.

Every scenario is played four ways and each side's decoded transcript must equal the golden one
in tests/ns3gym/golden/<scenario>.json:

* direction A: the upstream-style agent (``ReferenceAgent``) drives our server;
* direction B: our client drives the C++-style simulation (``ReferenceSim``), started by the
  client as one process per episode (``--openGymPort``/``--simSeed``), as upstream does;
* our client drives our server.

The golden files hold the message sequences spelt out by the spec: ``SimInitMsg`` ->
``SimInitAck{done}`` -> state #0 -> (``EnvActMsg`` -> ``EnvStateMsg``)* -> the game-over state
(``reason: GameOver`` explicit, SimulationEnd as an absent reason) -> ``EnvActMsg{stopSimReq}``
with no ``actData``; a reset is a new handshake on a new connection; ``close()`` answers the
pending state with a stop.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from ns3gym_helpers import Background, check_golden, episodes
from ns3gym_reference import ReferenceAgent
from ns3gym_toy_envs import SESSIONS, TOY_ENVS

import leogym  # noqa: F401  (registers leogym/Ns3Gym-v0)
from leogym.ns3gym import Ns3GymServer, Transcript

pytestmark = pytest.mark.timeout(60)

REFERENCE_SIM = Path(__file__).parent / "ns3gym_reference.py"
SCENARIOS = sorted(SESSIONS)
#: How each served episode ends, per scenario (server side).
SERVER_ENDS = {
    "counter": ["simulation_end", "game_over", "stopped"],
    "allspaces": ["game_over"],
    "dictact": ["simulation_end"],
}


def _serve(scenario: str, port: int, transcript: Transcript) -> Background:
    env = TOY_ENVS[scenario]()
    server = Ns3GymServer(
        env,
        port,
        seed=0,
        send_pids=True,
        idle_timeout_s=10.0,
        step_timeout_s=10.0,
        transcript=transcript,
    )

    def run() -> list[Any]:
        try:
            return server.serve(episodes=len(SESSIONS[scenario]))
        finally:
            server.close()

    return Background(run)


def _expected_trajectory(scenario: str, actions: list[Any]) -> list[tuple[Any, float, bool, bool]]:
    """Step the Gymnasium toy env in-process; DOUBLE actions travel as FLOAT on the wire."""
    env = TOY_ENVS[scenario]()
    obs, _ = env.reset(seed=0)
    out = [(obs, 0.0, False, False)]
    for action in actions:
        if scenario == "allspaces":
            d, f, g, i, u = action
            action = (d, f, np.asarray(g, np.float32).astype(np.float64), i, u)
        obs, reward, terminated, truncated, _ = env.step(action)
        out.append((obs, float(np.float32(reward)), terminated, truncated))
    return out


def _assert_same(got: Any, want: Any) -> None:
    if isinstance(want, dict):
        assert list(got) == sorted(want)
        for key in want:
            _assert_same(got[key], want[key])
    elif isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _assert_same(g, w)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_direction_a_upstream_agent_drives_our_server(scenario: str, port: int) -> None:
    server_transcript = Transcript()
    served = _serve(scenario, port, server_transcript)
    agent = ReferenceAgent(port)
    try:
        for ep, actions in enumerate(SESSIONS[scenario]):
            obs = agent.reset() if ep else agent.obs
            if scenario == "counter":
                assert isinstance(obs, np.ndarray) and obs.ndim == 1  # upstream: 1-D array
                assert agent.info == '{"t":0}'  # info stays a string upstream
            for action in actions:
                obs, reward, done, info = agent.step(action)
                assert isinstance(info, (str, dict))
    finally:
        agent.close()
    records = served.result()
    assert [r.end for r in records] == SERVER_ENDS[scenario]
    check_golden(scenario, episodes(agent.transcript))
    check_golden(scenario, episodes(server_transcript))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_direction_b_our_client_drives_reference_sim(scenario: str, tmp_path: Path) -> None:
    sim_log = tmp_path / "sim-transcripts.jsonl"
    transcript = Transcript()
    env = gymnasium.make(
        "leogym/Ns3Gym-v0",
        sim_cmd=[
            sys.executable,
            str(REFERENCE_SIM),
            f"--scenario={scenario}",
            f"--transcript={sim_log}",
        ],
        sim_seed=11,
        handshake_timeout_s=30.0,
        step_timeout_s=10.0,
        transcript=transcript,
    )
    try:
        _play_gymnasium(env, scenario)
    finally:
        env.close()
    runs = [json.loads(line) for line in sim_log.read_text().splitlines()]
    assert len(runs) == len(SESSIONS[scenario])  # one simulation process per episode
    assert runs[0]["seed"] == 11
    sim_episodes = [ep for run in runs for ep in episodes(run["transcript"])]
    check_golden(scenario, sim_episodes, regen=True)
    check_golden(scenario, episodes(transcript))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_our_client_drives_our_server(scenario: str, port: int) -> None:
    server_transcript = Transcript()
    client_transcript = Transcript()
    served = _serve(scenario, port, server_transcript)
    env = gymnasium.make(
        "leogym/Ns3Gym-v0",
        port=port,
        handshake_timeout_s=10.0,
        step_timeout_s=10.0,
        transcript=client_transcript,
    )
    try:
        _play_gymnasium(env, scenario)
    finally:
        env.close()
    assert [r.end for r in served.result()] == SERVER_ENDS[scenario]
    check_golden(scenario, episodes(client_transcript))
    check_golden(scenario, episodes(server_transcript))


def _play_gymnasium(env: gymnasium.Env, scenario: str) -> None:
    """Play the scenario's session with the Gymnasium API and check every returned value."""
    for actions in SESSIONS[scenario]:
        expected = _expected_trajectory(scenario, actions)
        obs, info = env.reset()
        assert env.observation_space.contains(obs)
        _assert_same(obs, expected[0][0])
        for k, action in enumerate(actions, start=1):
            obs, reward, terminated, truncated, info = env.step(action)
            want_obs, want_reward, want_term, want_trunc = expected[k]
            _assert_same(obs, want_obs)
            assert env.observation_space.contains(obs)
            assert isinstance(reward, float) and reward == want_reward
            assert (terminated, truncated) == (want_term, want_trunc)
            if terminated or truncated:
                assert info["ns3gym_reason"] == ("GameOver" if terminated else "SimulationEnd")
            if scenario == "counter":
                assert info["t"] == k
