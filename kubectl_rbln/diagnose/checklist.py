"""`check` as a pure function: the checklist of seeds 001 and 002, cluster-wide, plus `why` per device Pod.

Why: the seeds give five kubectl commands and a table of expected results for a person to compare
by eye. Each item here states the same expectation, what was found, and the findings (same
catalog and severities as `why`) that make the exit code.
"""

from __future__ import annotations

import gc
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln import progress
from kubectl_rbln.catalog import Names, Phrase, join_and, say
from kubectl_rbln.diagnose.attrs import examine, rct_source
from kubectl_rbln.diagnose.context import (
    PodClaim,
    PodContext,
    is_device_pod,
    pod_context,
    probe_pod,
    resolve_claims,
)
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.placement import required_labels
from kubectl_rbln.diagnose.rct_audit import applied_spec, dropped_fields
from kubectl_rbln.diagnose.rules.layers import (
    claim_template_missing,
    drivers_of,
    missing_class_findings,
    nodes_lacking,
    refused_kinds,
    requested_classes,
    slices_missing,
    source_findings,
)
from kubectl_rbln.diagnose.rules.node_prep import device_plugin_mode, rds_label_finding
from kubectl_rbln.diagnose.rules.scheduler import CONSUMABLE_CAPACITY, dropped_from_templates
from kubectl_rbln.diagnose.rules.unallocated import unallocated_finding
from kubectl_rbln.diagnose.why import PodDiagnosis, WhyOptions, diagnose_pod
from kubectl_rbln.domain import (
    DEVICE_RESOURCE_PREFIXES,
    NIC_CLASS,
    NPU_CLASS,
    NPU_DRIVER,
    NPU_LABEL,
    RDS_LABEL,
)
from kubectl_rbln.dra.model import Node, Pod, Snapshot
from kubectl_rbln.recipes import recipe_devices

GATE_TITLE = Phrase("check-n3-title")
WHY_EXPECTED = Phrase("check-why-expected")  # one Phrase (frozen) for every device Pod's item


@dataclass(slots=True)
class CheckItem:
    id: str
    title: Phrase | str  # words are Phrases (catalog sentences), written in the reader's language
    expected: Phrase | str
    found: Phrase | str
    findings: list[Finding] = field(default_factory=list)
    applicable: bool = True
    diagnosis: PodDiagnosis | None = None  # a `why` item: its verdict, in the reader's language, is `found`
    warn: bool = False  # at least a warning, findings or not (claims not created yet have none here)
    namespace: str = ""  # `check -A`: the namespace of an item of one namespace ("" : cluster-wide)

    @property
    def status(self) -> str:
        if not self.applicable:
            return "skip"
        severities = {f.severity for f in self.findings}
        warned = "warning" in severities or self.warn
        return "fail" if "error" in severities else ("warn" if warned else "pass")

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        return {
            "id": self.id,
            "title": say(self.title, lang),
            "expected": say(self.expected, lang),
            "found": (
                self.diagnosis.verdict(lang).split(": ", 1)[-1] if self.diagnosis else say(self.found, lang)
            ),
            "status": self.status,
            "findings": [f.to_dict(lang) for f in self.findings],
            **({"namespace": self.namespace} if self.namespace else {}),
        }


def reference_context(snapshot: Snapshot, namespace: str, rct: str) -> PodContext:
    """A Pod as the chart would write it (one claim from `rct`), so `check` runs why's own rules."""
    pod = probe_pod(namespace, rct)
    return PodContext(snapshot=snapshot, pod=pod, claims=resolve_claims(snapshot, pod))


def _classes_needed(snapshot: Snapshot, namespace: str, rct: str) -> list[str]:
    template = snapshot.template(namespace, rct)
    if template is None:
        return [NPU_CLASS, NIC_CLASS]
    return sorted({a.device_class for r in template.spec.requests for a in r.alternatives})


def _reference_requests(needed: list[str]) -> list[tuple[str, str]]:
    """(request, class) of the reference recipe, the RCT the chart expects when none is there yet."""
    requests = recipe_devices("numa-aligned")["requests"]
    pairs = [(r["name"], r["exactly"]["deviceClassName"]) for r in requests]
    return [pair for pair in pairs if pair[1] in needed]


def item_device_classes(snapshot: Snapshot, namespace: str, rct: str) -> CheckItem:
    needed = _classes_needed(snapshot, namespace, rct)
    context = reference_context(snapshot, namespace, rct)
    pairs = requested_classes(context) or _reference_requests(needed)
    findings = list(missing_class_findings(context, pairs))
    missing = [c for c in needed if c not in snapshot.device_classes]
    found = (
        Phrase("check-1-missing", {"classes": ", ".join(missing)})
        if missing
        else Phrase("check-1-present", {"classes": ", ".join(needed)})
    )
    expected = Phrase("check-1-expected", {"classes": join_and(needed)})
    return CheckItem("1", Phrase("check-1-title"), expected, found, findings)


def npu_nodes(snapshot: Snapshot) -> list[Node]:
    """Nodes labelled as NPU nodes by feature discovery, or publishing NPU devices."""
    with_slices = {s.node_name for s in snapshot.slices if s.driver == NPU_DRIVER and s.any_devices()}
    return sorted(
        (n for n in snapshot.nodes.values() if n.labels.get(NPU_LABEL) == "true" or n.name in with_slices),
        key=lambda n: n.name,
    )


def item_slices(snapshot: Snapshot, namespace: str, rct: str, classes: list[str] | None = None) -> CheckItem:
    """Item 2, for the classes of `namespace`'s RCT, or of `classes` (`check -A`: every namespace's)."""
    needed = classes if classes is not None else _classes_needed(snapshot, namespace, rct)
    drivers = sorted({d for c in needed for d in drivers_of(snapshot.device_classes.get(c), c)})
    nodes = npu_nodes(snapshot)
    gaps = {d: lacking for d in drivers if (lacking := nodes_lacking(snapshot, d, nodes))}
    findings = [
        slices_missing(d, n, {"driver": d, "nodesWithout": n}, namespace=namespace, rct=rct)
        for d, n in gaps.items()
    ]
    found: Phrase
    if not nodes:
        found = Phrase("check-2-no-npu-node", {"label": NPU_LABEL})
        findings.append(slices_missing(NPU_DRIVER, [], {"npuNodes": []}, "no-npu-node", namespace=namespace))
    elif gaps:
        gap_phrases = tuple(
            Phrase("check-2-gap", {"driver": d, "nodes": ", ".join(n)}) for d, n in gaps.items()
        )
        found = Phrase("", parts=gap_phrases, sep="; ")
    else:
        found = Phrase("check-2-ok", {"drivers": join_and(drivers), "count": len(nodes)})
    expected = Phrase("check-2-expected", {"drivers": join_and(drivers)})
    return CheckItem("2", Phrase("check-2-title"), expected, found, findings)


def item_rct(snapshot: Snapshot, namespace: str, rct: str) -> CheckItem:
    exists = snapshot.template(namespace, rct) is not None
    present = sorted(t.name for t in snapshot.templates if t.namespace == namespace)
    findings = list(claim_template_missing.run(reference_context(snapshot, namespace, rct)))
    found = (
        Phrase("check-3-present")
        if exists
        else Phrase("check-3-missing", {"namespace": namespace, "names": Names(present)})
    )
    return CheckItem(
        "3", Phrase("check-3-title", {"rct": rct}), Phrase("check-3-expected", {"rct": rct}), found, findings
    )


def device_pods(snapshot: Snapshot, namespace: str | None) -> list[Any]:
    return sorted(
        (p for p in snapshot.pods if (namespace is None or p.namespace == namespace) and is_device_pod(p)),
        key=lambda p: p.key,
    )


def item_claims(
    snapshot: Snapshot, namespace: str | None, resolved: Iterable[tuple[Pod, list[PodClaim]]] | None = None
) -> CheckItem:
    """Item 4. `resolved`: each device Pod with its claims as its `why` resolved them (`check` resolves
    10,000 Pods' claims once, not twice); by default they are resolved here."""
    total, unallocated, findings = 0, [], []
    if resolved is None:
        resolved = ((pod, pod_context(snapshot, pod).claims) for pod in device_pods(snapshot, namespace))
    for pod, claims in resolved:
        for claim in claims:
            total += 1
            if claim.allocated:
                continue
            unallocated.append(f"{pod.name}/{claim.ref.name}")
            if not claim.claim_name:
                continue  # not created yet: the Pod's own `why` (the rows below) says why
            evidence = {"pod": pod.key, "podClaim": claim.ref.name, "claim": claim.claim_name}
            findings.append(unallocated_finding(pod, claim.claim_name, evidence))
    found = Phrase(
        "check-4-found",
        {"allocated": total - len(unallocated), "total": total},
        parts=(Phrase("check-4-not", {"names": Names(unallocated, limit=3)}),) if unallocated else (),
    )
    return CheckItem(
        "4",
        Phrase("check-4-title"),
        Phrase("check-4-expected"),
        found if total else Phrase("check-4-none"),
        findings,
        applicable=bool(total),
        warn=bool(unallocated),
    )


def item_attributes(snapshot: Snapshot, namespace: str, rct: str) -> CheckItem:
    examined = examine(snapshot, rct_source(snapshot, namespace, rct), with_advertised=False)
    rows, findings = examined.required, examined.findings
    good = [r for r in rows if r.verdict in ("present", "optional")]
    bad = [
        Phrase(
            "check-5-bad",
            {"attribute": r.attribute, "driver": r.driver, "verdict": Phrase(f"verdict-word-{r.verdict}")},
        )
        for r in rows
        if r not in good
    ]
    found = Phrase("check-5-found", {"good": len(good), "total": len(rows)})
    if bad:
        found = Phrase("", parts=(found, Phrase("", parts=tuple(bad), sep=", ")), sep="; ")
    return CheckItem("5", Phrase("check-5-title"), Phrase("check-5-expected"), found, findings)


def item_rds(snapshot: Snapshot, namespace: str | None, pods: list[Pod] | None = None) -> CheckItem:
    pods = device_pods(snapshot, namespace) if pods is None else pods
    wanting = [p for p in pods if required_labels(p).get(RDS_LABEL) == "true"]
    nodes = npu_nodes(snapshot)
    labelled = [n.name for n in nodes if n.labels.get(RDS_LABEL) == "true"]
    found = Phrase("check-n1-found", {"labelled": len(labelled), "nodes": len(nodes), "pods": len(wanting)})
    findings = []
    if wanting and not labelled:
        unlabelled = [n.name for n in nodes]
        evidence = {"podsRequiring": [p.key for p in wanting]}
        findings.append(rds_label_finding(wanting[0], unlabelled, evidence, blocking=True))
    return CheckItem(
        "N1",
        Phrase("check-n1-title"),
        Phrase("check-n1-expected"),
        found,
        findings,
        applicable=bool(nodes),
    )


# The lists each checklist item reads: an item whose list was refused is not run (a refused slice list
# is not "no driver publishes slices"), and item N0 says which list and why, as an error.
ITEM_READS = {
    "1": ("DeviceClass",),
    "2": ("ResourceSlice", "DeviceClass", "Node"),
    "3": ("ResourceClaimTemplate",),
    "4": ("Pod", "ResourceClaim"),
    "5": ("ResourceSlice", "ResourceClaimTemplate", "DeviceClass"),
    "N1": ("Node", "Pod"),
    "N2": ("Node", "ResourceSlice"),
    "N3": ("ResourceClaimTemplate",),
}


def unread_kinds(snapshot: Snapshot, item: CheckItem) -> list[str]:
    """The lists `item` reads that were refused, in the order the item names them."""
    refused = refused_kinds(snapshot)
    return [kind for kind in ITEM_READS.get(item.id, ()) if kind in refused]


def not_run(snapshot: Snapshot, item: CheckItem) -> CheckItem:
    """`item` skipped, with its own findings dropped, when a list it reads was refused: they were
    drawn from nothing read, not from the cluster."""
    kinds = unread_kinds(snapshot, item)
    if not kinds:
        return item
    found = Phrase("check-not-run", {"kinds": ", ".join(kinds)})
    return CheckItem(item.id, item.title, item.expected, found, applicable=False, namespace=item.namespace)


def item_read(snapshot: Snapshot, namespace: str | None, blind: Collection[str] = ()) -> CheckItem | None:
    """A list that came back with nothing where something must be (cluster/read_gaps.py), or one refused
    that an item of `blind` reads: the checklist ran without it, so it is said first; None when every
    list it needs was read."""
    findings = source_findings(snapshot, blind, "check", namespace)
    if not findings:
        return None
    kinds = ", ".join(dict.fromkeys(str(f.values["kind"]) for f in findings))
    found = Phrase("check-n0-missing", {"kinds": kinds})
    return CheckItem("N0", Phrase("check-n0-title"), Phrase("check-n0-expected"), found, findings)


def item_device_plugin(snapshot: Snapshot) -> CheckItem:
    npu_slice_nodes = {s.node_name for s in snapshot.slices if s.driver == NPU_DRIVER and s.any_devices()}
    both = []
    for node in sorted(snapshot.nodes.values(), key=lambda n: n.name):
        plugin = {
            k
            for k, v in node.allocatable.items()
            if k.startswith(DEVICE_RESOURCE_PREFIXES) and v not in ("0", "")
        }
        if plugin and node.name in npu_slice_nodes:
            both.append(f"{node.name} ({', '.join(sorted(plugin))})")
    reference = reference_context(snapshot, "", "")
    findings = [f for f in device_plugin_mode.run(reference) if f.case == "both-exposed"]
    found = Phrase("check-n2-both", {"nodes": ", ".join(both)}) if both else Phrase("check-n2-expected")
    return CheckItem("N2", Phrase("check-n2-title"), Phrase("check-n2-expected"), found, findings)


def item_consumable_gate(snapshot: Snapshot, namespace: str, rct: str) -> CheckItem:
    template = snapshot.template(namespace, rct)
    expected = Phrase("check-n3-expected")
    if template is None:
        return CheckItem("N3", GATE_TITLE, expected, Phrase("check-n3-no-rct"), applicable=False)
    applied = applied_spec(template)
    uses = any(c.distinct_attribute for c in (applied or template.spec).constraints)
    if not uses:
        return CheckItem("N3", GATE_TITLE, expected, Phrase("check-n3-unused"), applicable=False)
    dropped = dropped_fields(applied, template.spec) if applied is not None else {}
    reference = reference_context(snapshot, namespace, rct)
    findings = [f for f in dropped_from_templates(reference) if f.values["gate"] == CONSUMABLE_CAPACITY]
    if findings:
        found = Phrase("check-n3-dropped", {"fields": dropped["DRAConsumableCapacity"]})
    else:
        found = Phrase("check-n3-kept")
    return CheckItem("N3", GATE_TITLE, expected, found, findings)


def why_items(
    snapshot: Snapshot, namespace: str | None, options: WhyOptions, pods: list[Pod] | None = None
) -> list[CheckItem]:
    items = []
    if pods is None:
        pods = device_pods(snapshot, namespace)
    enabled = gc.isenabled()
    gc.disable()  # thousands of diagnoses: the collector would walk them again and again (on again after)
    shown = progress.enabled()  # no line to draw (a pipe, -o json): no count to hand it per Pod
    try:
        for done, pod in enumerate(pods, 1):
            if shown:
                progress.report("progress-checking", done=done, total=len(pods))
            items.append(_why_item(snapshot, pod, options))
    finally:
        if enabled:
            gc.enable()
    progress.done()
    return items


def _why_item(snapshot: Snapshot, pod: Any, options: WhyOptions) -> CheckItem:
    diagnosis = diagnose_pod(snapshot, pod, options)
    return CheckItem(
        f"why {pod.key}",
        pod.name,
        WHY_EXPECTED,
        "",
        diagnosis.findings,
        diagnosis=diagnosis,
    )


def checklist_items(
    snapshot: Snapshot, namespace: str, rct: str, options: WhyOptions, pods: list[Pod] | None = None
) -> list[CheckItem]:
    """The checklist of seeds 001 and 002, in their order, then `why` for every device Pod (`pods`:
    the ones `-l` chose; by default every device Pod of the namespace).

    The Pods' `why` runs before item 4 is built, which counts the claims each `why` resolved (a
    diagnosis changes a claim's spec, never which claim it is or whether it is allocated)."""
    pods = device_pods(snapshot, namespace) if pods is None else pods
    items = [
        item_device_classes(snapshot, namespace, rct),
        item_slices(snapshot, namespace, rct),
        item_rct(snapshot, namespace, rct),
    ]
    whys = why_items(snapshot, namespace, options, pods)
    resolved = [(item.diagnosis.pod, item.diagnosis.context.claims) for item in whys if item.diagnosis]
    items += [
        item_claims(snapshot, namespace, resolved),
        item_attributes(snapshot, namespace, rct),
        item_rds(snapshot, namespace, pods),
        item_device_plugin(snapshot),
        item_consumable_gate(snapshot, namespace, rct),
    ]
    blind = {kind for item in items for kind in unread_kinds(snapshot, item)}
    read = item_read(snapshot, namespace, blind)
    return [*([read] if read is not None else []), *(not_run(snapshot, item) for item in items), *whys]


def _resolved(whys: list[CheckItem]) -> list[tuple[Pod, list[PodClaim]]]:
    return [(item.diagnosis.pod, item.diagnosis.context.claims) for item in whys if item.diagnosis]


@dataclass(frozen=True, slots=True)
class NamespaceToCheck:
    """One namespace of `check -A`: the RCT its items read and the device Pods that get a `why`."""

    namespace: str
    rct: str
    pods: list[Pod]


def checklist_all_namespaces(
    snapshot: Snapshot, namespaces: list[NamespaceToCheck], options: WhyOptions
) -> list[CheckItem]:
    """`check -A`: what is the cluster's said once (N0 what could not be read, 2 the drivers' slices for
    every namespace's classes, N1 the RDS label for every device Pod, N2 the device plugin), then each
    namespace's own items (1, 3, 4, 5, N3 and its Pods' `why`), each carrying its namespace.

    Every Pod's `why` runs once, in one pass (one progress line), before the items that count claims."""
    every_pod = [pod for entry in namespaces for pod in entry.pods]
    classes = sorted({c for e in namespaces for c in _classes_needed(snapshot, e.namespace, e.rct)})
    cluster = [
        item_slices(snapshot, "", "", classes or [NPU_CLASS, NIC_CLASS]),
        item_rds(snapshot, None, every_pod),
        item_device_plugin(snapshot),
    ]
    whys = why_items(snapshot, None, options, every_pod)
    by_namespace: dict[str, list[CheckItem]] = {entry.namespace: [] for entry in namespaces}
    for item in whys:
        if item.diagnosis is not None:
            by_namespace[item.diagnosis.pod.namespace].append(item)
    sections = []
    for entry in namespaces:
        ns, rct, own = entry.namespace, entry.rct, by_namespace[entry.namespace]
        items = [
            item_device_classes(snapshot, ns, rct),
            item_rct(snapshot, ns, rct),
            item_claims(snapshot, ns, _resolved(own)),
            item_attributes(snapshot, ns, rct),
            item_consumable_gate(snapshot, ns, rct),
        ]
        for item in (*items, *own):
            item.namespace = ns
        sections.append((items, own))
    every_item = [*cluster, *(item for items, _ in sections for item in items)]
    blind = {kind for item in every_item for kind in unread_kinds(snapshot, item)}
    read = item_read(snapshot, None, blind)
    out = [*([read] if read is not None else []), *(not_run(snapshot, item) for item in cluster)]
    for items, own in sections:
        out += [*(not_run(snapshot, item) for item in items), *own]
    return out
