"""Conversion between Gymnasium spaces/values and the ns3-gym wire messages.

Two directions share this module:

* **describing a space** (:func:`space_to_description`, used by the server) and **reading a
  description** (:func:`description_to_space`, used by the client);
* **packing a value** into a ``DataContainer`` (:func:`value_to_container`: observations on the
  server, actions on the client) and **unpacking** one against a known space
  (:func:`container_to_value`).

Wire facts that shape the mapping (see ``docs/ns3gym.md``):

* A Box carries one scalar ``low`` and one scalar ``high`` (32-bit floats) and a ``Dtype`` among
  ``INT`` (int32 data), ``UINT`` (uint32 data), ``FLOAT`` (float32) and ``DOUBLE`` (float64).
  Per-element bounds are sent as their enclosing interval, rounded outwards to float32; the
  client clamps integer bounds to its dtype's range.
* Data values are flattened in C order. The container's ``shape`` field is written but, like
  both upstream peers, never trusted when reading: values are reshaped to the space's shape.
* The upstream client sends float64 Box actions as ``FLOAT``; :func:`value_to_container` does the
  same when ``upstream_actions`` is true.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from leogym.ns3gym import messages as pb
from leogym.ns3gym.errors import Ns3GymProtocolError, Ns3GymSpaceError

__all__ = [
    "MAX_SPACE_DEPTH",
    "MAX_SPACE_ELEMENTS",
    "WIRE_DTYPES",
    "check_in_space",
    "space_to_description",
    "description_to_space",
    "value_to_container",
    "container_to_value",
    "box_wire_dtype",
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
_FIELD_OF_DTYPE = {
    pb.Dtype.INT: "intData",
    pb.Dtype.UINT: "uintData",
    pb.Dtype.FLOAT: "floatData",
    pb.Dtype.DOUBLE: "doubleData",
}
_SPACE_PAYLOAD = {
    pb.SpaceType.Discrete: pb.DiscreteSpace,
    pb.SpaceType.Box: pb.BoxSpace,
    pb.SpaceType.Tuple: pb.TupleSpace,
    pb.SpaceType.Dict: pb.DictSpace,
}
_DATA_PAYLOAD = {
    pb.SpaceType.Discrete: pb.DiscreteDataContainer,
    pb.SpaceType.Box: pb.BoxDataContainer,
    pb.SpaceType.Tuple: pb.TupleDataContainer,
    pb.SpaceType.Dict: pb.DictDataContainer,
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


def _box_bounds(space: spaces.Box) -> tuple[float, float]:
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
        low, high = _box_bounds(space)
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


def _checked_ints(
    flat: np.ndarray, target: np.dtype, where: str, error: type[Exception]
) -> np.ndarray:
    """Convert ``flat`` to integer dtype ``target`` if every value is integral and in range."""
    info = np.iinfo(target)
    if flat.dtype.kind == "f":
        if flat.size and not np.all(np.isfinite(flat) & (flat == np.round(flat))):
            bad = flat[~(np.isfinite(flat) & (flat == np.round(flat)))][0]
            raise error(f"{where}: value {bad.item()!r} is not an integer, needed for {target}")
    elif flat.dtype.kind not in "iub":
        raise error(f"{where}: values of dtype {flat.dtype} cannot become {target}")
    if flat.size:
        as_obj = flat.astype(np.float64) if flat.dtype.kind == "f" else flat
        lo, hi = as_obj.min(), as_obj.max()
        if lo < info.min or hi > info.max:
            bad = lo if lo < info.min else hi
            raise error(
                f"{where}: value {bad} is outside the {target} range [{info.min}, {info.max}]"
            )
    return flat.astype(target)


def _box_array(
    space: spaces.Box | spaces.MultiBinary | spaces.MultiDiscrete, value: Any, where: str
) -> np.ndarray:
    arr = np.asarray(value)
    if arr.shape != space.shape:
        if arr.size != int(np.prod(space.shape, dtype=np.int64)):
            raise Ns3GymSpaceError(
                f"{where}: value of shape {arr.shape} does not fit {space} (shape {space.shape})"
            )
        arr = arr.reshape(space.shape)
    return arr


def value_to_container(
    space: spaces.Space,
    value: Any,
    where: str = "value",
    name: str = "",
    upstream_actions: bool = False,
) -> pb.DataContainer:
    """Pack ``value`` (an element of ``space``) into a ``DataContainer``.

    :param space: the space ``value`` belongs to (server: the env's own space; client: the space
        read from the wire).
    :param value: the observation or action.
    :param where: path for error messages.
    :param name: Dict key of this element (empty otherwise).
    :param upstream_actions: encode float64 Boxes as ``FLOAT`` like the upstream client does with
        actions (C++ scenarios are written against it).
    :return: the container.
    :raises Ns3GymSpaceError: the value does not fit the space or the wire (for example an int64
        value outside the int32 range, which the upstream C++ side would silently narrow).
    """
    container = pb.DataContainer(name=name)
    if isinstance(space, spaces.Discrete):
        container.type = pb.SpaceType.Discrete
        arr = np.asarray(value)
        if arr.shape != () or arr.dtype.kind not in "iu":
            raise Ns3GymSpaceError(f"{where}: {value!r} is not an integer for {space}")
        wire = int(arr) - int(space.start)
        if not 0 <= wire < int(space.n):
            raise Ns3GymSpaceError(f"{where}: {int(arr)} is not in {space}")
        pb.pack_any(container.data, pb.DiscreteDataContainer(data=wire))
    elif isinstance(space, (spaces.Box, spaces.MultiBinary, spaces.MultiDiscrete)):
        container.type = pb.SpaceType.Box
        arr = _box_array(space, value, where)
        if isinstance(space, spaces.MultiDiscrete) or isinstance(space, spaces.MultiBinary):
            wire_dtype = pb.Dtype.UINT if isinstance(space, spaces.MultiBinary) else pb.Dtype.INT
        else:
            wire_dtype = box_wire_dtype(space.dtype, upstream_actions)
        flat = arr.reshape(-1)
        target = WIRE_DTYPES[wire_dtype]
        if target.kind in "iu":
            data = _checked_ints(flat, target, where, Ns3GymSpaceError)
        else:
            if flat.dtype.kind not in "iubf":
                raise Ns3GymSpaceError(f"{where}: values of dtype {flat.dtype} are not numbers")
            data = flat.astype(target)
        payload = pb.BoxDataContainer(dtype=wire_dtype, shape=list(space.shape))
        getattr(payload, _FIELD_OF_DTYPE[wire_dtype]).extend(data.tolist())
        pb.pack_any(container.data, payload)
    elif isinstance(space, spaces.Tuple):
        container.type = pb.SpaceType.Tuple
        items = tuple(value) if not isinstance(value, (str, bytes, Mapping)) else None
        if items is None or len(items) != len(space.spaces):
            raise Ns3GymSpaceError(
                f"{where}: expected a sequence of {len(space.spaces)} items for {space}"
            )
        payload = pb.TupleDataContainer()
        for i, (child, item) in enumerate(zip(space.spaces, items, strict=True)):
            payload.element.append(
                value_to_container(child, item, f"{where}[{i}]", upstream_actions=upstream_actions)
            )
        pb.pack_any(container.data, payload)
    elif isinstance(space, spaces.Dict):
        container.type = pb.SpaceType.Dict
        if not isinstance(value, Mapping) or set(value.keys()) != set(space.spaces.keys()):
            got = sorted(value.keys()) if isinstance(value, Mapping) else type(value).__name__
            raise Ns3GymSpaceError(
                f"{where}: expected a mapping with keys {sorted(space.spaces)}, got {got}"
            )
        payload = pb.DictDataContainer()
        for key, child in space.spaces.items():
            payload.element.append(
                value_to_container(
                    child,
                    value[key],
                    f"{where}[{key!r}]",
                    name=key,
                    upstream_actions=upstream_actions,
                )
            )
        pb.pack_any(container.data, payload)
    else:
        raise Ns3GymSpaceError(f"{where}: {type(space).__name__} space has no ns3-gym encoding")
    return container


_TYPE_NAMES = {
    spaces.Discrete: pb.SpaceType.Discrete,
    spaces.Box: pb.SpaceType.Box,
    spaces.MultiBinary: pb.SpaceType.Box,
    spaces.MultiDiscrete: pb.SpaceType.Box,
    spaces.Tuple: pb.SpaceType.Tuple,
    spaces.Dict: pb.SpaceType.Dict,
}


def _box_values(payload: pb.BoxDataContainer, where: str) -> np.ndarray:
    wire_dtype = payload.dtype or pb.Dtype.FLOAT
    if wire_dtype not in WIRE_DTYPES:
        raise Ns3GymProtocolError(f"{where}: BoxDataContainer.dtype has unknown value {wire_dtype}")
    field = _FIELD_OF_DTYPE[wire_dtype]
    for other in _FIELD_OF_DTYPE.values():
        if other != field and len(getattr(payload, other)):
            raise Ns3GymProtocolError(
                f"{where}: BoxDataContainer.dtype is {pb.enum_name('Dtype', wire_dtype)} "
                f"but {other} holds {len(getattr(payload, other))} values"
            )
    return np.array(getattr(payload, field), dtype=WIRE_DTYPES[wire_dtype])


def container_to_value(space: spaces.Space, container: pb.DataContainer, where: str) -> Any:
    """Unpack a ``DataContainer`` as an element of ``space``.

    Box values are reshaped to the space's shape and converted to its dtype (integers must be
    integral and in range); Discrete values come back as ``np.int64`` with the space's ``start``
    added; Tuple as ``tuple``; Dict as ``dict`` in the space's key order.

    :param space: the space the value must belong to.
    :param container: the received container.
    :param where: field path for error messages (e.g. ``"EnvActMsg.actData"``).
    :return: the value.
    :raises Ns3GymProtocolError: wrong container type, payload, element count, names, value count
        or values that do not fit the space's dtype.
    """
    expected = next((t for cls, t in _TYPE_NAMES.items() if isinstance(space, cls)), None)
    if expected is None:
        raise Ns3GymSpaceError(f"{where}: {type(space).__name__} space has no ns3-gym encoding")
    if container.type != expected:
        raise Ns3GymProtocolError(
            f"{where}: DataContainer.type is {pb.enum_name('SpaceType', container.type)}, "
            f"expected {pb.enum_name('SpaceType', expected)} for {space}"
        )
    payload = pb.unpack_any(container.data, _DATA_PAYLOAD[expected], f"{where}.data")
    if isinstance(space, spaces.Discrete):
        if not 0 <= payload.data < int(space.n):
            raise Ns3GymProtocolError(
                f"{where}: Discrete value {payload.data} not in 0..{space.n - 1}"
            )
        return np.int64(payload.data + int(space.start))
    if isinstance(space, (spaces.Box, spaces.MultiBinary, spaces.MultiDiscrete)):  # SpaceType.Box
        values = _box_values(payload, where)
        need = int(np.prod(space.shape, dtype=np.int64))
        if values.size != need:
            raise Ns3GymProtocolError(
                f"{where}: Box data has {values.size} values, {space} needs {need}"
            )
        dtype = np.dtype(space.dtype)
        if dtype.kind in "iu":
            values = _checked_ints(values, dtype, where, Ns3GymProtocolError)
        elif dtype.kind == "b":
            values = _checked_ints(values, np.dtype(np.uint8), where, Ns3GymProtocolError)
            if values.size and values.max() > 1:
                raise Ns3GymProtocolError(f"{where}: value {values.max()} is not a bool")
            values = values.astype(bool)
        else:
            values = values.astype(dtype)
        return values.reshape(space.shape)
    elements = list(payload.element)
    if isinstance(space, spaces.Tuple):
        if len(elements) != len(space.spaces):
            raise Ns3GymProtocolError(
                f"{where}: Tuple data has {len(elements)} elements, {space} has {len(space.spaces)}"
            )
        return tuple(
            container_to_value(child, element, f"{where}[{i}]")
            for i, (child, element) in enumerate(zip(space.spaces, elements, strict=True))
        )
    assert isinstance(space, spaces.Dict)  # the last type of _TYPE_NAMES
    by_name: dict[str, pb.DataContainer] = {}
    for element in elements:
        if element.name in by_name:
            raise Ns3GymProtocolError(f"{where}: Dict key {element.name!r} appears twice")
        by_name[element.name] = element
    if set(by_name) != set(space.spaces):
        missing = sorted(set(space.spaces) - set(by_name))
        extra = sorted(set(by_name) - set(space.spaces))
        raise Ns3GymProtocolError(
            f"{where}: Dict data keys do not match the space "
            f"(missing {missing}, unexpected {extra})"
        )
    return {
        key: container_to_value(child, by_name[key], f"{where}[{key!r}]")
        for key, child in space.spaces.items()
    }


def check_in_space(space: spaces.Space, value: Any, where: str) -> None:
    """Refuse a decoded value that is not an element of ``space`` before anyone acts on it.

    :func:`container_to_value` checks what the wire's types can say (types, counts, integer
    ranges, Discrete values); this adds what they cannot: Box values must be finite (an
    unbounded Box included) and within the bounds the peer was given in ``SimInitMsg`` (the
    enclosing interval, rounded outwards to float32, see :func:`space_to_description`): a peer
    cannot know tighter per-element bounds, nor send a float64 bound exactly as ``FLOAT``.

    :param space: the space (the server: the env's action space).
    :param value: a value returned by :func:`container_to_value` for ``space``.
    :param where: field path for error messages (e.g. ``"EnvActMsg(state #3).actData"``).
    :raises Ns3GymProtocolError: naming the path, the first offending value and its index.
    """
    if isinstance(space, spaces.Tuple):
        for i, (child, item) in enumerate(zip(space.spaces, value, strict=True)):
            check_in_space(child, item, f"{where}[{i}]")
        return
    if isinstance(space, spaces.Dict):
        for key, child in space.spaces.items():
            check_in_space(child, value[key], f"{where}[{key!r}]")
        return
    if isinstance(space, spaces.Box):
        arr = np.asarray(value)
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            index = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
            raise Ns3GymProtocolError(
                f"{where}: value {arr[index].item()!r} at index {list(index)} is not a finite "
                f"number, {space} takes finite values only"
            )
        low, high = _box_bounds(space)
        outside = (arr < low) | (arr > high)
        if np.any(outside):
            index = tuple(int(i) for i in np.argwhere(outside)[0])
            raise Ns3GymProtocolError(
                f"{where}: value {arr[index].item()!r} at index {list(index)} is outside "
                f"[{low!r}, {high!r}], the bounds of {space} on the wire"
            )
        return
    if not space.contains(value):
        raise Ns3GymProtocolError(f"{where}: {value!r} is not an element of {space}")
