"""`check` over many clusters: every context concurrently, one result per cluster, the worst exit code.

Operators run more than one cluster; a dead one must not hide or delay the others, so each
context is read in a thread of its own (a bounded pool; the source gives each its own
ApiClient over its own Configuration) and a failure is that cluster's one line. The reading is
passed in (`load`), so this use case stays below the source layer and the tests can hand it
any Snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from kubectl_rbln.app.check import CheckReport, CheckRequest, LabelMatcher, run_check
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.errors import RblnError
from kubectl_rbln.schemas import api_version

MAX_WORKERS = 8  # clusters read at once; each read has its own few threads
SEVERITIES = ("error", "warning", "info")
Load = Callable[[str], tuple[Snapshot, str]]  # context -> (snapshot, the namespace to check)


@dataclass(frozen=True, slots=True)
class FleetRequest:
    contexts: tuple[str, ...]
    rct: str
    k8s_version: str | None = None
    feature_gates: str | None = None
    all_namespaces: bool = False  # -A: each cluster's every namespace with a device Pod or the RCT
    selector: Sequence[LabelMatcher] = ()
    selector_text: str = ""
    rct_named: bool = False


@dataclass(frozen=True, slots=True)
class ClusterResult:
    """One context: its CheckReport and counts, or the one-line error that stopped it."""

    context: str
    report: CheckReport | None = None
    device_pods: int = 0
    pending: int = 0
    error: str = ""
    error_exit: int = 0

    def exit_code(self, fail_on: str) -> int:
        return self.report.exit_code(fail_on) if self.report is not None else self.error_exit

    def severities(self) -> dict[str, int]:
        found = self.report.findings if self.report is not None else []
        return {s: sum(f.severity == s for f in found) for s in SEVERITIES}

    def to_document(self, lang: str, fail_on: str) -> dict[str, Any]:
        entry: dict[str, Any] = {"context": self.context, "exitCode": self.exit_code(fail_on)}
        if self.report is None:
            entry["error"] = self.error
            return entry
        entry.update(devicePods=self.device_pods, pending=self.pending, findings=self.severities())
        entry["report"] = self.report.to_document(lang)
        return entry


@dataclass(frozen=True, slots=True)
class FleetReport:
    clusters: list[ClusterResult]
    fail_on: str = "error"  # each cluster's exit code, in the document too, follows --fail-on

    def exit_code(self, fail_on: str | None = None) -> int:
        """The worst cluster's: 3 (a cluster unreachable) > 2 (bad input) > 1 (findings) > 0."""
        return max((c.exit_code(fail_on or self.fail_on) for c in self.clusters), default=0)

    def to_document(self, lang: str) -> dict[str, Any]:
        """The FleetCheckReport of `-o json|yaml`: one entry per context, in the order asked."""
        return {
            "apiVersion": api_version("FleetCheckReport"),
            "kind": "FleetCheckReport",
            "clusters": [c.to_document(lang, self.fail_on) for c in self.clusters],
        }


def check_one(context: str, load: Load, request: FleetRequest) -> ClusterResult:
    try:
        snapshot, namespace = load(context)
        asked = CheckRequest(
            namespace,
            request.rct,
            request.k8s_version,
            request.feature_gates,
            all_namespaces=request.all_namespaces,
            selector=request.selector,
            selector_text=request.selector_text,
            rct_named=request.rct_named,
        )
        report = run_check(snapshot, asked)
    except RblnError as error:
        return ClusterResult(context, error=error.message, error_exit=error.exit_code)
    pods = [item.diagnosis.pod for item in report.items if item.diagnosis is not None]
    pending = sum(p.phase == "Pending" for p in pods)
    return ClusterResult(context, report, device_pods=len(pods), pending=pending)


def check_fleet(
    request: FleetRequest, load: Load, fail_on: str = "error", workers: int = MAX_WORKERS
) -> FleetReport:
    """`check` on every context at once (at most `workers` together); results in the order asked."""
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(request.contexts)))) as pool:
        results = list(pool.map(lambda context: check_one(context, load, request), request.contexts))
    return FleetReport(results, fail_on)
