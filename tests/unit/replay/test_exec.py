"""pods/exec replayed from ExecCapture items: the frames kubectl reads its output and exit code from."""

from __future__ import annotations

import base64
import json
import socket
import struct
from pathlib import Path

import pytest

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.exec import NO_CAPTURE_EXIT_CODE, ExecResult, exit_status, replay, stream
from kubectl_rbln.replay.store import ObjectStore
from kubectl_rbln.replay.ws import OP_BINARY, OP_CLOSE, OP_TEXT, PROTOCOLS, read_frame

BUNDLE = Path(__file__).resolve().parents[2] / "data" / "replay-basic.json"
LS_DEV = ["sh", "-c", "ls /dev/rbln*"]


@pytest.fixture(scope="module")
def store():
    return ObjectStore(load_objects([str(BUNDLE)]))


def test_recorded_command_replays_its_output(store):
    r = replay(store, "serving", "decode-0", "modelserver", LS_DEV)
    assert (r.stdout, r.stderr, r.exit_code) == (b"/dev/rbln0\n", b"", 0)


def test_same_shell_text_matches_another_spelling(store):
    r = replay(store, "serving", "decode-0", "modelserver", ["/bin/sh", "-c", "ls   /dev/rbln*"])
    assert r.stdout == b"/dev/rbln0\n"


def test_failed_command_keeps_its_exit_code_and_stderr(store):
    r = replay(store, "serving", "decode-0", "modelserver", ["sh", "-c", "ls /dev/infiniband/uverbs*"])
    assert r.exit_code == 2 and b"No such file or directory" in r.stderr


def test_unrecorded_command_is_126_and_says_what_is_missing(store):
    r = replay(store, "serving", "decode-0", "metrics", LS_DEV)
    assert r.exit_code == NO_CAPTURE_EXIT_CODE == 126 and r.stdout == b""
    assert r.stderr.decode() == (
        'kubectl-rbln replay: no exec capture recorded for ["sh", "-c", "ls /dev/rbln*"] '
        "in container 'metrics' of pod serving/decode-0\n"
    )


def test_exit_status_is_the_status_kubelet_writes():
    assert exit_status(["true"], 0) == {"metadata": {}, "status": "Success"}
    failed = exit_status(["ls", "/x"], 2)
    assert failed["reason"] == "NonZeroExitCode"
    assert failed["details"]["causes"] == [{"reason": "ExitCode", "message": "2"}]
    assert failed["message"].endswith("error executing command [ls /x], exit code 2")


def frames(result: ExecResult, protocol: str, **kw) -> list[tuple[int, bytes]]:
    """Run `stream` over a socket pair; the client's close is already queued, so it returns at once."""
    server, client = socket.socketpair()
    try:
        client.sendall(bytes([0x88, 0x82]) + b"\0\0\0\0" + struct.pack("!H", 1000))
        with server.makefile("rb") as reader:
            stream(server, reader, PROTOCOLS[protocol], ["ls"], result, close_timeout=1.0, **kw)
        server.shutdown(socket.SHUT_WR)
        out = []
        with client.makefile("rb") as reader:
            while True:
                opcode, payload = read_frame(reader)
                out.append((opcode, payload))
                if opcode == OP_CLOSE:
                    return out
    finally:
        server.close()
        client.close()


def test_v5_stream_order_stdout_stderr_status_close():
    got = frames(ExecResult(b"out", b"err", 2), "v5.channel.k8s.io")
    assert [op for op, _ in got] == [OP_BINARY, OP_BINARY, OP_BINARY, OP_CLOSE]
    assert got[0][1] == b"\x01out" and got[1][1] == b"\x02err"
    assert got[2][1][0] == 3 and json.loads(got[2][1][1:])["details"]["causes"][0]["message"] == "2"
    assert got[3][1][:2] == struct.pack("!H", 1000)


def test_base64_protocol_text_frames():
    got = frames(ExecResult(b"/dev/rbln0\n", b"", 0), "v4.base64.channel.k8s.io", want_stderr=False)
    assert got[0] == (OP_TEXT, b"1" + base64.b64encode(b"/dev/rbln0\n"))
    assert got[1][1][:1] == b"3" and json.loads(base64.b64decode(got[1][1][1:]))["status"] == "Success"


def test_tty_sends_stderr_on_stdout_and_old_protocol_sends_no_success_status():
    got = frames(ExecResult(b"a", b"b", 0), "channel.k8s.io", tty=True, want_stderr=False)
    assert got == [(OP_BINARY, b"\x01a"), (OP_BINARY, b"\x01b"), (OP_CLOSE, got[-1][1])]
    failed = frames(ExecResult(b"", b"", 1), "channel.k8s.io", want_stdout=False, want_stderr=False)
    assert failed[0][1].startswith(b"\x03command terminated with non-zero exit code")


def test_large_output_is_split_into_chunks():
    data = bytes(range(256)) * 300  # 76,800 bytes: three 32 KiB chunks
    got = frames(ExecResult(data, b"", 0), "v5.channel.k8s.io", want_stderr=False)
    stdout = [p for op, p in got if op == OP_BINARY and p[0] == 1]
    assert len(stdout) == 3 and b"".join(p[1:] for p in stdout) == data
