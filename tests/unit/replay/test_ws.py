"""RFC 6455 framing of the Kubernetes channel protocols (v5/v4 binary, base64 text), byte for byte."""

from __future__ import annotations

import base64
import io
import os
import struct

import pytest

from kubectl_rbln.replay.ws import (
    MAX_CLIENT_FRAME,
    OP_BINARY,
    OP_CLOSE,
    OP_PING,
    OP_TEXT,
    PROTOCOLS,
    accept_key,
    channel_frame,
    choose_protocol,
    close_frame,
    frame,
    parse_protocol_header,
    read_frame,
)


def client_frame(opcode: int, payload: bytes, mask: bytes = b"\x01\x02\x03\x04") -> bytes:
    """A masked frame, as a websocket client must send it."""
    size = len(payload)
    if size < 126:
        head = bytes([0x80 | opcode, 0x80 | size])
    elif size < 1 << 16:
        head = bytes([0x80 | opcode, 0x80 | 126]) + struct.pack("!H", size)
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + struct.pack("!Q", size)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_accept_key_of_rfc_6455_example():
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


def test_subprotocol_choice_follows_the_clients_order():
    offered = parse_protocol_header(["v5.channel.k8s.io, v4.channel.k8s.io", " v4.base64.channel.k8s.io ,"])
    assert offered == ["v5.channel.k8s.io", "v4.channel.k8s.io", "v4.base64.channel.k8s.io"]
    assert choose_protocol(offered).name == "v5.channel.k8s.io"
    assert (
        choose_protocol(["v4.base64.channel.k8s.io", "v5.channel.k8s.io"]).name == "v4.base64.channel.k8s.io"
    )
    assert choose_protocol(["x", "channel.k8s.io"]).name == "channel.k8s.io"
    assert choose_protocol(["v6.channel.k8s.io"]) is None


def test_only_v4_and_v5_carry_a_json_status():
    assert {n for n, p in PROTOCOLS.items() if p.status_json} == {
        "v5.channel.k8s.io",
        "v4.channel.k8s.io",
        "v4.base64.channel.k8s.io",
    }
    assert {n for n, p in PROTOCOLS.items() if p.base64} == {
        "v4.base64.channel.k8s.io",
        "base64.channel.k8s.io",
    }


@pytest.mark.parametrize("size", [0, 5, 125, 126, 65535, 65536])
def test_server_frames_use_the_shortest_length_form(size):
    payload = os.urandom(size)
    data = frame(OP_BINARY, payload)
    assert data[0] == 0x80 | OP_BINARY  # final, unmasked
    assert not data[1] & 0x80
    header = 2 if size < 126 else 4 if size < 65536 else 10
    assert len(data) == header + size and data[header:] == payload


def test_binary_channel_frame_is_the_channel_byte_then_data():
    v5 = PROTOCOLS["v5.channel.k8s.io"]
    assert channel_frame(v5, 1, b"/dev/rbln0\n") == bytes([0x82, 12, 1]) + b"/dev/rbln0\n"


def test_base64_channel_frame_is_text_with_an_ascii_channel_digit():
    b64 = PROTOCOLS["v4.base64.channel.k8s.io"]
    data = channel_frame(b64, 2, b"ls: cannot access")
    assert data[0] == 0x80 | OP_TEXT
    body = data[2:]
    assert body[:1] == b"2" and base64.b64decode(body[1:]) == b"ls: cannot access"


def test_close_frame_carries_code_and_a_short_reason():
    data = close_frame(1000, "bye")
    assert data == bytes([0x88, 5]) + struct.pack("!H", 1000) + b"bye"
    assert len(close_frame(1000, "x" * 500)) == 2 + 2 + 120  # control frames stay below 126 bytes


@pytest.mark.parametrize("size", [0, 3, 200, 70000])
def test_masked_client_frames_are_unmasked(size):
    payload = bytes(range(256)) * (size // 256 + 1)
    payload = payload[:size]
    reader = io.BytesIO(client_frame(OP_BINARY, payload) + client_frame(OP_CLOSE, struct.pack("!H", 1000)))
    assert read_frame(reader) == (OP_BINARY, payload)
    assert read_frame(reader) == (OP_CLOSE, struct.pack("!H", 1000))


def test_v5_stdin_close_is_read_like_any_data_frame():
    # v5 adds channel 255 "close": the client's stream-close message, [255, stream id]
    assert read_frame(io.BytesIO(client_frame(OP_BINARY, bytes([255, 0])))) == (OP_BINARY, bytes([255, 0]))


def test_unmasked_frames_read_too():
    assert read_frame(io.BytesIO(frame(OP_PING, b"hi"))) == (OP_PING, b"hi")


def test_truncated_and_oversized_frames_are_connection_errors():
    with pytest.raises(ConnectionError, match="closed"):
        read_frame(io.BytesIO(client_frame(OP_BINARY, b"hello")[:-2]))
    with pytest.raises(ConnectionError, match="closed"):
        read_frame(io.BytesIO(b""))
    huge = bytes([0x82, 0x80 | 127]) + struct.pack("!Q", MAX_CLIENT_FRAME + 1)
    with pytest.raises(ConnectionError, match="too large"):
        read_frame(io.BytesIO(huge))
