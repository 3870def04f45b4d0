"""The ns3opengym schema: field numbers from the spec, protoc agreement, wire bytes, Any URLs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from leogym.ns3gym import Ns3GymProtocolError
from leogym.ns3gym import messages as pb

pytestmark = pytest.mark.timeout(60)

PROTO = Path(pb.__file__).with_name("messages.proto")

# Field numbers and types as tabulated in the spec (section 1.3-1.5).
SPEC_FIELDS = {
    "SpaceDescription": {"type": (1, "SpaceType"), "space": (2, "Any"), "name": (3, "string")},
    "DiscreteSpace": {"n": (1, "int32")},
    "BoxSpace": {
        "low": (1, "float"),
        "high": (2, "float"),
        "dtype": (3, "Dtype"),
        "shape": (4, "repeated uint32"),
    },
    "TupleSpace": {"element": (1, "repeated SpaceDescription")},
    "DictSpace": {"element": (1, "repeated SpaceDescription")},
    "DataContainer": {"type": (1, "SpaceType"), "data": (2, "Any"), "name": (3, "string")},
    "DiscreteDataContainer": {"data": (1, "int32")},
    "BoxDataContainer": {
        "dtype": (1, "Dtype"),
        "shape": (2, "repeated uint32"),
        "intData": (3, "repeated int32"),
        "uintData": (4, "repeated uint32"),
        "floatData": (5, "repeated float"),
        "doubleData": (6, "repeated double"),
    },
    "TupleDataContainer": {"element": (1, "repeated DataContainer")},
    "DictDataContainer": {"element": (1, "repeated DataContainer")},
    "SimInitMsg": {
        "simProcessId": (1, "uint64"),
        "wafShellProcessId": (2, "uint64"),
        "obsSpace": (3, "SpaceDescription"),
        "actSpace": (4, "SpaceDescription"),
    },
    "SimInitAck": {"done": (1, "bool"), "stopSimReq": (2, "bool")},
    "EnvStateMsg": {
        "obsData": (1, "DataContainer"),
        "reward": (2, "float"),
        "isGameOver": (3, "bool"),
        "reason": (4, "Reason"),
        "info": (5, "string"),
    },
    "EnvActMsg": {"actData": (1, "DataContainer"), "stopSimReq": (2, "bool")},
}
SPEC_ENUMS = {
    "MsgType": [
        "Unknown",
        "Init",
        "ActionSpace",
        "ObservationSpace",
        "IsGameOver",
        "Observation",
        "Reward",
        "ExtraInfo",
        "Action",
        "StopEnv",
    ],
    "SpaceType": ["NoSpaceType", "Discrete", "Box", "Tuple", "Dict"],
    "Dtype": ["NoDType", "INT", "UINT", "FLOAT", "DOUBLE"],
    "EnvStateMsg.Reason": ["SimulationEnd", "GameOver"],
}
_SCALAR_NAMES = {
    1: "double",
    2: "float",
    4: "uint64",
    5: "int32",
    8: "bool",
    9: "string",
    13: "uint32",
}


def _type_of(field: object) -> str:
    if field.message_type is not None:  # type: ignore[attr-defined]
        name = field.message_type.name  # type: ignore[attr-defined]
    elif field.enum_type is not None:  # type: ignore[attr-defined]
        name = field.enum_type.name  # type: ignore[attr-defined]
    else:
        name = _SCALAR_NAMES[field.type]  # type: ignore[attr-defined]
    return f"repeated {name}" if field.is_repeated else name  # type: ignore[attr-defined]


def test_fields_and_enums_match_the_spec_tables() -> None:
    for message, fields in SPEC_FIELDS.items():
        descriptor = pb.POOL.FindMessageTypeByName(f"ns3opengym.{message}")
        got = {f.name: (f.number, _type_of(f)) for f in descriptor.fields}
        assert got == fields, message
    for enum, names in SPEC_ENUMS.items():
        descriptor = pb.POOL.FindEnumTypeByName(f"ns3opengym.{enum}")
        assert [(v.name, v.number) for v in descriptor.values] == [
            (n, i) for i, n in enumerate(names)
        ]


def test_runtime_descriptor_equals_protoc_output(tmp_path: Path) -> None:
    protoc = pytest.importorskip("grpc_tools.protoc")
    import importlib.resources

    include = importlib.resources.files("grpc_tools") / "_proto"
    out = tmp_path / "set.pb"
    rc = protoc.main(
        ["protoc", f"-I{include}", f"-I{PROTO.parent}", f"--descriptor_set_out={out}", str(PROTO)]
    )
    assert rc == 0
    compiled = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]
    for message in compiled.message_type:
        for field in message.field:
            field.ClearField("json_name")
    assert compiled == pb.FILE_DESCRIPTOR_PROTO


def test_wire_bytes_follow_protobuf_encoding() -> None:
    # Samples from the spec, and tags (field << 3 | wire type) from the protobuf encoding rules.
    assert pb.EnvActMsg(stopSimReq=True).SerializeToString() == bytes.fromhex("1001")
    assert pb.SimInitAck(done=True).SerializeToString() == bytes.fromhex("0801")
    # proto3 defaults are not sent: SimulationEnd (0), isGameOver false, Discrete 0, no stop.
    assert pb.EnvStateMsg(isGameOver=False, reason=0).SerializeToString() == b""
    assert pb.DiscreteDataContainer(data=0).SerializeToString() == b""
    game_over = pb.EnvStateMsg(isGameOver=True, reason=pb.Reason.GameOver)
    assert game_over.SerializeToString() == bytes.fromhex("1801 2001")
    # reward 1.0 as a little-endian float32 under tag 0x15 (field 2, fixed32)
    assert pb.EnvStateMsg(reward=1.0).SerializeToString() == bytes.fromhex("150000803f")
    # packed repeated uint32 (field 4, length-delimited)
    box = pb.BoxDataContainer(dtype=pb.Dtype.UINT, uintData=[1, 300])
    assert box.SerializeToString() == bytes.fromhex("0802 2203 01ac02")


def test_any_carries_the_upstream_type_url() -> None:
    container = pb.DataContainer(type=pb.SpaceType.Discrete)
    pb.pack_any(container.data, pb.DiscreteDataContainer(data=4))
    assert container.data.type_url == "type.googleapis.com/ns3opengym.DiscreteDataContainer"
    assert pb.unpack_any(container.data, pb.DiscreteDataContainer, "x").data == 4
    # protobuf's own Pack produces the same URL (what both upstream sides use).
    other = pb.DataContainer()
    other.data.Pack(pb.DiscreteDataContainer(data=4))
    assert other.SerializeToString() == container.SerializeToString()[2:]  # minus the type field


def test_wrong_any_type_is_an_error_not_a_silent_false() -> None:
    container = pb.DataContainer(type=pb.SpaceType.Box)
    pb.pack_any(container.data, pb.DiscreteDataContainer(data=4))
    assert container.data.Unpack(pb.BoxDataContainer()) is False  # protobuf's silent behaviour
    with pytest.raises(Ns3GymProtocolError, match="ns3opengym.DiscreteDataContainer"):
        pb.unpack_any(container.data, pb.BoxDataContainer, "obsData.data")
    container.data.type_url = "type.googleapis.com/otherpkg.BoxDataContainer"
    with pytest.raises(Ns3GymProtocolError, match="otherpkg.BoxDataContainer"):
        pb.unpack_any(container.data, pb.BoxDataContainer, "obsData.data")


def test_a_message_of_the_wrong_type_is_rejected() -> None:
    init = pb.SimInitMsg(simProcessId=123)
    init.obsSpace.type = pb.SpaceType.Box
    with pytest.raises(
        Ns3GymProtocolError, match=r"EnvStateMsg carries field number\(s\) \[1, 3\]"
    ):
        pb.decode_message(pb.EnvStateMsg, init.SerializeToString(), "state")
    with pytest.raises(Ns3GymProtocolError, match="cannot decode"):
        pb.decode_message(pb.EnvStateMsg, b"\xff\xff\xff", "state")


def test_private_pool_coexists_with_an_upstream_style_messages_pb2(tmp_path: Path) -> None:
    """A default-pool messages_pb2 (as upstream generates it) and ours in one process."""
    protoc = pytest.importorskip("grpc_tools.protoc")
    import importlib.resources

    include = importlib.resources.files("grpc_tools") / "_proto"
    assert (
        protoc.main(
            ["protoc", f"-I{include}", f"-I{PROTO.parent}", f"--python_out={tmp_path}", str(PROTO)]
        )
        == 0
    )
    script = textwrap.dedent("""
        import messages_pb2 as up
        from leogym.ns3gym import messages as pb
        m = up.EnvStateMsg(isGameOver=True, reason=up.EnvStateMsg.GameOver)
        m.obsData.type = up.Box
        m.obsData.data.Pack(up.BoxDataContainer(dtype=up.UINT, uintData=[1, 2]))
        ours = pb.decode_message(pb.EnvStateMsg, m.SerializeToString(), "state")
        box = pb.unpack_any(ours.obsData.data, pb.BoxDataContainer, "obsData.data")
        assert list(box.uintData) == [1, 2] and ours.reason == pb.Reason.GameOver
        act = pb.EnvActMsg()
        act.actData.type = pb.SpaceType.Discrete
        pb.pack_any(act.actData.data, pb.DiscreteDataContainer(data=3))
        theirs = up.EnvActMsg.FromString(act.SerializeToString())
        inner = up.DiscreteDataContainer()
        assert theirs.actData.data.Unpack(inner) and inner.data == 3
        print("ok")
    """)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},  # the protoc output, beside leogym
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
