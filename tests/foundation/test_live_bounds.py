"""Live reads end, hold little and print no secret, whatever the server or the kubeconfig does (issue 23).

A misbehaving server on loopback, written here: it relays every request to a replay server of the
basic bundle, except the one it plays a fault on (drips, an endless chunked body, endless pages, a
huge body, a gzip bomb). The CLI runs as a subprocess, as a user runs it, with a short
--request-timeout; each case asserts the exit code (or the degraded list), one line on stderr, the
liveness bound (it ends within a few seconds of the timeout) and the peak memory of the CLI's
process (getrusage(RUSAGE_CHILDREN) around it), far below a gigabyte. The kubeconfig's server URL carries
a password and its user a token: neither may appear anywhere in what the CLI prints.
"""

from __future__ import annotations

import contextlib
import gzip
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer
from tests.conftest import DATA, REPO

pytestmark = pytest.mark.slow  # servers on loopback, the CLI as a subprocess

PASSWORD = "hunter2-Passw0rd-do-not-print"
TOKEN = "s3cr3t-Bearer-T0KEN-do-not-print"
TIMEOUT = 2.0  # --request-timeout of every case
SLACK = 5.0  # start-up and exit of the CLI on a loaded 2-core machine, on top of the timeout
PEAK_LIMIT = 300 * 1024 * 1024  # bytes; the basic bundle's reads take ~80 MB


# ---------------------------------------------------------------- the misbehaving server

Fault = Callable[["Relay"], None]


class Relay(BaseHTTPRequestHandler):
    """Relays GETs to the replay server; `faults` (a path prefix -> play) answer their paths instead."""

    protocol_version = "HTTP/1.1"
    server: MisbehavingServer

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = urlsplit(self.path).path
        for prefix, play in self.server.faults.items():
            if path.startswith(prefix):
                self.server.played.append(self.path)
                try:
                    play(self)
                except OSError:  # the client hung up, as it must
                    self.close_connection = True
                return
        if self.headers.get("Upgrade"):  # exec's websocket: a tunnel to the replay server
            self.tunnel()
            return
        status, headers, body = self.upstream()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def upstream(self) -> tuple[int, dict[str, str], bytes]:
        """What the replay server answers to this request."""
        target = urlsplit(self.server.upstream_url)
        connection = http.client.HTTPConnection(target.hostname or "", target.port, timeout=10)
        try:
            connection.request("GET", self.path, headers={"Accept": self.headers.get("Accept", "*/*")})
            response = connection.getresponse()
            body = response.read()
            kept = {
                k: v for k, v in response.getheaders() if k.lower() in ("content-type", "date", "retry-after")
            }
            return response.status, kept, body
        finally:
            connection.close()

    def tunnel(self) -> None:
        """The request as it came, then bytes both ways until one side closes."""
        target = urlsplit(self.server.upstream_url)
        with socket.create_connection((target.hostname or "", target.port or 80), timeout=10) as upstream:
            head = [self.requestline, *(f"{name}: {value}" for name, value in self.headers.items())]
            upstream.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
            back = threading.Thread(target=_pump, args=(upstream.recv, self.connection), daemon=True)
            back.start()
            _pump(self.rfile.read1, upstream)
            back.join(10)
        self.close_connection = True

    def stopping(self) -> bool:
        return self.server.stop.is_set()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        pass


def _pump(read: Callable[[int], bytes], sink: socket.socket) -> None:
    try:
        while data := read(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


class MisbehavingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream_url: str, faults: dict[str, Fault]) -> None:
        super().__init__(("127.0.0.1", 0), Relay)
        self.upstream_url = upstream_url
        self.faults = faults
        self.played: list[str] = []
        self.stop = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


def drip_body(handler: Relay) -> None:
    """The real answer's headers, then its body a byte every 0.2 s (the whole would take hours)."""
    status, headers, body = handler.upstream()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    for byte in body:
        if handler.stopping():
            return
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.2)


def drip_headers(handler: Relay) -> None:
    """The status line and headers a byte every 0.2 s, never ending."""
    text = b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-Drip-%d: %s\r\n" % (i, b"." * 40) for i in range(90))
    for byte in text:
        if handler.stopping():
            return
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.2)


def endless_chunked(handler: Relay) -> None:
    """A list that starts well, then a 1 KB chunk of blanks every 10 ms, forever."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    first = b'{"kind":"ResourceClaimList","apiVersion":"resource.k8s.io/v1","metadata":{},"items":['
    handler.wfile.write(b"%x\r\n%s\r\n" % (len(first), first))
    blanks = b" " * 1024
    while not handler.stopping():
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(blanks), blanks))
        handler.wfile.flush()
        time.sleep(0.01)


def endless_pages(handler: Relay) -> None:
    """One event per page, and always a `continue` token to a next page."""
    page = len(handler.server.played)
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"endless-{page}", "namespace": "serving"},
        "involvedObject": {"kind": "Pod", "name": "prefill-0", "namespace": "serving"},
        "reason": "Endless",
        "message": "one more page",
        "type": "Normal",
    }
    doc = {
        "kind": "EventList",
        "apiVersion": "v1",
        "metadata": {"continue": f"page-{page}"},
        "items": [event],
    }
    body = json.dumps(doc).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def huge_body(handler: Relay) -> None:
    """An answer announcing 8 GiB, then streaming blanks as fast as the client takes them."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(8 << 30))
    handler.end_headers()
    handler.wfile.write(b'{"kind":"ResourceSliceList","items":[')
    blanks = b" " * (1 << 20)
    while not handler.stopping():
        handler.wfile.write(blanks)


_BOMB: list[bytes] = []


def gzip_bomb(handler: Relay) -> None:
    """1 MB of gzip that inflates to 1 GiB (64 members of 16 MiB of blanks), though we asked for identity."""
    if not _BOMB:
        _BOMB.append(gzip.compress(b" " * (16 << 20), compresslevel=9) * 64)
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Encoding", "gzip")
    handler.send_header("Content-Length", str(len(_BOMB[0])))
    handler.end_headers()
    handler.wfile.write(_BOMB[0])


# ---------------------------------------------------------------- the CLI, measured


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak: int  # bytes: the CLI process's maximum resident set (its own rusage)


# Runs the CLI and writes its peak RSS (KiB on Linux, bytes on macOS) to argv[1]. A process of its own:
# a child forked from pytest starts with pytest's peak in its rusage (Linux keeps it across exec), so the
# CLI is forked from this small one instead.
_MEASURE = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code if code >= 0 else 128 - code)
"""


def run_measured(args: list[str], env: dict[str, str], limit: float = 30.0) -> Run:
    """The CLI as a subprocess, with its wall time and its peak memory (getrusage(RUSAGE_CHILDREN) in
    a process that runs nothing else)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LANG", "LC_ALL")}
    full_env.update({"NO_COLOR": "1", "LANG": "C.UTF-8", **env})
    peak_file = Path(env["HOME"]) / f"peak-{time.monotonic_ns()}"
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", _MEASURE, str(peak_file), sys.executable, "-m", "kubectl_rbln", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=full_env,
        cwd=REPO,
        start_new_session=True,  # its own process group: a hang is ended whole, by that group's id
    )
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:  # a hang fails the test instead of holding the suite
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    seconds = time.monotonic() - started
    unit = 1 if sys.platform == "darwin" else 1024
    peak = int(peak_file.read_text()) * unit if peak_file.exists() else 0
    return Run(proc.returncode, out.decode(), err.decode(), seconds, peak)


def kubeconfig_text(server: str, user: dict[str, Any] | None = None) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "c",
            "clusters": [{"name": "c", "cluster": {"server": server}}],
            "users": [{"name": "u", "user": user or {"token": TOKEN}}],
            "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        }
    )


def with_password(url: str) -> str:
    return url.replace("http://", f"http://admin:{PASSWORD}@")


class Cluster:
    """A kubeconfig (a password in its server URL, a token for its user) and the CLI run against it."""

    def __init__(self, tmp: Path, server_url: str, user: dict[str, Any] | None = None) -> None:
        self.url = with_password(server_url)
        self.shown = self.url.replace(PASSWORD, "***")  # the URL as every message must print it
        self.kubeconfig = tmp / f"kubeconfig-{id(self)}"
        self.kubeconfig.write_text(kubeconfig_text(self.url, user), encoding="utf-8")
        self.home = tmp / "home"
        self.home.mkdir(exist_ok=True)

    def rbln(self, *args: str) -> Run:
        run = run_measured(
            [*args, "--kubeconfig", str(self.kubeconfig), "--request-timeout", f"{TIMEOUT:g}s"],
            {"HOME": str(self.home)},
        )
        everything = run.stdout + run.stderr
        assert PASSWORD not in everything, "the server URL's password was printed"
        assert TOKEN not in everything, "the bearer token was printed"
        assert "Traceback" not in run.stderr, run.stderr
        assert run.seconds < TIMEOUT + SLACK, f"took {run.seconds:.1f}s with --request-timeout {TIMEOUT:g}s"
        assert 0 < run.peak < PEAK_LIMIT, f"peak memory {run.peak / 2**20:.0f} MiB"
        return run


@pytest.fixture(scope="module")
def replay() -> Iterator[ReplayServer]:
    server = ReplayServer(load_objects([str(DATA / "replay-basic.json")])).start()
    yield server
    server.stop()


@pytest.fixture
def cluster(
    tmp_path: Path, replay: ReplayServer
) -> Iterator[Callable[..., tuple[Cluster, MisbehavingServer]]]:
    servers: list[MisbehavingServer] = []

    def start(faults: dict[str, Fault]) -> tuple[Cluster, MisbehavingServer]:
        server = MisbehavingServer(replay.url, faults)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return Cluster(tmp_path, server.url), server

    yield start
    for server in servers:
        server.stop.set()
        server.shutdown()
        server.server_close()


def warnings(run: Run) -> list[str]:
    return [line for line in run.stderr.splitlines() if line.startswith("warning: ")]


def problems(run: Run) -> list[dict[str, str]]:
    info = next(i for i in json.loads(run.stdout)["items"] if i["kind"] == "ClusterInfo")
    return list(info["problems"])


def findings(run: Run, slug: str) -> list[dict[str, Any]]:
    """The findings of one slug anywhere in a `-o json` document."""
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("slug") == slug:
                found.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(run.stdout))
    return found


def one_error(run: Run) -> str:
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    return lines[0]


SLICES = "/apis/resource.k8s.io/v1/resourceslices"
CLAIMS = "/apis/resource.k8s.io/v1/resourceclaims"


# ---------------------------------------------------------------- the deadline: drips, endless bodies, pages


def test_a_body_dripping_a_byte_at_a_time_degrades_its_list(cluster: Callable[..., Any]) -> None:
    """Each socket read gets its byte in time; the request as a whole does not: the slices degrade,
    the rest is read, and `why` still answers for the Pending Pod (exit 1), saying what it could not see."""
    c, _ = cluster({SLICES: drip_body})
    dumped = c.rbln("dump", "-A")
    assert dumped.returncode == 0, dumped.stderr
    message = (
        f"list resourceslices.resource.k8s.io at the cluster scope: no whole answer from {c.shown} "
        f"within {TIMEOUT:g}s (--request-timeout)"
    )
    assert dumped.stderr.splitlines() == [f"warning: {message}"]
    assert problems(dumped) == [{"kind": "ResourceSlice", "code": "timeout", "message": message}]
    kinds = {i["kind"] for i in json.loads(dumped.stdout)["items"]}
    assert {"Node", "Pod", "ResourceClaim", "DeviceClass"} <= kinds and "ResourceSlice" not in kinds
    why = c.rbln("why", "-n", "serving", "prefill-0", "-o", "json")
    assert why.returncode == 1, why.stderr
    [degraded] = findings(why, "source-degraded")
    assert degraded["evidence"] == {"kind": "ResourceSlice", "code": "timeout", "message": message}
    # not a permission: the fix reads again with more time, it does not ask for RBAC
    assert degraded["fix"]["steps"][1]["commands"] == [
        "kubectl rbln dump -n serving --request-timeout 5m > bundle.json"
    ]


def test_headers_dripped_on_the_first_contact_are_exit_3(cluster: Callable[..., Any]) -> None:
    c, _ = cluster({"/version": drip_headers})
    run = c.rbln("why", "-n", "serving")
    assert run.returncode == 3
    assert (
        one_error(run)
        == f"error: the cluster at {c.shown} did not answer within {TIMEOUT:g}s (--request-timeout)"
    )


def test_headers_dripped_on_a_list_degrade_only_that_list(cluster: Callable[..., Any]) -> None:
    c, _ = cluster({CLAIMS: drip_headers})
    run = c.rbln("dump", "-A")
    assert run.returncode == 0, run.stderr
    assert [(p["kind"], p["code"]) for p in problems(run)] == [("ResourceClaim", "timeout")]
    assert len(warnings(run)) == 1 and run.stderr.count("\n") == 1


def test_an_endless_chunked_body_degrades_its_list(cluster: Callable[..., Any]) -> None:
    c, server = cluster({CLAIMS: endless_chunked})
    run = c.rbln("dump", "-A")
    assert run.returncode == 0, run.stderr
    message = (
        f"list resourceclaims.resource.k8s.io at the cluster scope: no whole answer from {c.shown} "
        f"within {TIMEOUT:g}s (--request-timeout)"
    )
    assert run.stderr.splitlines() == [f"warning: {message}"]
    assert problems(run) == [{"kind": "ResourceClaim", "code": "timeout", "message": message}]
    assert len(server.played) == 1, "the cluster-wide claim list, not a namespaced retry after it"


def test_endless_pagination_shares_one_deadline(cluster: Callable[..., Any]) -> None:
    """Every page comes at once, each with a `continue` to one more: the list's pages share its
    deadline, so it ends at --request-timeout, counted in the message, and the command goes on."""
    c, server = cluster({"/api/v1/events": endless_pages})
    run = c.rbln("dump", "-A")
    assert run.returncode == 0, run.stderr
    [line] = run.stderr.splitlines()
    pages = len([p for p in server.played if "continue=" in p]) + 1
    assert pages > 3, f"only {pages} pages were asked for"
    assert line.startswith(
        f"warning: list events at the cluster scope: no whole answer from {c.shown} within "
        f"{TIMEOUT:g}s (--request-timeout), after "
    ), line
    assert line.endswith(" objects)"), line
    [problem] = problems(run)
    assert problem["kind"] == "Event" and problem["code"] == "timeout"
    assert not [i for i in json.loads(run.stdout)["items"] if i["kind"] == "Event"], "a partial list was kept"


# ---------------------------------------------------------------- size and encoding


def test_a_huge_body_is_refused_when_announced(cluster: Callable[..., Any]) -> None:
    c, _ = cluster({SLICES: huge_body})
    run = c.rbln("dump", "-A")
    assert run.returncode == 0, run.stderr
    message = (
        f"list resourceslices.resource.k8s.io at the cluster scope: the answer of {c.shown} announces "
        f"{8 << 30:,} bytes, more than the 1 GiB one answer may hold; not read"
    )
    assert run.stderr.splitlines() == [f"warning: {message}"]
    assert problems(run) == [{"kind": "ResourceSlice", "code": "too-large", "message": message}]
    assert run.seconds < TIMEOUT + SLACK - 1, "refused on its headers, not read until the deadline"


def test_a_gzip_bomb_is_never_inflated(cluster: Callable[..., Any]) -> None:
    c, _ = cluster({"/api/v1/nodes": gzip_bomb})
    run = c.rbln("dump", "-A")
    assert run.returncode == 0, run.stderr
    message = (
        f"list nodes at the cluster scope: {c.shown} sent a body compressed with gzip although we asked "
        "for none (Accept-Encoding: identity); not read"
    )
    assert run.stderr.splitlines() == [f"warning: {message}"]
    assert problems(run) == [{"kind": "Node", "code": "encoding", "message": message}]
    why = c.rbln("why", "-n", "serving", "prefill-0", "-o", "json")
    assert why.returncode == 1, why.stderr
    [degraded] = findings(why, "source-degraded")
    assert degraded["evidence"] == {"kind": "Node", "code": "encoding", "message": message}


# ---------------------------------------------------------------- credentials


def test_the_password_in_the_server_url_is_masked_when_unreachable(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    c = Cluster(tmp_path, f"http://127.0.0.1:{port}")
    run = c.rbln("why", "-n", "serving")
    assert run.returncode == 3
    assert (
        one_error(run)
        == f"error: cannot reach the cluster at http://admin:***@127.0.0.1:{port}: connection refused"
    )


def test_the_password_is_masked_in_a_timeout_and_a_server_error(cluster: Callable[..., Any]) -> None:
    def silent(handler: Relay) -> None:
        while not handler.stopping():
            time.sleep(0.05)

    def echoing(handler: Relay) -> None:
        """A 500 whose message echoes the request's URL with its credentials, as a proxy might."""
        doc = {
            "kind": "Status",
            "status": "Failure",
            "code": 500,
            "message": f"upstream {c.url} said {TOKEN}",
        }
        body = json.dumps(doc).encode()
        handler.send_response(500)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    c, _ = cluster({"/version": silent})
    run = c.rbln("version")
    assert run.returncode == 3
    assert (
        one_error(run)
        == f"error: the cluster at {c.shown} did not answer within {TIMEOUT:g}s (--request-timeout)"
    )
    c, _ = cluster({"/api/v1/pods": echoing})
    run = c.rbln("dump", "-A")
    assert run.returncode == 3
    assert one_error(run) == (
        f"error: list pods at the cluster scope: the server answered 500 Internal Server Error: "
        f"upstream {c.shown} said ***"
    )


def test_a_hanging_credential_plugin_ends_at_the_deadline(tmp_path: Path) -> None:
    """An `exec:` plugin that never answers (a login waiting for a browser): exit 3 at the deadline."""
    plugin = tmp_path / "credential-plugin.sh"
    pid_file = tmp_path / "plugin.pid"
    plugin.write_text(f'#!/bin/sh\necho $$ > "{pid_file}"\nexec sleep 60\n', encoding="utf-8")
    plugin.chmod(0o755)
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": str(plugin),
            "interactiveMode": "Never",
        }
    }
    c = Cluster(tmp_path, "http://127.0.0.1:9", user)
    try:
        run = c.rbln("why", "-n", "serving")
    finally:
        if pid_file.exists():  # the plugin we started: ended by its own pid
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text()), signal.SIGTERM)
    assert run.returncode == 3
    assert one_error(run) == (
        f'error: the credentials of context c (user "u") were not ready within {TIMEOUT:g}s '
        f"(--request-timeout): its exec credential plugin {str(plugin)!r} did not finish"
    )
    assert run.seconds >= TIMEOUT, "the plugin was not waited for"
    # and it does not outlive the command: an orphan would hold its terminal or its port
    pid = int(pid_file.read_text())
    assert not plugin_alive(pid), f"the credential plugin {pid} still runs after the command ended"


def plugin_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# ---------------------------------------------------------------- the kubeconfig itself


def alias_bomb() -> str:
    """544 bytes of nested aliases that expand to 9**9 (387 million) strings."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    return "\n".join(lines) + (
        "\napiVersion: v1\nkind: Config\ncurrent-context: c\n"
        'clusters: [{name: c, cluster: {server: "http://127.0.0.1:9", x: *a8}}]\n'
        "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n"
    )


@pytest.mark.parametrize("command", [["why", "-n", "serving"], ["check", "--all-contexts"]])
def test_a_kubeconfig_alias_bomb_is_refused_at_once(tmp_path: Path, command: list[str]) -> None:
    kubeconfig = tmp_path / "bomb.yaml"
    kubeconfig.write_text(alias_bomb(), encoding="utf-8")
    run = run_measured([*command, "--kubeconfig", str(kubeconfig)], {"HOME": str(tmp_path)})
    assert run.returncode == 3, run.stderr
    assert one_error(run) == (
        f"error: kubeconfig {kubeconfig} is refused: its YAML aliases expand to more than 200,000 nodes "
        "(an alias bomb?)"
    )
    assert run.seconds < SLACK and 0 < run.peak < PEAK_LIMIT, (run.seconds, run.peak)


def test_a_kubeconfig_with_a_few_aliases_still_works(tmp_path: Path, replay: ReplayServer) -> None:
    """Anchors are legal YAML: a kubeconfig sharing one user's fields by alias reads as before."""
    kubeconfig = tmp_path / "aliases.yaml"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        f"clusters: [{{name: c, cluster: &cluster {{server: '{replay.url}'}}}},"
        " {name: d, cluster: *cluster}]\n"
        f"users: [{{name: u, user: {{token: {TOKEN}}}}}]\n"
        "contexts: [{name: c, context: &ctx {cluster: c, user: u}}, {name: d, context: *ctx}]\n",
        encoding="utf-8",
    )
    run = run_measured(["version", "--kubeconfig", str(kubeconfig)], {"HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[1:] == ["Cluster: v1.34.2", "resource.k8s.io: v1"]


def test_a_late_exchange_leaves_no_thread_behind(cluster: Callable[..., Any], tmp_path: Path) -> None:
    """Headers dripped past the deadline: the request fails at the deadline and its worker thread ends
    with it (its socket is shut), instead of staying blocked while the server drips (`why --watch`
    polls such a server again and again)."""
    from kubectl_rbln.cluster import bounded  # noqa: PLC0415
    from kubectl_rbln.cluster.kubeconfig import resolve_context  # noqa: PLC0415
    from kubectl_rbln.cluster.live import LiveClient  # noqa: PLC0415
    from kubectl_rbln.errors import ClusterError  # noqa: PLC0415

    c, _ = cluster({"/version": drip_headers})
    client = LiveClient(resolve_context(str(c.kubeconfig), None, None), timeout=1.0)

    def busy() -> int:
        """Request workers alive and not idle: idle ones (bounded._IDLE) wait for work, in any test."""
        # every worker of cluster/bounded.py, by the names it starts them with (an idle one may be reused
        # under either)
        names = ("rbln-request", "rbln-credentials")
        alive = [t for t in threading.enumerate() if t.name in names and t.is_alive()]
        return len(alive) - len(bounded._IDLE)

    for _ in range(3):  # three polls of a dripping server
        with pytest.raises(ClusterError, match="did not answer within 1s"):
            client.get("/version")
    ended = time.monotonic() + 3.0
    while busy() and time.monotonic() < ended:
        time.sleep(0.05)
    assert busy() == 0, "late exchanges left their threads blocked on the server"
