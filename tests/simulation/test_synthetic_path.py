"""``native_config.synthetic_path``: a native path dict from given arrays (what the native
tests and the link-level benchmarks drive the core with). Bad input is a ``ValueError`` naming
the argument or, for the arrays, the core's check naming the field."""

from __future__ import annotations

import math

import numpy as np
import pytest

from leogym.simulation.native_config import synthetic_path

pytestmark = pytest.mark.native


@pytest.mark.parametrize(
    ("kwargs", "arg"),
    [
        ({"dt_s": 0.0}, "dt_s"),
        ({"dt_s": -0.01}, "dt_s"),
        ({"dt_s": math.nan}, "dt_s"),
        ({"duration_s": -1.0}, "duration_s"),
        ({"duration_s": math.inf}, "duration_s"),
    ],
)
def test_a_bad_grid_names_the_argument(kwargs: dict, arg: str) -> None:
    with pytest.raises(ValueError, match=rf"^synthetic_path: {arg} must be finite and > 0"):
        synthetic_path(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"rate_bps": np.full(3, 1e6)}, r"rate_down_bps: length 3 does not match"),
        ({"rate_bps": 0.0}, r"rate_down_bps\[0\]: must be > 0 outside outages"),
        ({"loss": 2.0}, r"loss_down\[0\]: must be in \[0, 1\]"),
        ({"outages": [(2.0, 1.0)]}, r"outages\[0\]: start must be < end"),
    ],
)
def test_bad_arrays_are_refused_by_the_core_naming_the_field(kwargs: dict, field: str) -> None:
    from leogym.native import core

    with pytest.raises(ValueError, match=r"path \('p0'\)\." + field):
        core().validate_path(synthetic_path(**kwargs))
