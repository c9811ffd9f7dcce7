"""The fleet use case in process: clusters read concurrently, a failing one is one entry, worst exit code.

The reads are real bundles through the source layer (`load_snapshot` on -f); one context raises the
ClusterError a dead cluster raises. The CLI end to end (two `kubectl rbln serve` and a dead context)
is tests/e2e/test_fleet_check_e2e.py.
"""

from __future__ import annotations

import threading
import time

from kubectl_rbln.app.fleet import FleetRequest, check_fleet
from kubectl_rbln.cluster.options import SourceOptions
from kubectl_rbln.cluster.source import load_snapshot
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.errors import ClusterError
from kubectl_rbln.render.fleet_table import render_fleet
from tests.conftest import DATA, EXAMPLES

BUNDLES = {"prod-a": EXAMPLES / "pending-decode.json", "lab-b": DATA / "replay-basic.json"}


def make_load(delay: float = 0.0, seen: list[str] | None = None):
    def load(context: str) -> tuple[Snapshot, str]:
        if seen is not None:
            seen.append(threading.current_thread().name)
        time.sleep(delay)
        if context not in BUNDLES:
            # the plugin's own words for it (cluster/ errors, in cli_ko.yaml too)
            raise ClusterError(f"cannot reach the cluster at https://{context}:6443: connection refused")
        snapshot, _ = load_snapshot(SourceOptions(filenames=(str(BUNDLES[context]),)), None)
        return snapshot, "serving"

    return load


def test_each_cluster_one_entry_in_the_order_asked_and_the_worst_exit_code() -> None:
    report = check_fleet(FleetRequest(("prod-a", "dead", "lab-b"), "npu-rdma"), make_load())
    assert [c.context for c in report.clusters] == ["prod-a", "dead", "lab-b"]
    assert report.exit_code() == 3
    prod = report.clusters[0]
    assert (prod.device_pods, prod.pending) == (3, 3) and prod.severities()["error"] > 0
    document = report.to_document("en")
    assert document["clusters"][1] == {
        "context": "dead",
        "exitCode": 3,
        "error": "cannot reach the cluster at https://dead:6443: connection refused",
    }
    alive = check_fleet(FleetRequest(("prod-a", "lab-b"), "npu-rdma"), make_load())
    assert alive.exit_code() == 1


def test_clusters_are_read_concurrently_and_the_pool_is_bounded() -> None:
    seen: list[str] = []
    contexts = tuple(f"dead-{i}" for i in range(6))
    started = time.monotonic()
    report = check_fleet(FleetRequest(contexts, "npu-rdma"), make_load(0.5, seen), workers=3)
    elapsed = time.monotonic() - started
    assert 0.9 < elapsed < 2.4  # 6 reads of 0.5 s, three at a time: two rounds, not six
    assert len(set(seen)) == 3
    assert all(c.error_exit == 3 for c in report.clusters)


def test_the_summary_table_in_korean_names_the_columns_and_the_failed_cluster() -> None:
    report = check_fleet(FleetRequest(("prod-a", "dead"), "npu-rdma"), make_load())
    text = render_fleet(report.to_document("ko"), color=False, wide=False, lang="ko")
    assert text.startswith("클러스터 2개 검사(1개는 검사하지 못함)\n")
    assert "디바이스 Pod" in text and "✗ dead: 검사하지 못함(종료 코드 3): " in text
    assert "의 클러스터에 연결할 수 없습니다" in text and "cannot reach" not in text  # its error too
    assert "=== context prod-a ===" in text and "=== context dead ===" not in text
