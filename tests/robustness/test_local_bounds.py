"""Local work is bounded (issue 23, point 2): hostile selectors, quantities, YAML, events and `-f` paths.

Why: a bundle is whatever someone hands over. Each case here runs the real CLI (a child process, so
that its time and its peak memory from rusage are its own) or the public function, and checks what a
user sees: the documented exit code or the selector-error finding, one line on stderr, no
traceback, and that it ended within seconds and far below a gigabyte.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster.files import AliasBudget, load_objects, parse_documents
from kubectl_rbln.diagnose.events import classify_event
from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.dra import cel
from kubectl_rbln.dra.model import Event
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.dra.quantity import QuantityRangeError, parse_quantity
from kubectl_rbln.errors import InputError
from testing.synthetic.builder import ClusterBuilder
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # the CLI as a child process

SECONDS = 20.0  # each run ends far below this (most in about one second)
PEAK_MIB = 400  # and far below a gigabyte
TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"


class _Result:
    def __init__(self, code: int, out: str, err: str, seconds: float, maxrss: int) -> None:
        self.code, self.out, self.err, self.seconds = code, out, err, seconds
        self.peak_mib = maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)

    def one_error_line(self) -> str:
        lines = self.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), self.err
        return lines[0]


# A small launcher runs the CLI and reports its rusage: a child forked straight from this (large)
# pytest process would report this process's peak RSS as its own (Linux keeps the high-water mark of
# the image it replaced at exec).
LAUNCHER = """
import json, os, subprocess, sys
proc = subprocess.Popen(json.loads(sys.argv[1]))
print(proc.pid, file=open(sys.argv[2] + ".pid", "w"), flush=True)
_, status, usage = os.wait4(proc.pid, 0)
json.dump({"code": os.waitstatus_to_exitcode(status), "maxrss": usage.ru_maxrss}, open(sys.argv[2], "w"))
"""


def run_bounded(
    *args: str,
    env: dict[str, str] | None = None,
    stdin: Any = subprocess.DEVNULL,
    started: Callable[[int], None] | None = None,
) -> _Result:
    """`python -m kubectl_rbln ARGS` with its wall time and its own peak RSS (os.wait4, in a small
    launcher); killed (and the test failed) past SECONDS. `started` is told the CLI's pid."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LANG", "LC_ALL")}
    full_env.update({"NO_COLOR": "1", "LANG": "C.UTF-8", **(env or {})})
    argv = json.dumps([sys.executable, "-m", "kubectl_rbln", *args])
    with tempfile.TemporaryDirectory() as tmp, open(Path(tmp) / "out", "w+") as out:
        report = Path(tmp) / "report.json"
        with open(Path(tmp) / "err", "w+") as err:
            begin = time.monotonic()
            launcher = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", LAUNCHER, argv, str(report)],
                stdout=out,
                stderr=err,
                stdin=stdin,
                env=full_env,
                cwd=REPO,
                start_new_session=True,  # the CLI with it, killed together past SECONDS
            )
            timer = threading.Timer(SECONDS, os.killpg, (launcher.pid, signal.SIGKILL))
            timer.start()
            try:
                if started is not None:
                    started(_child_pid(report, launcher))
                launcher.wait()
            finally:
                timer.cancel()
            seconds = time.monotonic() - begin
            err.seek(0)
            err_text = err.read()
        out.seek(0)
        assert report.exists(), f"killed after {SECONDS} s: {args} {err_text}"
        measured = json.loads(report.read_text())
        result = _Result(measured["code"], out.read(), err_text, seconds, measured["maxrss"])
    assert result.seconds < SECONDS, f"still running after {SECONDS} s: {args}"
    assert result.peak_mib < PEAK_MIB, f"peak {result.peak_mib:.0f} MiB: {args}"
    assert "Traceback" not in result.err and "panicked" not in result.err, result.err
    return result


def _child_pid(report: Path, launcher: subprocess.Popen[Any]) -> int:
    marker = Path(str(report) + ".pid")
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline and launcher.poll() is None:
        if marker.exists() and marker.read_text().strip():
            return int(marker.read_text())
        time.sleep(0.001)
    return -1


@pytest.fixture(scope="module")
def scenario() -> tuple[list[dict[str, Any]], tuple[str, str]]:
    builder = ClusterBuilder(3)
    return builder.build(), builder.target_pod()


def _with_class_selector(objects: list[dict[str, Any]], expression: str) -> list[dict[str, Any]]:
    """Every DeviceClass selects with `expression` (so every request of the Pod evaluates it)."""
    out = json.loads(json.dumps(objects))
    for obj in out:
        if obj["kind"] == "DeviceClass":
            obj["spec"]["selectors"] = [{"cel": {"expression": expression}}]
    return out


def _why_json(tmp_path: Path, objects: list[dict[str, Any]], pod: tuple[str, str], **env: str) -> Any:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    namespace, name = pod
    result = run_bounded("why", "-f", str(bundle), "-n", namespace, name, "-o", "json", env=env)
    assert result.code == 1, result.err  # findings, not a crash and not an all-clear
    return result, json.loads(result.out)


def _selector_error(report: Any) -> str:
    (pod,) = report["pods"]
    (found,) = [f for f in pod["findings"] if f["slug"] == "selector-error"]
    return json.dumps(found)


def _doubling(times: int) -> str:
    body = f"size(s{times}) > 0"
    for i in range(times, 0, -1):
        body = f"cel.bind(s{i}, s{i - 1} + s{i - 1}, {body})"
    return f'cel.bind(s0, "xx", {body})'


def _nested(depth: int) -> str:
    expression = 'device.driver != ""'
    for i in range(depth):
        expression = f"{TEN}.all(x{i}, {expression})"
    return expression


BACKENDS = [pytest.param("rust", id="rust"), pytest.param("celpy", id="celpy")]


def _backend_env(name: str) -> dict[str, str]:
    if name == "rust":
        try:
            cel.get_backend("rust")
        except ImportError:
            pytest.skip("no compiled CEL library on this Python")
    return {"RBLN_CEL_BACKEND": name}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("expression", "words"),
    [
        pytest.param(_nested(7), "cost limit exceeded", id="nested-comprehension"),
        pytest.param(_doubling(30), "cost limit exceeded", id="bind-doubling-30"),
        pytest.param("(" * 100_000 + "true" + ")" * 100_000, "Too long", id="100000-parentheses"),
    ],
)
def test_a_runaway_selector_is_a_selector_error(tmp_path, scenario, backend, expression, words):
    """What the API server would refuse stops with the selector-error finding, before it runs."""
    objects, pod = scenario
    result, report = _why_json(
        tmp_path, _with_class_selector(objects, expression), pod, **_backend_env(backend)
    )
    assert words in _selector_error(report)
    assert result.err == ""


def test_a_selector_within_the_limit_still_runs(tmp_path, scenario):
    """Five nested comprehensions over ten elements cost 855,551: under the limit, evaluated."""
    objects, pod = scenario
    _, report = _why_json(tmp_path, _with_class_selector(objects, _nested(5)), pod)
    assert "cost limit" not in json.dumps(report["pods"][0]["findings"])


def test_a_library_panic_is_an_error_not_a_base_exception():
    """pyo3 raises a Rust panic as PanicException, a BaseException that `except Exception` misses: the
    backend turns it into the compile error (the 10 KiB bound keeps selectors from reaching it)."""
    try:
        backend = cel.get_backend("rust")
    except ImportError:
        pytest.skip("no compiled CEL library on this Python")
    with pytest.raises(ValueError, match="panic"):
        backend.compile("(" * 100_000 + "true" + ")" * 100_000)


@pytest.mark.parametrize("text", ["1e999999999", "1e99999999999999999999", "9Ei", "1" + "0" * 80])
def test_a_huge_quantity_is_out_of_range_at_once(text):
    start = time.perf_counter()
    with pytest.raises(QuantityRangeError, match="out of range"):
        parse_quantity(text)
    assert time.perf_counter() - start < 0.1
    assert isinstance(QuantityRangeError("x"), ValueError)  # what every caller already catches


def test_a_huge_quantity_in_a_selector_is_a_selector_error(tmp_path, scenario):
    objects, pod = scenario
    expression = 'quantity("1e999999999").isGreaterThan(quantity("1"))'
    _, report = _why_json(tmp_path, _with_class_selector(objects, expression), pod)
    assert "out of range" in _selector_error(report)


def _alias_documents(count: int) -> str:
    """`count` documents, each a ConfigMap whose aliases expand it to ~111,000 nodes: each far under
    the bound (and under the 2,000,000 a one-document bound allowed), together over it."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * 10)}]" for k in range(1, 5)]
    body = "\n".join("  " + line for line in lines)
    docs = [
        f"kind: ConfigMap\napiVersion: v1\nmetadata: {{name: c{i}}}\ndata:\n{body}\n" for i in range(count)
    ]
    return "---\n".join(docs)


def test_aliases_repeated_across_documents_are_refused(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(_alias_documents(30))
    result = run_bounded("why", "-f", str(path), "-n", "default", "x")
    assert result.code == 2
    assert "alias bomb" in result.one_error_line()


def test_aliases_repeated_across_files_are_refused(tmp_path):
    paths = []
    for i in range(12):
        paths += ["-f", str(tmp_path / f"part{i}.yaml")]
        (tmp_path / f"part{i}.yaml").write_text(_alias_documents(1))
    result = run_bounded("why", *paths, "-n", "default", "x")
    assert result.code == 2
    assert "alias bomb" in result.one_error_line()
    with pytest.raises(InputError, match="alias bomb"):
        load_objects(paths[1::2])


def test_a_large_alias_free_document_costs_nothing_of_the_budget():
    """The bound counts what aliases add, not a document's size: `kubectl get -o yaml` of 5,000 nodes
    (ten million nodes, no alias) must pass; a handful of anchors costs what they add."""
    items = "\n".join(f"- {{kind: Node, apiVersion: v1, metadata: {{name: n{i}}}}}" for i in range(2000))
    budget = AliasBudget(limit=10)
    docs = parse_documents(f"kind: List\napiVersion: v1\nitems:\n{items}\n", "big.yaml", budget)
    assert len(docs[0]["items"]) == 2000 and budget.added == 0
    parse_documents("a: &x [1, 2, 3]\nb: *x\nc: *x\n", "anchors.yaml", budget)
    assert budget.added == 8  # two copies of a 4-node list


def _long_note(i: int) -> str:
    n = 5000 + i
    return (
        f"0/{n} nodes are available: 1 node(s) had untolerated taint "
        f"{{node-role.kubernetes.io/control-plane: }}, 2 node(s) had untolerated taint "
        f"{{rebellions.ai/maintenance: true}}, 3 node(s) didn't match Pod's node affinity/selector, "
        f"4 Insufficient cpu, 5 Insufficient memory, 6 node(s) didn't satisfy plugin(s) "
        f"[DynamicResources], {n - 21} cannot allocate all claims. still not schedulable, preemption: "
        f"0/{n} nodes are available: 1 Preemption is not helpful for scheduling, {n - 1} No "
        "preemption victims found for incoming pod."
    )


def _events(pod: tuple[str, str], count: int) -> list[dict[str, Any]]:
    namespace, name = pod
    return [
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"retry-{i}", "namespace": namespace},
            "involvedObject": {"kind": "Pod", "name": name, "namespace": namespace},
            "reason": "FailedScheduling",
            "type": "Warning",
            "message": _long_note(i),
            "lastTimestamp": f"2025-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
        }
        for i in range(count)
    ]


def _diagnosis_seconds(objects: list[dict[str, Any]], pod: tuple[str, str]) -> tuple[float, float]:
    """(seconds to build the Snapshot, seconds to diagnose the Pod): the first is the yardstick."""
    start = time.perf_counter()
    snapshot = build_snapshot(objects)
    built = time.perf_counter() - start
    (target,) = [p for p in snapshot.pods if (p.namespace, p.name) == pod]
    start = time.perf_counter()
    diagnose_pod(snapshot, target, WhyOptions())
    return built, time.perf_counter() - start


def test_thousands_of_distinct_scheduling_notes_are_parsed_in_linear_time(scenario):
    """20,000 distinct FailedScheduling notes of one Pod (a 5,000-node note with taints, plugins and a
    preemption tail): diagnosing costs a small multiple of reading them, and ten times the notes cost
    about ten times as much. Before issue 23 each note cost ~350 us of character loops and ~100
    regex scans: about 45 times the reading, a minute at 200,000 events."""
    objects, pod = scenario
    small_built, small = _diagnosis_seconds(objects + _events(pod, 2_000), pod)
    built, large = _diagnosis_seconds(objects + _events(pod, 20_000), pod)
    assert large < 25 * max(built, 0.02), (large, built)
    assert large < 20 * max(small, 0.01), (large, small)


def test_one_message_parsed_once_is_still_every_event_own_record():
    first = Event("ml", "Pod", "a", "ml", "FailedScheduling", _long_note(1))
    second = Event("ml", "Pod", "b", "ml", "FailedScheduling", _long_note(1))
    one, two = classify_event(first), classify_event(second)
    assert one.event is first and two.event is second
    assert one.scheduling is not None and two.scheduling is not None
    one.scheduling.reasons.clear()
    one.dra.clear()
    assert classify_event(second).scheduling.reasons == two.scheduling.reasons != []


def test_a_fifo_is_an_input_error_at_once(tmp_path):
    fifo = tmp_path / "bundle.json"
    os.mkfifo(fifo)
    result = run_bounded("why", "-f", str(fifo), "-n", "x", "y")  # no writer: open() would block
    assert result.code == 2
    assert "not a regular file but a FIFO" in result.one_error_line()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_is_an_input_error_named_or_on_stdin():
    result = run_bounded("why", "-f", "/dev/zero", "-n", "x", "y")
    assert result.code == 2
    assert "/dev/zero: not a regular file but a character device" in result.one_error_line()
    with open("/dev/zero", "rb") as zero:
        result = run_bounded("why", "-f", "-", "-n", "x", "y", stdin=zero)
    assert result.code == 2
    assert "<stdin>: a character device" in result.one_error_line()


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no unix sockets")
def test_a_socket_is_an_input_error(tmp_path):
    path = tmp_path / "s.json"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        assert stat.S_ISSOCK(path.stat().st_mode)
        result = run_bounded("why", "-f", str(path), "-n", "x", "y")
    finally:
        server.close()
    assert result.code == 2
    assert "not a regular file but a socket" in result.one_error_line()


def test_a_folder_is_still_read(tmp_path, scenario):
    objects, pod = scenario
    (tmp_path / "bundle.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    namespace, name = pod
    result = run_bounded("why", "-f", str(tmp_path), "-n", namespace, name)
    assert result.code == 1 and name in result.out


def _big_bundle(path: Path, objects: list[dict[str, Any]]) -> None:
    """The scenario and 60,000 ConfigMaps (~20 MB, read and dropped: no memory kept), decoded over
    a good part of a second, long enough to be changed under the reader."""
    filler = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"filler-{i:05d}", "namespace": "x"},
            "data": {"k": "v" * 200},
        }
        for i in range(60_000)
    ]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects + filler}))


def _while_mapped(path: Path, change: Callable[[Path], None], *args: str) -> _Result:
    """Run the CLI on `path` and, as soon as the file shows in the child's memory map, `change` it."""
    changed = threading.Event()

    def watch(pid: int) -> None:
        maps = Path(f"/proc/{pid}/maps")
        deadline = time.monotonic() + SECONDS
        while time.monotonic() < deadline:
            try:
                if str(path) in maps.read_text():
                    change(path)
                    changed.set()
                    return
            except OSError:  # the child ended
                return
            time.sleep(0.0005)

    def started(pid: int) -> None:
        threading.Thread(target=watch, args=(pid,), daemon=True).start()

    result = run_bounded(*args, started=started)
    assert changed.is_set(), "the file was never seen mapped"
    return result


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc/<pid>/maps")
def test_a_bundle_truncated_while_read_is_an_input_error_not_sigbus(tmp_path, scenario):
    objects, pod = scenario
    path = tmp_path / "bundle.json"
    _big_bundle(path, objects)
    namespace, name = pod

    def truncate(p: Path) -> None:
        os.truncate(p, p.stat().st_size // 3)

    result = _while_mapped(path, truncate, "why", "-f", str(path), "-n", namespace, name)
    assert result.code == 2, (result.code, result.err)  # -7 (SIGBUS) before issue 23
    assert "the file shrank while it was read" in result.one_error_line()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc/<pid>/maps")
def test_a_bundle_written_while_read_is_an_input_error(tmp_path, scenario):
    objects, pod = scenario
    path = tmp_path / "bundle.json"
    _big_bundle(path, objects)
    namespace, name = pod

    def overwrite(p: Path) -> None:
        with open(p, "r+b") as handle:
            handle.seek(p.stat().st_size - 64)
            handle.write(b" " * 8)

    result = _while_mapped(path, overwrite, "why", "-f", str(path), "-n", namespace, name)
    assert result.code == 2, (result.code, result.err)
    assert "changed while it was read" in result.one_error_line()
