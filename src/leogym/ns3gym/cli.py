"""``leogym-ns3gym-serve``: serve a Gymnasium env to an ns3-gym agent.

Usage::

    leogym-ns3gym-serve --port 5555 env=CartPole-v1
    leogym-ns3gym-serve --port 5555 env=leogym/LeoCC-v0 env.scenario=default --seed 1

``env.<kwarg>=<value>`` entries are passed to ``gymnasium.make``; values are read as JSON
(``3``, ``0.5``, ``true``, ``null``, ``[1, 2]``, ``"text"``), then as Python literals
(``True``, ``None``, ``(1, 2)``), and otherwise kept as strings. ns-3 style flags are accepted
too, so the client can start this server like an ns-3 scenario: ``--openGymPort=N`` is
``--port N`` and ``--simSeed=S`` is ``--seed S``.

Exit status: 0 after serving, 1 on a protocol or timeout error, 2 on bad arguments (including
arguments the env rejects, such as an unknown ``env.scenario``: one line naming the field).
"""

from __future__ import annotations

import argparse
import ast
import json
import logging
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "make_env", "parse_overrides", "parse_value", "parser"]


def parse_value(text: str) -> Any:
    """Read one override value (JSON, then Python literal, else the string itself).

    :param text: the text after ``=``.
    :return: the value.
    """
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_overrides(items: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """Split ``env=<id>`` and ``env.<kwarg>=<value>`` arguments.

    :param items: the positional arguments.
    :return: the env id and the keyword arguments for ``gymnasium.make``.
    :raises ValueError: a malformed item, or no ``env=``.
    """
    env_id: str | None = None
    kwargs: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"{item!r}: expected env=<id> or env.<kwarg>=<value>")
        if key == "env":
            env_id = value
        elif key.startswith("env.") and len(key) > 4:
            kwargs[key[4:]] = parse_value(value)
        else:
            raise ValueError(f"{item!r}: unknown key {key!r} (expected env or env.<kwarg>)")
    if not env_id:
        raise ValueError("missing env=<id>")
    return env_id, kwargs


def parser() -> argparse.ArgumentParser:
    """The command line of ``leogym-ns3gym-serve`` (its ``--help`` ends with examples)."""
    p = argparse.ArgumentParser(
        prog="leogym-ns3gym-serve",
        description="Serve a Gymnasium env to an ns3-gym agent (plays the ns-3 simulation role).",
        epilog="examples:\n"
        "  leogym-ns3gym-serve --port 5555 env=CartPole-v1\n"
        "  leogym-ns3gym-serve --port 5555 env=leogym/LeoCC-v0 env.scenario=default --seed 1\n"
        "\n"
        "exit status: 0 after serving, 1 on a protocol or timeout error, 2 on bad arguments",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--port",
        "--openGymPort",
        dest="port",
        type=int,
        required=True,
        help="the agent's port (the agent binds, this server connects)",
    )
    p.add_argument("--host", default="127.0.0.1", help="the agent's address (default 127.0.0.1)")
    p.add_argument(
        "--seed",
        "--simSeed",
        dest="seed",
        type=int,
        default=None,
        help="seed of the first env.reset",
    )
    p.add_argument(
        "--episodes",
        type=int,
        default=0,
        help="stop after this many episodes (0: until the agent goes idle)",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=60.0,
        help="seconds to wait for an agent to answer SimInitMsg (0: forever)",
    )
    p.add_argument(
        "--step-timeout",
        type=float,
        default=300.0,
        help="seconds to wait for the agent's answer to a state (0: forever)",
    )
    p.add_argument(
        "--send-pids",
        action="store_true",
        help="send this process's pid/ppid in SimInitMsg as ns-3 does",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log each episode")
    p.add_argument("overrides", nargs="*", metavar="env=<id> | env.<kwarg>=<value>")
    return p


def make_env(env_id: str, kwargs: dict[str, Any]) -> Any:
    """``gymnasium.make(env_id, **kwargs)``, with the env's complaints as one-line errors.

    :param env_id: the env id (``env=``).
    :param kwargs: the ``env.<kwarg>`` values.
    :return: the env.
    :raises ValueError: the id is unknown or the env rejects an argument; the message names
        the command-line field (``env.scenario: unknown scenario 'x' (known: ...)``).
    """
    import gymnasium

    import leogym  # noqa: F401  (registers leogym env ids)

    try:
        return gymnasium.make(env_id, **kwargs)
    except gymnasium.error.Error as exc:
        raise ValueError(f"env={env_id}: {exc}") from exc
    except (ValueError, TypeError) as exc:
        text = " ".join(str(exc).split())
        field = text.split(":", 1)[0]
        if field.split(".", 1)[0].split("[", 1)[0] in kwargs:
            text = f"env.{text}"  # e.g. "scenario: unknown scenario" -> "env.scenario: ..."
        elif not field.startswith("env."):
            text = f"env={env_id}: {text}"
        raise ValueError(text) from exc


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``leogym-ns3gym-serve``.

    :param argv: arguments (default ``sys.argv[1:]``).
    :return: the exit status.
    """
    cli = parser()
    args = cli.parse_intermixed_args(argv)
    try:
        env_id, kwargs = parse_overrides(args.overrides)
    except ValueError as exc:
        cli.error(str(exc))
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(name)s: %(message)s"
    )

    from leogym.ns3gym.errors import Ns3GymError
    from leogym.ns3gym.server import Ns3GymServer
    from leogym.schema import one_line_errors

    with one_line_errors(cli.prog, ValueError):  # a bad env option (FieldError included)
        env = make_env(env_id, kwargs)
    server = None
    try:
        server = Ns3GymServer(
            env,
            args.port,
            host=args.host,
            seed=args.seed,
            step_timeout_s=args.step_timeout or None,
            idle_timeout_s=args.idle_timeout or None,
            send_pids=args.send_pids,
        )
        records = server.serve(args.episodes or None)
    except Ns3GymError as exc:
        print(f"leogym-ns3gym-serve: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.close()
        env.close()
    if args.verbose:
        print(f"leogym-ns3gym-serve: served {len(records)} episode(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
