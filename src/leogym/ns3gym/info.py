"""The ``EnvStateMsg.info`` string: Gymnasium info dicts on the server, parsed back on the client.

The wire field is a free-form string (upstream scenarios send e.g. ``"testInfo|123"``; the
upstream client hands it to the agent unparsed, or ``{}`` when empty). leogym's server writes the
env's info dict as compact JSON (empty string for an empty dict, so upstream agents still get
``{}``); leogym's client turns a JSON object back into a dict and keeps any other non-empty
string under the key ``"ns3gym_info"``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["encode_info", "decode_info", "RAW_INFO_KEY"]

#: Info key under which the client keeps an info string that is not a JSON object.
RAW_INFO_KEY = "ns3gym_info"


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return repr(value)


def encode_info(info: Mapping[str, Any]) -> str:
    """Encode a Gymnasium info dict for ``EnvStateMsg.info``.

    :param info: the info dict (NumPy values become lists/numbers, other objects their repr).
    :return: compact JSON with sorted keys, or ``""`` for an empty dict.
    """
    if not info:
        return ""
    try:
        return json.dumps(dict(info), default=_jsonable, separators=(",", ":"), sort_keys=True)
    except (TypeError, ValueError):  # keys that are not str/int/float/bool/None
        return json.dumps(
            {str(k): v for k, v in info.items()},
            default=_jsonable,
            separators=(",", ":"),
            sort_keys=True,
        )


def decode_info(raw: str) -> dict[str, Any]:
    """Decode ``EnvStateMsg.info`` into a Gymnasium info dict.

    :param raw: the string received.
    :return: the JSON object if ``raw`` is one, ``{}`` if empty, else ``{"ns3gym_info": raw}``.
    """
    if not raw:
        return {}
    if raw.lstrip().startswith("{"):
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    return {RAW_INFO_KEY: raw}
