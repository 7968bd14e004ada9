"""Just enough of the RFC 9420 wire format (§6) to route messages: the MLSMessage header and the
unencrypted part of a PublicMessage or PrivateMessage. Written here, not borrowed from either
library under test, so neither library judges the other's bytes.
"""
from __future__ import annotations

from dataclasses import dataclass

PUBLIC_MESSAGE, PRIVATE_MESSAGE, WELCOME, GROUP_INFO, KEY_PACKAGE = 1, 2, 3, 4, 5
APPLICATION, PROPOSAL, COMMIT = 1, 2, 3
SENDER_MEMBER, SENDER_NEW_MEMBER_COMMIT = 1, 4


def read_varint(data: bytes, offset: int) -> tuple[int, int]:
    """RFC 9420 §2.1.2 variable-length integer."""
    prefix = data[offset] >> 6
    if prefix == 3:
        raise ValueError("invalid varint prefix")
    size = 1 << prefix
    value = int.from_bytes(data[offset:offset + size], "big") & ((1 << (8 * size - 2)) - 1)
    return value, offset + size


def read_opaque(data: bytes, offset: int) -> tuple[bytes, int]:
    length, offset = read_varint(data, offset)
    if offset + length > len(data):
        raise ValueError("truncated opaque<V>")
    return data[offset:offset + length], offset + length


def write_varint(value: int) -> bytes:
    if value < 1 << 6:
        return value.to_bytes(1, "big")
    if value < 1 << 14:
        return (value | 0x4000).to_bytes(2, "big")
    return (value | 0x80000000).to_bytes(4, "big")


def write_opaque(data: bytes) -> bytes:
    return write_varint(len(data)) + data


@dataclass
class Header:
    wire_format: int
    group_id: bytes = b""
    epoch: int = -1
    content_type: int = 0
    sender_type: int = 0
    sender_leaf: int = -1


def header(message: bytes) -> Header:
    """The routing fields of an MLSMessage."""
    version = int.from_bytes(message[0:2], "big")
    if version != 1:
        raise ValueError(f"not mls10: {version}")
    wire_format = int.from_bytes(message[2:4], "big")
    if wire_format not in (PUBLIC_MESSAGE, PRIVATE_MESSAGE):
        return Header(wire_format)
    group_id, offset = read_opaque(message, 4)
    epoch = int.from_bytes(message[offset:offset + 8], "big")
    offset += 8
    if wire_format == PRIVATE_MESSAGE:
        return Header(wire_format, group_id, epoch, message[offset])
    sender_type = message[offset]
    offset += 1
    leaf = -1
    if sender_type in (1, 2):  # member, external: a uint32
        leaf = int.from_bytes(message[offset:offset + 4], "big")
        offset += 4
    _, offset = read_opaque(message, offset)  # authenticated_data
    return Header(wire_format, group_id, epoch, message[offset], sender_type, leaf)


EXTERNAL_PUB = 4


def group_info_extensions(message: bytes) -> dict[int, bytes]:
    """The extensions of an MLSMessage(GroupInfo) (§12.4.3): type -> extension_data."""
    if int.from_bytes(message[2:4], "big") != GROUP_INFO:
        raise ValueError("not a GroupInfo")
    offset = 4 + 4  # MLSMessage header, then GroupContext.version and cipher_suite
    _, offset = read_opaque(message, offset)  # group_id
    offset += 8  # epoch
    for _ in range(3):  # tree_hash, confirmed_transcript_hash, GroupContext.extensions
        _, offset = read_opaque(message, offset)
    extensions, _ = read_opaque(message, offset)
    out, position = {}, 0
    while position < len(extensions):
        kind = int.from_bytes(extensions[position:position + 2], "big")
        out[kind], position = read_opaque(extensions, position + 2)
    return out
