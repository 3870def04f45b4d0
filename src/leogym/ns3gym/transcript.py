"""Decoded, JSON-friendly records of ns3-gym traffic (for debugging and golden tests).

A transcript is a list of entries ``{"from": "sim" | "agent", "type": <message name>,
"msg": <decoded fields>}`` plus ``{"event": ...}`` markers (for example ``"connect"`` when a
new episode's socket is opened). :func:`message_to_dict` decodes ``Any`` payloads recursively
and names enum values, and, like the wire, leaves out fields that hold their default value.
"""

from __future__ import annotations

from typing import Any, cast

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from leogym.ns3gym import messages as pb

__all__ = ["Transcript", "message_to_dict", "canonical"]


def _scalar(field: FieldDescriptor, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None  # set on every enum field
        named = field.enum_type.values_by_number.get(value)
        return named.name if named is not None else value
    if field.type == FieldDescriptor.TYPE_BYTES:
        return value.hex()
    return value


def message_to_dict(msg: Message) -> dict[str, Any]:
    """Decode a message into plain dicts, lists, numbers and strings.

    ``Any`` fields become ``{"@type": "ns3opengym.X", ...fields of X}``; an ``Any`` whose type is
    not an ``ns3opengym`` message keeps its raw ``type_url`` and hex ``value``.

    :param msg: any message of the schema.
    :return: the decoded fields, in field-number order.
    """
    if msg.DESCRIPTOR.full_name == "google.protobuf.Any":
        any_msg = cast("pb.DynamicMessage", msg)  # an Any of the private pool
        name = any_msg.type_url.rsplit("/", 1)[-1]
        try:
            descriptor = pb.POOL.FindMessageTypeByName(name)
        except KeyError:
            return {"@type_url": any_msg.type_url, "@value": any_msg.value.hex()}
        inner = pb.message_class(descriptor.name).FromString(any_msg.value)
        return {"@type": name, **message_to_dict(inner)}
    out: dict[str, Any] = {}
    for field, value in msg.ListFields():
        if field.message_type is not None:
            if field.is_repeated:
                out[field.name] = [message_to_dict(v) for v in value]
            else:
                out[field.name] = message_to_dict(value)
        elif field.is_repeated:
            out[field.name] = [_scalar(field, v) for v in value]
        else:
            out[field.name] = _scalar(field, value)
    return out


def canonical(entry: Any) -> Any:
    """Normalise a transcript (or part of it) for comparison.

    Dict elements are sorted by name (their order is not significant,
    docs/specs/ns3gym-protocol.md#on-the-wire) and
    non-zero process ids are replaced by ``"<pid>"``.

    :param entry: a transcript, entry or decoded message.
    :return: the normalised copy.
    """
    if isinstance(entry, list):
        return [canonical(e) for e in entry]
    if not isinstance(entry, dict):
        return entry
    out: dict[str, Any] = {}
    for key, value in entry.items():
        if key in ("simProcessId", "wafShellProcessId") and value:
            out[key] = "<pid>"
        else:
            out[key] = canonical(value)
    if out.get("@type") in ("ns3opengym.DictSpace", "ns3opengym.DictDataContainer"):
        out["element"] = sorted(out.get("element", []), key=lambda e: e.get("name", ""))
    return out


class Transcript(list):
    """A list of decoded traffic entries, appended to by a peer while it runs."""

    def record(self, sender: str, msg: Message) -> None:
        """Append one message.

        :param sender: ``"sim"`` or ``"agent"``.
        :param msg: the message sent or received.
        """
        self.append({"from": sender, "type": msg.DESCRIPTOR.name, "msg": message_to_dict(msg)})

    def mark(self, event: str) -> None:
        """Append an event marker such as ``"connect"``.

        :param event: the event name.
        """
        self.append({"event": event})
