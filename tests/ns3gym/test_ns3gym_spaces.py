"""Spaces and values on the wire: every Box dtype, Discrete, Tuple, Dict, and upstream quirks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gymnasium import spaces

from leogym.ns3gym import Ns3GymProtocolError, Ns3GymSpaceError
from leogym.ns3gym import messages as pb
from leogym.ns3gym.spaces import description_to_space, space_to_description
from leogym.ns3gym.values import container_to_value, value_to_container

pytestmark = pytest.mark.timeout(30)

# NumPy dtype -> (wire Dtype, dtype of the space the client builds): the C++ module's rule
# (int*_t -> INT, uint*_t -> UINT, float -> FLOAT, double -> DOUBLE) and the wire's data widths.
BOX_DTYPES = [
    (np.int8, pb.Dtype.INT, np.int32),
    (np.int16, pb.Dtype.INT, np.int32),
    (np.int32, pb.Dtype.INT, np.int32),
    (np.int64, pb.Dtype.INT, np.int32),
    (np.uint8, pb.Dtype.UINT, np.uint32),
    (np.uint16, pb.Dtype.UINT, np.uint32),
    (np.uint32, pb.Dtype.UINT, np.uint32),
    (np.uint64, pb.Dtype.UINT, np.uint32),
    (np.bool_, pb.Dtype.UINT, np.uint32),
    (np.float16, pb.Dtype.FLOAT, np.float32),
    (np.float32, pb.Dtype.FLOAT, np.float32),
    (np.float64, pb.Dtype.DOUBLE, np.float64),
]


def _box_payload(desc: pb.SpaceDescription) -> pb.BoxSpace:
    return pb.unpack_any(desc.space, pb.BoxSpace, "test")


def _equal(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_equal, a, b))
    return np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize(("dtype", "wire", "client_dtype"), BOX_DTYPES)
def test_box_of_every_dtype_round_trips(dtype: type, wire: int, client_dtype: type) -> None:
    if np.dtype(dtype).kind == "b":
        space = spaces.Box(0, 1, (2, 3), dtype)
        low, high = 0, 1
    elif np.dtype(dtype).kind in "iu":
        low, high = (0 if np.dtype(dtype).kind == "u" else -50), 100
        space = spaces.Box(low, high, (2, 3), dtype)
    else:
        low, high = -2.5, 4.0
        space = spaces.Box(low, high, (2, 3), dtype)
    space.seed(7)
    desc = space_to_description(space)
    box = _box_payload(desc)
    assert (box.dtype, box.low, box.high, list(box.shape)) == (wire, low, high, [2, 3])

    client_space = description_to_space(desc, "obsSpace")
    assert client_space.dtype == np.dtype(client_dtype) and client_space.shape == (2, 3)
    for _ in range(5):
        value = space.sample()
        container = value_to_container(space, value, "obs")
        data = pb.unpack_any(container.data, pb.BoxDataContainer, "obs")
        assert data.dtype == wire and list(data.shape) == [2, 3]
        got = container_to_value(client_space, container, "obs")
        assert got.dtype == client_space.dtype and got.shape == (2, 3)
        np.testing.assert_array_equal(got, value.astype(client_dtype))  # C order preserved
        assert client_space.contains(got)
        back = container_to_value(space, container, "act")  # the server's own space
        assert back.dtype == space.dtype
        np.testing.assert_array_equal(back, value)


def test_float64_actions_go_out_as_float_like_upstream() -> None:
    space = spaces.Box(-1e3, 1e3, (2,), np.float64)
    container = value_to_container(space, [0.1, -123.456], "action", upstream_actions=True)
    data = pb.unpack_any(container.data, pb.BoxDataContainer, "x")
    assert data.dtype == pb.Dtype.FLOAT and len(data.doubleData) == 0
    assert list(data.floatData) == [float(np.float32(0.1)), float(np.float32(-123.456))]
    assert list(data.shape) == [2]
    exact = value_to_container(space, [0.1, -123.456], "obs")
    assert list(pb.unpack_any(exact.data, pb.BoxDataContainer, "x").doubleData) == [0.1, -123.456]


def test_discrete_with_start_is_shifted_on_the_wire() -> None:
    space = spaces.Discrete(4, start=-2)
    desc = space_to_description(space)
    assert pb.unpack_any(desc.space, pb.DiscreteSpace, "x").n == 4
    container = value_to_container(space, -2, "obs")
    assert pb.unpack_any(container.data, pb.DiscreteDataContainer, "x").data == 0
    assert container_to_value(space, container, "act") == -2
    client = description_to_space(desc, "x")
    assert client == spaces.Discrete(4)
    value = container_to_value(client, value_to_container(space, 1, "obs"), "obs")
    assert value == 3 and isinstance(value, np.int64)


def test_multibinary_and_multidiscrete_travel_as_integer_boxes() -> None:
    mb = spaces.MultiBinary(3)
    box = _box_payload(space_to_description(mb))
    assert (box.dtype, box.low, box.high, list(box.shape)) == (pb.Dtype.UINT, 0, 1, [3])
    value = np.array([1, 0, 1], dtype=np.int8)
    assert _equal(container_to_value(mb, value_to_container(mb, value, "v"), "v"), value)

    md = spaces.MultiDiscrete([3, 5])
    box = _box_payload(space_to_description(md))
    assert (box.dtype, box.low, box.high) == (pb.Dtype.INT, 0, 4)  # enclosing interval
    value = np.array([2, 4])
    got = container_to_value(md, value_to_container(md, value, "v"), "v")
    assert got.dtype == md.dtype and _equal(got, value)


NESTED = spaces.Dict(
    {
        "z": spaces.Tuple(
            (
                spaces.Discrete(3),
                spaces.Box(-1, 1, (2,), np.float32),
                spaces.Dict({"in": spaces.Box(0, 9, (1,), np.uint32)}),
            )
        ),
        "a": spaces.Box(-5, 5, (2, 2), np.int32),
        "m": spaces.Discrete(7),
        "d": spaces.Box(-1, 1, (3,), np.float64),
    }
)


def test_nested_tuple_and_dict_round_trip() -> None:
    NESTED.seed(3)
    desc = space_to_description(NESTED)
    payload = pb.unpack_any(desc.space, pb.DictSpace, "x")
    assert [e.name for e in payload.element] == ["a", "d", "m", "z"]  # sorted, like std::map
    client = description_to_space(desc, "x")
    assert client == NESTED  # every dtype here is already a wire width
    for _ in range(5):
        value = NESTED.sample()
        container = value_to_container(NESTED, value, "obs")
        assert _equal(container_to_value(client, container, "obs"), value)
        assert _equal(container_to_value(NESTED, container, "obs"), value)


def test_per_element_bounds_become_the_enclosing_float32_interval() -> None:
    space = spaces.Box(np.array([-1.0, 0.1]), np.array([0.3, 2.0]), dtype=np.float64)
    box = _box_payload(space_to_description(space))
    assert box.low == -1.0 and box.high == 2.0
    space = spaces.Box(np.array([0.1, 0.2]), np.array([0.3, 0.7]), dtype=np.float64)
    box = _box_payload(space_to_description(space))
    # float32 rounding goes outwards, so no element of the space falls outside the wire box
    assert box.low <= 0.1 and box.high >= 0.7
    assert box.low == float(np.nextafter(np.float32(0.1), np.float32(-1)))  # 0.1f > 0.1
    assert box.high == float(np.nextafter(np.float32(0.7), np.float32(1)))  # 0.7f < 0.7


def test_unbounded_integer_boxes_are_clamped_to_the_client_dtype() -> None:
    space = spaces.Box(-np.inf, np.inf, (2,), np.int64)
    client = description_to_space(space_to_description(space), "x")
    assert client.dtype == np.int32
    assert client.low[0] == np.iinfo(np.int32).min and client.high[0] == np.iinfo(np.int32).max


def test_zero_zero_bounds_from_the_cpp_vector_constructor_mean_unbounded() -> None:
    desc = pb.SpaceDescription(type=pb.SpaceType.Box)
    pb.pack_any(desc.space, pb.BoxSpace(low=0, high=0, dtype=pb.Dtype.FLOAT, shape=[3]))
    fixed = description_to_space(desc, "x")
    assert math.isinf(fixed.low[0]) and math.isinf(fixed.high[0])
    raw = description_to_space(desc, "x", fix_zero_bounds=False)
    assert raw.low[0] == 0 and raw.high[0] == 0


def test_no_dtype_is_read_as_float_like_both_upstream_sides() -> None:
    desc = pb.SpaceDescription(type=pb.SpaceType.Box)
    pb.pack_any(desc.space, pb.BoxSpace(low=-1, high=1, shape=[2]))
    space = description_to_space(desc, "x")
    assert space.dtype == np.float32
    container = pb.DataContainer(type=pb.SpaceType.Box)
    pb.pack_any(container.data, pb.BoxDataContainer(shape=[2], floatData=[0.5, -0.5]))
    np.testing.assert_array_equal(container_to_value(space, container, "x"), [0.5, -0.5])


def test_int64_values_outside_int32_are_refused_not_narrowed() -> None:
    space = spaces.Box(-(2**40), 2**40, (2,), np.int64)
    with pytest.raises(Ns3GymSpaceError, match=r"obs: value 1099511627776 is outside the int32"):
        value_to_container(space, np.array([1, 2**40]), "obs")


# -- malformed data ----------------------------------------------------------------------------


def _box_container(**fields: object) -> pb.DataContainer:
    container = pb.DataContainer(type=pb.SpaceType.Box)
    pb.pack_any(container.data, pb.BoxDataContainer(**fields))
    return container


@pytest.mark.parametrize(
    ("space", "container", "message"),
    [
        (
            spaces.Discrete(3),
            _box_container(dtype=pb.Dtype.UINT, uintData=[1]),
            r"DataContainer.type is Box, expected Discrete",
        ),
        (
            spaces.Box(0, 1, (3,), np.float32),
            _box_container(dtype=pb.Dtype.FLOAT, floatData=[1]),
            r"Box data has 1 values, Box\(0.0, 1.0, \(3,\), float32\) needs 3",
        ),
        (
            spaces.Box(0, 1, (2,), np.float32),
            _box_container(dtype=pb.Dtype.FLOAT, intData=[1, 2]),
            r"dtype is FLOAT but intData holds 2 values",
        ),
        (
            spaces.Box(0, 9, (1,), np.int32),
            _box_container(dtype=pb.Dtype.FLOAT, floatData=[1.5]),
            r"value 1.5 is not an integer",
        ),
        (
            spaces.Box(0, 9, (1,), np.uint8),
            _box_container(dtype=pb.Dtype.INT, intData=[-3]),
            r"value -3 is outside the uint8 range",
        ),
        (
            spaces.Box(0, 9, (1,), np.float32),
            _box_container(dtype=9, floatData=[1]),
            r"BoxDataContainer.dtype has unknown value 9",
        ),
    ],
)
def test_malformed_containers_name_what_is_wrong(
    space: spaces.Space, container: pb.DataContainer, message: str
) -> None:
    with pytest.raises(Ns3GymProtocolError, match=message):
        container_to_value(space, container, "EnvStateMsg.obsData")


def test_malformed_discrete_and_dict_containers() -> None:
    container = pb.DataContainer(type=pb.SpaceType.Discrete)
    pb.pack_any(container.data, pb.DiscreteDataContainer(data=5))
    with pytest.raises(Ns3GymProtocolError, match=r"Discrete value 5 not in 0..2"):
        container_to_value(spaces.Discrete(3), container, "act")

    space = spaces.Dict({"a": spaces.Discrete(2), "b": spaces.Discrete(2)})
    value = value_to_container(space, {"a": 1, "b": 0}, "act")
    payload = pb.unpack_any(value.data, pb.DictDataContainer, "x")
    payload.element[1].name = "c"
    pb.pack_any(value.data, payload)
    with pytest.raises(Ns3GymProtocolError, match=r"missing \['b'\], unexpected \['c'\]"):
        container_to_value(space, value, "act")
    payload.element[1].name = "a"
    pb.pack_any(value.data, payload)
    with pytest.raises(Ns3GymProtocolError, match=r"Dict key 'a' appears twice"):
        container_to_value(space, value, "act")


def test_malformed_space_descriptions() -> None:
    with pytest.raises(Ns3GymProtocolError, match="NoSpaceType"):
        description_to_space(pb.SpaceDescription(), "SimInitMsg.obsSpace")
    with pytest.raises(Ns3GymProtocolError, match="unknown SpaceType value 7"):
        description_to_space(pb.SpaceDescription(type=7), "SimInitMsg.obsSpace")
    desc = pb.SpaceDescription(type=pb.SpaceType.Discrete)
    pb.pack_any(desc.space, pb.DiscreteSpace(n=0))
    with pytest.raises(Ns3GymProtocolError, match=r"DiscreteSpace.n = 0"):
        description_to_space(desc, "SimInitMsg.actSpace")
    desc = pb.SpaceDescription(type=pb.SpaceType.Dict)
    pb.pack_any(desc.space, pb.DictSpace(element=[space_to_description(spaces.Discrete(2))]))
    with pytest.raises(Ns3GymProtocolError, match="Dict element without a name"):
        description_to_space(desc, "SimInitMsg.obsSpace")


def test_values_and_spaces_the_wire_cannot_carry() -> None:
    with pytest.raises(Ns3GymSpaceError, match="Text space has no ns3-gym encoding"):
        space_to_description(spaces.Text(5))
    with pytest.raises(Ns3GymSpaceError, match=r"action: 7 is not in Discrete\(3\)"):
        value_to_container(spaces.Discrete(3), 7, "action")
    with pytest.raises(Ns3GymSpaceError, match=r"shape \(3,\) does not fit"):
        value_to_container(spaces.Box(0, 1, (2,)), [0, 0, 0], "action")
    with pytest.raises(Ns3GymSpaceError, match=r"expected a mapping with keys \['a'\]"):
        value_to_container(spaces.Dict({"a": spaces.Discrete(2)}), {"b": 1}, "action")
