"""`kubectl rbln ...` for the shim, from a warm process: each run is a fork of it, a fresh CLI process.

Why: a pasted fix runs the plugin often (suggest-rct, dump), and a cold `python -m kubectl_rbln`
spends most of its 0.4 s importing the Kubernetes client. This server imports every command once;
for each request it forks, and the child takes the shim's stdin, stdout and stderr (passed over
the socket), its directory and environment, and runs `kubectl_rbln.cli.main.main` with the
words `python -m kubectl_rbln` would pass it: the same code against the same serve, minus the
imports (and the end: sys.exit, so the child can report its exit code before it leaves).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

MAX_REQUEST = 1 << 20


def serve(path: str) -> None:
    """Answer requests on the Unix socket `path` until killed."""
    from kubectl_rbln.cli.group import COMMANDS  # noqa: PLC0415 - imported here, warm for every fork
    from kubectl_rbln.cli.main import main  # noqa: PLC0415

    for module, _, _ in COMMANDS.values():
        importlib.import_module(module)
    importlib.import_module("kubernetes.client")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(16)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        message, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
        if os.fork() == 0:
            listener.close()
            _child(conn, json.loads(message), fds, main)
        conn.close()
        for fd in fds:
            os.close(fd)


def _child(
    conn: socket.socket, request: dict[str, Any], fds: list[int], main: Callable[[list[str]], None]
) -> None:
    code = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.chdir(str(request["cwd"]))
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = ["kubectl-rbln", *request["argv"]]
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        try:
            main(list(request["argv"]))  # given its words, main ends with sys.exit, not os._exit
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - told to the shim as a failure, with the traceback
        import traceback  # noqa: PLC0415

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        with contextlib.suppress(OSError):
            conn.send(str(code).encode())
        os._exit(code)


@contextlib.contextmanager
def plugin_server(repo: Path) -> Iterator[str]:
    """A server for this checkout's plugin; yields its socket's path (for $PASTE_PLUGIN_SOCKET)."""
    with tempfile.TemporaryDirectory(prefix="rbln-plugin-") as folder:
        path = os.path.join(folder, "plugin.sock")
        env = dict(os.environ, PYTHONPATH=str(repo), NO_COLOR="1", LANG="C.UTF-8")
        code = f"from testing.paste.plugin_server import serve; serve({path!r})"
        process = subprocess.Popen(
            [sys.executable, "-c", code], env=env, cwd=repo, stdout=subprocess.PIPE, text=True
        )
        try:
            ready = process.stdout.readline() if process.stdout else ""  # "" once it exits
            if ready.strip() != "ready":
                raise RuntimeError(f"the plugin server did not start (exit code {process.poll()})")
            yield path
        finally:
            process.kill()
            process.wait()
