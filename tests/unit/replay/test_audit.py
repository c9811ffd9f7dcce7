"""The replay server's request log: exec upgrades are not writes, everything else that could write is."""

from __future__ import annotations

import threading

import pytest

from kubectl_rbln.replay.audit import Audit, AuditEntry, is_exec_path


@pytest.mark.parametrize(
    ("path", "exec_"),
    [
        ("/api/v1/namespaces/serving/pods/decode-0/exec", True),
        ("/api/v1/namespaces/serving/pods/decode-0/log", False),
        ("/api/v1/namespaces/serving/pods/decode-0", False),
        ("/api/v1/namespaces/serving/services/decode-0/exec", False),
        ("/apis/v1/namespaces/serving/pods/decode-0/exec", False),
        ("/api/v1/namespaces/serving/pods/decode-0/exec/extra", False),
    ],
)
def test_exec_path(path, exec_):
    assert is_exec_path([p for p in path.split("/") if p]) is exec_
    assert AuditEntry("POST", path, "", 200).is_exec is exec_


@pytest.mark.parametrize(
    ("method", "path", "write"),
    [
        ("GET", "/api/v1/pods", False),
        ("HEAD", "/api/v1/pods", False),
        ("DELETE", "/api/v1/namespaces/serving/pods/decode-0", True),
        ("PATCH", "/apis/resource.k8s.io/v1/resourceslices/s", True),
        ("POST", "/api/v1/namespaces/serving/pods/decode-0/exec", False),  # the websocket upgrade
        ("POST", "/api/v1/namespaces/serving/pods", True),
        ("PUT", "/api/v1/namespaces/serving/pods/decode-0/exec", False),
        ("\x16\x03\x01", "", False),  # a TLS hello read as HTTP is no write
    ],
)
def test_writes(method, path, write):
    assert AuditEntry(method, path, "", 405).is_write is write


def test_entries_are_a_snapshot_in_order_and_clear_empties():
    audit = Audit()
    first = AuditEntry("GET", "/api", "", 200)
    audit.record(first)
    seen = audit.entries()
    audit.record(AuditEntry("GET", "/apis", "labelSelector=a%3Db", 200))
    assert seen == [first]  # a copy: later requests do not change what a caller holds
    assert [e.path for e in audit.entries()] == ["/api", "/apis"]
    assert audit.entries()[1].query == "labelSelector=a%3Db"
    audit.clear()
    assert audit.entries() == []


def test_concurrent_records_are_all_kept():
    audit = Audit()

    def worker(n: int) -> None:
        for i in range(200):
            audit.record(AuditEntry("GET", f"/t{n}/{i}", "", 200))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(audit.entries()) == 800
    assert len({e.path for e in audit.entries()}) == 800
