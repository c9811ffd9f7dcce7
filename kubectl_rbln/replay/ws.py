"""Just enough RFC 6455 websocket for the Kubernetes channel protocols, stdlib only.

The exec replay writes a few frames and closes, so this is a server-side
handshake, an unmasked frame writer, and a masked frame reader used only to
drain and answer what the client sends (stdin close, ping, close).
"""

from __future__ import annotations

import base64
import hashlib
import socket
import struct
from dataclasses import dataclass
from typing import Protocol

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONTINUATION = 0x0
OP_TEXT = 0x1
OP_BINARY = 0x2
OP_CLOSE = 0x8
OP_PING = 0x9
OP_PONG = 0xA

MAX_CLIENT_FRAME = 1 << 20  # a client sends small control frames here; refuse anything larger


class ByteReader(Protocol):
    """What the frame reader needs of the connection: the server's buffered `rfile` or a BinaryIO."""

    def read(self, size: int, /) -> bytes: ...


@dataclass(frozen=True)
class ChannelProtocol:
    """A Kubernetes stream subprotocol: framing and what the status channel carries."""

    name: str
    base64: bool  # text frames, channel as an ASCII digit, payload base64
    status_json: bool  # channel 3 carries a metav1.Status (v4, v5) instead of plain text


# In order of preference when a client offers several.
PROTOCOLS: dict[str, ChannelProtocol] = {
    p.name: p
    for p in (
        ChannelProtocol("v5.channel.k8s.io", False, True),
        ChannelProtocol("v4.channel.k8s.io", False, True),
        ChannelProtocol("v4.base64.channel.k8s.io", True, True),
        ChannelProtocol("channel.k8s.io", False, False),
        ChannelProtocol("base64.channel.k8s.io", True, False),
    )
}


def accept_key(client_key: str) -> str:
    digest = hashlib.sha1((client_key.strip() + _GUID).encode("ascii")).digest()
    return base64.b64encode(digest).decode("ascii")


def choose_protocol(offered: list[str]) -> ChannelProtocol | None:
    """The client's first offered subprotocol that we speak (the client lists its preference)."""
    for name in offered:
        if name in PROTOCOLS:
            return PROTOCOLS[name]
    return None


def parse_protocol_header(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def frame(opcode: int, payload: bytes) -> bytes:
    """One final, unmasked server frame."""
    head = bytes([0x80 | opcode])
    size = len(payload)
    if size < 126:
        head += bytes([size])
    elif size < 1 << 16:
        head += bytes([126]) + struct.pack("!H", size)
    else:
        head += bytes([127]) + struct.pack("!Q", size)
    return head + payload


def channel_frame(protocol: ChannelProtocol, channel: int, data: bytes) -> bytes:
    if protocol.base64:
        return frame(OP_TEXT, str(channel).encode("ascii") + base64.b64encode(data))
    return frame(OP_BINARY, bytes([channel]) + data)


def close_frame(code: int = 1000, reason: str = "") -> bytes:
    return frame(OP_CLOSE, struct.pack("!H", code) + reason.encode("utf-8")[:120])


def _read_exact(reader: ByteReader, size: int) -> bytes:
    data = reader.read(size)
    if data is None or len(data) != size:
        raise ConnectionError("websocket peer closed")
    return data


def read_frame(reader: ByteReader) -> tuple[int, bytes]:
    """One client frame (opcode, unmasked payload) from the connection's buffered reader.

    The reader, not the raw socket: the HTTP parser may already hold the first frames.
    Raises ConnectionError on EOF or an oversized frame.
    """
    first, second = _read_exact(reader, 2)
    opcode = first & 0x0F
    size = second & 0x7F
    if size == 126:
        (size,) = struct.unpack("!H", _read_exact(reader, 2))
    elif size == 127:
        (size,) = struct.unpack("!Q", _read_exact(reader, 8))
    if size > MAX_CLIENT_FRAME:
        raise ConnectionError("websocket frame too large")
    mask = _read_exact(reader, 4) if second & 0x80 else b""
    payload = _read_exact(reader, size) if size else b""
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return opcode, payload


def drain_until_close(sock: socket.socket, reader: ByteReader, timeout: float) -> None:
    """After our close frame: answer pings, ignore data (v5 stdin close, 255), stop at the client close."""
    sock.settimeout(timeout)
    try:
        while True:
            opcode, payload = read_frame(reader)
            if opcode == OP_CLOSE:
                return
            if opcode == OP_PING:
                sock.sendall(frame(OP_PONG, payload[:125]))
    except (OSError, ConnectionError, ValueError):
        return
