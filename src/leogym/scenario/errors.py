"""The one exception type of the scenario layer."""

from __future__ import annotations

from typing import Any

from leogym.schema import FieldError, fail

__all__ = ["ScenarioConfigError", "field_error"]


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
