"""The one exception type of the scenario layer."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from leogym.schema import FieldError, fail

__all__ = ["ROOT", "ScenarioConfigError", "field_error", "regular_file"]

#: The first part of every scenario field path in an error (``scenario.paths[0].name``).
ROOT = "scenario"


class ScenarioConfigError(FieldError):
    """A scenario config (or a file it names) is invalid.

    The message always starts with the dotted path of the offending field, for example
    ``scenario.constellation.altitude_km: must be in (0, 50000] (got -5)``, so the user knows
    what to fix. Attribute :attr:`field` holds that path.

    :param field: dotted field path, e.g. ``scenario.paths[1].queue.size``.
    :param message: what is wrong, phrased as a requirement.
    """


def field_error(field: str, requirement: str, got: Any) -> ScenarioConfigError:
    """Build the canonical ``<field>: <requirement> (got <value>)`` error.

    :param field: dotted field path.
    :param requirement: e.g. ``"must be > 0"``.
    :param got: the offending value (shown with ``repr`` for strings).
    :return: the error, to be raised by the caller.
    """
    err = fail(ScenarioConfigError, field, requirement, got)
    assert isinstance(err, ScenarioConfigError)
    return err


def regular_file(path: Any, field: str, what: str = "trace file") -> Path:
    """``path`` as a :class:`~pathlib.Path` if it names a regular file, else an error naming
    ``field`` that says what is there instead (nothing, a directory, a FIFO or device).

    :raises ScenarioConfigError: not a non-empty file name, or not a regular file.
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ScenarioConfigError(field, f"must be a file name, got {path!r}")
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except (OSError, ValueError):
        raise ScenarioConfigError(field, f"{what} not found: {str(p)!r}") from None
    if stat.S_ISDIR(mode):
        raise ScenarioConfigError(field, f"{what} {str(p)!r} is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise ScenarioConfigError(
            field, f"{what} {str(p)!r} is not a regular file (a FIFO, socket or device)"
        )
    return p
