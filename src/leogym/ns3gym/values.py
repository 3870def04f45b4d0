"""Values of Gymnasium spaces on the ns3-gym wire: **packing a value** into a
``DataContainer`` (:func:`value_to_container`: observations on the server, actions on the
client), **unpacking** one against a known space (:func:`container_to_value`) and refusing a
decoded value outside the space (:func:`check_in_space`). The spaces themselves travel as
descriptions: :mod:`leogym.ns3gym.spaces`.

Data values are flattened in C order. The container's ``shape`` field is written but, like
both upstream peers, never trusted when reading: values are reshaped to the space's shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from leogym.ns3gym import messages as pb
from leogym.ns3gym.errors import Ns3GymProtocolError, Ns3GymSpaceError
from leogym.ns3gym.spaces import WIRE_DTYPES, box_bounds, box_wire_dtype

__all__ = ["check_in_space", "container_to_value", "value_to_container"]

_FIELD_OF_DTYPE = {
    pb.Dtype.INT: "intData",
    pb.Dtype.UINT: "uintData",
    pb.Dtype.FLOAT: "floatData",
    pb.Dtype.DOUBLE: "doubleData",
}
_DATA_PAYLOAD = {
    pb.SpaceType.Discrete: pb.DiscreteDataContainer,
    pb.SpaceType.Box: pb.BoxDataContainer,
    pb.SpaceType.Tuple: pb.TupleDataContainer,
    pb.SpaceType.Dict: pb.DictDataContainer,
}


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
    enclosing interval, rounded outwards to float32, :func:`~leogym.ns3gym.spaces.box_bounds`):
    a peer cannot know tighter per-element bounds, nor send a float64 bound exactly as ``FLOAT``.

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
        low, high = box_bounds(space)
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
