"""`kubectl rbln serve` under abuse: idle crowds, slow heads, huge bodies, a bundle broken on disk.

Why: `serve` is left running beside a user's kubectl for hours, sometimes on a shared port (issue
23): it must keep answering whatever its other clients do. Each case runs against the real
command (its own process: threads and peak memory read from /proc) or, where a test needs
short timeouts, against ReplayServer with small `Limits`; every case ends within seconds.
"""

from __future__ import annotations

import http.client
import json
import os
import resource
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import Faults, Limits, ReplayServer
from tests.conftest import DATA, REPO, Served, serving

pytestmark = pytest.mark.slow  # a serve process or a server on a loopback port per test

BASIC = DATA / "replay-basic.json"
IDLE = 1000
BODY = 16 * 1024 * 1024


@contextmanager
def open_files(count: int) -> Iterator[None]:
    """This process (and the serve it starts) may hold `count` descriptors: 1,000 clients need more
    than the usual soft limit of 1,024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < count:
        pytest.skip(f"the hard limit of open files is {hard}, below {count}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, count), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@contextmanager
def serve(tmp_path: Path, bundle: Path) -> Iterator[tuple[Served, str]]:
    kubeconfig = tmp_path / "kubeconfig"
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LANG", "LC_ALL")}
    env.update(NO_COLOR="1", LANG="C.UTF-8")
    argv = [sys.executable, "-m", "kubectl_rbln", "serve", str(bundle), "--kubeconfig-out", str(kubeconfig)]
    with serving(argv, kubeconfig, env=env, cwd=REPO) as served:
        url = yaml.safe_load(kubeconfig.read_text(encoding="utf-8"))["clusters"][0]["cluster"]["server"]
        yield served, url.removeprefix("http://")


def proc_status(pid: int, field: str) -> int:
    """A number from /proc/PID/status: `Threads`, or `VmHWM` (the peak resident memory, kB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def get(where: str, path: str = "/version", timeout: float = 5) -> tuple[int, float]:
    host, port = where.rsplit(":", 1)
    started = time.monotonic()
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    finally:
        conn.close()


def connect(where: str) -> socket.socket:
    host, port = where.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=5)


@pytest.fixture(autouse=True)
def _linux_proc() -> None:
    if not Path("/proc/self/status").exists():
        pytest.skip("reads threads and peak memory from /proc")


def test_a_thousand_idle_connections_hold_no_thread_and_a_get_still_answers(tmp_path: Path) -> None:
    with open_files(IDLE * 2 + 256), serve(tmp_path, BASIC) as (served, where):
        assert get(where)[0] == 200
        before = proc_status(served.process.pid, "Threads")
        idle = [connect(where) for _ in range(IDLE)]
        slow = [connect(where) for _ in range(50)]  # half a request line each, then nothing
        for sock in slow:
            sock.sendall(b"GET /api/v1/pods HTTP/1.1\r\nHost: x")
        try:
            time.sleep(0.5)  # accepted and watched
            code, took = get(where)
            assert code == 200 and took < 2, took
            threads = proc_status(served.process.pid, "Threads")
            assert threads <= before + Limits.workers, (before, threads)
            assert threads < 100, threads  # not one per connection
            assert all(get(where, "/api/v1/nodes")[0] == 200 for _ in range(20))  # keeps answering
        finally:
            for sock in idle + slow:
                sock.close()


def _send_body(where: str, method: str, answers: list[bytes], errors: list[str]) -> None:
    """One client: a 16 MB body announced and sent; reads the answer while still sending, and stops
    sending once it has it, as curl and Go's client do."""
    sock = connect(where)
    sock.sendall(f"{method} /api/v1/pods HTTP/1.1\r\nHost: x\r\nContent-Length: {BODY}\r\n\r\n".encode())
    got = threading.Event()
    chunk = b"x" * (1 << 20)

    def write() -> None:
        try:
            for _ in range(BODY // len(chunk)):
                if got.is_set():
                    return
                sock.sendall(chunk)
        except OSError:  # refused and closed: expected
            pass

    writer = threading.Thread(target=write)
    writer.start()
    try:
        answers.append(sock.recv(65536))
    except OSError as exc:
        errors.append(repr(exc))
    finally:
        got.set()
        writer.join(timeout=10)
        sock.close()


def test_ten_16mb_bodies_are_refused_unread_in_bounded_time_and_memory(tmp_path: Path) -> None:
    with serve(tmp_path, BASIC) as (served, where):
        assert get(where)[0] == 200
        peak_before = proc_status(served.process.pid, "VmHWM")
        answers: list[bytes] = []
        errors: list[str] = []
        started = time.monotonic()
        clients = [
            threading.Thread(target=_send_body, args=(where, method, answers, errors))
            for method in ["POST", "GET"] * 5
        ]
        for client in clients:
            client.start()
        for client in clients:
            client.join(timeout=20)
        took = time.monotonic() - started
        assert not errors, errors
        assert sorted(answer.split(b"\r\n", 1)[0] for answer in answers) == sorted(
            [b"HTTP/1.1 405 Method Not Allowed"] * 5 + [b"HTTP/1.1 413 Request Entity Too Large"] * 5
        )
        assert took < 10, took
        grown = proc_status(served.process.pid, "VmHWM") - peak_before
        assert grown < 32 * 1024, f"serve's peak memory grew by {grown} kB for bodies it refused"
        code, took = get(where)
        assert code == 200 and took < 2, took


def test_idle_connections_and_slow_heads_are_closed_but_a_long_answer_is_not() -> None:
    """An idle connection and a half-sent head are closed after their timeouts; a request that takes
    longer than the idle timeout to answer (a delay here, a watch or an exec stream in life) is not
    idle and gets its answer."""
    limits = Limits(idle_timeout=0.5, head_timeout=0.5)
    with ReplayServer(load_objects([str(BASIC)]), faults=Faults(delay=1.5), limits=limits) as server:
        where = f"{server.host}:{server.port}"
        idle, slow = connect(where), connect(where)
        slow.sendall(b"GET /version HTTP/1.1\r\n")
        started = time.monotonic()
        assert idle.recv(1024) == b""  # closed by the server
        assert slow.recv(1024).startswith(b"HTTP/1.1 408")
        assert 0.4 < time.monotonic() - started < 3
        code, took = get(where, timeout=10)
        assert code == 200 and 1.4 < took < 5, took
        idle.close()
        slow.close()


def test_a_bundle_broken_on_disk_keeps_the_last_good_one_and_says_so_once(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.json"
    good = BASIC.read_text(encoding="utf-8")
    bundle.write_text(good, encoding="utf-8")
    pods = sorted(o["metadata"]["name"] for o in load_objects([str(BASIC)]) if o["kind"] == "Pod")
    assert "decode-0" in pods

    def served_pods(where: str) -> list[str]:
        host, port = where.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("GET", "/api/v1/pods")
        items = json.loads(conn.getresponse().read())["items"]
        conn.close()
        return sorted(item["metadata"]["name"] for item in items)

    with serve(tmp_path, bundle) as (served, where):
        assert served_pods(where) == pods
        bundle.write_text('{"apiVersion": "v1", "kind": "List", "items": [', encoding="utf-8")
        os.utime(bundle, ns=(time.time_ns(), time.time_ns() + 2_000_000_000))
        for _ in range(12):  # over more than the 0.2 s between looks
            assert served_pods(where) == pods
            time.sleep(0.1)
        bundle.write_text(good.replace('"name": "decode-0"', '"name": "decode-renamed"', 1), encoding="utf-8")
        os.utime(bundle, ns=(time.time_ns(), time.time_ns() + 4_000_000_000))
        time.sleep(0.3)
        assert served_pods(where) == sorted(["decode-renamed" if p == "decode-0" else p for p in pods])
    lines = [line for line in served.stderr.splitlines() if "does not load" in line]
    assert len(lines) == 1, served.stderr
    assert lines[0].startswith("warning: the bundle changed on disk and does not load (")
    assert lines[0].endswith("still serving the last good one")
