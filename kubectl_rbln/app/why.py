"""`why` as a use case: a Snapshot and which Pods in, a WhyReport out.

The CLI parses flags, loads the snapshot and the `--with-rct` file; this function picks the Pods,
chooses the simulated Kubernetes version and gates, and diagnoses each Pod once. The report
prints as text (render/why_table.py, with the closest node drawn from the same simulation) or
as the `-o json` document (`to_document`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.app.topo import NodeView, node_view
from kubectl_rbln.catalog import Phrase, Said, say, sentence
from kubectl_rbln.diagnose.context import find_pods, is_device_pod
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.findings import Finding, exit_code_for
from kubectl_rbln.diagnose.lifecycle import read_time
from kubectl_rbln.diagnose.rules.layers import source_findings
from kubectl_rbln.diagnose.why import PodDiagnosis, WhyOptions, diagnose_pod
from kubectl_rbln.dra.model import Pod, ResourceClaimTemplate, Snapshot
from kubectl_rbln.errors import NotFoundError
from kubectl_rbln.remedy.attach import Remedies
from kubectl_rbln.schemas import api_version


@dataclass(frozen=True, slots=True)
class WhyRequest:
    """Which Pods (`ns/pod` or `pod`; none: every Pending or crashing device Pod) and how to simulate."""

    pods: tuple[str, ...] = ()
    namespace: str | None = None  # None: every namespace
    with_rct: ResourceClaimTemplate | None = None
    k8s_version: str | None = None
    feature_gates: str | None = None
    selector: tuple[Any, ...] = ()  # `-l`: only Pods whose labels match every requirement (selectors.py)


@dataclass(slots=True)
class WhyReport:
    source: str
    namespace: str | None
    assumptions: dict[str, Any]
    diagnoses: list[PodDiagnosis]
    with_rct: ResourceClaimTemplate | None = None
    options: WhyOptions = field(default_factory=WhyOptions)
    hint: str = ""  # an empty namespace: where the device Pods are (stderr, and the document's message)
    # no Pod diagnosed, and the read itself is incomplete (a list with nothing where something must be):
    # said instead of "no Pending or crashing device Pod", which would read as an all-clear
    read_findings: list[Finding] = field(default_factory=list)
    read_at: str = ""  # when the objects were read (ClusterInfo readAt, else the newest event): events' ages

    @property
    def findings(self) -> list[Finding]:
        return [f for d in self.diagnoses for f in d.findings] + self.read_findings

    def exit_code(self, fail_on: str) -> int:
        """1 for a Pod stuck at a stage of its life whatever the severity of what says why (a wait at
        binding is a warning, and the Pod still does not run), else by the findings' severities."""
        if any(d.stuck is not None for d in self.diagnoses):
            return 1
        return exit_code_for(self.findings, fail_on)

    def to_document(self, lang: str) -> dict[str, Any]:
        """The WhyReport document of `-o json|yaml` (docs/output-schema.md), words in `lang`."""
        document: dict[str, Any] = {
            "apiVersion": api_version("WhyReport"),
            "kind": "WhyReport",
            "source": self.source,
            "assumptions": self.assumptions,
            "pods": [d.to_dict(lang) for d in self.diagnoses],
        }
        if self.read_at:
            document["readAt"] = self.read_at
        if self.read_findings:
            document["findings"] = [f.to_dict(lang) for f in self.read_findings]
        elif not self.diagnoses:
            empty = (
                Phrase("why-empty-any")
                if self.namespace is None
                else Phrase("why-empty-namespace", {"namespace": self.namespace})
            )
            document["message"] = say(empty, lang)
            if self.hint:
                document["message"] = sentence("then", lang, first=say(empty, lang), then=self.hint_in(lang))
        return document

    def hint_in(self, lang: str) -> str:
        """The empty-namespace hint in `lang` (stderr, and the document's message)."""
        return self.hint.text(lang) if isinstance(self.hint, Said) else self.hint

    def closest_views(self, snapshot: Snapshot) -> dict[str, NodeView]:
        """Pod -> the layout of the node that came closest to fitting, from the Pod's own simulation.

        The allocator does not run again: the node's NodeResult is the one the rules read.
        """
        views = {}
        for diagnosis in self.diagnoses:
            node = diagnosis.closest_node
            claim = next((c for c in diagnosis.context.unallocated if c.spec), None)
            if node is None or claim is None:
                continue
            replacement = self.with_rct
            name = (
                replacement.name if replacement else claim.ref.resource_claim_template_name
            ) or claim.claim_name
            views[diagnosis.pod.key] = node_view(
                snapshot,
                node,
                namespace=diagnosis.pod.namespace,
                spec=replacement.spec if replacement else claim.spec,
                rct=name,
                direct=replacement is None and not claim.ref.resource_claim_template_name,
                features=self.options.features,
                result=diagnosis.context.simulation.result(node),
                simulate=False,
            )
        return views


def needs_attention(pod: Pod) -> bool:
    """Pending, or a container that restarts: the Pods `why` looks at when none is named."""
    if pod.phase == "Pending":
        return True
    return any(s.restart_count > 0 or s.reason == "CrashLoopBackOff" for s in pod.container_states)


def select_pods(snapshot: Snapshot, names: list[str] | tuple[str, ...], namespace: str | None) -> list[Pod]:
    """Named Pods (an error if one is missing), else every device Pod that is Pending or crashing.

    With every namespace (namespace None), a bare name is looked up wherever the input has it: one
    match is that Pod, several are an error naming their namespaces."""
    if names:
        names = [_locate(snapshot, name) if namespace is None else name for name in names]
        chosen, missing = find_pods(snapshot, names, namespace)
        if missing:
            raise NotFoundError(f"{missing[0]} ({snapshot.source or 'the cluster'})")
        return chosen
    malformed = {p.name for p in snapshot.problems if p.code == "malformed" and p.kind == "Pod"}
    return [
        pod
        for pod in snapshot.pods
        if (namespace is None or pod.namespace == namespace)
        and (is_device_pod(pod) or f"{pod.namespace}/{pod.name}" in malformed)
        and needs_attention(pod)
    ]


def _locate(snapshot: Snapshot, name: str) -> str:
    """A bare Pod name, read in every namespace -> `ns/name` where the input holds it."""
    if "/" in name:
        return name
    where = sorted({p.namespace for p in snapshot.pods if p.name == name})
    if len(where) > 1:
        raise NotFoundError(
            f'pod "{name}" is in several namespaces: {", ".join(where)}',
            hint=f"name one: -n {where[0]}, or {where[0]}/{name}",
        )
    return f"{where[0]}/{name}" if where else name


def device_pod_namespaces(snapshot: Snapshot) -> list[str]:
    """The namespaces that hold device Pods, sorted."""
    return sorted({p.namespace for p in snapshot.pods if is_device_pod(p)})


def empty_scope_hint(snapshot: Snapshot, namespace: str | None) -> str:
    """No device Pod in the namespace asked for: where the device Pods are ("" when none is anywhere)."""
    if namespace is None or any(p.namespace == namespace and is_device_pod(p) for p in snapshot.pods):
        return ""
    elsewhere, there = device_pod_namespaces(snapshot), "pods"
    if not elsewhere:  # live with -n, Pods are read in that namespace only; claims in every one
        elsewhere = sorted({c.namespace for c in snapshot.claims} - {namespace})
        there = "claims"
    if not elsewhere:
        return ""
    known = namespace in snapshot.namespaces or any(p.namespace == namespace for p in snapshot.pods)
    what = "none" if known or not snapshot.namespaces else "missing"
    values = {
        "what": Phrase(f"scope-{what}", {"namespace": namespace}),
        "there": Phrase(f"scope-there-{there}"),
        "names": ", ".join(elsewhere),
        "first": elsewhere[0],
    }
    return Said(Phrase("scope-hint", values))


def why(snapshot: Snapshot, request: WhyRequest) -> WhyReport:
    """Diagnose the chosen Pods: every rule, the simulation once per Pod."""
    pods = select_pods(snapshot, request.pods, request.namespace)
    if request.selector:
        pods = [p for p in pods if all(req.matches(p.labels) for req in request.selector)]
    choice = choose_features(snapshot, request.k8s_version, request.feature_gates)
    assumptions = choice.describe()
    options = WhyOptions(
        features=allocator_features(choice), with_rct=request.with_rct, assumptions=assumptions
    )
    diagnoses = [diagnose_pod(snapshot, pod, options) for pod in pods]
    Remedies(snapshot, options.features).attach(f for d in diagnoses for f in d.findings)
    hint = "" if request.pods else empty_scope_hint(snapshot, request.namespace)
    # "no stuck device Pod" rests on the Pod list: refused, it is no answer
    unread = source_findings(snapshot, ("Pod",), "why", request.namespace) if not diagnoses else []
    at = read_time(snapshot)
    return WhyReport(
        snapshot.source,
        request.namespace,
        assumptions,
        diagnoses,
        request.with_rct,
        options,
        hint,
        unread,
        read_at=at.strftime("%Y-%m-%dT%H:%M:%SZ") if at is not None else "",
    )
