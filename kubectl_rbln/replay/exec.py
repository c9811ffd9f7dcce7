"""pods/exec replayed from ExecCapture items, over the Kubernetes websocket channel protocol.

The server side of what kubelet streams: stdout on channel 1, stderr on 2, then
the exit status on channel 3 (a Status for v4/v5, which is where kubectl and the
Python client's `returncode` read the exit code), then a close frame.
Nothing is ever run: an unrecorded command fails with exit code 126 and says so.
A capture that `dump` recorded as failed (`error.reason`) fails again the same way: `forbidden`
is refused with 403 before the upgrade (`refusal`), `timeout` never answers (held until the client
gives up), `too-large` streams more than any client reads.
A capture's optional `delaySeconds` holds the reply back, so tests can play a
command that hangs; the wait ends early when the client closes the connection.
"""

from __future__ import annotations

import json
import selectors
import socket
import time
from dataclasses import dataclass
from typing import Any

from kubectl_rbln.cluster.exec_probe import PROBE_COMMANDS
from kubectl_rbln.replay.store import ExecCapture, ObjectStore
from kubectl_rbln.replay.ws import (
    OP_CLOSE,
    ByteReader,
    ChannelProtocol,
    channel_frame,
    close_frame,
    drain_until_close,
    read_frame,
)

STDOUT, STDERR, STATUS = 1, 2, 3
NO_CAPTURE_EXIT_CODE = 126
CHUNK = 32 * 1024
MAX_DELAY = 60.0  # a forgotten delay must not hang a test run forever


@dataclass(frozen=True)
class ExecResult:
    stdout: bytes
    stderr: bytes
    exit_code: int
    delay_seconds: float = 0.0


TOO_LARGE = 1024 * 1024  # what a recorded "too-large" capture streams: past every reader's limit


def refusal(store: ObjectStore, namespace: str, pod: str, container: str, command: list[str]) -> str:
    """The API server's 403 message when `dump` recorded this exec as forbidden, else ""."""
    capture = find(store, namespace, pod, container, command)
    if capture is None or capture.error_reason != "forbidden":
        return ""
    return (
        f'pods "{pod}" is forbidden: cannot create resource "pods/exec" in API group "" '
        f'in the namespace "{namespace}" (as recorded in the bundle)'
    )


def find(
    store: ObjectStore, namespace: str, pod: str, container: str, command: list[str]
) -> ExecCapture | None:
    """The capture of `command`; for the pod-devices probe, one of an older probe version when the
    bundle predates the current one (its output names its version, and the plugin reads them all)."""
    capture = store.find_capture(namespace, pod, container, tuple(command))
    if capture is None and tuple(command) in PROBE_COMMANDS:
        for older in PROBE_COMMANDS:
            capture = capture or store.find_capture(namespace, pod, container, older)
    return capture


def replay(store: ObjectStore, namespace: str, pod: str, container: str, command: list[str]) -> ExecResult:
    """The recorded output of `command`, or a 126 failure naming what is missing."""
    capture = find(store, namespace, pod, container, command)
    if capture is None:
        message = (
            f"kubectl-rbln replay: no exec capture recorded for {json.dumps(command)} "
            f"in container {container!r} of pod {namespace}/{pod}\n"
        )
        return ExecResult(b"", message.encode("utf-8"), NO_CAPTURE_EXIT_CODE)
    if capture.error_reason == "timeout":
        return ExecResult(b"", b"", 1, MAX_DELAY)
    if capture.error_reason == "too-large":
        return ExecResult(b"x" * TOO_LARGE, b"", 0)
    out, err = capture.stdout.encode("utf-8"), capture.stderr.encode("utf-8")
    return ExecResult(out, err, capture.exit_code, capture.delay_seconds)


def exit_status(command: list[str], exit_code: int) -> dict[str, Any]:
    """The Status kubelet writes on the error channel (v4 and v5)."""
    if exit_code == 0:
        return {"metadata": {}, "status": "Success"}
    return {
        "metadata": {},
        "status": "Failure",
        "message": (
            "command terminated with non-zero exit code: error executing command "
            f"[{' '.join(command)}], exit code {exit_code}"
        ),
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(exit_code)}]},
    }


def stream(
    sock: socket.socket,
    reader: ByteReader,
    protocol: ChannelProtocol,
    command: list[str],
    result: ExecResult,
    *,
    want_stdout: bool = True,
    want_stderr: bool = True,
    tty: bool = False,
    close_timeout: float = 2.0,
) -> None:
    """Write the result on its channels, the status, a close frame; then wait for the client's close."""
    if result.delay_seconds > 0 and not _hold(sock, reader, result.delay_seconds):
        return  # the client gave up while the "command" was still running
    out = bytearray()
    stderr_channel = STDOUT if tty else STDERR  # a TTY has no separate stderr
    if want_stdout:
        out += _chunks(protocol, STDOUT, result.stdout)
    if want_stderr or tty:
        out += _chunks(protocol, stderr_channel, result.stderr)
    if protocol.status_json:
        out += channel_frame(protocol, STATUS, json.dumps(exit_status(command, result.exit_code)).encode())
    elif result.exit_code != 0:
        out += channel_frame(protocol, STATUS, exit_status(command, result.exit_code)["message"].encode())
    out += close_frame(1000)
    sock.sendall(bytes(out))
    drain_until_close(sock, reader, close_timeout)


def _hold(sock: socket.socket, reader: ByteReader, seconds: float) -> bool:
    """Wait `seconds` (capped) before answering; False when the client closed meanwhile."""
    deadline = time.monotonic() + min(seconds, MAX_DELAY)
    with selectors.DefaultSelector() as watch:  # not select(): a busy server's descriptors pass 1024
        watch.register(sock, selectors.EVENT_READ)
        while (remaining := deadline - time.monotonic()) > 0:
            if not watch.select(remaining):
                continue
            try:
                opcode, _ = read_frame(reader)
            except (OSError, ConnectionError, ValueError):
                return False
            if opcode == OP_CLOSE:
                return False
    return True


def _chunks(protocol: ChannelProtocol, channel: int, data: bytes) -> bytes:
    return b"".join(channel_frame(protocol, channel, data[i : i + CHUNK]) for i in range(0, len(data), CHUNK))
