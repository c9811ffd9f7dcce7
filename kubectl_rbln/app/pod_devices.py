"""`pod-devices` as one pure use case: a Snapshot, the probe runs and a request in, a report out.

The command line loads the snapshot and runs the probes (pods/exec, or the captures of a
bundle); everything between that I/O and the renderer is here, so a test calls exactly what
the command calls. `probe_targets` tells the caller which Pods to probe.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kubectl_rbln.cluster.exec_probe import ProbeProblem, ProbeResult, ProbeRun, ProbeTarget, interpret
from kubectl_rbln.diagnose import pod_devices as diagnose
from kubectl_rbln.diagnose.findings import Finding, exit_code_for
from kubectl_rbln.dra.model import Pod, Snapshot
from kubectl_rbln.errors import EXIT_CLUSTER, NotFoundError
from kubectl_rbln.schemas import api_version

SCHEMA_KIND = "PodDevicesReport"


class LabelMatcher(Protocol):
    """One parsed `-l` requirement."""

    def matches(self, labels: dict[str, str]) -> bool: ...


@dataclass(frozen=True, slots=True)
class PodDevicesRequest:
    """What the user asked: named Pods (else every device Pod in scope), the container, `-l`."""

    names: Sequence[str] = ()
    container: str = "modelserver"
    namespace: str | None = None  # None: all namespaces
    selector: Sequence[LabelMatcher] | None = None


@dataclass(slots=True)
class PodDevicesReport:
    """Every selected Pod's entry, the names not found, and whether the cluster refused every exec."""

    source: str
    container: str
    namespace: str | None
    entries: list[diagnose.PodEntry]
    problems: list[str] = field(default_factory=list)
    all_forbidden: bool = False  # every probe was refused (RBAC): not "nothing to fix"

    @property
    def findings(self) -> list[Finding]:
        return [f for entry in self.entries for f in entry.findings]

    def exit_code(self, fail_on: str) -> int:
        """1 when a finding reaches --fail-on; 3 when nothing could be probed because of RBAC."""
        code = exit_code_for(self.findings, fail_on)
        return EXIT_CLUSTER if code == 0 and self.all_forbidden else code

    def to_document(self, lang: str) -> dict[str, Any]:
        """The `-o json` document (docs/output-schema.md)."""
        document: dict[str, Any] = {
            "apiVersion": api_version(SCHEMA_KIND),
            "kind": SCHEMA_KIND,
            "source": self.source,
            "container": self.container,
            "pods": [entry.to_dict(lang) for entry in self.entries],
            "problems": self.problems,
        }
        if not self.entries:
            scope = "any namespace" if self.namespace is None else f'namespace "{self.namespace}"'
            document["message"] = (
                f"no device Pod in {scope} (Pods with DRA claims or rebellions.ai/ or rdma/ resources)"
            )
        return document


def _selected(snapshot: Snapshot, request: PodDevicesRequest) -> tuple[list[Pod], list[str]]:
    names = list(request.names)
    pods, missing = diagnose.select_pods(
        snapshot, names, request.namespace, list(request.selector) if request.selector else None
    )
    if names and not pods:
        raise NotFoundError("; ".join(missing) + f" ({snapshot.source})")
    return pods, missing


def probe_targets(snapshot: Snapshot, request: PodDevicesRequest) -> list[ProbeTarget]:
    """The containers to probe: selected Pods that exec can reach (Running, with the container)."""
    pods, _ = _selected(snapshot, request)
    return [
        ProbeTarget(p.namespace, p.name, request.container)
        for p in pods
        if diagnose.blocker(p, request.container) is None
    ]


def pod_devices(snapshot: Snapshot, request: PodDevicesRequest, runs: Iterable[ProbeRun]) -> PodDevicesReport:
    """Compare each selected Pod's probe run (`runs`, keyed by target) with its allocation."""
    pods, missing = _selected(snapshot, request)
    runs = list(runs)
    outcomes: dict[str, tuple[ProbeResult | None, ProbeProblem | None]] = {
        run.target.key: interpret(run) for run in runs
    }
    entries = []
    for pod in pods:
        result, problem = outcomes.get(pod.key, (None, diagnose.blocker(pod, request.container)))
        entries.append(diagnose.pod_entry(snapshot, pod, request.container, result, problem))
    return PodDevicesReport(
        source=snapshot.source,
        container=request.container,
        namespace=request.namespace,
        entries=entries,
        problems=missing,
        all_forbidden=bool(runs) and all(run.error_kind == "forbidden" for run in runs),
    )
