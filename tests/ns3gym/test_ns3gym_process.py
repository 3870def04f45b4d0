"""The server as a process (``leogym-ns3gym-serve``) and simulations started by the client.

Observations are checked against Gymnasium's own CartPole/Pendulum stepped in-process with the
same seed and actions: the bridge must not change a single float32 bit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import gymnasium
import numpy as np
import psutil
import pytest

import leogym  # noqa: F401
from leogym.envs.ns3gym_env import Ns3GymEnv
from leogym.ns3gym import Ns3GymSimulationExitedError, Ns3GymTimeoutError
from leogym.ns3gym.cli import parse_overrides, parse_value

pytestmark = pytest.mark.timeout(90)

SERVE = [sys.executable, "-m", "leogym.ns3gym.cli"]


def _play(
    remote: gymnasium.Env, local: gymnasium.Env, seed: int, steps: int, rng: np.random.Generator
) -> int:
    """Step both envs with the same random actions; return the number of episodes finished."""
    obs_r, _ = remote.reset()
    obs_l, _ = local.reset(seed=seed)
    np.testing.assert_array_equal(obs_r, obs_l)
    assert obs_r.dtype == obs_l.dtype
    finished = 0
    for _ in range(steps):
        action = int(rng.integers(0, 2))  # CartPole
        obs_r, rew_r, term_r, trunc_r, _ = remote.step(action)
        obs_l, rew_l, term_l, trunc_l, _ = local.step(action)
        np.testing.assert_array_equal(obs_r, obs_l)
        assert rew_r == float(np.float32(rew_l))
        assert (term_r, trunc_r) == (term_l, trunc_l)
        if term_r or trunc_r:
            finished += 1
            obs_r, _ = remote.reset()
            obs_l, _ = local.reset()
            np.testing.assert_array_equal(obs_r, obs_l)
    return finished


def _reap(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def test_cli_serves_cartpole_to_the_client(port: int) -> None:
    server = subprocess.Popen(
        [*SERVE, "--port", str(port), "--seed", "3", "--idle-timeout", "1", "env=CartPole-v1"]
    )
    try:
        remote = gymnasium.make("leogym/Ns3Gym-v0", port=port, handshake_timeout_s=30.0)
        local = gymnasium.make("CartPole-v1")
        try:
            finished = _play(remote, local, 3, 300, np.random.default_rng(0))
        finally:
            remote.close()
            local.close()
        assert finished >= 3  # random CartPole episodes last about 20 steps
        assert server.wait(timeout=30) == 0  # idle after the client closed: a normal end
    finally:
        _reap(server)


def test_cli_passes_env_kwargs_and_maps_truncation(port: int) -> None:
    server = subprocess.Popen(
        [
            *SERVE,
            f"--openGymPort={port}",
            "--simSeed=5",
            "--episodes",
            "1",
            "env=Pendulum-v1",
            "env.g=4.5",
            "env.max_episode_steps=20",
        ]
    )
    try:
        remote = gymnasium.make("leogym/Ns3Gym-v0", port=port, handshake_timeout_s=30.0)
        local = gymnasium.make("Pendulum-v1", g=4.5, max_episode_steps=20)
        try:
            assert remote.action_space == local.action_space  # Box(-2, 2, (1,), float32)
            obs_r, _ = remote.reset()
            obs_l, _ = local.reset(seed=5)
            np.testing.assert_array_equal(obs_r, obs_l)
            for k in range(20):
                action = np.array([np.sin(k)], dtype=np.float32) * 2
                obs_r, rew_r, term_r, trunc_r, info = remote.step(action)
                obs_l, rew_l, term_l, trunc_l, _ = local.step(action)
                np.testing.assert_array_equal(obs_r, obs_l)
                assert rew_r == float(np.float32(rew_l))
            # TimeLimit truncation travels as SimulationEnd and comes back as truncated.
            assert (term_r, trunc_r) == (False, True) == (term_l, trunc_l)
            assert info["ns3gym_reason"] == "SimulationEnd"
        finally:
            remote.close()
            local.close()
        assert server.wait(timeout=30) == 0
    finally:
        _reap(server)


def test_client_starts_one_server_for_many_episodes() -> None:
    env = gymnasium.make(
        "leogym/Ns3Gym-v0",
        sim_cmd=[*SERVE, "--idle-timeout", "5", "env=CartPole-v1"],
        sim_seed=17,
        relaunch=False,
        handshake_timeout_s=30.0,
    )
    local = gymnasium.make("CartPole-v1")
    try:
        pid = env.unwrapped._proc.pid
        assert _play(env, local, 17, 200, np.random.default_rng(1)) >= 2
        assert env.unwrapped._proc.pid == pid  # same process, several connections
    finally:
        env.close()
        local.close()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_reset_seed_reaches_a_relaunched_simulation() -> None:
    env = gymnasium.make(
        "leogym/Ns3Gym-v0",
        sim_cmd=[*SERVE, "--episodes", "1", "env=CartPole-v1"],
        handshake_timeout_s=30.0,
    )
    local = gymnasium.make("CartPole-v1")
    try:
        first = env.unwrapped._proc.pid
        obs, _ = env.reset(seed=42)  # a seed the first process was not started with
        np.testing.assert_array_equal(obs, local.reset(seed=42)[0])
        second = env.unwrapped._proc.pid
        assert second != first
        obs, _ = env.reset(seed=42)  # fresh episode with that seed: no relaunch
        assert env.unwrapped._proc.pid == second
        env.step(0)
        obs, _ = env.reset(seed=7)
        np.testing.assert_array_equal(obs, local.reset(seed=7)[0])
        assert env.unwrapped._proc.pid not in (first, second)
    finally:
        env.close()
        local.close()


def test_client_passes_gymnasiums_env_checker() -> None:
    """check_env: spaces, dtypes, reset(seed) determinism (the seed reaches each new process),
    step API, close; any warning fails the test (filterwarnings = error)."""
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(
        "leogym/Ns3Gym-v0",
        sim_cmd=[*SERVE, "--episodes", "1", "env=MountainCarContinuous-v0"],
        handshake_timeout_s=30.0,
    )
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fake_sim.py"
    path.write_text(textwrap.dedent(body))
    return path


def test_sim_argv_is_passed_without_a_shell(tmp_path: Path) -> None:
    out = tmp_path / "argv.json"
    script = _script(
        tmp_path,
        f"""
        import json, sys
        json.dump(sys.argv[1:], open({str(out)!r}, "w"))
        sys.exit(3)
    """,
    )
    with pytest.raises(Ns3GymSimulationExitedError, match="exited with status 3") as info:
        Ns3GymEnv(
            port=0,
            sim_cmd=[sys.executable, str(script), "run", "prog {args}"],
            sim_args={"--simTime": 10, "--note": "a b; rm -rf /"},
            sim_seed=9,
            handshake_timeout_s=20.0,
        )
    assert info.value.returncode == 3
    argv = json.loads(out.read_text())
    assert argv[0] == "run"
    assert argv[1].startswith("prog --openGymPort=") and argv[1].endswith(
        " --simSeed=9 --simTime=10 '--note=a b; rm -rf /'"
    )
    assert len(argv) == 2

    with pytest.raises(Ns3GymSimulationExitedError):
        Ns3GymEnv(
            port=0,
            sim_cmd=[sys.executable, str(script), "--port={port}"],
            sim_args=["x=1"],
            sim_seed=4,
            handshake_timeout_s=20.0,
        )
    argv = json.loads(out.read_text())
    assert argv[0].startswith("--port=") and argv[1:] == ["--simSeed=4", "x=1"]


def test_close_kills_the_whole_process_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = _script(
        tmp_path,
        f"""
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{child.pid}}")
        time.sleep(60)  # never connects
    """,
    )
    start = time.monotonic()
    with pytest.raises(Ns3GymTimeoutError, match=r"no SimInitMsg"):
        Ns3GymEnv(
            port=0,
            sim_cmd=[sys.executable, str(script)],
            handshake_timeout_s=2.0,
            sim_exit_grace_s=0.0,
        )
    assert time.monotonic() - start < 20.0
    leader, child = (int(p) for p in pids.read_text().split())
    deadline = time.monotonic() + 5.0
    while psutil.pid_exists(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in (leader, child):
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_cli_reports_errors_with_exit_codes(port: int) -> None:
    done = subprocess.run(
        [*SERVE, "--port", str(port), "--idle-timeout", "0.3", "env=CartPole-v1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "Ns3GymTimeoutError: no agent answered SimInitMsg" in done.stderr
    done = subprocess.run(
        [*SERVE, "--port", str(port), "CartPole-v1"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "expected env=<id>" in done.stderr


@pytest.mark.parametrize(
    ("overrides", "line"),
    [
        (
            ["env=leogym/LeoCC-v0", "env.scenario=starlink_dual"],
            "leogym-ns3gym-serve: error: env.scenario: unknown scenario 'starlink_dual' (known: ",
        ),
        (
            ["env=leogym/LeoCC-v0", "env.step_ms=-5"],
            "leogym-ns3gym-serve: error: env.step_ms: must be in [1, 60000] (got -5)",
        ),
        (["env=leogym/Nope-v0"], "leogym-ns3gym-serve: error: env=leogym/Nope-v0: "),
    ],
)
def test_cli_rejects_bad_env_arguments_in_one_line(port: int, overrides, line) -> None:
    """An argument the env rejects is a usage error (exit 2): one line naming the field, no
    traceback, and the server never starts."""
    done = subprocess.run(
        [*SERVE, "--port", str(port), "--idle-timeout", "0.3", *overrides],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(line), done.stderr
    assert "Traceback" not in done.stderr


def test_help_examples_name_existing_scenarios() -> None:
    """The examples in ``--help`` use scenarios that exist (the help once named one that did
    not); tests/docs/test_documented_commands.py runs them."""
    from leogym.ns3gym.cli import parser
    from leogym.scenario import load_scenario

    text = parser().format_help()
    scenarios = [w.split("=", 1)[1] for w in text.split() if w.startswith("env.scenario=")]
    assert scenarios
    for name in scenarios:
        load_scenario(name)


def test_override_parsing() -> None:
    env_id, kwargs = parse_overrides(
        [
            "env=leogym/LeoCC-v0",
            "env.a=3",
            "env.b=0.5",
            "env.c=true",
            "env.d=None",
            "env.e=[1, 2]",
            "env.f=text",
            'env.g="7"',
        ]
    )
    assert env_id == "leogym/LeoCC-v0"
    assert kwargs == {"a": 3, "b": 0.5, "c": True, "d": None, "e": [1, 2], "f": "text", "g": "7"}
    assert parse_value("(1, 2)") == (1, 2)
    with pytest.raises(ValueError, match="unknown key 'seed'"):
        parse_overrides(["env=X", "seed=3"])
    with pytest.raises(ValueError, match="missing env=<id>"):
        parse_overrides(["env.a=1"])
