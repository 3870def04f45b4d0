"""The results table's CC and scheduler columns (``rollout.controls``): the env's settings for a
leogym connection, and ``leotp`` for a LEOTP connection, which takes no CC or scheduler (its
Consumer and Midnodes set the rates: cpp/doc/leotp.md, "The connection under study"), instead
of the evaluation's fallback CC the env carries."""

from __future__ import annotations

from pathlib import Path

from leogym.agents.config import BaselineSpec
from leogym.agents.evaluate import baseline_policy, build_tasks
from leogym.agents.results.table import ResultsStore
from leogym.agents.runtime.app import compose, to_objects
from leogym.agents.runtime.rollout import controls


def test_leotp_rows_name_leotp_not_the_fallback_cc(tmp_path: Path) -> None:
    c = to_objects(compose("main_job", ["eval.seeds=[0]", "eval.traces=false"]))
    _, env = baseline_policy("lt", BaselineSpec(name="leotp_d"), c)
    assert env.kwargs["connection"] == "leotp"
    assert env.kwargs.get("cc") == c.eval.fallback_cc  # what the column showed before
    assert controls(dict(env.kwargs)) == {"cc": "leotp", "scheduler": "-"}
    tasks = build_tasks(c, ResultsStore(tmp_path))
    cubic = next(t for t in tasks if t.policy.label.startswith("CUBIC"))
    assert controls(dict(cubic.env.kwargs)) == {"cc": "cubic", "scheduler": "minrtt"}


def test_residual_rows_name_the_core_controller() -> None:
    # The policy scales the base's windows: the row says so, as the core names it.
    kwargs = {"cc": "external", "action_mode": "residual", "residual_base": "bbr3"}
    assert controls({**kwargs, "scheduler": "minrtt"})["cc"] == "residual+bbr3"
    assert controls({"cc": "external", "action_mode": "residual"})["cc"] == "residual+cubic"
