"""The ns3-gym protobuf messages, built at import time in a private descriptor pool.

The schema is the one in ``messages.proto`` next to this file (package ``ns3opengym``; every
message name, field number and enum value matches the ns3-gym wire, because ``Any`` payloads are
matched by full message name). Instead of checking in ``protoc`` output, the same file descriptor
is assembled here with :mod:`google.protobuf.descriptor_pb2` and loaded into a **private**
:class:`~google.protobuf.descriptor_pool.DescriptorPool`. This has two benefits:

* it works with any protobuf runtime from 4.25 on (generated code pins its runtime version);
* it never collides with an upstream ``ns3gym/messages_pb2.py`` imported into the same process
  (both define ``ns3opengym.*``; the default pool rejects a second definition).

``tests/ns3gym/test_messages.py`` compiles ``messages.proto`` with ``protoc`` and checks that it
yields the same descriptor as :data:`FILE_DESCRIPTOR_PROTO`.

``Any`` payloads are packed and unpacked by hand (:func:`pack_any`, :func:`unpack_any`) so that a
wrong type URL is an error instead of the silent ``False`` that ``Any.Unpack`` returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, cast

from google.protobuf import (
    any_pb2,
    descriptor_pb2,
    descriptor_pool,
    message_factory,
    unknown_fields,
)
from google.protobuf.message import DecodeError, Message

from leogym.ns3gym.errors import Ns3GymProtocolError

__all__ = [
    "PACKAGE",
    "TYPE_URL_PREFIX",
    "FILE_DESCRIPTOR_PROTO",
    "POOL",
    "SpaceType",
    "Dtype",
    "Reason",
    "SpaceDescription",
    "DiscreteSpace",
    "BoxSpace",
    "TupleSpace",
    "DictSpace",
    "DataContainer",
    "DiscreteDataContainer",
    "BoxDataContainer",
    "TupleDataContainer",
    "DictDataContainer",
    "SimInitMsg",
    "SimInitAck",
    "EnvStateMsg",
    "EnvActMsg",
    "message_class",
    "decode_message",
    "enum_name",
    "pack_any",
    "unpack_any",
]

PACKAGE = "ns3opengym"
#: The prefix both upstream sides use when packing ``Any`` (protobuf's default).
TYPE_URL_PREFIX = "type.googleapis.com/"

_F = descriptor_pb2.FieldDescriptorProto
_OPTIONAL = _F.LABEL_OPTIONAL
_REPEATED = _F.LABEL_REPEATED

# (name, [(value name, number), ...]) -- docs/specs/ns3gym-protocol.md#enums.
_ENUMS: list[tuple[str, list[tuple[str, int]]]] = [
    (
        "MsgType",
        [
            ("Unknown", 0),
            ("Init", 1),
            ("ActionSpace", 2),
            ("ObservationSpace", 3),
            ("IsGameOver", 4),
            ("Observation", 5),
            ("Reward", 6),
            ("ExtraInfo", 7),
            ("Action", 8),
            ("StopEnv", 9),
        ],
    ),
    ("SpaceType", [("NoSpaceType", 0), ("Discrete", 1), ("Box", 2), ("Tuple", 3), ("Dict", 4)]),
    ("Dtype", [("NoDType", 0), ("INT", 1), ("UINT", 2), ("FLOAT", 3), ("DOUBLE", 4)]),
]

_ANY = ".google.protobuf.Any"


def _enum(name: str) -> tuple[int, str]:
    return _F.TYPE_ENUM, f".{PACKAGE}.{name}"


def _msg(name: str) -> tuple[int, str]:
    return _F.TYPE_MESSAGE, f".{PACKAGE}.{name}"


# (message, [(field name, number, label, type, type_name or "")]) --
# docs/specs/ns3gym-protocol.md#schema.
_MESSAGES: list[tuple[str, list[tuple[str, int, int, int, str]]]] = [
    (
        "SpaceDescription",
        [
            ("type", 1, _OPTIONAL, *_enum("SpaceType")),
            ("space", 2, _OPTIONAL, _F.TYPE_MESSAGE, _ANY),
            ("name", 3, _OPTIONAL, _F.TYPE_STRING, ""),
        ],
    ),
    ("DiscreteSpace", [("n", 1, _OPTIONAL, _F.TYPE_INT32, "")]),
    (
        "BoxSpace",
        [
            ("low", 1, _OPTIONAL, _F.TYPE_FLOAT, ""),
            ("high", 2, _OPTIONAL, _F.TYPE_FLOAT, ""),
            ("dtype", 3, _OPTIONAL, *_enum("Dtype")),
            ("shape", 4, _REPEATED, _F.TYPE_UINT32, ""),
        ],
    ),
    ("TupleSpace", [("element", 1, _REPEATED, *_msg("SpaceDescription"))]),
    ("DictSpace", [("element", 1, _REPEATED, *_msg("SpaceDescription"))]),
    (
        "DataContainer",
        [
            ("type", 1, _OPTIONAL, *_enum("SpaceType")),
            ("data", 2, _OPTIONAL, _F.TYPE_MESSAGE, _ANY),
            ("name", 3, _OPTIONAL, _F.TYPE_STRING, ""),
        ],
    ),
    ("DiscreteDataContainer", [("data", 1, _OPTIONAL, _F.TYPE_INT32, "")]),
    (
        "BoxDataContainer",
        [
            ("dtype", 1, _OPTIONAL, *_enum("Dtype")),
            ("shape", 2, _REPEATED, _F.TYPE_UINT32, ""),
            ("intData", 3, _REPEATED, _F.TYPE_INT32, ""),
            ("uintData", 4, _REPEATED, _F.TYPE_UINT32, ""),
            ("floatData", 5, _REPEATED, _F.TYPE_FLOAT, ""),
            ("doubleData", 6, _REPEATED, _F.TYPE_DOUBLE, ""),
        ],
    ),
    ("TupleDataContainer", [("element", 1, _REPEATED, *_msg("DataContainer"))]),
    ("DictDataContainer", [("element", 1, _REPEATED, *_msg("DataContainer"))]),
    (
        "SimInitMsg",
        [
            ("simProcessId", 1, _OPTIONAL, _F.TYPE_UINT64, ""),
            ("wafShellProcessId", 2, _OPTIONAL, _F.TYPE_UINT64, ""),
            ("obsSpace", 3, _OPTIONAL, *_msg("SpaceDescription")),
            ("actSpace", 4, _OPTIONAL, *_msg("SpaceDescription")),
        ],
    ),
    (
        "SimInitAck",
        [
            ("done", 1, _OPTIONAL, _F.TYPE_BOOL, ""),
            ("stopSimReq", 2, _OPTIONAL, _F.TYPE_BOOL, ""),
        ],
    ),
    (
        "EnvStateMsg",
        [
            ("obsData", 1, _OPTIONAL, *_msg("DataContainer")),
            ("reward", 2, _OPTIONAL, _F.TYPE_FLOAT, ""),
            ("isGameOver", 3, _OPTIONAL, _F.TYPE_BOOL, ""),
            ("reason", 4, _OPTIONAL, _F.TYPE_ENUM, f".{PACKAGE}.EnvStateMsg.Reason"),
            ("info", 5, _OPTIONAL, _F.TYPE_STRING, ""),
        ],
    ),
    (
        "EnvActMsg",
        [
            ("actData", 1, _OPTIONAL, *_msg("DataContainer")),
            ("stopSimReq", 2, _OPTIONAL, _F.TYPE_BOOL, ""),
        ],
    ),
]


def _build_file() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(
        name="messages.proto",
        package=PACKAGE,
        syntax="proto3",
        dependency=["google/protobuf/any.proto"],
    )
    for name, values in _ENUMS:
        enum = fdp.enum_type.add(name=name)
        for value_name, number in values:
            enum.value.add(name=value_name, number=number)
    for name, fields in _MESSAGES:
        msg = fdp.message_type.add(name=name)
        for field_name, number, label, ftype, type_name in fields:
            field = msg.field.add(name=field_name, number=number, label=label, type=ftype)
            if type_name:
                field.type_name = type_name
        if name == "EnvStateMsg":
            reason = msg.enum_type.add(name="Reason")
            reason.value.add(name="SimulationEnd", number=0)
            reason.value.add(name="GameOver", number=1)
    return fdp


#: The ns3opengym file descriptor as assembled here (compare with ``protoc messages.proto``).
FILE_DESCRIPTOR_PROTO = _build_file()

#: Private pool holding ``google/protobuf/any.proto`` and ``messages.proto``.
POOL = descriptor_pool.DescriptorPool()
_any_file = descriptor_pb2.FileDescriptorProto()
any_pb2.DESCRIPTOR.CopyToProto(_any_file)
POOL.Add(_any_file)
POOL.Add(FILE_DESCRIPTOR_PROTO)


if TYPE_CHECKING:

    class DynamicMessage(Message):
        """What the type checker knows of the message classes built below.

        They are generated at run time from :data:`FILE_DESCRIPTOR_PROTO`, so their fields are
        not known statically: every attribute is typed ``Any``. This class exists for the type
        checker only (annotations name it; nothing at run time does).
        """

        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...


def message_class(name: str) -> type[DynamicMessage]:
    """Return the generated class of ``ns3opengym.<name>``.

    :param name: message name without package, e.g. ``"EnvStateMsg"``.
    :return: the message class from the private pool.
    """
    cls = message_factory.GetMessageClass(POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))
    return cast("type[DynamicMessage]", cls)


if TYPE_CHECKING:
    # Statically every message class is a DynamicMessage, so that annotations can name them.
    SpaceDescription = DynamicMessage
    DiscreteSpace = DynamicMessage
    BoxSpace = DynamicMessage
    TupleSpace = DynamicMessage
    DictSpace = DynamicMessage
    DataContainer = DynamicMessage
    DiscreteDataContainer = DynamicMessage
    BoxDataContainer = DynamicMessage
    TupleDataContainer = DynamicMessage
    DictDataContainer = DynamicMessage
    SimInitMsg = DynamicMessage
    SimInitAck = DynamicMessage
    EnvStateMsg = DynamicMessage
    EnvActMsg = DynamicMessage
else:
    SpaceDescription = message_class("SpaceDescription")
    DiscreteSpace = message_class("DiscreteSpace")
    BoxSpace = message_class("BoxSpace")
    TupleSpace = message_class("TupleSpace")
    DictSpace = message_class("DictSpace")
    DataContainer = message_class("DataContainer")
    DiscreteDataContainer = message_class("DiscreteDataContainer")
    BoxDataContainer = message_class("BoxDataContainer")
    TupleDataContainer = message_class("TupleDataContainer")
    DictDataContainer = message_class("DictDataContainer")
    SimInitMsg = message_class("SimInitMsg")
    SimInitAck = message_class("SimInitAck")
    EnvStateMsg = message_class("EnvStateMsg")
    EnvActMsg = message_class("EnvActMsg")


class SpaceType:
    """Values of the ``ns3opengym.SpaceType`` enum."""

    NoSpaceType = 0
    Discrete = 1
    Box = 2
    Tuple = 3
    Dict = 4


class Dtype:
    """Values of the ``ns3opengym.Dtype`` enum."""

    NoDType = 0
    INT = 1
    UINT = 2
    FLOAT = 3
    DOUBLE = 4


class Reason:
    """Values of the ``ns3opengym.EnvStateMsg.Reason`` enum."""

    SimulationEnd = 0
    GameOver = 1


def enum_name(enum: str, value: int) -> str:
    """Name of an enum value, or ``"<unknown N>"`` for a value outside the schema.

    :param enum: ``"SpaceType"``, ``"Dtype"``, ``"MsgType"`` or ``"EnvStateMsg.Reason"``.
    :param value: the integer value.
    """
    descriptor = POOL.FindEnumTypeByName(f"{PACKAGE}.{enum}")
    found = descriptor.values_by_number.get(value)
    return found.name if found is not None else f"<unknown {value}>"


M = TypeVar("M", bound=Message)


def pack_any(target: DynamicMessage, payload: Message) -> None:
    """Pack ``payload`` into the ``Any`` field ``target`` the way both upstream sides do.

    :param target: an ``Any`` message (a field of a container or description).
    :param payload: an ``ns3opengym`` message.
    """
    target.type_url = TYPE_URL_PREFIX + payload.DESCRIPTOR.full_name
    target.value = payload.SerializeToString()


def unpack_any(source: DynamicMessage, cls: type[M], where: str) -> M:
    """Unpack an ``Any`` holding ``cls``; raise if it holds anything else.

    Like protobuf's ``Any.Unpack`` only the part after the last ``/`` of the type URL is
    compared, so a non-default prefix is accepted.

    :param source: the ``Any`` message.
    :param cls: the expected ``ns3opengym`` message class.
    :param where: path of the field in the message, for error messages.
    :return: the decoded payload.
    :raises Ns3GymProtocolError: wrong or missing type URL, or undecodable payload.
    """
    expected = cls.DESCRIPTOR.full_name
    url = source.type_url
    if not url:
        raise Ns3GymProtocolError(f"{where}: Any is empty, expected a {expected}")
    got = url.rsplit("/", 1)[-1]
    if got != expected:
        raise Ns3GymProtocolError(f"{where}: Any holds type URL {url!r}, expected a {expected}")
    return decode_message(cls, source.value, where)


def _unknown_numbers(msg: Message) -> list[int]:
    fields = unknown_fields.UnknownFieldSet(msg)
    return sorted({fields[i].field_number for i in range(len(fields))})


def _check_known(msg: Message, where: str) -> None:
    unknown = _unknown_numbers(msg)
    if unknown:
        raise Ns3GymProtocolError(
            f"{where}: {msg.DESCRIPTOR.name} carries field number(s) {unknown} that are not in "
            "its schema (or have the wrong wire type): the peer sent a different message"
        )
    for field, value in msg.ListFields():
        if field.message_type is None or field.message_type.full_name == "google.protobuf.Any":
            continue
        if field.is_repeated:
            for i, item in enumerate(value):
                _check_known(item, f"{where}.{field.name}[{i}]")
        else:
            _check_known(value, f"{where}.{field.name}")


def decode_message(cls: type[M], data: bytes, where: str) -> M:
    """Parse ``data`` as ``cls`` strictly.

    Since the wire carries no type tag, a message of the wrong type often parses "successfully"
    into unknown fields; those are rejected here (recursively, ``Any`` payloads excepted: they are
    checked when unpacked).

    :param cls: expected message class.
    :param data: the bytes of one ZMQ frame.
    :param where: what is being decoded, for error messages.
    :return: the parsed message.
    :raises Ns3GymProtocolError: the bytes are not a valid ``cls``.
    """
    try:
        msg = cls.FromString(data)
    except DecodeError as exc:
        raise Ns3GymProtocolError(
            f"{where}: cannot decode {len(data)} bytes as {cls.DESCRIPTOR.full_name}: {exc}"
        ) from exc
    _check_known(msg, where)
    return msg
