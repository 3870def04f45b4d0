"""Opt-in: the real upstream Python client (``ns3gym.ns3env.Ns3Env``) drives our server.

Upstream code is never part of this repository. To run these tests, point
``NS3GYM_UPSTREAM_DIR`` at your own checkout of tkn-tub/ns3-gym (its ``model/ns3gym/ns3gym``
package and a ``messages.proto`` somewhere below it are used) and make ``gym`` importable
(``pip install gym==0.26.2``, e.g. into a directory on ``PYTHONPATH``). ``messages_pb2.py`` is
generated into a temporary copy of the package with grpcio-tools.

The client runs in a subprocess (its constructor blocks and it calls ``sys.exit`` on bind
errors). Only scenarios with Discrete and UINT Box spaces are used: the upstream client's
``np.int``/``np.float`` break INT, FLOAT and DOUBLE Boxes on NumPy >= 1.24.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ns3gym_helpers import Background, episodes
from ns3gym_toy_envs import SESSIONS, TOY_ENVS

from leogym.ns3gym import Ns3GymServer, Transcript

UPSTREAM = os.environ.get("NS3GYM_UPSTREAM_DIR")
pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not UPSTREAM, reason="NS3GYM_UPSTREAM_DIR is not set (opt-in test)"),
]

DRIVER = textwrap.dedent("""
    import json, sys
    import numpy as np
    from ns3gym import ns3env

    def plain(x):
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        if isinstance(x, (tuple, list, np.ndarray)):
            return [plain(v) for v in x]
        return x.item() if hasattr(x, "item") else x

    env = ns3env.Ns3Env(port=int(sys.argv[2]), startSim=False)
    out = []
    for actions in json.loads(sys.argv[3]):
        obs = env.reset()
        out.append({"obs": plain(obs), "is_array": isinstance(obs, np.ndarray)})
        for action in actions:
            obs, reward, done, info = env.step(action)
            out.append({"obs": plain(obs), "reward": float(reward), "done": bool(done),
                        "info": info})
    env.close()
    print("RESULT " + json.dumps(out))
""")


@pytest.fixture(scope="module")
def upstream_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(UPSTREAM or "")
    package = root / "model" / "ns3gym" / "ns3gym"
    if not (package / "ns3env.py").exists():
        pytest.fail(f"{package}/ns3env.py not found: NS3GYM_UPSTREAM_DIR must be a checkout")
    protos = sorted(p for p in root.rglob("messages.proto") if "build" not in p.parts)
    if not protos:
        pytest.fail(f"no messages.proto below {root}")
    out = tmp_path_factory.mktemp("upstream")
    shutil.copytree(package, out / "ns3gym")
    protoc = pytest.importorskip("grpc_tools.protoc")
    import importlib.resources

    include = importlib.resources.files("grpc_tools") / "_proto"
    rc = protoc.main(
        [
            "protoc",
            f"-I{include}",
            f"-I{protos[0].parent}",
            f"--python_out={out / 'ns3gym'}",
            str(protos[0]),
        ]
    )
    assert rc == 0
    check = subprocess.run([sys.executable, "-c", "import gym"], capture_output=True, timeout=60)
    if check.returncode != 0:
        pytest.skip("gym is not importable (pip install gym==0.26.2)")
    return out


def _without_pids(eps: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    for ep in eps:
        for entry in ep:
            for key in ("simProcessId", "wafShellProcessId"):
                entry["msg"].pop(key, None)
    return eps


@pytest.mark.parametrize("scenario", ["counter", "dictact"])
def test_upstream_client_drives_our_server(scenario: str, upstream_path: Path, port: int) -> None:
    transcript = Transcript()
    # No pids: an upstream close() whose os.kill worked would signal them.
    server = Ns3GymServer(
        TOY_ENVS[scenario](), port, idle_timeout_s=30.0, step_timeout_s=30.0, transcript=transcript
    )
    served = Background(lambda: server.serve(episodes=len(SESSIONS[scenario])))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            DRIVER,
            str(upstream_path),
            str(port),
            json.dumps(SESSIONS[scenario]),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        env={**os.environ, "PYTHONPATH": str(upstream_path)},  # upstream's ns3gym package
    )
    records = served.result(60)
    server.close()
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.split("RESULT ", 1)[1])
    assert len(records) == len(SESSIONS[scenario])
    golden = json.loads((Path(__file__).parent / "golden" / f"{scenario}.json").read_text())
    assert _without_pids(episodes(transcript)) == _without_pids(golden)

    if scenario == "counter":
        first = result[0]
        assert first["is_array"] and first["obs"] == [0, 1, 2, 3, 0]
        steps = [r for r in result if "reward" in r]
        assert [s["obs"] for s in steps] == [
            [1, 2, 3, 4, 1],
            [2, 3, 4, 5, 2],
            [3, 4, 5, 6, 3],
            [1, 2, 3, 4, 2],
            [2, 3, 4, 5, 0],
        ]
        assert [s["reward"] for s in steps] == [float(np.float32(0.1 * t)) for t in (1, 2, 3, 1, 2)]
        assert [s["done"] for s in steps] == [False, False, True, False, True]
        assert steps[0]["info"] == '{"t":1}'  # upstream hands the info string over unparsed
    else:
        assert [r["obs"] for r in result] == [0, 8, 9]
        assert [r.get("done") for r in result] == [None, False, True]
