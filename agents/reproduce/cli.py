"""``leogym-reproduce NAME``: rerun a paper's headline experiment and compare with the paper.

NAME is one of ``maco`` (Yang et al., TMC 2024), ``alcs`` (Wang et al.), ``freeze`` (Kamel et
al., StarQUIC, LEO-NET '24), ``mptcp_leo`` (Du et al., IWCMC 2015) or ``leotp`` (Jiang et al.,
ICDCS 2023). The command runs the
native simulations (``leogym._core``), prints tables with the paper's numbers and ours side by
side, writes them as CSV, and exits 0. ``--quick`` is a reduced size for CI; the numbers in
``docs/reproduction.md`` are from the full size.

Example::

    leogym-reproduce freeze --quick
    leogym-reproduce maco --jobs 2 --out results/maco
    leogym-reproduce alcs --dry-run

``--dry-run`` lists the runs a command would make, and exits, without simulating anything.

``--recovery PRESET`` runs every simulation of the experiment under a loss-recovery preset
(``rfc9002``, the default, ``tcp``, ``quic-draft`` or ``picoquic``; the env key
``env.transport.recovery``), merged with the experiment's own transport settings;
``--recovery-param KEY=VALUE`` (repeatable) overrides one of the preset's values
(``env.transport.recovery_params``; ``leogym._core.recovery_presets()`` lists them). Under a
preset other than the default the tables' titles, their CSV names and the JSON of runs record
it::

    leogym-reproduce maco --recovery quic-draft --recovery-param tlp_timing=module
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from leogym.schema import FieldError, one_line_errors

__all__ = ["EXPERIMENTS", "directions", "main", "parser", "run_experiment"]

#: NAME -> module (each defines SIZES, tasks(size, seeds), run_task(task), summarise(results,
#: size) and CHECKS, the paper's directions as rows for the one judge).
EXPERIMENTS = {
    "maco": "leogym.agents.reproduce.maco",
    "alcs": "leogym.agents.reproduce.alcs",
    "freeze": "leogym.agents.reproduce.freeze",
    "mptcp_leo": "leogym.agents.reproduce.mptcp_leo",
    "leotp": "leogym.agents.reproduce.leotp",
}


def _module(name: str) -> ModuleType:
    import importlib

    return importlib.import_module(EXPERIMENTS[name])


def directions(name: str, results: list[dict[str, Any]]) -> dict[str, bool]:
    """The paper's directions that ``results`` measure: experiment ``name``'s ``CHECKS`` ruled
    on by the one judge (:func:`~leogym.agents.reproduce.judge.directions`)."""
    from leogym.agents.reproduce import judge

    return judge.directions(_module(name).CHECKS, results)


def _worker(args: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    name, task = args
    return _module(name).run_task(task)


def _check(name: str, size: str, seeds: int | None, jobs: int) -> None:
    """Reject an unknown experiment or size and non-positive seed or job counts
    (:class:`~leogym.schema.FieldError` naming the option; the recovery preset is checked by
    :func:`~leogym.agents.reproduce.common.recovery_options`)."""
    if name not in EXPERIMENTS:
        raise FieldError("name", f"unknown experiment {name!r}; known: {sorted(EXPERIMENTS)}")
    if size not in ("full", "quick"):
        raise FieldError("size", f"must be 'full' or 'quick' (got {size!r})")
    if seeds is not None and seeds < 1:
        raise FieldError("--seeds", f"must be >= 1 (got {seeds})")
    if jobs < 1:
        raise FieldError("--jobs", f"must be >= 1 (got {jobs})")


def run_experiment(
    name: str,
    size: str = "full",
    seeds: int | None = None,
    jobs: int = 1,
    show_progress: bool = True,
    recovery: str | None = None,
    recovery_params: dict[str, Any] | None = None,
) -> tuple[list[Any], list[dict[str, Any]]]:
    """Run experiment ``name`` and return ``(tables, per-run results)``.

    :param name: a key of :data:`EXPERIMENTS`.
    :param size: ``"full"`` or ``"quick"``.
    :param seeds: override the size's number of seeds.
    :param jobs: worker processes (ns-3 runs one simulator per process).
    :param show_progress: show a tqdm progress bar over the runs.
    :param recovery: loss-recovery preset of every run (``None``: the core's default).
    :param recovery_params: overrides of the preset's values (``RecoveryParams`` fields).
    :raises ValueError: (a :class:`~leogym.schema.FieldError`) naming the bad option, before
        anything is simulated.
    """
    tasks = _tasks(name, size, seeds, jobs, recovery, recovery_params)
    from tqdm import tqdm

    mod = _module(name)
    results: list[dict[str, Any]] = []
    bar = tqdm(total=len(tasks), desc=f"{name} ({size})", unit="run", disable=not show_progress)
    try:
        if jobs == 1:
            for task in tasks:
                results.append(mod.run_task(task))
                bar.update(1)
        else:
            ctx = mp.get_context("spawn")
            with ctx.Pool(jobs, maxtasksperchild=8) as pool:
                for res in pool.imap(_worker, [(name, t) for t in tasks]):
                    results.append(res)
                    bar.update(1)
    finally:
        bar.close()
    tables = mod.summarise(results, size)
    if tasks and tasks[0].get("recovery") is not None:
        from leogym.agents.reproduce.common import recovery_values

        rec = recovery_values(tasks[0])
        for table in tables:
            table.title += f" [recovery: {_preset_label(tasks[0])}]"
            table.notes.append(
                "recovery preset "
                + rec["recovery"]
                + ": "
                + ", ".join(f"{k}={v}" for k, v in rec["values"].items())
            )
    return tables, results


def _tasks(
    name: str,
    size: str,
    seeds: int | None,
    jobs: int,
    recovery: str | None,
    recovery_params: dict[str, Any] | None,
) -> list[dict[str, Any]]:
    """The experiment's tasks, each with the recovery preset (if any) added; every option is
    checked first."""
    from leogym.agents.reproduce.common import recovery_options

    _check(name, size, seeds, jobs)
    extra = recovery_options(recovery, recovery_params)
    return [{**t, **extra} for t in _module(name).tasks(size, seeds)]


def _preset_label(task: dict[str, Any]) -> str:
    """``quic-draft`` or ``quic-draft, tlp_timing=module``: the preset of a task."""
    params = task.get("recovery_params") or {}
    return ", ".join([str(task["recovery"])] + [f"{k}={v}" for k, v in params.items()])


def _file_tag(task: dict[str, Any]) -> str:
    """The CSV/JSON name tag of a task's preset (empty for the default)."""
    if task.get("recovery") is None:
        return ""
    params = task.get("recovery_params") or {}
    return "_" + "_".join([str(task["recovery"])] + [f"{k}-{v}" for k, v in params.items()])


def _jsonable(x: Any) -> Any:
    import numpy as np

    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.floating, np.integer, np.bool_)):
        return x.item()
    return x


def parser() -> argparse.ArgumentParser:
    """The command line of ``leogym-reproduce`` (its ``--help`` ends with examples)."""
    from leogym.simulation.transport import RECOVERIES

    p = argparse.ArgumentParser(
        prog="leogym-reproduce",
        description="Rerun a paper's headline experiment on the native core and print the "
        "paper's numbers and ours side by side.",
        epilog="examples:\n"
        "  leogym-reproduce maco                       # full size (docs/reproduction.md)\n"
        "  leogym-reproduce freeze --quick             # reduced size, for CI\n"
        "  leogym-reproduce alcs --jobs 2              # one simulator per worker process\n"
        "  leogym-reproduce maco --jobs 2 --out results/maco\n"
        "  leogym-reproduce alcs --dry-run             # list the runs, simulate nothing\n"
        "  leogym-reproduce maco --recovery quic-draft --recovery-param tlp_timing=module",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", choices=sorted(EXPERIMENTS), help="the experiment")
    p.add_argument("--quick", action="store_true", help="reduced size (CI)")
    p.add_argument("--seeds", type=int, default=None, help="override the number of seeds")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for the CSV tables (default: outputs/reproduce/NAME)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--recovery",
        default=None,
        metavar="{" + ",".join(RECOVERIES) + "}",
        help="loss-recovery preset of every run (env.transport.recovery; default: rfc9002, "
        "the core's default)",
    )
    p.add_argument(
        "--recovery-param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one value of the preset (env.transport.recovery_params; repeatable; "
        "keys: leogym._core.recovery_presets())",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="list the runs this command would make and exit without simulating",
    )
    return p


def _dry_run(
    name: str,
    size: str,
    seeds: int | None,
    jobs: int,
    recovery: str | None = None,
    recovery_params: dict[str, Any] | None = None,
) -> None:
    """Print the runs of an experiment without simulating them (``--dry-run``)."""
    tasks = _tasks(name, size, seeds, jobs, recovery, recovery_params)
    print(f"{name} ({size}): {len(tasks)} runs, {jobs} worker process(es)")
    for task in tasks:
        print("  " + ", ".join(f"{k}={v}" for k, v in task.items()))


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point (``leogym-reproduce``)."""
    cli = parser()
    args = cli.parse_args(argv)
    size = "quick" if args.quick else "full"
    from leogym.agents.reproduce.common import parse_recovery_param, recovery_values

    with one_line_errors(cli.prog):  # a bad option: one line, status 2
        params = dict(parse_recovery_param(p) for p in args.recovery_param)
        recovery = (args.recovery, params or None)
        first = _tasks(args.name, size, args.seeds, args.jobs, *recovery)[:1]
    if args.dry_run:
        with one_line_errors(cli.prog):
            _dry_run(args.name, size, args.seeds, args.jobs, *recovery)
        return 0
    out = args.out if args.out is not None else Path("outputs") / "reproduce" / args.name
    t0 = time.perf_counter()
    with one_line_errors(cli.prog):  # a bad option or config: one line, status 2
        tables, results = run_experiment(
            args.name,
            size,
            args.seeds,
            args.jobs,
            show_progress=not args.no_progress,
            recovery=recovery[0],
            recovery_params=recovery[1],
        )
    tag = _file_tag(first[0]) if first else ""
    out.mkdir(parents=True, exist_ok=True)
    for i, table in enumerate(tables):
        print()
        print(table.render())
        table.write_csv(out / f"{args.name}_{size}{tag}_{i + 1}.csv")
    dirs = directions(args.name, results)
    print()
    print("paper directions: " + ", ".join(f"{k}={'yes' if v else 'NO'}" for k, v in dirs.items()))
    record: dict[str, Any] = {"size": size, "results": _jsonable(results), "directions": dirs}
    if tag:
        record["transport"] = recovery_values(first[0])
    (out / f"{args.name}_{size}{tag}_runs.json").write_text(json.dumps(record, indent=1))
    print(f"\n{len(results)} runs in {time.perf_counter() - t0:.0f} s; tables in {out}/")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
