"""`serve` re-reads a bundle that changes on disk; a half-written file leaves the last good one served."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from pathlib import Path

import pytest

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer
from tests.conftest import DATA

pytestmark = pytest.mark.slow  # a server on a loopback port


def pod_names(server: ReplayServer) -> list[str]:
    with urllib.request.urlopen(f"{server.url}/api/v1/namespaces/serving/pods", timeout=10) as reply:
        return sorted(p["metadata"]["name"] for p in json.loads(reply.read())["items"])


def write(path: Path, text: str, mtime_step: int) -> None:
    path.write_text(text, encoding="utf-8")
    stat = path.stat()  # a later mtime even on a coarse clock
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + mtime_step * 1_000_000_000))
    time.sleep(0.25)  # the reloader looks at most every 0.2 s


def test_a_changed_bundle_is_served_and_a_broken_one_is_not(tmp_path: Path) -> None:
    bundle = tmp_path / "b.json"
    original = json.loads((DATA / "replay-basic.json").read_text(encoding="utf-8"))
    bundle.write_text(json.dumps(original), encoding="utf-8")
    server = ReplayServer(load_objects([str(bundle)]), reload_paths=(str(bundle),)).start()
    try:
        before = pod_names(server)
        assert before and server.reloads == 0
        items = original["items"] if isinstance(original, dict) else original
        fewer = [o for o in items if not (o["kind"] == "Pod" and o["metadata"]["name"] == before[0])]
        write(bundle, json.dumps({"apiVersion": "v1", "kind": "List", "items": fewer}), 1)
        assert pod_names(server) == before[1:] and server.reloads == 1
        write(bundle, '{"apiVersion": "v1", "kind": "List", "items": [', 2)  # caught half-written
        assert pod_names(server) == before[1:] and server.reloads == 1
        write(bundle, json.dumps(original), 3)
        assert pod_names(server) == before and server.reloads == 2
    finally:
        server.stop()


def test_without_reload_paths_the_bundle_is_read_once(tmp_path: Path) -> None:
    bundle = tmp_path / "b.json"
    bundle.write_text((DATA / "replay-basic.json").read_text(encoding="utf-8"), encoding="utf-8")
    server = ReplayServer(load_objects([str(bundle)])).start()
    try:
        before = pod_names(server)
        write(bundle, '{"apiVersion": "v1", "kind": "List", "items": []}', 1)
        assert pod_names(server) == before and server.reloads == 0
    finally:
        server.stop()
