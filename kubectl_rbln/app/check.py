"""`check` as a use case: a Snapshot, a namespace (or every one) and the chart's RCT in, a CheckReport out.

The checklist items reuse why's own rules (diagnose/checklist.py); every device Pod also gets
its `why`. The report prints as a table (render/check_table.py) or as the `-o json` document.

`-A` checks every namespace that holds a device Pod or the chart's RCT: the cluster's items once, each
namespace's items (with a `namespace` field) after them, in the one flat `items` a script already
reads, so `.items[] | select(.status == "fail")` finds every failure whichever way it was run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kubectl_rbln.diagnose.checklist import (
    CheckItem,
    NamespaceToCheck,
    checklist_all_namespaces,
    checklist_items,
    device_pods,
)
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.findings import Finding, exit_code_for
from kubectl_rbln.diagnose.topology import rct_used_by_pods
from kubectl_rbln.diagnose.why import WhyOptions
from kubectl_rbln.dra.model import Pod, Snapshot
from kubectl_rbln.remedy.attach import Remedies
from kubectl_rbln.schemas import api_version

STATUSES = ("pass", "warn", "fail", "skip")


class LabelMatcher(Protocol):
    """One parsed `-l` requirement (selectors.py)."""

    def matches(self, labels: dict[str, str]) -> bool: ...


@dataclass(frozen=True, slots=True)
class CheckRequest:
    namespace: str  # ignored with all_namespaces
    rct: str  # the chart's devices.claimTemplateName
    k8s_version: str | None = None
    feature_gates: str | None = None
    all_namespaces: bool = False  # -A: every namespace with a device Pod or the RCT
    selector: Sequence[LabelMatcher] = ()  # -l: only these device Pods get a `why` (and count in 4, N1)
    selector_text: str = ""  # -l as typed, for the document
    rct_named: bool = False  # --rct was given: with -A every namespace is checked against it


@dataclass(frozen=True, slots=True)
class CheckReport:
    source: str
    namespace: str  # "" with -A
    rct: str
    assumptions: dict[str, Any]
    items: list[CheckItem]
    namespaces: tuple[NamespaceToCheck, ...] | None = None  # -A: the namespaces checked, in order
    selector: str = ""

    @property
    def findings(self) -> list[Finding]:
        return [f for item in self.items for f in item.findings]

    def exit_code(self, fail_on: str) -> int:
        """1 for a device Pod stuck at a stage of its life (as `why`), else by the findings."""
        if any(item.diagnosis is not None and item.diagnosis.stuck is not None for item in self.items):
            return 1
        return exit_code_for(self.findings, fail_on)

    def to_document(self, lang: str, fold_beyond: int | None = None) -> dict[str, Any]:
        """The CheckReport document of `-o json|yaml` (docs/output-schema.md), words in `lang`.

        `fold_beyond`: the table's document (render/check_table.py), where more passing device Pods than
        that in one table fold into one counted row. Those Pods' items are then only their id and
        status (`folded_item`): the table reads nothing else of them, and writing 40,000 verdicts for
        one line of output took the document from 0.08 to 0.24 s at 20,000 nodes (measured)."""
        statuses = [item.status for item in self.items]  # once each: 10,000 items at 5,000 nodes
        folded = _folded_ids(self.items, statuses, fold_beyond)
        document: dict[str, Any] = {
            "apiVersion": api_version("CheckReport"),
            "kind": "CheckReport",
            "source": self.source,
            "namespace": self.namespace,
            "rct": self.rct,
            "assumptions": self.assumptions,
            "summary": _summary(statuses),
            "items": [folded_item(item) if id(item) in folded else item.to_dict(lang) for item in self.items],
        }
        if self.selector:
            document["selector"] = self.selector
        if self.namespaces is not None:
            document["allNamespaces"] = True
            document["namespaces"] = [self._section(ns) for ns in self.namespaces]
        return document

    def _section(self, entry: NamespaceToCheck) -> dict[str, Any]:
        """One namespace of `-A`: its RCT, its items' summary (not the cluster's) and its device Pods."""
        own = [item for item in self.items if item.namespace == entry.namespace]
        diagnoses = [item.diagnosis for item in own if item.diagnosis is not None]
        return {
            "namespace": entry.namespace,
            "rct": entry.rct,
            "summary": _summary([item.status for item in own]),
            "devicePods": len(diagnoses),
            "stuckPods": sum(d.stuck is not None for d in diagnoses),
        }


def _folded_ids(items: list[CheckItem], statuses: list[str], fold_beyond: int | None) -> set[int]:
    """The passing device Pods' items of every table (a namespace's, or the one) holding more of them
    than `fold_beyond`, by identity."""
    if fold_beyond is None:
        return set()
    passing: dict[str, list[int]] = {}
    for item, status in zip(items, statuses, strict=True):
        if status == "pass" and item.id.startswith("why "):
            passing.setdefault(item.namespace, []).append(id(item))
    return {key for keys in passing.values() if len(keys) > fold_beyond for key in keys}


def folded_item(item: CheckItem) -> dict[str, Any]:
    """A passing device Pod's item in a folded table: counted in the fold row, its words never shown."""
    return {
        "id": item.id,
        "title": "",
        "expected": "",
        "found": "",
        "status": "pass",
        "findings": [],
        **({"namespace": item.namespace} if item.namespace else {}),
    }


def _summary(statuses: list[str]) -> dict[str, int]:
    return {s: statuses.count(s) for s in STATUSES}


def chosen_pods(snapshot: Snapshot, namespace: str | None, selector: Sequence[LabelMatcher]) -> list[Pod]:
    """The device Pods of `namespace` (None: every one) that `-l` matches (every one without -l)."""
    pods = device_pods(snapshot, namespace)
    return [p for p in pods if all(r.matches(p.labels) for r in selector)] if selector else pods


def checked_namespaces(snapshot: Snapshot, request: CheckRequest) -> list[NamespaceToCheck]:
    """`check -A`: the namespaces to check, sorted, each with its RCT and its chosen device Pods.

    A namespace is checked when it holds a device Pod or an RCT of the `--rct` name; with `-l`, only
    when it holds a device Pod that matches (a namespace with the RCT and no matching Pod is not what
    `-l` asked). Its RCT is `--rct` when named, else the one its device Pods use (as `topo` chooses),
    else the chart's default: a namespace whose Pods use their own RCT is checked against that one."""
    by_namespace: dict[str, list[Pod]] = {}
    for pod in chosen_pods(snapshot, None, request.selector):
        by_namespace.setdefault(pod.namespace, []).append(pod)
    if not request.selector:
        for template in snapshot.templates:
            if template.name == request.rct:
                by_namespace.setdefault(template.namespace, [])

    def rct_of(namespace: str) -> str:
        return request.rct if request.rct_named else (rct_used_by_pods(snapshot, namespace) or request.rct)

    return [NamespaceToCheck(ns, rct_of(ns), by_namespace[ns]) for ns in sorted(by_namespace)]


def run_check(snapshot: Snapshot, request: CheckRequest) -> CheckReport:
    """The whole checklist of the product documents, cluster-wide, plus `why` per device Pod."""
    choice = choose_features(snapshot, request.k8s_version, request.feature_gates)
    options = WhyOptions(features=allocator_features(choice), assumptions=choice.describe())
    namespaces: tuple[NamespaceToCheck, ...] | None = None
    if request.all_namespaces:
        namespaces = tuple(checked_namespaces(snapshot, request))
        items = checklist_all_namespaces(snapshot, list(namespaces), options)
        namespace = ""
    else:
        pods = chosen_pods(snapshot, request.namespace, request.selector)
        items = checklist_items(snapshot, request.namespace, request.rct, options, pods)
        namespace = request.namespace
    Remedies(snapshot, options.features).attach(f for item in items for f in item.findings)
    return CheckReport(
        snapshot.source,
        namespace,
        request.rct,
        options.assumptions,
        items,
        namespaces=namespaces,
        selector=request.selector_text,
    )
