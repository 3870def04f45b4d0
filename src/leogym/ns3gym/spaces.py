"""Gymnasium spaces on the ns3-gym wire: **describing a space** as a ``SpaceDescription``
(:func:`space_to_description`, used by the server) and **reading a description** back
(:func:`description_to_space`, used by the client, bounded in depth and size). The values of a
space travel in ``DataContainer`` messages: :mod:`leogym.ns3gym.values`.

Wire facts that shape the mapping (see ``docs/ns3gym.md``):

* A Box carries one scalar ``low`` and one scalar ``high`` (32-bit floats) and a ``Dtype`` among
  ``INT`` (int32 data), ``UINT`` (uint32 data), ``FLOAT`` (float32) and ``DOUBLE`` (float64).
  Per-element bounds are sent as their enclosing interval, rounded outwards to float32
  (:func:`box_bounds`); the client clamps integer bounds to its dtype's range.
* The upstream client sends float64 Box actions as ``FLOAT``; :func:`box_wire_dtype` does the
  same when ``upstream_actions`` is true.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from leogym.ns3gym import messages as pb
from leogym.ns3gym.errors import Ns3GymProtocolError, Ns3GymSpaceError

__all__ = [
    "MAX_SPACE_DEPTH",
    "MAX_SPACE_ELEMENTS",
    "WIRE_DTYPES",
    "box_bounds",
    "box_wire_dtype",
    "description_to_space",
    "space_to_description",
]

_log = logging.getLogger(__name__)

#: Deepest nesting of Tuple/Dict spaces a received description may have (the top level is 1).
#: Each level is a separately packed ``Any``, so protobuf's own recursion limit does not apply.
MAX_SPACE_DEPTH = 32
#: Most elements a received space description may add up to: every Box value (the product of
#: its shape), every Discrete and every Tuple/Dict entry counts one. A Box's shape costs a few
#: bytes on the wire but its bounds arrays cost 2 x 8 bytes per value here.
MAX_SPACE_ELEMENTS = 1_000_000

#: NumPy dtype of the data each wire ``Dtype`` carries.
WIRE_DTYPES: dict[int, np.dtype] = {
    pb.Dtype.INT: np.dtype(np.int32),
    pb.Dtype.UINT: np.dtype(np.uint32),
    pb.Dtype.FLOAT: np.dtype(np.float32),
    pb.Dtype.DOUBLE: np.dtype(np.float64),
}
_SPACE_PAYLOAD = {
    pb.SpaceType.Discrete: pb.DiscreteSpace,
    pb.SpaceType.Box: pb.BoxSpace,
    pb.SpaceType.Tuple: pb.TupleSpace,
    pb.SpaceType.Dict: pb.DictSpace,
}


def box_wire_dtype(dtype: np.dtype | type, upstream_actions: bool = False) -> int:
    """Wire ``Dtype`` for a Box of NumPy ``dtype``.

    :param dtype: the Box dtype.
    :param upstream_actions: map float64 to ``FLOAT`` as the upstream client does for actions
        (otherwise float64 is ``DOUBLE``).
    :return: a :class:`~leogym.ns3gym.messages.Dtype` value.
    :raises Ns3GymSpaceError: complex, string or object dtypes.
    """
    dt = np.dtype(dtype)
    if dt.kind == "i":
        return pb.Dtype.INT
    if dt.kind in "ub":
        return pb.Dtype.UINT
    if dt.kind == "f":
        if dt.itemsize <= 4 or upstream_actions:
            return pb.Dtype.FLOAT
        return pb.Dtype.DOUBLE
    raise Ns3GymSpaceError(f"Box dtype {dt} has no ns3-gym wire dtype (INT, UINT, FLOAT, DOUBLE)")


def _outward_f32(value: float, down: bool) -> float:
    """Round ``value`` to float32, away from the interior of the interval."""
    if math.isinf(value):
        return value
    f = np.float32(value)
    if down and float(f) > value:
        f = np.nextafter(f, np.float32(-np.inf))
    elif not down and float(f) < value:
        f = np.nextafter(f, np.float32(np.inf))
    return float(f)


def box_bounds(space: spaces.Box) -> tuple[float, float]:
    """The bounds a Box has on the wire: the enclosing interval of its per-element bounds,
    rounded outwards to float32."""
    low = np.asarray(space.low)
    high = np.asarray(space.high)
    lo = float(low.min()) if low.size else 0.0
    hi = float(high.max()) if high.size else 0.0
    if low.size and (low.min() != low.max() or high.min() != high.max()):
        _log.debug("Box %s has per-element bounds; sending the interval [%s, %s]", space, lo, hi)
    return _outward_f32(lo, down=True), _outward_f32(hi, down=False)


def _describe_box(shape: tuple[int, ...], low: float, high: float, dtype: int) -> pb.BoxSpace:
    return pb.BoxSpace(low=low, high=high, dtype=dtype, shape=list(shape))


def space_to_description(space: spaces.Space, name: str = "") -> pb.SpaceDescription:
    """Describe a Gymnasium space as an ns3-gym ``SpaceDescription``.

    Supported: ``Discrete`` (its ``start`` is subtracted from values on the wire), ``Box``,
    ``MultiBinary`` and ``MultiDiscrete`` (sent as integer Boxes with enclosing bounds),
    ``Tuple`` and ``Dict`` (keys in the space's order, which Gymnasium sorts), nested freely.

    :param space: the space to describe.
    :param name: Dict key of this element (empty otherwise).
    :return: the description.
    :raises Ns3GymSpaceError: a space type or dtype the wire cannot express.
    """
    desc = pb.SpaceDescription(name=name)
    if isinstance(space, spaces.Discrete):
        desc.type = pb.SpaceType.Discrete
        if not 0 < int(space.n) <= np.iinfo(np.int32).max:
            raise Ns3GymSpaceError(f"Discrete({space.n}) does not fit the wire's int32 n")
        pb.pack_any(desc.space, pb.DiscreteSpace(n=int(space.n)))
    elif isinstance(space, spaces.Box):
        desc.type = pb.SpaceType.Box
        low, high = box_bounds(space)
        pb.pack_any(desc.space, _describe_box(space.shape, low, high, box_wire_dtype(space.dtype)))
    elif isinstance(space, spaces.MultiBinary):
        desc.type = pb.SpaceType.Box
        pb.pack_any(desc.space, _describe_box(space.shape, 0.0, 1.0, pb.Dtype.UINT))
    elif isinstance(space, spaces.MultiDiscrete):
        desc.type = pb.SpaceType.Box
        start = np.asarray(space.start)
        top = start + np.asarray(space.nvec) - 1
        low = float(start.min()) if start.size else 0.0
        high = float(top.max()) if top.size else 0.0
        pb.pack_any(
            desc.space,
            _describe_box(
                space.shape,
                _outward_f32(low, True),
                _outward_f32(high, False),
                box_wire_dtype(space.dtype),
            ),
        )
    elif isinstance(space, spaces.Tuple):
        desc.type = pb.SpaceType.Tuple
        payload = pb.TupleSpace()
        for child in space.spaces:
            payload.element.append(space_to_description(child))
        pb.pack_any(desc.space, payload)
    elif isinstance(space, spaces.Dict):
        desc.type = pb.SpaceType.Dict
        payload = pb.DictSpace()
        for key, child in space.spaces.items():
            if not isinstance(key, str) or not key:
                raise Ns3GymSpaceError(f"Dict key {key!r}: ns3-gym Dict keys must be non-empty str")
            payload.element.append(space_to_description(child, name=key))
        pb.pack_any(desc.space, payload)
    else:
        raise Ns3GymSpaceError(
            f"{type(space).__name__} space has no ns3-gym encoding "
            "(supported: Discrete, Box, MultiBinary, MultiDiscrete, Tuple, Dict)"
        )
    return desc


def _int_bound(value: float, dtype: np.dtype, is_low: bool) -> int:
    info = np.iinfo(dtype)
    if math.isinf(value):
        return int(info.min) if value < 0 else int(info.max)
    bound = math.ceil(value) if is_low else math.floor(value)
    return int(min(max(bound, info.min), info.max))


def description_to_space(
    desc: pb.SpaceDescription,
    where: str,
    fix_zero_bounds: bool = True,
    *,
    max_depth: int = MAX_SPACE_DEPTH,
    max_elements: int = MAX_SPACE_ELEMENTS,
) -> spaces.Space:
    """Build the Gymnasium space a ``SpaceDescription`` describes.

    Box dtypes: ``INT`` -> int32, ``UINT`` -> uint32, ``FLOAT`` -> float32, ``DOUBLE`` -> float64
    (the widths of the wire's data fields); ``NoDType`` is read as ``FLOAT`` like both upstream
    peers do. Infinite integer bounds become the dtype's limits.

    :param desc: the description received from the simulation.
    :param where: field path for error messages (e.g. ``"SimInitMsg.obsSpace"``).
    :param fix_zero_bounds: read ``Box(low=0, high=0)`` as unbounded. The upstream C++
        ``OpenGymBoxSpace`` constructor that takes per-element bound vectors sends 0/0.
    :param max_depth: deepest Tuple/Dict nesting accepted (:data:`MAX_SPACE_DEPTH`).
    :param max_elements: most elements accepted in all (:data:`MAX_SPACE_ELEMENTS`).
    :return: the space.
    :raises Ns3GymProtocolError: missing, unknown, inconsistent, too deep or too large
        description (checked before anything of that size is allocated).
    """
    limits = _Limits(max_depth, max_elements, [max_elements])
    return _read_space(desc, where, fix_zero_bounds, 1, limits)


@dataclass(frozen=True)
class _Limits:
    """The bounds of one :func:`description_to_space` call and the elements it has left."""

    max_depth: int
    max_elements: int
    left: list[int]


def _spend(limits: _Limits, n: int, where: str, what: str) -> None:
    """Take ``n`` elements from what ``limits`` has left; raise when the description needs
    more (before anything of that size is built)."""
    limits.left[0] -= n
    if limits.left[0] < 0:
        raise Ns3GymProtocolError(
            f"{where}: {what} takes the space description past {limits.max_elements} elements "
            "(Box values, Discretes and Tuple/Dict entries together), the most accepted"
        )


def _read_space(
    desc: pb.SpaceDescription,
    where: str,
    fix_zero_bounds: bool,
    depth: int,
    limits: _Limits,
) -> spaces.Space:
    """:func:`description_to_space` of one (sub)space at nesting level ``depth``."""
    if depth > limits.max_depth:
        raise Ns3GymProtocolError(
            f"{where}: the space description nests deeper than {limits.max_depth} levels, "
            "the most accepted"
        )
    stype = desc.type
    if stype == pb.SpaceType.NoSpaceType:
        raise Ns3GymProtocolError(
            f"{where}: no space (type NoSpaceType); the simulation did not provide the space "
            "callback"
        )
    payload_cls = _SPACE_PAYLOAD.get(stype)
    if payload_cls is None:
        raise Ns3GymProtocolError(f"{where}: unknown SpaceType value {stype}")
    payload = pb.unpack_any(desc.space, payload_cls, f"{where}.space")
    if stype == pb.SpaceType.Discrete:
        if payload.n <= 0:
            raise Ns3GymProtocolError(f"{where}: DiscreteSpace.n = {payload.n}, must be > 0")
        _spend(limits, 1, where, "a Discrete")
        return spaces.Discrete(int(payload.n))
    if stype == pb.SpaceType.Box:
        wire_dtype = payload.dtype or pb.Dtype.FLOAT
        if wire_dtype not in WIRE_DTYPES:
            raise Ns3GymProtocolError(f"{where}: BoxSpace.dtype has unknown value {wire_dtype}")
        dtype = WIRE_DTYPES[wire_dtype]
        shape = tuple(int(s) for s in payload.shape)
        _spend(limits, math.prod(shape), where, f"a Box of shape {list(shape)}")
        low, high = float(payload.low), float(payload.high)
        if math.isnan(low) or math.isnan(high):
            raise Ns3GymProtocolError(f"{where}: BoxSpace bounds are NaN (low={low}, high={high})")
        if fix_zero_bounds and low == 0.0 and high == 0.0:
            low, high = -math.inf, math.inf
        if dtype.kind in "iu":
            ilow, ihigh = _int_bound(low, dtype, True), _int_bound(high, dtype, False)
            if ilow > ihigh:
                raise Ns3GymProtocolError(
                    f"{where}: BoxSpace [{low}, {high}] holds no {dtype} value"
                )
            return spaces.Box(
                low=np.full(shape, ilow, dtype=dtype),
                high=np.full(shape, ihigh, dtype=dtype),
                shape=shape,
                dtype=dtype,
            )
        if low > high:
            raise Ns3GymProtocolError(f"{where}: BoxSpace low {low} > high {high}")
        return spaces.Box(low=low, high=high, shape=shape, dtype=dtype)
    children = payload.element
    kind = "Tuple" if stype == pb.SpaceType.Tuple else "Dict"
    _spend(limits, len(children), where, f"a {kind} of {len(children)} entries")
    if stype == pb.SpaceType.Tuple:
        return spaces.Tuple(
            tuple(
                _read_space(
                    child,
                    f"{where}.element[{i}]",
                    fix_zero_bounds,
                    depth + 1,
                    limits,
                )
                for i, child in enumerate(children)
            )
        )
    items: dict[str, spaces.Space] = {}
    for i, child in enumerate(children):
        if not child.name:
            raise Ns3GymProtocolError(f"{where}.element[{i}]: Dict element without a name")
        if child.name in items:
            raise Ns3GymProtocolError(f"{where}: Dict key {child.name!r} appears twice")
        items[child.name] = _read_space(
            child,
            f"{where}.element[{i}]({child.name})",
            fix_zero_bounds,
            depth + 1,
            limits,
        )
    return spaces.Dict(items)
